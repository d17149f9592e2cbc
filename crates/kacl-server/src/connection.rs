//! One client connection: read a size-prefixed frame (bounded by `socket.request.max.bytes`),
//! answer it, write the answer, repeat. Requests on a connection are answered one at a time, in
//! order, as Kafka does (it mutes a channel while a request is in flight); connections run as
//! separate tasks, so a slow or broken client holds up nobody else.
//!
//! A pipelining client (Kafka's allow `max.in.flight.requests.per.connection`, 5 by default)
//! often has several requests in one read: those already in the read buffer are answered
//! before anything is written, and their answers leave in one write (at most
//! [`MAX_BATCH`] bytes of them), in request order. One read and one write per batch instead
//! of per request is what the kernel's share of a small request costs.
//!
//! With `queued.max.request.bytes` set, a frame's bytes are leased from the server-wide
//! [`RequestMemoryPool`] once its size is read and before its body is, and returned once it has
//! been handled; while the pool is depleted the connection just stops reading.
//!
//! A client that never reads its answers is bounded the way Kafka bounds it: the next request
//! is not read from the socket until the previous answers have been handed to the kernel (Kafka
//! mutes a channel with a response in flight), the kernel buffers are `socket.send.buffer.bytes` /
//! `socket.receive.buffer.bytes` (so one connection holds one response plus ~100 KB), and a
//! write that makes no progress for `connections.max.idle.ms` closes the connection (Kafka's
//! selector closes connections idle in either direction). At shutdown a stuck write gets
//! [`CLOSE_LINGER`] more, not the whole grace period.
//!
//! Generic over the byte stream, so TLS can wrap the TCP stream without touching this module.

use std::collections::VecDeque;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use kacl_logsafe::safe;
use kacl_protocol::frame::{frame_payload_len, FrameError, SIZE_PREFIX_LEN};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

use kacl_server_config::ServerConfig;
use kacl_service::context::Session;
use kacl_service::forward::PendingOutcome;
use kacl_service::metrics::{Metrics, RequestTimer};
use kacl_service::outcome::ResponseStream;
use kacl_service::request_memory::{MemoryLease, RequestMemoryPool};
use kacl_service::router;
use kacl_service::{BoundListener, Outcome, ServerState};

use crate::shutdown::wait_for_shutdown;

/// Longest a connection waits for the client to close after a last response.
pub const CLOSE_LINGER: std::time::Duration = std::time::Duration::from_secs(1);

/// The most forwarded requests (gateway mode) a connection has at the upstream at once; past
/// it the connection stops reading until the oldest is answered. Kafka clients keep at most
/// `max.in.flight.requests.per.connection` (5 by default) outstanding anyway.
pub const MAX_IN_FLIGHT: usize = 32;

/// The longest a connection waits at shutdown for the answers of requests it has already
/// forwarded (a Fetch long-polls for up to its `max_wait_ms`, 500 ms by default).
pub const DRAIN_FORWARDED: Duration = Duration::from_secs(5);

/// The least room made in the read buffer for a frame's body per read.
const MIN_READ_ROOM: usize = 16 * 1024;

/// The most response bytes held back to leave in one write with the next answers; a larger
/// response is written on its own, never copied.
pub const MAX_BATCH: usize = 64 * 1024;

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
    /// The socket failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// A byte stream with a read buffer that yields whole frames.
#[derive(Debug)]
pub struct Connection<S> {
    stream: S,
    buffer: BytesMut,
    max_frame: usize,
    /// Where frames lease their bytes from; `None` reads without a bound.
    memory: Option<Arc<RequestMemoryPool>>,
    /// Whether the next frames lease from `memory` (not before SASL authentication).
    charge_memory: bool,
    /// The lease of the frame being read, kept across cancelled reads.
    lease: Option<MemoryLease>,
}

/// A whole request frame, with the memory lease it holds until it is dropped.
#[derive(Debug)]
pub struct Frame {
    /// The frame without its size prefix.
    pub payload: Bytes,
    /// The bytes leased for it from `queued.max.request.bytes`, if the pool is on.
    pub lease: Option<MemoryLease>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    /// Wraps a stream; frames larger than `max_frame` bytes are refused.
    pub fn new(stream: S, max_frame: usize) -> Connection<S> {
        Connection {
            stream,
            buffer: BytesMut::with_capacity(4096),
            max_frame,
            memory: None,
            charge_memory: true,
            lease: None,
        }
    }

