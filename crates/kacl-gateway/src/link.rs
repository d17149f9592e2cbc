//! One client connection's forwarding side. Requests are planned (authorized) on the
//! connection's task as they arrive; what is forwarded is handed to the link's upstream task,
//! which opens the service identity's connection to the connection's upstream broker on first
//! use and sends the frames in arrival order without waiting for answers (pipelining, like
//! the client itself). Each answer comes back to the connection as a pending outcome, which
//! it writes in request order.
//!
//! Once the upstream connection is open and no earlier frame is still waiting in the upstream
//! task's queue, a frame goes straight from the client connection's task to the upstream
//! connection's writer: one task hop fewer per request, which is most of what a forwarded
//! request costs besides the kernel's copies.
//!
//! One upstream connection per client connection, never shared between clients: a Kafka
//! broker answers one connection's requests strictly in order, so a long-polling Fetch or a
//! JoinGroup waiting for a rebalance on a shared connection would hold up every other
//! client's requests behind it, and the upstream's throttling of one connection would land
//! on all of them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use kacl_client::net::{
    BrokerConnection, ForwardedAnswer, OutgoingFrame, PendingReply, TrySendError,
};
use kacl_client::AdminError;
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::ApiKey;
use kacl_service::context::RequestContext;
use kacl_service::forward::{FrameRest, Link};
use kacl_service::Outcome;
use tokio::sync::{mpsc, oneshot};

use crate::plan::{pass_through, pass_through_spliced, Asker, Finish, Plan, Relay};
use crate::quota::ConnectionQuota;
use crate::{rules, Shared};

/// A frame for the upstream task, and where to hand its pending answer.
struct Job {
    frame: OutgoingFrame,
    expects_response: bool,
    sent: oneshot::Sender<Result<Option<PendingReply>, AdminError>>,
}

pub(crate) struct ClientLink {
    shared: Arc<Shared>,
    /// The upstream broker this connection is for (`None`: the bootstrap listener).
    target: Option<i32>,
    /// The upstream task's queue, started on the first forwarded request.
    jobs: Option<mpsc::UnboundedSender<Job>>,
    /// The upstream connection as the upstream task opened it.
    open: Arc<OpenUpstream>,
    /// The client quotas that apply to this connection, and its mute.
    quota: ConnectionQuota,
    /// Whether large answers passed on unread may be spliced into the client's socket (plain
    /// TCP, `kacl.gateway.splice.enable`).
    splice: bool,
}

/// What the upstream task shares with the client connection's task.
#[derive(Debug, Default)]
struct OpenUpstream {
    /// The upstream connection, once open.
    conn: parking_lot::Mutex<Option<Arc<BrokerConnection>>>,
    /// Jobs queued for the upstream task and not yet handed to the connection's writer: a
    /// frame may bypass the task only when there are none, so frames leave in request order.
    queued: AtomicUsize,
}

impl std::fmt::Debug for ClientLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientLink")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl ClientLink {
    pub(crate) fn new(shared: Arc<Shared>, target: Option<i32>, splice: bool) -> ClientLink {
        ClientLink {
            shared,
            target,
            jobs: None,
            open: Arc::default(),
            quota: ConnectionQuota::default(),
            splice,
        }
    }

    /// Hands `frame` straight to the open upstream connection's writer, or gives it back when
    /// it must go through the upstream task (not open yet, earlier frames queued, writer full).
    fn try_direct(
        &self,
        frame: OutgoingFrame,
        expects_response: bool,
    ) -> Result<Result<Option<PendingReply>, AdminError>, OutgoingFrame> {
        if self.open.queued.load(Ordering::Acquire) != 0 {
            return Err(frame);
        }
        let Some(conn) = self.open.conn.lock().clone() else {
            return Err(frame);
        };
        match conn.conn.try_send_frame(frame, expects_response) {
            Ok(reply) => Ok(Ok(reply)),
            Err(TrySendError::Full(frame)) => Err(frame),
            Err(TrySendError::Failed(err)) => Ok(Err(err)),
        }
    }

    fn queue(&mut self) -> &mpsc::UnboundedSender<Job> {
        self.jobs.get_or_insert_with(|| {
            // Unbounded: the connection forwards at most what it reads, and it reads no more
            // than its pending answers allow (the connection's in-flight bound).
            let (sender, jobs) = mpsc::unbounded_channel();
            tokio::spawn(upstream_task(
                self.shared.clone(),
                self.target,
                jobs,
                self.open.clone(),
            ));
            sender
        })
    }
}

