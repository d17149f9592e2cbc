//! The one place that routes a request by API key: header checks (known API, served version),
//! the SASL gate, then the handler of that API. [`ApiKey`] is the one table of served APIs: what
//! ApiVersions advertises, what the metrics count, and — through the exhaustive match in
//! [`route`] — what is routed, so adding an API is one `ApiKey` entry plus its handler.
//!
//! The router decodes each request body into its typed request and encodes the handler's typed
//! response; handlers never see bytes. The exceptions are the SASL state machine (which changes
//! the session and may close the connection) and DescribeAcls, whose answer is streamed.
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

use crate::context::{AuthState, RequestContext, Session};
use crate::forward;
use crate::handlers::{self, decode};
use crate::outcome::Outcome;
use crate::state::ServerState;

/// Answers one frame payload (size prefix removed) and records it in the metrics: a Kafka
/// request, or after SaslHandshake v0 a raw SASL token (which has no header and is not counted
/// as a request).
pub async fn dispatch(state: &Arc<ServerState>, session: &mut Session, payload: &Bytes) -> Outcome {
    if session.expects_raw_token() {
        return handlers::sasl_authenticate::handle_raw_token(state, session, payload);
    }
    let started = Instant::now();
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
    state
        .metrics
        .request_finished(counted.as_ref(), started.elapsed());
    outcome
}

/// Decodes the request body for a typed handler, or returns the [`Outcome`] that closes the
/// connection on a malformed body.
macro_rules! decode_or_close {
    ($ctx:expr, $frame:expr) => {
        match decode($ctx.api, &$frame) {
            Ok(request) => request,
            Err(outcome) => return outcome,
        }
    };
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
        return Outcome::close(format!("unsupported API key {}", prefix.api_key));
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
    if !served.contains(prefix.api_version) {
        if api == ApiKey::ApiVersions {
            return handlers::api_versions::unsupported_version(prefix.correlation_id, forwarder);
        }
        return Outcome::close(format!(
            "unsupported version {} of {api} (served: {}-{})",
            prefix.api_version, served.min, served.max
        ));
    }
    let frame = match RequestFrame::parse_within(payload, state.config.request_max_decoded_bytes) {
        Ok(frame) => frame,
        Err(err) => return Outcome::close(format!("malformed {api} request header: {err}")),
    };
    tracing::debug!(
        peer = %session.peer,
        api = %api,
        version = prefix.api_version,
        correlation_id = prefix.correlation_id,
        client_id = %kacl_logsafe::safe(frame.header.client_id.as_deref().unwrap_or("")),
        "request"
    );
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
        ApiKey::ApiVersions => {
            let request = match decode(api, &frame) {
                Ok(request) => request,
                Err(outcome) => return outcome,
            };
            let response = handlers::api_versions::handle(frame.version(), &request, forwarder);
            handlers::respond_to(prefix.correlation_id, frame.version(), &response)
        }
        ApiKey::SaslHandshake => handlers::sasl_handshake::handle(state, session, &frame),
        ApiKey::SaslAuthenticate => handlers::sasl_authenticate::handle(state, session, &frame),
        // Streamed: the answer is encoded resource by resource, never built as a struct.
        ApiKey::DescribeAcls => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            handlers::describe_acls::handle_consistent(&ctx, request).await
        }),
        ApiKey::CreateAcls => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::create_acls::handle(&ctx, request).await)
        }),
        ApiKey::DeleteAcls => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            handlers::delete_acls::handle(&ctx, request).await
        }),
        ApiKey::Metadata => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            let table = state.topics.read();
            ctx.respond(&handlers::metadata::handle(&ctx, &request, &table))
        }),
        ApiKey::DescribeCluster => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::describe_cluster::handle(&ctx, request))
        }),
        ApiKey::DescribeUserScramCredentials => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::describe_user_scram_credentials::handle(
                &ctx, request,
            ))
        }),
        ApiKey::AlterUserScramCredentials => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            match handlers::alter_user_scram_credentials::handle(&ctx, request).await {
                Ok(response) => ctx.respond(&response),
                Err(close) => close,
            }
        }),
        ApiKey::CreateTopics => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::create_topics::handle(&ctx, request).await)
        }),
        ApiKey::DeleteTopics => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::delete_topics::handle(&ctx, request).await)
        }),
        ApiKey::CreatePartitions => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::create_partitions::handle(&ctx, request).await)
        }),
        ApiKey::DescribeConfigs => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::describe_configs::handle(&ctx, request))
        }),
        ApiKey::AlterConfigs => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::alter_configs::handle(&ctx, request).await)
        }),
        ApiKey::IncrementalAlterConfigs => with_context!(|ctx| {
            let request = decode_or_close!(ctx, frame);
            ctx.respond(&handlers::incremental_alter_configs::handle(&ctx, request).await)
        }),
        // Forwarded-only APIs returned above (`local` is false for them).
        _ => Outcome::close(format!("{api} is served only by a gateway node")),
    }
}