    /// Makes the frames read from now on lease their bytes from `pool` (`None`: no bound).
    pub fn set_memory_pool(&mut self, pool: Option<Arc<RequestMemoryPool>>) {
        self.memory = pool;
    }

    /// The next frame, or `None` when the client closed the connection between frames.
    /// Cancel-safe: bytes already read stay in the buffer, and a lease already granted stays
    /// with the connection.
    pub async fn read_frame(&mut self) -> Result<Option<Frame>, ConnectionError> {
        loop {
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
                    return Ok(Some(Frame {
                        payload: payload.freeze(),
                        lease: self.lease.take(),
                    }));
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

    /// Whether a whole frame is already buffered and can be taken without waiting: its
    /// memory lease (if the pool is on) is granted now or it is not ready.
    pub fn frame_ready(&mut self) -> bool {
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
}

/// What the connection does after delivering one outcome.
enum Step {
    /// Read the next request; `wrote` when something reached the socket.
    Next { wrote: bool },
    /// Close, for this reason.
    Close(String),
}

/// Answers held back to leave in one write with the next ones, and the timers of their
/// requests, whose latency ends when that write has gone out.
#[derive(Debug, Default)]
struct Held {
    bytes: Vec<u8>,
    timers: Vec<RequestTimer>,
}

impl Held {
    fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn hold(&mut self, response: &[u8], timer: RequestTimer) {
        self.bytes.extend_from_slice(response);
        self.timers.push(timer);
    }

    /// Writes what is held (the batch's write; a failure is the connection's end) and records
    /// each held request's latency.
    async fn write<S: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        connection: &mut Connection<S>,
        metrics: &Metrics,
        stall: Option<Duration>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(), ConnectionError> {
        let written = if self.bytes.is_empty() {
            Ok(())
        } else {
            connection
                .write_response(&self.bytes, stall, shutdown)
                .await
        };
        self.bytes.clear();
        for timer in self.timers.drain(..) {
            metrics.request_answered(timer);
        }
        written
    }
}

/// Acts on one request's outcome: writes its answer (or holds it back to leave with the next
/// one when that is already buffered), streams it, or closes; the request's latency ends once
/// its answer's last byte is written (or at once when there is nothing to write).
async fn deliver<S: AsyncRead + AsyncWrite + Unpin>(
    connection: &mut Connection<S>,
    held: &mut Held,
    outcome: Outcome,
    timer: RequestTimer,
    state: &ServerState,
    idle: Option<Duration>,
    shutdown: &mut watch::Receiver<bool>,
) -> Step {
    let metrics = &state.metrics;
    match outcome {
        Outcome::Respond(response) => {
            // The next request is already here: answer it first, write both together.
            if response.len() <= MAX_BATCH
                && held.bytes.len() + response.len() <= MAX_BATCH
                && connection.frame_ready()
            {
                held.hold(&response, timer);
                return Step::Next { wrote: false };
            }
            let written = if held.is_empty() {
                let written = connection.write_response(&response, idle, shutdown).await;
                metrics.request_answered(timer);
                written
            } else if response.len() <= MAX_BATCH {
                held.hold(&response, timer);
                held.write(connection, metrics, idle, shutdown).await
            } else {
                let written = match held.write(connection, metrics, idle, shutdown).await {
                    Ok(()) => connection.write_response(&response, idle, shutdown).await,
                    failed => failed,
                };
                metrics.request_answered(timer);
                written
            };
            match written {
                Ok(()) => Step::Next { wrote: true },
                Err(err) => Step::Close(write_failure(err)),
            }
        }
        Outcome::RespondThenClose {
            response,
            delay,
            reason,
        } => {
            let _ = held.write(connection, metrics, idle, shutdown).await;
            metrics.authentication_failed();
            // The deliberate delay of a failed authentication is not the server's latency.
            metrics.request_answered(timer);
            tokio::time::sleep(delay).await;
            if !response.is_empty() {
                let _ = connection.write_response(&response, idle, shutdown).await;
            }
            connection.close_after_response().await;
            Step::Close(reason)
        }
        Outcome::Stream(stream) => {
            let written = write_stream(connection, held, stream, metrics, idle, shutdown).await;
            metrics.request_answered(timer);
            match written {
                Ok(()) => Step::Next { wrote: true },
                Err(reason) => Step::Close(reason),
            }
        }
        outcome => {
            metrics.request_answered(timer);
            match outcome {
                Outcome::NoResponse => Step::Next { wrote: false },
                Outcome::Close { reason } => Step::Close(reason),
                // Only the router's caller sees a pending outcome (it is queued, never
                // delivered).
                _ => Step::Close("a pending answer was delivered unresolved".into()),
            }
        }
    }
}

/// Writes the answers held back for a batch, if any (a failure is the connection's end anyway).
async fn flush<S: AsyncRead + AsyncWrite + Unpin>(
    connection: &mut Connection<S>,
    held: &mut Held,
    metrics: &Metrics,
    stall: Option<Duration>,
    shutdown: &mut watch::Receiver<bool>,
) {
    let _ = held.write(connection, metrics, stall, shutdown).await;
}

/// Writes the answers of forwarded requests still in flight at shutdown, in order, for at most
/// [`DRAIN_FORWARDED`] in all (within the server's grace period); what has not come by then
/// is dropped with the connection.
async fn drain_forwarded<S: AsyncRead + AsyncWrite + Unpin>(
    connection: &mut Connection<S>,
    held: &mut Held,
    in_flight: &mut VecDeque<(PendingOutcome, RequestTimer)>,
    state: &ServerState,
    shutdown: &mut watch::Receiver<bool>,
) {
    let deadline = tokio::time::Instant::now() + DRAIN_FORWARDED;
    while let Some((head, timer)) = in_flight.pop_front() {
        let Ok(answered) = tokio::time::timeout_at(deadline, head).await else {
            tracing::debug!(
                left = in_flight.len() + 1,
                "forwarded answers still pending at shutdown are dropped"
            );
            state.metrics.request_answered(timer);
            return;
        };
        let step = deliver(
            connection,
            held,
            answered,
            timer,
            state,
            Some(CLOSE_LINGER),
            shutdown,
        );
        if let Step::Close(_) = step.await {
            return;
        }
    }
}

/// Writes a response that arrives in pieces while it is encoded (after the answers held back
/// for a batch, which came first). An `Err` is the reason to close: a write failed, or the
/// frame could not be completed after part of it was sent.
async fn write_stream<S: AsyncRead + AsyncWrite + Unpin>(
    connection: &mut Connection<S>,
    held: &mut Held,
    mut stream: ResponseStream,
    metrics: &Metrics,
    stall: Option<Duration>,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<(), String> {
    held.write(connection, metrics, stall, shutdown)
        .await
        .map_err(write_failure)?;
    while let Some(piece) = stream.next().await? {
        connection
            .write_response(&piece, stall, shutdown)
            .await
            .map_err(write_failure)?;
    }
    Ok(())
}

/// Why a connection closes after a response write failed, for its log line.
fn write_failure(err: ConnectionError) -> String {
    match err {
        ConnectionError::Io(err) => format!("cannot write the response: {err}"),
        err => err.to_string(),
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

/// Waits until a muted connection may read again (at once when it is not muted).
async fn sleep_until_unmuted(until: Option<std::time::Instant>) {
    if let Some(until) = until {
        tokio::time::sleep_until(until.into()).await;
    }
}

/// Applies `socket.send.buffer.bytes` and `socket.receive.buffer.bytes` to an accepted socket
/// (a value of -1 leaves the OS default). A fixed size also turns off the kernel's autotuning,
/// which otherwise lets a client that never reads park megabytes in each connection's buffers.
pub fn apply_buffer_sizes(stream: &TcpStream, config: &ServerConfig) {
    let socket = socket2::SockRef::from(stream);
    if let Some(bytes) = config.socket_send_buffer_bytes {
        if let Err(err) = socket.set_send_buffer_size(bytes as usize) {
            tracing::debug!(%err, "cannot set socket.send.buffer.bytes");
        }
    }
    if let Some(bytes) = config.socket_receive_buffer_bytes {
        if let Err(err) = socket.set_recv_buffer_size(bytes as usize) {
            tracing::debug!(%err, "cannot set socket.receive.buffer.bytes");
        }
    }
}

/// Serves one connection until the client leaves, a request closes it, or the server shuts
/// down (the request in flight is finished and answered first).
pub async fn serve<S>(
    stream: S,
    peer: SocketAddr,
    listener: BoundListener,
    state: Arc<ServerState>,
    shutdown: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    serve_session(stream, Session::new(listener, peer), state, shutdown).await;
}

/// Serves one connection whose session is already set up (the TLS layer fills in the
/// principal of a client certificate).
pub async fn serve_session<S>(
    stream: S,
    mut session: Session,
    state: Arc<ServerState>,
    mut shutdown: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    let peer = session.peer;
    tracing::debug!(%peer, listener = %session.listener.name, "connection opened");
    let max_frame = state.config.socket_request_max_bytes as usize;
    let max_frame_before_authentication = state.config.sasl_server_max_receive_size as usize;
    let idle = state.config.connections_max_idle;
    let mut connection = Connection::new(stream, max_frame);
    connection.set_memory_pool(state.request_memory.clone());
    // One idle timer and one shutdown wait for the connection's whole life, not one of each
    // per request (registering and clearing a timer and a watch waiter per request showed in
    // the profile of small requests): the timer is re-armed only when it fires, to the idle
    // limit past the last request.
    let idle_timer = tokio::time::sleep(idle.unwrap_or(Duration::from_secs(365 * 86_400)));
    tokio::pin!(idle_timer);
    let mut shutdown_for_reads = shutdown.clone();
    let stopped = async move { wait_for_shutdown(&mut shutdown_for_reads).await };
    tokio::pin!(stopped);
    let mut waiting_since = tokio::time::Instant::now();
    // Answers to requests that were already buffered, to be written with the next one.
    let mut held = Held::default();
    // Forwarded requests (gateway mode) whose answers are still on their way, oldest first,
    // each with its request's timer (its latency ends when the answer is written).
    let mut in_flight: VecDeque<(PendingOutcome, RequestTimer)> = VecDeque::new();
    let metrics = &state.metrics;
    let mut shutting_down = false;
    let reason: String = loop {
        // Before authentication frames are bounded by `sasl.server.max.receive.size` instead
        // of `socket.request.max.bytes` (as in Kafka, even where it is the larger), outside the
        // pool (see `crate::request_memory`).
        let authenticated = session.principal().is_some();
        connection.max_frame = if authenticated {
            max_frame
        } else {
            max_frame_before_authentication
        };
        connection.charge_memory = authenticated;
        // A client quota's throttle (gateway mode, KIP-219): no request is read until it ends.
        let muted = session.link.as_deref().and_then(|link| link.muted_until());
        if !in_flight.is_empty() {
            // Answers held back for a batch are older than the head: they go out before the
            // connection waits for it.
            flush(&mut connection, &mut held, metrics, idle, &mut shutdown).await;
            let room = in_flight.len() < MAX_IN_FLIGHT;
            let (head, _) = in_flight.front_mut().expect("not empty");
            let read = tokio::select! {
                biased;
                _ = &mut stopped => {
                    shutting_down = true;
                    break "server shutting down".to_owned();
                }
                answered = head => {
                    let (_, timer) = in_flight.pop_front().expect("the head answered");
                    match deliver(&mut connection, &mut held, answered, timer, &state, idle,
                        &mut shutdown).await
                    {
                        Step::Next { .. } => {
                            waiting_since = tokio::time::Instant::now();
                            continue;
                        }
                        Step::Close(reason) => break reason,
                    }
                }
                read = connection.read_frame(), if room && muted.is_none() => read,
                _ = sleep_until_unmuted(muted), if muted.is_some() => continue,
            };
            let Frame { payload, lease } = match read {
                Ok(Some(frame)) => frame,
                Ok(None) => break "closed by the client".to_owned(),
                Err(err) => break err.to_string(),
            };
            let (outcome, timer) = router::dispatch(&state, &mut session, &payload).await;
            drop(payload);
            drop(lease);
            in_flight.push_back((queued(outcome), timer));
            continue;
        }
        if muted.is_some() {
            tokio::select! {
                biased;
                _ = &mut stopped => break "server shutting down".to_owned(),
                _ = sleep_until_unmuted(muted) => continue,
            }
        }
        let read = tokio::select! {
            biased;
            _ = &mut stopped => {
                shutting_down = true;
                break "server shutting down".to_owned();
            }
            read = connection.read_frame() => read,
            _ = &mut idle_timer, if idle.is_some() => {
                let limit = idle.unwrap_or(Duration::from_secs(365 * 86_400));
                if waiting_since.elapsed() < limit {
                    idle_timer.as_mut().reset(waiting_since + limit);
                    continue;
                }
                Err(ConnectionError::Idle)
            }
        };
        let Frame { payload, lease } = match read {
            Ok(Some(frame)) => frame,
            Ok(None) => break "closed by the client".to_owned(),
            Err(err) => break err.to_string(),
        };
        let (outcome, timer) = router::dispatch(&state, &mut session, &payload).await;
        // Handled: the request's bytes go back to the pool before the response is written,
        // where Kafka releases them too.
        drop(payload);
        drop(lease);
        // A forwarded request's answer is still on its way: queue it, and queue every later
        // answer behind it so that all leave in request order.
        if !in_flight.is_empty() || matches!(outcome, Outcome::Pending(_)) {
            in_flight.push_back((queued(outcome), timer));
            continue;
        }
        match deliver(
            &mut connection,
            &mut held,
            outcome,
            timer,
            &state,
            idle,
            &mut shutdown,
        )
        .await
        {
            Step::Next { wrote } => {
                if wrote {
                    waiting_since = tokio::time::Instant::now();
                }
            }
            Step::Close(reason) => break reason,
        }
    };
    // Requests already forwarded when the server stops are answered before the connection
    // closes: the upstream acts on them either way (a produced batch is appended), and a
    // client that never hears of it retries and appends it twice. Nothing more is read.
    if shutting_down {
        drain_forwarded(
            &mut connection,
            &mut held,
            &mut in_flight,
            &state,
            &mut shutdown,
        )
        .await;
    }
    // Answers held back for a batch still go out (a shutdown or a closing request between
    // two buffered requests).
    flush(&mut connection, &mut held, metrics, idle, &mut shutdown).await;
    // Requests whose answers never came (the connection closed first) end here.
    for (_, timer) in in_flight.drain(..) {
        metrics.request_answered(timer);
    }
    // DEBUG, as Kafka logs connections: at INFO a flood of bare connects would flood the log.
    // `kacl_connections_accepted_total` and `kacl_connections_open` count them.
    tracing::debug!(%peer, listener = %session.listener.name,
        principal = %safe(session.principal().unwrap_or("-")), reason = %safe(&reason),
        "connection closed");
}

/// An outcome as the in-order queue holds it: a forwarded answer still on its way, or an
/// answer that is ready but must wait for the ones before it.
fn queued(outcome: Outcome) -> PendingOutcome {
    match outcome {
        Outcome::Pending(answer) => answer,
        ready => Box::pin(std::future::ready(ready)),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test]
    async fn a_declared_size_alone_allocates_nothing_large() {
        let (server_side, mut client) = tokio::io::duplex(1 << 20);
        let mut connection = Connection::new(server_side, 104_857_600);
        client
            .write_all(&100_000_000i32.to_be_bytes())
            .await
            .unwrap();
        client.write_all(&[7u8; 10]).await.unwrap();
        let waited =
            tokio::time::timeout(Duration::from_millis(100), connection.read_frame()).await;
        assert!(waited.is_err(), "the body is still missing");
        assert!(
            connection.buffer.capacity() < 1 << 20,
            "a 100 MB declaration made the buffer {} bytes",
            connection.buffer.capacity()
        );

        // As the body arrives the buffer grows with it, and the frame comes out whole.
        let body = vec![7u8; 3_000_000];
        let (server_side, mut client) = tokio::io::duplex(1 << 16);
        let mut connection = Connection::new(server_side, 104_857_600);
        let sender = tokio::spawn(async move {
            client
                .write_all(&(body.len() as i32).to_be_bytes())
                .await
                .unwrap();
            client.write_all(&body).await.unwrap();
            client
        });
        let frame = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(frame.payload.len(), 3_000_000);
        assert!(frame.payload.iter().all(|b| *b == 7));
        drop(sender.await.unwrap());
    }

    /// A gateway link whose every answer comes `delay` after the request (the upstream is not
    /// what is tested here: the connection's handling of answers still on their way is).
    #[derive(Debug)]
    struct SlowUpstream(Duration);

    impl kacl_service::forward::Forwarder for SlowUpstream {
        fn offered_versions(
            &self,
            api: kacl_protocol::ApiKey,
        ) -> Option<kacl_protocol::VersionRange> {
            Some(api.versions())
        }

        fn link(&self, _: &BoundListener) -> Box<dyn kacl_service::forward::Link> {
            Box::new(SlowLink(self.0))
        }
    }

    #[derive(Debug)]
    struct SlowLink(Duration);

    impl kacl_service::forward::Link for SlowLink {
        fn forward(
            &mut self,
            ctx: &kacl_service::context::RequestContext<'_>,
            _: &kacl_protocol::frame::RequestFrame<'_>,
            _: &Bytes,
        ) -> Outcome {
            let (delay, id) = (self.0, ctx.correlation_id);
            Outcome::Pending(Box::pin(async move {
                tokio::time::sleep(delay).await;
                let mut frame = 4i32.to_be_bytes().to_vec();
                frame.extend_from_slice(&id.to_be_bytes());
                Outcome::Respond(frame)
            }))
        }
    }

    /// A Metadata v4 request frame (a forwarded API) for all topics.
    fn metadata_request(correlation_id: i32) -> Vec<u8> {
        let mut payload = Vec::new();
        payload.extend_from_slice(&3i16.to_be_bytes());
        payload.extend_from_slice(&4i16.to_be_bytes());
        payload.extend_from_slice(&correlation_id.to_be_bytes());
        payload.extend_from_slice(&[0, 1, b'x']); // client id "x"
        payload.extend_from_slice(&(-1i32).to_be_bytes()); // topics: null (all)
        payload.push(0); // allow_auto_topic_creation
        let mut frame = (payload.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&payload);
        frame
    }

    #[tokio::test]
    async fn forwarded_answers_still_pending_at_shutdown_are_written_before_closing() {
        let config = kacl_server_config::ServerConfig::development_defaults();
        let store = Arc::new(kacl_store::MemoryStore::new());
        let state = crate::fuzzing::gateway_state_for(
            config,
            store,
            Arc::new(SlowUpstream(Duration::from_millis(300))),
        )
        .expect("a gateway state");
        let listener = state.listeners[0].clone();
        let (mut client, server_side) = tokio::io::duplex(1 << 16);
        let (stop, shutdown) = watch::channel(false);
        let served = tokio::spawn(serve(
            server_side,
            crate::fuzzing::CLIENT_ADDR,
            listener,
            state,
            shutdown,
        ));
        client.write_all(&metadata_request(7)).await.unwrap();
        client.write_all(&metadata_request(8)).await.unwrap();
        // Both are at the "upstream" when the server stops.
        tokio::time::sleep(Duration::from_millis(50)).await;
        stop.send_replace(true);
        let mut answers = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut answers))
            .await
            .expect("the connection closes within the drain bound")
            .unwrap();
        let mut expected = Vec::new();
        for id in [7i32, 8] {
            expected.extend_from_slice(&4i32.to_be_bytes());
            expected.extend_from_slice(&id.to_be_bytes());
        }
        assert_eq!(answers, expected, "both answers, in order, then the close");
        served.await.unwrap();
    }

    #[tokio::test]
    async fn a_forwarded_answer_slower_than_the_drain_bound_is_dropped_at_shutdown() {
        let config = kacl_server_config::ServerConfig::development_defaults();
        let store = Arc::new(kacl_store::MemoryStore::new());
        let slow = DRAIN_FORWARDED + Duration::from_secs(60);
        let state = crate::fuzzing::gateway_state_for(config, store, Arc::new(SlowUpstream(slow)))
            .expect("a gateway state");
        let listener = state.listeners[0].clone();
        let (mut client, server_side) = tokio::io::duplex(1 << 16);
        let (stop, shutdown) = watch::channel(false);
        let served = tokio::spawn(serve(
            server_side,
            crate::fuzzing::CLIENT_ADDR,
            listener,
            state,
            shutdown,
        ));
        client.write_all(&metadata_request(9)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let stopped_at = tokio::time::Instant::now();
        stop.send_replace(true);
        let mut answers = Vec::new();
        tokio::time::timeout(
            DRAIN_FORWARDED + Duration::from_secs(5),
            client.read_to_end(&mut answers),
        )
        .await
        .expect("closed after the drain bound")
        .unwrap();
        assert!(answers.is_empty());
        assert!(stopped_at.elapsed() >= DRAIN_FORWARDED - Duration::from_millis(100));
        served.await.unwrap();
    }
}