impl ClientLink {
    /// Sends a planned request's frame (`frame_len`: its length without the size prefix, for
    /// the client's quotas) and returns the pending outcome of its answer.
    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        ctx: &RequestContext<'_>,
        client_id: &str,
        frame_len: usize,
        mut frame: OutgoingFrame,
        expects_response: bool,
        finish: Option<Finish>,
        relay: Relay,
    ) -> Outcome {
        let meter = self
            .quota
            .meter(&self.shared.quota_sensors, ctx, client_id, frame_len);
        if let Some(version) = relay.upstream_version {
            frame.set_api_version(version);
        }
        if relay.bulk && self.splice && finish.is_none() {
            frame = frame.with_spliced_answer();
        }
        // Only a rewrite needs the request's context after the answer: the pass-through fast
        // path keeps its correlation id and API, and copies nothing else of the request.
        let (api, correlation_id) = (ctx.api, ctx.correlation_id);
        let finish = finish.map(|finish| (finish, Asker::of(ctx)));
        let sent = match self.try_direct(frame, expects_response) {
            Ok(sent) => Sent::Now(sent),
            Err(frame) => {
                let (sent, on_sent) = oneshot::channel();
                let job = Job {
                    frame,
                    expects_response,
                    sent,
                };
                self.open.queued.fetch_add(1, Ordering::AcqRel);
                if self.queue().send(job).is_err() {
                    return Outcome::close("the upstream connection has closed");
                }
                Sent::Later(on_sent)
            }
        };
        let answer = Box::pin(async move {
            let reply = match sent {
                Sent::Now(sent) => sent,
                Sent::Later(on_sent) => match on_sent.await {
                    Ok(sent) => sent,
                    Err(_) => return Outcome::close("the upstream connection has closed"),
                },
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(err) => return upstream_failed(api, &err),
            };
            let Some(reply) = reply else {
                return Outcome::NoResponse;
            };
            match (reply.wait().await, finish) {
                (Ok(ForwardedAnswer::Whole(payload)), Some((finish, asker))) => {
                    finish(&asker, payload)
                }
                (Ok(ForwardedAnswer::Whole(payload)), None) => {
                    pass_through(correlation_id, payload)
                }
                (Ok(ForwardedAnswer::Spliced(frame)), None) => {
                    pass_through_spliced(correlation_id, frame)
                }
                // Never asked for: a rewritten answer is never sent `with_spliced_answer`.
                (Ok(ForwardedAnswer::Spliced(_)), Some(_)) => {
                    Outcome::close("a spliced answer for a request whose answer is rewritten")
                }
                (Err(err), _) => upstream_failed(api, &err),
            }
        });
        match meter {
            None => Outcome::Pending(answer),
            Some(meter) => Outcome::Pending(Box::pin(async move { meter.finish(answer.await) })),
        }
    }
}

impl Link for ClientLink {
    fn forward(
        &mut self,
        ctx: &RequestContext<'_>,
        frame: &RequestFrame<'_>,
        payload: &Bytes,
    ) -> Outcome {
        let (request, expects_response, finish, relay) = match rules::plan(&self.shared, ctx, frame)
        {
            Plan::Answer(outcome) => return outcome,
            Plan::Forward {
                request,
                expects_response,
                finish,
                relay,
            } => (request, expects_response, finish, relay),
        };
        // The client's own bytes are sent from the buffer they were read into.
        let outgoing = match request {
            Some(reduced) => OutgoingFrame::whole(reduced),
            None => match OutgoingFrame::forwarded(payload.clone()) {
                Some(frame) => frame,
                None => return Outcome::close("a request shorter than its header"),
            },
        };
        let client_id = frame.header.client_id.as_deref().unwrap_or("");
        self.send(
            ctx,
            client_id,
            payload.len(),
            outgoing,
            expects_response,
            finish,
            relay,
        )
    }

