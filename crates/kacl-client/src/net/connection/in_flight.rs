//! What a connection's writer and reader share: the requests awaiting their response (each
//! with who waits for it) and why the connection closed once it has.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::{mpsc, oneshot};

use crate::error::AdminError;

pub(super) type Reply = Result<Vec<u8>, AdminError>;

/// A forwarded frame's answer: whole in memory, or its body still coming through a pipe.
#[derive(Debug)]
pub enum ForwardedAnswer {
    /// The whole frame, size prefix included.
    Whole(Vec<u8>),
    /// The frame's head in memory (size prefix, correlation id and the body's first bytes),
    /// the rest spliced from the broker's socket: only for a frame sent
    /// [`with_spliced_answer`](super::OutgoingFrame::with_spliced_answer).
    Spliced(kacl_splice::SplicedFrame),
}

pub(super) type ForwardedReply = Result<ForwardedAnswer, AdminError>;

/// One piece of a streamed response frame.
#[derive(Debug)]
pub struct Chunk {
    /// The whole payload's length (response header and body, after the size prefix).
    pub frame_len: usize,
    /// The next bytes of the payload; the first chunk starts with the correlation id.
    pub bytes: Vec<u8>,
}

pub(super) type ChunkReply = Result<Chunk, AdminError>;

/// Who waits for a response: the whole frame at once, or its chunks as they arrive.
pub(super) enum Waiter {
    Whole(oneshot::Sender<Reply>),
    Chunks(mpsc::Sender<ChunkReply>),
    /// The whole frame, size prefix included (a gateway passes it on as it is); `splice`:
    /// a large body may come through a pipe.
    Framed {
        reply: oneshot::Sender<ForwardedReply>,
        splice: bool,
    },
    /// A request that gets no response (a Produce with acks=0).
    Nobody,
}

impl Waiter {
    pub(super) fn fail(self, reason: AdminError) {
        match self {
            Waiter::Whole(reply) => {
                let _ = reply.send(Err(reason));
            }
            Waiter::Framed { reply, .. } => {
                let _ = reply.send(Err(reason));
            }
            // Nothing is queued yet while the waiter is registered: there is room.
            Waiter::Chunks(chunks) => {
                let _ = chunks.try_send(Err(reason));
            }
            Waiter::Nobody => {}
        }
    }
}

/// Requests awaiting their response, and why the connection closed once it has.
#[derive(Default)]
pub(super) struct InFlight {
    pub(super) waiting: HashMap<i32, Waiter>,
    pub(super) closed: Option<AdminError>,
}

impl InFlight {
    /// Closes the connection (first reason wins) and fails everything in flight.
    pub(super) fn close(&mut self, reason: AdminError) {
        let reason = self.closed.get_or_insert(reason).clone();
        for (_, waiter) in self.waiting.drain() {
            waiter.fail(reason.clone());
        }
    }
}

pub(super) fn lock(in_flight: &Mutex<InFlight>) -> std::sync::MutexGuard<'_, InFlight> {
    // A panic while holding the lock cannot leave the map inconsistent: keep going.
    in_flight
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
