//! What a sent request gives back: the whole response ([`Response`]), a forwarded frame's
//! answer still on its way ([`PendingReply`]), or a large answer in chunks
//! ([`StreamedResponse`]). Each closes the connection when its request times out.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kacl_protocol::frame::decode_broker_response_frame;
use kacl_protocol::Message;
use tokio::sync::{mpsc, oneshot};

use super::in_flight::{lock, Chunk, ChunkReply, ForwardedAnswer, ForwardedReply, InFlight};
use crate::error::AdminError;

/// A response read as it arrives (`Connection::send_streamed`): its payload in chunks.
pub struct StreamedResponse {
    pub(super) chunks: mpsc::Receiver<ChunkReply>,
    pub(super) version: i16,
    pub(super) deadline: tokio::time::Instant,
    pub(super) timeout: Duration,
    pub(super) what: String,
    pub(super) addr: String,
    pub(super) in_flight: Arc<Mutex<InFlight>>,
}

impl std::fmt::Debug for StreamedResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedResponse")
            .field("what", &self.what)
            .finish_non_exhaustive()
    }
}

impl StreamedResponse {
    /// The version of the request this answers.
    pub fn version(&self) -> i16 {
        self.version
    }

    /// The next chunk, or `None` once the frame has been handed out whole. The whole frame
    /// must arrive within the request timeout (counted from sending); a timeout closes the
    /// connection, as `Connection::send`'s does.
    pub async fn next_chunk(&mut self) -> Result<Option<Chunk>, AdminError> {
        match tokio::time::timeout_at(self.deadline, self.chunks.recv()).await {
            Ok(Some(Ok(chunk))) => Ok(Some(chunk)),
            Ok(Some(Err(err))) => Err(err),
            Ok(None) => Ok(None),
            Err(_) => {
                lock(&self.in_flight).close(AdminError::network(
                    &self.addr,
                    "connection closed after a request timed out",
                ));
                Err(AdminError::Timeout {
                    what: self.what.clone(),
                    after: self.timeout,
                })
            }
        }
    }

    /// Why the connection closed, for a stream that ended early.
    pub fn closed_reason(&self) -> AdminError {
        lock(&self.in_flight)
            .closed
            .clone()
            .unwrap_or_else(|| AdminError::network(&self.addr, "connection closed"))
    }
}

/// The response to a frame sent with `Connection::send_frame`, still on its way.
pub struct PendingReply {
    pub(super) response: oneshot::Receiver<ForwardedReply>,
    pub(super) timeout: Duration,
    pub(super) addr: String,
    pub(super) in_flight: Arc<Mutex<InFlight>>,
}

impl std::fmt::Debug for PendingReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingReply")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl PendingReply {
    /// The response frame (size prefix, the broker's correlation id, the rest of the response
    /// header and the body: a gateway passes it on without copying), whole or with its body in
    /// a pipe, within the request timeout (until its head has arrived); a timeout closes the
    /// connection, as `Connection::send`'s does.
    pub async fn wait(self) -> Result<ForwardedAnswer, AdminError> {
        match tokio::time::timeout(self.timeout, self.response).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(lock(&self.in_flight)
                .closed
                .clone()
                .unwrap_or_else(|| AdminError::network(&self.addr, "connection closed"))),
            Err(_) => {
                lock(&self.in_flight).close(AdminError::network(
                    &self.addr,
                    "connection closed after a request timed out",
                ));
                Err(AdminError::Timeout {
                    what: format!("forwarded request to {}", self.addr),
                    after: self.timeout,
                })
            }
        }
    }
}

/// A raw response: its frame payload (response header and body) and the version it answers.
#[derive(Debug)]
pub struct Response {
    pub(super) payload: Vec<u8>,
    pub(super) version: i16,
}

impl Response {
    /// The version of the request this answers.
    pub fn version(&self) -> i16 {
        self.version
    }

    /// Decodes the body as `M` (borrowing from this response).
    pub fn decode<'p, M: Message<'p>>(&'p self) -> Result<M, AdminError> {
        decode_broker_response_frame::<M>(&self.payload, self.version)
            .map(|(_, body)| body)
            .map_err(|e| AdminError::decode(format!("{} v{}: {e}", M::NAME, self.version)))
    }

    /// The frame payload after the 4-byte correlation id (the response header's remainder and
    /// the body), for a caller that must peek before choosing how to decode.
    pub fn after_correlation_id(&self) -> &[u8] {
        self.payload.get(4..).unwrap_or_default()
    }
}
