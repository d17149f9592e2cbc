//! The framing of one client connection: size-prefixed frames read from the byte stream
//! (bounded by `socket.request.max.bytes`, their memory leased from the server-wide
//! [`RequestMemoryPool`] when `queued.max.request.bytes` is set) and answers written back,
//! each write bounded by `connections.max.idle.ms`, and by [`CLOSE_LINGER`] at shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use kacl_protocol::frame::{frame_payload_len, FrameError, SIZE_PREFIX_LEN};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::watch;

use kacl_service::forward::{CutThrough, FrameRest};
use kacl_service::request_memory::{MemoryLease, RequestMemoryPool};
use kacl_splice::{SplicedBody, SplicedFrame};
use tokio::net::TcpStream;

use super::frame_buffers;
use super::head_first::{HeadFirst, RestError};
use crate::shutdown::wait_for_shutdown;

/// Longest a connection waits for the client to close after a last response.
pub const CLOSE_LINGER: std::time::Duration = std::time::Duration::from_secs(1);

/// The least room made in the read buffer for a frame's body per read.
const MIN_READ_ROOM: usize = 16 * 1024;

/// How much of a large frame must have arrived before it moves into a pooled buffer of its
/// whole size ([`frame_buffers`]): a declared size alone, or a trickle of its bytes, never
/// holds more than 32 times what was sent.
const POOLED_AFTER: usize = 64 * 1024;

/// Why a connection stopped reading.
#[derive(Debug, Error)]
pub enum ConnectionError {
    /// The size prefix was negative or above the limit; closed before reading the body.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The client closed the socket in the middle of a frame.
    #[error("connection reset in the middle of a frame")]
    ResetMidFrame,
    /// No request for `connections.max.idle.ms`.
    #[error("idle for longer than connections.max.idle.ms")]
    Idle,
    /// A response write made no progress for `connections.max.idle.ms`: the client does not
    /// read its answers.
    #[error("the client read nothing of its responses for connections.max.idle.ms")]
    WriteStalled,
    /// The server is shutting down and a response write made no progress for [`CLOSE_LINGER`].
    #[error("server shutting down; the client does not read its response")]
    StalledAtShutdown,
    /// The rest of a request relayed to the upstream as it arrived failed or did not end as
    /// its first part said.
    #[error("the rest of a relayed request failed or ended otherwise than announced")]
    RelayFailed,
    /// The socket failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl From<RestError> for ConnectionError {
    fn from(err: RestError) -> ConnectionError {
        match err {
            RestError::RelayFailed => ConnectionError::RelayFailed,
            RestError::ResetMidFrame => ConnectionError::ResetMidFrame,
            RestError::Io(err) => ConnectionError::Io(err),
        }
    }
}

/// A client connection's byte stream. Plain TCP's can take a [`SplicedFrame`]'s body straight
/// from its pipe; any other has it read out of the pipe and written.
pub trait ClientStream: AsyncRead + AsyncWrite + Unpin + Send {
    /// The socket to splice into, if the stream is plain TCP.
    fn tcp(&self) -> Option<&TcpStream> {
        None
    }
}

impl ClientStream for TcpStream {
    fn tcp(&self) -> Option<&TcpStream> {
        Some(self)
    }
}

impl ClientStream for tokio_rustls::server::TlsStream<TcpStream> {}

impl ClientStream for tokio::io::DuplexStream {}

/// How much of a spliced body is read at a time for a stream that cannot be spliced into.
const UNSPLICED_PIECE: usize = 64 * 1024;

/// A byte stream with a read buffer that yields whole frames.
#[derive(Debug)]
pub struct Connection<S> {
    stream: S,
    buffer: BytesMut,
    max_frame: usize,
    /// Where frames lease their bytes from; `None` reads without a bound.
    memory: Option<Arc<RequestMemoryPool>>,
    /// Whether the client is authenticated: its next frames lease from `memory` and a large
    /// one is read into a pooled buffer (before SASL authentication frames have their own
    /// bound).
    charge_memory: bool,
    /// The lease of the frame being read, kept across cancelled reads.
    lease: Option<MemoryLease>,
    /// A large frame being read into a pooled buffer: its length and its body so far, kept
    /// across cancelled reads.
    large: Option<(usize, Vec<u8>)>,
    /// The frames handed over once their first part is here, and the state of that (plain
    /// TCP in gateway mode only; see [`HeadFirst`]).
    head_first: Option<HeadFirst>,
}