    /// Cut-through Produce: a one-topic, one-partition request (what a producer sends a
    /// leader of one busy partition) is authorized on its first part, which is sent at once;
    /// its record data follows from the client's socket into the upstream's through a pipe as
    /// it arrives, never copied through the gateway's memory nor held whole. The frame's last
    /// bytes are checked before they complete it upstream (see `OutgoingFrame::cut_through`).
    fn forward_head(
        &mut self,
        ctx: &RequestContext<'_>,
        frame: &RequestFrame<'_>,
        head: &Bytes,
        rest: &mut dyn FrameRest,
    ) -> Option<Outcome> {
        if ctx.api != ApiKey::Produce || !self.splice {
            return None;
        }
        let checked = rules::ProduceHead::check(&self.shared, ctx.version, frame.body, rest.len())?;
        let expected_end = checked.expected_end.to_vec();
        let frame_len = head.len() + rest.len();
        // Taken before the decision: a rest that cannot be relayed must leave nothing decided
        // (the whole request is then planned, and audited, once).
        let body = rest.relay()?;
        let (expects_response, finish, relay) = match checked.plan(&self.shared, ctx) {
            // Refused: the body is dropped untouched, and the connection reads past it.
            Plan::Answer(outcome) => return Some(outcome),
            Plan::Forward {
                expects_response,
                finish,
                relay,
                ..
            } => (expects_response, finish, relay),
        };
        let Some(outgoing) = OutgoingFrame::cut_through(head.clone(), body, expected_end) else {
            return Some(Outcome::close("a request shorter than its header"));
        };
        let client_id = frame.header.client_id.as_deref().unwrap_or("");
        Some(self.send(
            ctx,
            client_id,
            frame_len,
            outgoing,
            expects_response,
            finish,
            relay,
        ))
    }

    fn muted_until(&self) -> Option<std::time::Instant> {
        self.quota.muted_until()
    }

    fn awaits_answer(&self) -> bool {
        self.quota.awaits_metered()
    }
}

/// A frame handed to the upstream connection at once, or through the upstream task.
enum Sent {
    Now(Result<Option<PendingReply>, AdminError>),
    Later(oneshot::Receiver<Result<Option<PendingReply>, AdminError>>),
}

/// The client's connection closes when its upstream connection fails: to a Kafka client that
/// is a broker gone away, which it handles by refreshing metadata and retrying (an answer with
/// a made-up error would need per-API knowledge of which codes each client retries).
fn upstream_failed(api: ApiKey, err: &AdminError) -> Outcome {
    tracing::info!(api = %api, err = %kacl_logsafe::safe(&err.to_string()),
        "upstream connection failed; closing the client's connection");
    Outcome::close(format!("upstream: {err}"))
}

/// Opens the upstream connection on the first job and sends every job's frame in order.
async fn upstream_task(
    shared: Arc<Shared>,
    target: Option<i32>,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    open: Arc<OpenUpstream>,
) {
    let mut conn: Option<Arc<BrokerConnection>> = None;
    while let Some(job) = jobs.recv().await {
        let usable = match &conn {
            Some(open) if !open.conn.is_closed() => open.clone(),
            _ => match shared.upstream.open(target).await {
                Ok(opened) => {
                    conn = Some(opened.clone());
                    *open.conn.lock() = Some(opened.clone());
                    opened
                }
                Err(err) => {
                    let _ = job.sent.send(Err(err));
                    // Later jobs would fail the same way; the client's connection closes on
                    // the first failure anyway.
                    return;
                }
            },
        };
        let sent = usable
            .conn
            .send_frame(job.frame, job.expects_response)
            .await;
        let failed = sent.is_err();
        // Handed to the writer (or failed): a later frame may now bypass this task.
        open.queued.fetch_sub(1, Ordering::AcqRel);
        let _ = job.sent.send(sent);
        if failed {
            return;
        }
    }
}
