//! [`Outcome`]: what the connection does after a request. Handlers return it and the connection
//! loop acts on it; it lives apart from the router so that neither handlers nor the context import
//! the router that imports them.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use kacl_protocol::{ApiKey, EncodeError, Message};
use tokio::sync::mpsc;

/// A response still on its way from the upstream: the connection writes it when it resolves,
/// in request order, and meanwhile reads and forwards the client's next requests (pipelining).
pub type PendingOutcome = Pin<Box<dyn Future<Output = Outcome> + Send + 'static>>;

/// What the connection does after a request.
pub enum Outcome {
    /// Write this response frame and read the next request.
    Respond(Vec<u8>),
    /// Wait `delay`, write this frame, then close (a failed authentication).
    RespondThenClose {
        /// The complete response frame.
        response: Vec<u8>,
        /// `connection.failed.authentication.delay.ms`.
        delay: Duration,
        /// For the log.
        reason: String,
    },
    /// Write a response frame whose head is here and whose body comes through a pipe (a
    /// large Fetch answer a gateway relays unread), then read the next request. Spliced into
    /// a plain TCP socket; read out of the pipe and written for any other stream.
    Spliced(kacl_splice::SplicedFrame),
    /// Write a response frame whose pieces arrive while it is being encoded (a large
    /// DescribeAcls answer), then read the next request.
    Stream(ResponseStream),
    /// A forwarded request whose answer comes from the upstream: the connection keeps reading
    /// and forwarding while it waits, and writes the answers in request order.
    Pending(PendingOutcome),
    /// Nothing to write (a Produce with acks=0, which Kafka never answers); read the next
    /// request.
    NoResponse,
    /// Close without answering.
    Close {
        /// For the log.
        reason: String,
    },
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Respond(frame) => f.debug_tuple("Respond").field(&frame.len()).finish(),
            Outcome::RespondThenClose { reason, .. } => f
                .debug_struct("RespondThenClose")
                .field("reason", reason)
                .finish(),
            Outcome::Spliced(frame) => f.debug_tuple("Spliced").field(&frame.len()).finish(),
            Outcome::Stream(_) => f.write_str("Stream"),
            Outcome::Pending(_) => f.write_str("Pending"),
            Outcome::NoResponse => f.write_str("NoResponse"),
            Outcome::Close { reason } => f.debug_struct("Close").field("reason", reason).finish(),
        }
    }
}

impl Outcome {
    /// A close with a reason for the log.
    pub fn close(reason: impl Into<String>) -> Outcome {
        Outcome::Close {
            reason: reason.into(),
        }
    }
}

impl Outcome {
    /// Encodes `body` as the response to a request known only by its correlation id and
    /// version (ApiVersions and the SASL exchange, answered from the session rather than a
    /// [`RequestContext`](crate::context::RequestContext), whose error codes are not counted).
    pub fn response<'m, M: Message<'m>>(correlation_id: i32, version: i16, body: &M) -> Outcome {
        let mut out = Vec::new();
        let encoded =
            kacl_protocol::frame::encode_response_frame(&mut out, correlation_id, version, body);
        Outcome::encoded(M::API_KEY, version, out, encoded)
    }

    /// The one "encode or close" step every response takes: the frame `out` if encoding
    /// succeeded, else a close (a response this version cannot express is never sent half-made).
    /// A body that did not fill the size computed for it is a bug in a size computation, never
    /// the client's doing: debug builds (tests, the fuzzer) stop on it; release builds close
    /// the connection like any other encoding failure.
    pub fn encoded(
        api: ApiKey,
        version: i16,
        out: Vec<u8>,
        encoded: Result<(), EncodeError>,
    ) -> Outcome {
        debug_assert!(
            !matches!(encoded, Err(EncodeError::SizeMismatch { .. })),
            "{encoded:?}"
        );
        match encoded {
            Ok(()) => Outcome::Respond(out),
            Err(err) => Outcome::close(format!(
                "cannot encode the {api} v{version} response: {err}"
            )),
        }
    }
}

/// One response frame in pieces, in order, from the task encoding it: the connection writes
/// each piece as it comes, so the client reads the first bytes of a large answer while the
/// rest is still being encoded.
#[derive(Debug)]
pub struct ResponseStream(mpsc::UnboundedReceiver<Piece>);

/// The encoding side of a [`ResponseStream`].
///
/// Unbounded on purpose: the encoder holds a read view of the ACL index, and waiting on a slow
/// client while holding it would hold up every ACL write. Its pieces add up to the one frame,
/// which is what a response built whole holds too.
#[derive(Debug)]
pub struct PieceSender(mpsc::UnboundedSender<Piece>);

#[derive(Debug)]
enum Piece {
    Bytes(Vec<u8>),
    Done,
    Failed(String),
}

impl ResponseStream {
    /// A stream and the sender its encoder writes to.
    pub fn channel() -> (PieceSender, ResponseStream) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (PieceSender(sender), ResponseStream(receiver))
    }

    /// The next piece; `Ok(None)` once the frame is complete. An error means the frame cannot
    /// be completed (an encoding failure, or the encoder stopped short): part of it may have
    /// been written already, so the connection must be closed.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, String> {
        match self.0.recv().await {
            Some(Piece::Bytes(bytes)) => Ok(Some(bytes)),
            Some(Piece::Done) => Ok(None),
            Some(Piece::Failed(reason)) => Err(reason),
            None => Err("the response's encoder stopped before the end of the frame".into()),
        }
    }
}

impl PieceSender {
    /// Hands over the next piece; false once the connection has stopped listening (the
    /// encoder can stop too).
    pub fn send(&self, bytes: Vec<u8>) -> bool {
        self.0.send(Piece::Bytes(bytes)).is_ok()
    }

    /// Marks the frame complete.
    pub fn finish(self) {
        let _ = self.0.send(Piece::Done);
    }

    /// Gives up on the frame; the connection closes with `reason` in its log.
    pub fn fail(self, reason: impl Into<String>) {
        let _ = self.0.send(Piece::Failed(reason.into()));
    }
}
