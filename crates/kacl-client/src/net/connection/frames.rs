//! Request frames as the writer sends them: encoded in one piece, forwarded from the buffer
//! a client's request arrived in with only its head copied, or forwarded with the rest of the
//! request still in the client's socket, spliced from there as it arrives ([`RelayedRest`]).

use bytes::Bytes;
use kacl_splice::SplicedBody;

use super::in_flight::Waiter;
use crate::error::AdminError;

/// A frame queued for the writer, with who waits for its answer.
pub(super) struct Outgoing {
    pub(super) frame: OutgoingFrame,
    pub(super) correlation_id: i32,
    pub(super) reply: Waiter,
}

/// A whole request frame (size prefix, header, body) to send as it is, in up to two parts so
/// that a forwarded request's body is written from the buffer it arrived in, never copied.
#[derive(Debug)]
pub struct OutgoingFrame {
    /// The size prefix and at least the request header's first 8 bytes (API key, version,
    /// correlation id).
    pub(super) head: Vec<u8>,
    /// The rest of the frame.
    pub(super) tail: Bytes,
    /// Whether a large answer may come back as a [`kacl_splice::SplicedFrame`] (the caller
    /// passes it on unread).
    pub(super) splice_answer: bool,
    /// The frame's last part, still in the client's socket (see [`OutgoingFrame::cut_through`]).
    pub(super) rest: Option<Box<RelayedRest>>,
}

/// The end of a forwarded request that has not arrived yet: the writer relays it from the
/// client's socket straight after the frame's first part, and checks its last bytes before it
/// lets them complete the frame.
#[derive(Debug)]
pub(super) struct RelayedRest {
    /// The bytes, spliced from the client's socket; `expected_end.len()` of them held back.
    pub(super) body: SplicedBody,
    /// What the frame must end with. Anything else, and the upstream connection is closed
    /// with the frame incomplete, so the upstream never acts on a request the gateway could
    /// not check whole.
    pub(super) expected_end: Vec<u8>,
}

/// Why `Connection::try_send_frame` did not queue a frame.
#[derive(Debug)]
pub enum TrySendError {
    /// The writer's queue is full: the frame, to send with `Connection::send_frame`.
    Full(OutgoingFrame),
    /// The connection has closed (or the frame has no header).
    Failed(AdminError),
}

/// How many bytes of a forwarded request are copied into the frame's head: the size prefix,
/// API key, API version and correlation id (the part the connection rewrites).
const HEAD_LEN: usize = 12;

impl OutgoingFrame {
    /// A frame encoded in one piece (size prefix included).
    pub fn whole(frame: Vec<u8>) -> OutgoingFrame {
        OutgoingFrame {
            head: frame,
            tail: Bytes::new(),
            splice_answer: false,
            rest: None,
        }
    }

    /// A request frame as a client sent it: `payload` is the frame without its size prefix
    /// (request header first). Only its first 8 bytes are copied; the rest is sent from
    /// `payload`'s own buffer. `None` when `payload` is too short to hold a request header.
    pub fn forwarded(payload: Bytes) -> Option<OutgoingFrame> {
        let len = u32::try_from(payload.len()).ok()?;
        let header = payload.get(..HEAD_LEN - 4)?;
        let mut head = Vec::with_capacity(HEAD_LEN);
        head.extend_from_slice(&len.to_be_bytes());
        head.extend_from_slice(header);
        Some(OutgoingFrame {
            head,
            tail: payload.slice(HEAD_LEN - 4..),
            splice_answer: false,
            rest: None,
        })
    }

    /// A request frame of which only the first part has arrived (`first`: the frame without
    /// its size prefix, request header first); the rest is `body`, still in the client's
    /// socket, and must end with `expected_end`. The writer sends the first part, then relays
    /// the body as it arrives (cut-through), never holding the whole request. `None` when
    /// `first` is too short to hold a request header or the frame is too long for its prefix.
    pub fn cut_through(
        first: Bytes,
        body: SplicedBody,
        expected_end: Vec<u8>,
    ) -> Option<OutgoingFrame> {
        let total = first
            .len()
            .checked_add(body.remaining())
            .and_then(|len| u32::try_from(len).ok())
            .filter(|_| body.remaining() >= expected_end.len())?;
        let mut frame = OutgoingFrame::forwarded(first)?;
        frame.head[..4].copy_from_slice(&total.to_be_bytes());
        let held = expected_end.len();
        frame.rest = Some(Box::new(RelayedRest {
            body: body.hold_back(held),
            expected_end,
        }));
        Some(frame)
    }

    /// Lets a large answer come back with its body in a pipe
    /// ([`ForwardedAnswer::Spliced`](super::ForwardedAnswer)) when the connection is plain
    /// TCP: for a caller that passes the answer on without reading it.
    pub fn with_spliced_answer(mut self) -> OutgoingFrame {
        self.splice_answer = true;
        self
    }

    /// Overwrites the request's API version (bytes 6-7 of the frame), for a version whose
    /// request bytes are the same; false for a frame too short to have one.
    pub fn set_api_version(&mut self, version: i16) -> bool {
        match self.head.get_mut(6..8) {
            Some(field) => {
                field.copy_from_slice(&version.to_be_bytes());
                true
            }
            None => false,
        }
    }

    /// The frame's length, size prefix included.
    pub fn len(&self) -> usize {
        let rest = self.rest.as_ref().map_or(0, |rest| rest.body.remaining());
        self.head.len() + self.tail.len() + rest
    }

    /// Whether the frame is empty (never, for a valid frame).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Overwrites the correlation id (bytes 8-11 of the frame); false for a frame too short
    /// to have one.
    pub(super) fn set_correlation_id(&mut self, id: i32) -> bool {
        match self.head.get_mut(8..HEAD_LEN) {
            Some(field) => {
                field.copy_from_slice(&id.to_be_bytes());
                true
            }
            None => false,
        }
    }
}