/// A request frame, with the memory lease it holds until it is dropped: whole, or (cut-through
/// reading) its first part.
#[derive(Debug)]
pub struct Frame {
    /// The frame without its size prefix (its first part when `rest` is not 0).
    pub payload: Bytes,
    /// The bytes leased for it from `queued.max.request.bytes`, if the pool is on.
    pub lease: Option<MemoryLease>,
    /// Bytes of the frame still in the socket: 0 for a whole frame. Otherwise, before the next
    /// read, the connection must be told what became of them: relayed
    /// ([`FrameRest::relay`], then [`Connection::settle_rest`]), answered without
    /// ([`Connection::settle_rest`]), or to be read after all ([`Connection::read_rest`]).
    pub rest: usize,
}

impl<S: ClientStream> Connection<S> {
    /// Sets the largest frame read next, and whether its bytes are leased from the memory
    /// pool (not before authentication, whose frames have their own bound).
    pub(super) fn set_limits(&mut self, max_frame: usize, charge_memory: bool) {
        self.max_frame = max_frame;
        self.charge_memory = charge_memory;
    }

    /// Wraps a stream; frames larger than `max_frame` bytes are refused.
    pub fn new(stream: S, max_frame: usize) -> Connection<S> {
        Connection {
            stream,
            buffer: BytesMut::with_capacity(4096),
            max_frame,
            memory: None,
            charge_memory: true,
            lease: None,
            large: None,
            head_first: None,
        }
    }

    /// Hands over frames of `policy`'s API and size once their first part is here (see
    /// [`Frame::rest`]); a client sending nothing for `stall` in the middle of a relayed rest
    /// fails it. Only for a plain TCP stream.
    pub fn set_cut_through(&mut self, policy: CutThrough, stall: Duration) {
        if self.stream.tcp().is_some() {
            self.head_first = Some(HeadFirst::new(policy, stall));
        }
    }

    /// Settles the rest of the frame last yielded with [`Frame::rest`] once its request is
    /// handled: relayed if it was taken, else read past before the next frame.
    pub fn settle_rest(&mut self) {
        if let Some(head_first) = &mut self.head_first {
            head_first.settle();
        }
    }

    /// Puts back the first part of the frame last yielded with [`Frame::rest`] (and its
    /// lease): the next [`Connection::read_frame`] reads the rest and yields the frame whole.
    pub fn read_rest(&mut self, first: Bytes, lease: Option<MemoryLease>) {
        let Some(head_first) = &mut self.head_first else {
            return;
        };
        let len = first.len() + head_first.decline();
        // Nothing is buffered past the first part (the frame was incomplete).
        let mut buffer = BytesMut::with_capacity(SIZE_PREFIX_LEN + first.len() + MIN_READ_ROOM);
        buffer.extend_from_slice(&(len as u32).to_be_bytes());
        buffer.extend_from_slice(&first);
        buffer.extend_from_slice(&self.buffer);
        self.buffer = buffer;
        self.lease = lease;
    }

    /// Makes the frames read from now on lease their bytes from `pool` (`None`: no bound).
    pub fn set_memory_pool(&mut self, pool: Option<Arc<RequestMemoryPool>>) {
        self.memory = pool;
    }

