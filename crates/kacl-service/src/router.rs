//! The one place that routes a request by API key: header checks (known API, served version),
//! the SASL gate, then the handler of that API. [`ApiKey`] is the one table of served APIs: what
//! ApiVersions advertises, what the metrics count, and — through the exhaustive match in
//! [`route`] — what is routed, so adding an API is one `ApiKey` entry plus its handler.
//!
//! Every API is dispatched the same way, by [`serve`] (or [`serve_session`] for the APIs
//! answered before and during authentication): decode the body into the handler's typed
//! request, run its [`Handler`], encode its typed response; handlers never see bytes. A
//! handler's `Err` is an [`Outcome`] of its own (a close, a failed authentication's delayed
//! answer, DescribeAcls's answer encoded from the ACL index).
//!
//! Kafka's rules, which kacl follows:
//! - an API key kacl does not serve, or a header that does not parse: close the connection;
//! - ApiVersions of a version kacl does not serve: UNSUPPORTED_VERSION in a v0 body with the
//!   supported ranges (KIP-511), so the client can retry;
//! - any other API at a version outside kacl's range: close (Kafka's `parseRequestHeader`);
//! - on a gateway node, every API that is not kacl's own goes to the connection's forwarding
//!   [`Link`](crate::forward::Link) once authenticated, at the versions the gateway offers;
//!   a standalone node does not know the data-path APIs at all;
//! - on a SASL listener before authentication, only ApiVersions, SaslHandshake and
//!   SaslAuthenticate (anything else is Kafka's IllegalSaslState: close);
//! - once a session has outlived `connections.max.reauth.ms`, any request but a SaslHandshake
//!   that starts its re-authentication closes the connection (KIP-368).

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::header::RequestPrefix;
use kacl_protocol::{ApiKey, ApiRole};

use crate::context::{AuthState, RequestContext, Session, SessionContext};
use crate::forward;
use crate::handlers::{self, decode, Handler, SessionHandler};
use crate::handlers::{
    AlterClientQuotas, AlterPartitionReassignments, ConsumerGroupDescribe, DescribeClientQuotas,
    DescribeGroups, DescribeLogDirs, DescribeTopicPartitions, DescribeTransactions,
    FindCoordinator, ListGroups, ListPartitionReassignments, ListTransactions,
};
use crate::handlers::{
    AlterConfigs, AlterUserScramCredentials, ApiVersions, CreateAcls, CreatePartitions,
    CreateTopics, DeleteAcls, DeleteGroups, DeleteTopics, DescribeAcls, DescribeCluster,
    DescribeConfigs, DescribeUserScramCredentials, IncrementalAlterConfigs, Metadata,
    SaslAuthenticate, SaslHandshake,
};
use crate::metrics::RequestTimer;

use crate::outcome::Outcome;
use crate::state::ServerState;

/// Answers one frame payload (size prefix removed) and counts it in the metrics: a Kafka
/// request, or after SaslHandshake v0 a raw SASL token (which has no header and is not counted
/// as a request). The timer is the request's latency, still running: the connection hands it
/// to [`Metrics::request_answered`](crate::metrics::Metrics::request_answered) once the
/// answer's last byte is written, which for a streamed or forwarded answer is long after this
/// returns.
pub async fn dispatch(
    state: &Arc<ServerState>,
    session: &mut Session,
    payload: &Bytes,
) -> (Outcome, RequestTimer) {
    let started = Instant::now();
    if session.expects_raw_token() {
        let outcome = handlers::sasl_authenticate::handle_raw_token(state, session, payload);
        return (outcome, RequestTimer::untimed(started));
    }
    let prefix = RequestPrefix::peek(payload);
    let outcome = match &prefix {
        Ok(prefix) => route(state, session, prefix, payload).await,
        Err(err) => Outcome::close(format!("unreadable request header: {err}")),
    };
    // A data-path API on a node without a gateway is an unknown API: counted as rejected.
    let counted = prefix.ok().filter(|prefix| {
        state.forwarder.is_some()
            || prefix
                .api()
                .is_none_or(|api| api.role() != ApiRole::ForwardedOnly)
    });
    let timer = state.metrics.request_routed(counted.as_ref(), started);
    (outcome, timer)
}

