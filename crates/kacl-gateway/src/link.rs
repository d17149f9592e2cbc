//! One client connection's forwarding side. Requests are planned (authorized) on the
//! connection's task as they arrive; what is forwarded is handed to the link's upstream task,
//! which opens the service identity's connection to the connection's upstream broker on first
//! use and sends the frames in arrival order without waiting for answers (pipelining, like
//! the client itself). Each answer comes back to the connection as a pending outcome, which
//! it writes in request order.
//!
//! One upstream connection per client connection, never shared between clients: a Kafka
//! broker answers one connection's requests strictly in order, so a long-polling Fetch or a
//! JoinGroup waiting for a rebalance on a shared connection would hold up every other
//! client's requests behind it, and the upstream's throttling of one connection would land
//! on all of them.

use std::sync::Arc;

use kacl_client::net::{BrokerConnection, PendingReply};
use kacl_client::AdminError;
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::ApiKey;
use kacl_service::context::RequestContext;
use kacl_service::forward::Link;
use kacl_service::Outcome;
use tokio::sync::{mpsc, oneshot};

use crate::plan::{pass_through, Asker, Plan};
use crate::{rules, Shared};

/// A frame for the upstream task, and where to hand its pending answer.
struct Job {
    frame: Vec<u8>,
    expects_response: bool,
    sent: oneshot::Sender<Result<Option<PendingReply>, AdminError>>,
}

pub(crate) struct ClientLink {
    shared: Arc<Shared>,
    /// The upstream broker this connection is for (`None`: the bootstrap listener).
    target: Option<i32>,
    /// The upstream task's queue, started on the first forwarded request.
    jobs: Option<mpsc::UnboundedSender<Job>>,
}

impl std::fmt::Debug for ClientLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientLink")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl ClientLink {
    pub(crate) fn new(shared: Arc<Shared>, target: Option<i32>) -> ClientLink {
        ClientLink {
            shared,
            target,
            jobs: None,
        }
    }

    fn queue(&mut self) -> &mpsc::UnboundedSender<Job> {
        self.jobs.get_or_insert_with(|| {
            // Unbounded: the connection forwards at most what it reads, and it reads no more
            // than its pending answers allow (the connection's in-flight bound).
            let (sender, jobs) = mpsc::unbounded_channel();
            tokio::spawn(upstream_task(self.shared.clone(), self.target, jobs));
            sender
        })
    }
}

impl Link for ClientLink {
    fn forward(
        &mut self,
        ctx: &RequestContext<'_>,
        frame: &RequestFrame<'_>,
        payload: &[u8],
    ) -> Outcome {
        let (request, expects_response, finish) = match rules::plan(&self.shared, ctx, frame) {
            Plan::Answer(outcome) => return outcome,
            Plan::Forward {
                request,
                expects_response,
                finish,
            } => (request, expects_response, finish),
        };
        let frame = request.unwrap_or_else(|| {
            let mut whole = Vec::with_capacity(4 + payload.len());
            whole.extend_from_slice(&(payload.len() as u32).to_be_bytes());
            whole.extend_from_slice(payload);
            whole
        });
        let (sent, on_sent) = oneshot::channel();
        let job = Job {
            frame,
            expects_response,
            sent,
        };
        if self.queue().send(job).is_err() {
            return Outcome::close("the upstream connection has closed");
        }
        // Only a rewrite needs the request's context after the answer: the pass-through fast
        // path keeps its correlation id and API, and copies nothing else of the request.
        let (api, correlation_id) = (ctx.api, ctx.correlation_id);
        let finish = finish.map(|finish| (finish, Asker::of(ctx)));
        Outcome::Pending(Box::pin(async move {
            let reply = match on_sent.await {
                Ok(Ok(reply)) => reply,
                Ok(Err(err)) => return upstream_failed(api, &err),
                Err(_) => return Outcome::close("the upstream connection has closed"),
            };
            let Some(reply) = reply else {
                return Outcome::NoResponse;
            };
            match (reply.wait().await, finish) {
                (Ok(payload), Some((finish, asker))) => finish(&asker, payload),
                (Ok(payload), None) => pass_through(correlation_id, payload),
                (Err(err), _) => upstream_failed(api, &err),
            }
        }))
    }
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
) {
    let mut conn: Option<Arc<BrokerConnection>> = None;
    while let Some(job) = jobs.recv().await {
        let usable = match &conn {
            Some(open) if !open.conn.is_closed() => open.clone(),
            _ => match shared.upstream.open(target).await {
                Ok(open) => {
                    conn = Some(open.clone());
                    open
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
        let _ = job.sent.send(sent);
        if failed {
            return;
        }
    }
}