    /// The next frame, or `None` when the client closed the connection between frames.
    /// Cancel-safe: bytes already read stay in the buffer, and a lease already granted stays
    /// with the connection.
    pub async fn read_frame(&mut self) -> Result<Option<Frame>, ConnectionError> {
        if let Some(head_first) = &mut self.head_first {
            head_first.finish(&mut self.stream).await?;
        }
        loop {
            if let Some((len, body)) = &mut self.large {
                let missing = *len - body.len();
                if missing == 0 {
                    let (_, body) = self.large.take().expect("a large frame");
                    return Ok(Some(self.frame(frame_buffers::freeze(body), 0)));
                }
                // Never past the frame's end: the next frame starts in `buffer` again.
                let mut stream = (&mut self.stream).take(missing as u64);
                if stream.read_buf(body).await? == 0 {
                    return Err(ConnectionError::ResetMidFrame);
                }
                continue;
            }
            let complete = frame_payload_len(&self.buffer, self.max_frame)?;
            if let Some(prefix) = self.buffer.first_chunk::<SIZE_PREFIX_LEN>() {
                // The size is known and accepted (a negative or oversized one failed above).
                let len = usize::try_from(i32::from_be_bytes(*prefix)).unwrap_or(0);
                if let (None, true, Some(pool)) = (&self.lease, self.charge_memory, &self.memory) {
                    self.lease = Some(pool.lease(len).await);
                }
                if complete.is_some() {
                    let mut payload = self.buffer.split_to(SIZE_PREFIX_LEN + len);
                    payload.advance(SIZE_PREFIX_LEN);
                    return Ok(Some(self.frame(payload.freeze(), 0)));
                }
                let arrived = self.buffer.len() - SIZE_PREFIX_LEN;
                // Cut-through: the first part goes now, the rest stays in the socket (`buffer`
                // holds nothing past it: the frame is incomplete).
                let offered = self.head_first.as_mut().filter(|head_first| {
                    self.charge_memory && head_first.offers(&self.buffer, len, arrived)
                });
                if let Some(head_first) = offered {
                    let rest = len - arrived;
                    head_first.yielded(rest);
                    let mut first = self.buffer.split();
                    first.advance(SIZE_PREFIX_LEN);
                    return Ok(Some(self.frame(first.freeze(), rest)));
                }
                // An authenticated client's large frame moves into a pooled buffer once enough
                // of it is here (`buffer` holds nothing past it: the frame is incomplete).
                if self.charge_memory && arrived >= POOLED_AFTER {
                    if let Some(mut body) = frame_buffers::take(len) {
                        body.extend_from_slice(&self.buffer[SIZE_PREFIX_LEN..]);
                        self.buffer.clear();
                        self.large = Some((len, body));
                        continue;
                    }
                }
                // Room for what is still missing, but never more than three times what has
                // already arrived (at least MIN_READ_ROOM): a declared size alone, without its
                // bytes, never makes the server allocate it. The buffer quadruples as the body
                // comes in, so growing it copies about a third of a large frame (doubling
                // copied all of it once more, a fifth of a gateway's CPU on megabyte Produce
                // requests). A frame whose bytes the memory pool has already granted gets all
                // its room at once.
                let missing = (SIZE_PREFIX_LEN + len).saturating_sub(self.buffer.len());
                let room = match self.lease {
                    Some(_) => missing,
                    None => missing.min((self.buffer.len() * 3).max(MIN_READ_ROOM)),
                };
                self.buffer.reserve(room);
            }
            if self.stream.read_buf(&mut self.buffer).await? == 0 {
                return if self.buffer.is_empty() {
                    Ok(None)
                } else {
                    Err(ConnectionError::ResetMidFrame)
                };
            }
        }
    }

    /// A frame to hand out, with the lease it holds; the next frame is offered again.
    fn frame(&mut self, payload: Bytes, rest: usize) -> Frame {
        if let Some(head_first) = &mut self.head_first {
            head_first.frame_done();
        }
        Frame {
            payload,
            lease: self.lease.take(),
            rest,
        }
    }

    /// Whether a whole frame is already buffered and can be taken without waiting: its
    /// memory lease (if the pool is on) is granted now or it is not ready.
    pub fn frame_ready(&mut self) -> bool {
        let rest_pending = self.head_first.as_ref().is_some_and(HeadFirst::pending);
        if self.large.is_some() || rest_pending {
            return false;
        }
        let Ok(Some(len)) = frame_payload_len(&self.buffer, self.max_frame) else {
            return false;
        };
        if let (None, true, Some(pool)) = (&self.lease, self.charge_memory, &self.memory) {
            self.lease = pool.try_lease(len);
            return self.lease.is_some();
        }
        true
    }

