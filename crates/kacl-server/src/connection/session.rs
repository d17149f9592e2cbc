//! The request loop of one client connection over its [`Connection`]: read a frame, route it,
//! write its answer (several at once for a pipelining client), keep forwarded requests'
//! answers in order, and drain them at shutdown. See the parent module for the rules.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kacl_logsafe::safe;
use tokio::net::TcpStream;
use tokio::sync::watch;

use kacl_server_config::ServerConfig;
use kacl_service::context::Session;
use kacl_service::forward::{FrameRest, PendingOutcome};
use kacl_service::metrics::{Metrics, RequestTimer};
use kacl_service::outcome::ResponseStream;
use kacl_service::router;
use kacl_service::{BoundListener, Outcome, ServerState};

use crate::shutdown::wait_for_shutdown;

use super::framing::{ClientStream, Connection, ConnectionError, Frame, CLOSE_LINGER};

/// The most forwarded requests (gateway mode) a connection has at the upstream at once; past
/// it the connection stops reading until the oldest is answered. Kafka clients keep at most
/// `max.in.flight.requests.per.connection` (5 by default) outstanding anyway.
pub const MAX_IN_FLIGHT: usize = 32;

/// The longest a connection waits at shutdown for the answers of requests it has already
/// forwarded (a Fetch long-polls for up to its `max_wait_ms`, 500 ms by default).
pub const DRAIN_FORWARDED: Duration = Duration::from_secs(5);

/// The most response bytes held back to leave in one write with the next answers; a larger
/// response is written on its own, never copied.
pub const MAX_BATCH: usize = 64 * 1024;

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
    async fn write<S: ClientStream>(
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
async fn deliver<S: ClientStream>(
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
        Outcome::Spliced(frame) => {
            // Held answers are older: they leave first.
            let written = match held.write(connection, metrics, idle, shutdown).await {
                Ok(()) => connection
                    .write_spliced(frame, idle, shutdown)
                    .await
                    .map(|spliced| metrics.bytes_spliced(spliced)),
                failed => failed,
            };
            metrics.request_answered(timer);
            match written {
                Ok(()) => Step::Next { wrote: true },
                Err(err) => Step::Close(write_failure(err)),
            }
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
async fn flush<S: ClientStream>(
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
async fn drain_forwarded<S: ClientStream>(
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
async fn write_stream<S: ClientStream>(
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
    S: ClientStream,
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
    S: ClientStream,
{
    let peer = session.peer;
    tracing::debug!(%peer, listener = %session.listener.name, "connection opened");
    let max_frame = state.config.socket_request_max_bytes as usize;
    let max_frame_before_authentication = state.config.sasl_server_max_receive_size as usize;
    let idle = state.config.connections_max_idle;
    let mut connection = Connection::new(stream, max_frame);
    connection.set_memory_pool(state.request_memory.clone());
    if let Some(policy) = state
        .forwarder
        .as_deref()
        .and_then(|forwarder| forwarder.cut_through(&session.listener))
    {
        // A client that stops in the middle of a relayed request is held no longer than an
        // idle one.
        connection.set_cut_through(policy, idle.unwrap_or(Duration::from_secs(600)));
    }
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
        connection.set_limits(
            if authenticated {
                max_frame
            } else {
                max_frame_before_authentication
            },
            authenticated,
        );
        // A client quota's throttle (gateway mode, KIP-219): no request is read until it ends.
        let muted = session.link.as_deref().and_then(|link| link.muted_until());
        if !in_flight.is_empty() {
            // Answers held back for a batch are older than the head: they go out before the
            // connection waits for it.
            flush(&mut connection, &mut held, metrics, idle, &mut shutdown).await;
            // A request under a client quota is answered before the next is read.
            let awaits = session
                .link
                .as_deref()
                .is_some_and(|link| link.awaits_answer());
            let room = in_flight.len() < MAX_IN_FLIGHT && !awaits;
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
            let frame = match read {
                Ok(Some(frame)) => frame,
                Ok(None) => break "closed by the client".to_owned(),
                Err(err) => break err.to_string(),
            };
            let Some((outcome, timer)) =
                route_frame(&mut connection, &state, &mut session, frame).await
            else {
                continue;
            };
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
        let frame = match read {
            Ok(Some(frame)) => frame,
            Ok(None) => break "closed by the client".to_owned(),
            Err(err) => break err.to_string(),
        };
        let Some((outcome, timer)) =
            route_frame(&mut connection, &state, &mut session, frame).await
        else {
            continue;
        };
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

/// Routes one frame. A frame of which only the first part has arrived (cut-through, gateway
/// mode) is offered to the link first; declined, it goes back to be read whole and `None`
/// says so. Either way the request's bytes go back to the memory pool once it is handled,
/// before its answer is written, where Kafka releases them too.
async fn route_frame<S: ClientStream>(
    connection: &mut Connection<S>,
    state: &Arc<ServerState>,
    session: &mut Session,
    frame: Frame,
) -> Option<(Outcome, RequestTimer)> {
    let Frame {
        payload,
        lease,
        rest,
    } = frame;
    if rest > 0 {
        let Some(routed) = router::dispatch_head(state, session, &payload, connection) else {
            connection.read_rest(payload, lease);
            return None;
        };
        // Forwarded with its rest taken (a refusal drops the rest unread).
        if matches!(routed.0, Outcome::Pending(_)) && FrameRest::is_empty(connection) {
            state.metrics.bytes_cut_through(rest);
        }
        connection.settle_rest();
        return Some(routed);
    }
    let routed = router::dispatch(state, session, &payload).await;
    drop(payload);
    drop(lease);
    Some(routed)
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
mod tests;