/// Offers a request of which only the first part has arrived (`head`, size prefix removed;
/// `rest` still in the socket) to the connection's link for cut-through forwarding
/// ([`Link::forward_head`](crate::forward::Link::forward_head)). Only a gateway's forwarded
/// API from an authenticated, unexpired session at an offered version is offered; `None`
/// (anything else, or the link declines) leaves the frame to be read whole and [`dispatch`]ed,
/// which then makes every check and answer as usual.
pub fn dispatch_head(
    state: &Arc<ServerState>,
    session: &mut Session,
    head: &Bytes,
    rest: &mut dyn forward::FrameRest,
) -> Option<(Outcome, RequestTimer)> {
    let started = Instant::now();
    let forwarder = state.forwarder.as_deref()?;
    if session.expects_raw_token() || session.is_expired() {
        return None;
    }
    let prefix = RequestPrefix::peek(head).ok()?;
    let api = prefix.api()?;
    if forward::answered_locally(api, true)
        || !forwarder
            .offered_versions(api)?
            .contains(prefix.request_api_version)
    {
        return None;
    }
    let AuthState::Authenticated { principal, .. } = &session.auth else {
        return None;
    };
    let frame = RequestFrame::parse_within(head, state.config.request_max_decoded_bytes).ok()?;
    let ctx = RequestContext {
        state,
        principal,
        client_host: &session.client_host,
        listener: &session.listener,
        api,
        version: frame.version(),
        correlation_id: frame.header.correlation_id,
    };
    let link = session
        .link
        .get_or_insert_with(|| forwarder.link(&session.listener));
    let outcome = link.forward_head(&ctx, &frame, head, rest)?;
    // Logged once taken: a declined frame is logged when it is routed whole.
    log_request(session, api, &prefix, &frame);
    Some((
        outcome,
        state.metrics.request_routed(Some(&prefix), started),
    ))
}

/// The debug line of one routed request (the client id escaped: it is the client's text).
fn log_request(session: &Session, api: ApiKey, prefix: &RequestPrefix, frame: &RequestFrame<'_>) {
    tracing::debug!(
        peer = %session.peer,
        api = %api,
        version = prefix.request_api_version,
        correlation_id = prefix.correlation_id,
        client_id = %kacl_logsafe::safe(frame.header.client_id.as_deref().unwrap_or("")),
        "request"
    );
}