    /// Ends the connection after a last response (a failed authentication) so that the client
    /// reads that response before it sees the connection end: wait for the client to close
    /// (it does on reading the error; anything else it sends is discarded), at most
    /// [`CLOSE_LINGER`], then close. A close right behind the response made kafka-python
    /// 3.0 report "socket disconnected" instead of SASL_AUTHENTICATION_FAILED when both
    /// arrived together.
    pub async fn close_after_response(&mut self) {
        let mut sink = [0u8; 512];
        let _ = tokio::time::timeout(CLOSE_LINGER, async {
            while matches!(self.stream.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
        // A TLS close_notify is a write too: a client that does not read must not hold it.
        let _ = tokio::time::timeout(CLOSE_LINGER, self.stream.shutdown()).await;
    }

    /// Writes bytes (a whole response frame) and flushes them, failing once a write makes no
    /// progress for `stall` (`None`: never), or for [`CLOSE_LINGER`] once `shutdown` is set.
    pub async fn write_response(
        &mut self,
        mut bytes: &[u8],
        stall: Option<Duration>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(), ConnectionError> {
        while !bytes.is_empty() {
            let written = progress(self.stream.write(bytes), stall, shutdown).await?;
            if written == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::WriteZero).into());
            }
            bytes = bytes.get(written..).unwrap_or_default();
        }
        progress(self.stream.flush(), stall, shutdown).await
    }

    /// Writes a response frame whose body comes through a pipe: its head, then the body,
    /// spliced into a plain TCP socket (or read out and written for any other stream), and
    /// returns how many bytes were spliced. Each step is bounded as
    /// [`Connection::write_response`]'s writes are; a body that stops coming (the upstream
    /// stalled) counts as no progress too.
    pub async fn write_spliced(
        &mut self,
        frame: SplicedFrame,
        stall: Option<Duration>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<usize, ConnectionError> {
        let SplicedFrame { head, mut body } = frame;
        self.write_response(&head, stall, shutdown).await?;
        if let Some(socket) = self.stream.tcp() {
            let spliced = body.remaining();
            while body.remaining() > 0 {
                progress(body.splice_some_into(socket), stall, shutdown).await?;
            }
            return Ok(spliced);
        }
        let mut piece = vec![0u8; body.remaining().min(UNSPLICED_PIECE)];
        while body.remaining() > 0 {
            let read = progress(body.read_some(&mut piece), stall, shutdown).await?;
            let bytes = piece.get(..read).unwrap_or_default();
            self.write_response(bytes, stall, shutdown).await?;
        }
        Ok(0)
    }
}

impl<S: ClientStream> FrameRest for Connection<S> {
    fn len(&self) -> usize {
        self.head_first.as_ref().map_or(0, HeadFirst::unsettled)
    }

    fn relay(&mut self) -> Option<SplicedBody> {
        self.head_first.as_mut()?.relay(self.stream.tcp()?)
    }
}

/// Runs one write step, failing when it makes no progress for `stall`, or for [`CLOSE_LINGER`]
/// once `shutdown` is set (also when it is set while the step waits).
async fn progress<T>(
    step: impl Future<Output = std::io::Result<T>>,
    stall: Option<Duration>,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<T, ConnectionError> {
    tokio::pin!(step);
    if !*shutdown.borrow() {
        let stalled = async {
            match stall {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        // Biased: the step is polled first, so a write that completes at once (the common
        // case) returns before the timer is ever registered.
        tokio::select! {
            biased;
            done = &mut step => return Ok(done?),
            _ = stalled => return Err(ConnectionError::WriteStalled),
            _ = wait_for_shutdown(shutdown) => {}
        }
    }
    let linger = stall.map_or(CLOSE_LINGER, |limit| limit.min(CLOSE_LINGER));
    match tokio::time::timeout(linger, step).await {
        Ok(done) => Ok(done?),
        Err(_) => Err(ConnectionError::StalledAtShutdown),
    }
}

#[cfg(test)]
mod tests;