async fn route(
    state: &Arc<ServerState>,
    session: &mut Session,
    prefix: &RequestPrefix,
    payload: &Bytes,
) -> Outcome {
    let forwarder = state.forwarder.as_deref();
    let Some(api) = prefix
        .api()
        .filter(|api| api.role() != ApiRole::ForwardedOnly || forwarder.is_some())
    else {
        return Outcome::close(format!("unsupported API key {}", prefix.request_api_key));
    };
    let local = forward::answered_locally(api, forwarder.is_some());
    if session.is_expired()
        && !(api == ApiKey::SaslHandshake && session.may_reauthenticate(Instant::now()))
    {
        state.metrics.connection_expired();
        return Outcome::close(format!(
            "{api} request after the session expired without re-authentication \
             (connections.max.reauth.ms)"
        ));
    }
    // A forwarded API is served at the versions both the upstream and the gateway's
    // authorization know; one the gateway does not offer at all is an unknown API.
    let served = match (local, forwarder) {
        (false, Some(forwarder)) => match forwarder.offered_versions(api) {
            Some(range) => range,
            None => return Outcome::close(format!("{api} is not offered by this gateway")),
        },
        _ => api.versions(),
    };
    if !served.contains(prefix.request_api_version) {
        if api == ApiKey::ApiVersions {
            return handlers::api_versions::unsupported_version(prefix.correlation_id, forwarder);
        }
        return Outcome::close(format!(
            "unsupported version {} of {api} (served: {}-{})",
            prefix.request_api_version, served.min, served.max
        ));
    }
    let frame = match RequestFrame::parse_within(payload, state.config.request_max_decoded_bytes) {
        Ok(frame) => frame,
        Err(err) => return Outcome::close(format!("malformed {api} request header: {err}")),
    };
    log_request(session, api, prefix, &frame);
    // One exhaustive match over the API table. ApiVersions and the SASL exchange answer from the
    // session itself; every other API first needs an authenticated principal, which
    // `with_context!` borrows from the session into the request's context.
    macro_rules! with_context {
        (|$ctx:ident| $body:expr) => {{
            let AuthState::Authenticated { principal, .. } = &session.auth else {
                // Kafka: IllegalSaslStateException, the connection is closed.
                return Outcome::close(format!(
                    "{api} request before SASL authentication completed"
                ));
            };
            let $ctx = RequestContext {
                state,
                principal,
                client_host: &session.client_host,
                listener: &session.listener,
                api,
                version: frame.version(),
                correlation_id: frame.header.correlation_id,
            };
            $body
        }};
    }
    if !local {
        return with_context!(|ctx| {
            let link = session.link.get_or_insert_with(|| {
                forwarder
                    .expect("a forwarded API implies a forwarder")
                    .link(&session.listener)
            });
            link.forward(&ctx, &frame, payload)
        });
    }
    match api {
        ApiKey::ApiVersions => serve_session::<ApiVersions>(api, state, session, &frame).await,
        ApiKey::SaslHandshake => serve_session::<SaslHandshake>(api, state, session, &frame).await,
        ApiKey::SaslAuthenticate => {
            serve_session::<SaslAuthenticate>(api, state, session, &frame).await
        }
        ApiKey::DescribeAcls => with_context!(|ctx| serve::<DescribeAcls>(&ctx, &frame).await),
        ApiKey::CreateAcls => with_context!(|ctx| serve::<CreateAcls>(&ctx, &frame).await),
        ApiKey::DeleteAcls => with_context!(|ctx| serve::<DeleteAcls>(&ctx, &frame).await),
        ApiKey::Metadata => with_context!(|ctx| serve::<Metadata>(&ctx, &frame).await),
        ApiKey::DescribeCluster => {
            with_context!(|ctx| serve::<DescribeCluster>(&ctx, &frame).await)
        }
        ApiKey::DescribeUserScramCredentials => {
            with_context!(|ctx| serve::<DescribeUserScramCredentials>(&ctx, &frame).await)
        }
        ApiKey::AlterUserScramCredentials => {
            with_context!(|ctx| serve::<AlterUserScramCredentials>(&ctx, &frame).await)
        }
        ApiKey::CreateTopics => with_context!(|ctx| serve::<CreateTopics>(&ctx, &frame).await),
        ApiKey::DeleteTopics => with_context!(|ctx| serve::<DeleteTopics>(&ctx, &frame).await),
        ApiKey::CreatePartitions => {
            with_context!(|ctx| serve::<CreatePartitions>(&ctx, &frame).await)
        }
        ApiKey::DescribeConfigs => {
            with_context!(|ctx| serve::<DescribeConfigs>(&ctx, &frame).await)
        }
        ApiKey::AlterConfigs => with_context!(|ctx| serve::<AlterConfigs>(&ctx, &frame).await),
        ApiKey::IncrementalAlterConfigs => {
            with_context!(|ctx| serve::<IncrementalAlterConfigs>(&ctx, &frame).await)
        }
        ApiKey::AlterPartitionReassignments => {
            with_context!(|ctx| serve::<AlterPartitionReassignments>(&ctx, &frame).await)
        }
        ApiKey::ConsumerGroupDescribe => {
            with_context!(|ctx| serve::<ConsumerGroupDescribe>(&ctx, &frame).await)
        }
        ApiKey::DescribeGroups => with_context!(|ctx| serve::<DescribeGroups>(&ctx, &frame).await),
        ApiKey::DeleteGroups => with_context!(|ctx| serve::<DeleteGroups>(&ctx, &frame).await),
        ApiKey::DescribeLogDirs => {
            with_context!(|ctx| serve::<DescribeLogDirs>(&ctx, &frame).await)
        }
        ApiKey::DescribeTopicPartitions => {
            with_context!(|ctx| serve::<DescribeTopicPartitions>(&ctx, &frame).await)
        }
        ApiKey::DescribeTransactions => {
            with_context!(|ctx| serve::<DescribeTransactions>(&ctx, &frame).await)
        }
        ApiKey::FindCoordinator => {
            with_context!(|ctx| serve::<FindCoordinator>(&ctx, &frame).await)
        }
        ApiKey::ListGroups => with_context!(|ctx| serve::<ListGroups>(&ctx, &frame).await),
        ApiKey::ListPartitionReassignments => {
            with_context!(|ctx| serve::<ListPartitionReassignments>(&ctx, &frame).await)
        }
        ApiKey::ListTransactions => {
            with_context!(|ctx| serve::<ListTransactions>(&ctx, &frame).await)
        }
        ApiKey::DescribeClientQuotas => {
            with_context!(|ctx| serve::<DescribeClientQuotas>(&ctx, &frame).await)
        }
        ApiKey::AlterClientQuotas => {
            with_context!(|ctx| serve::<AlterClientQuotas>(&ctx, &frame).await)
        }
        // Forwarded-only APIs: a gateway node forwarded them above (`local` is false for
        // them); a standalone node does not know them. Named one by one, so that a new API
        // fails the build here until it is given a handler or declared forwarded-only.
        ApiKey::Produce
        | ApiKey::Fetch
        | ApiKey::ListOffsets
        | ApiKey::OffsetCommit
        | ApiKey::OffsetFetch
        | ApiKey::JoinGroup
        | ApiKey::Heartbeat
        | ApiKey::LeaveGroup
        | ApiKey::SyncGroup
        | ApiKey::DeleteRecords
        | ApiKey::InitProducerId
        | ApiKey::OffsetForLeaderEpoch
        | ApiKey::AddPartitionsToTxn
        | ApiKey::AddOffsetsToTxn
        | ApiKey::EndTxn
        | ApiKey::TxnOffsetCommit
        | ApiKey::OffsetDelete
        | ApiKey::DescribeProducers
        | ApiKey::ConsumerGroupHeartbeat => {
            Outcome::close(format!("{api} is served only by a gateway node"))
        }
    }
}

/// Decodes the body into `H`'s request, runs `H`, and encodes its response (counting the
/// response's error codes): the one path of every authenticated API, which the benches drive
/// in-process too.
pub async fn serve<'r, H: Handler>(
    ctx: &'r RequestContext<'r>,
    frame: &RequestFrame<'r>,
) -> Outcome {
    let request = match decode::<H::Request<'r>>(ctx.api, frame) {
        Ok(request) => request,
        Err(outcome) => return outcome,
    };
    match H::handle(ctx, request).await {
        Ok(response) => ctx.respond(&response),
        Err(outcome) => outcome,
    }
}

/// [`serve`] for the APIs answered from the session (before and during authentication).
async fn serve_session<'r, H: SessionHandler>(
    api: ApiKey,
    state: &'r Arc<ServerState>,
    session: &'r mut Session,
    frame: &RequestFrame<'r>,
) -> Outcome {
    let (version, correlation_id) = (frame.version(), frame.header.correlation_id);
    let request = match decode::<H::Request<'r>>(api, frame) {
        Ok(request) => request,
        Err(outcome) => return outcome,
    };
    let ctx = SessionContext {
        state,
        session,
        version,
        correlation_id,
    };
    match H::handle(ctx, request).await {
        Ok(response) => Outcome::response(correlation_id, version, &response),
        Err(outcome) => outcome,
    }
}
