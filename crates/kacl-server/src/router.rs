//! The one place that routes a request by API key: header checks (known API, served version),
//! the SASL gate, then the handler of that API.
//!
//! Kafka's rules, which kacl follows:
//! - an API key kacl does not serve, or a header that does not parse: close the connection;
//! - ApiVersions of a version kacl does not serve: UNSUPPORTED_VERSION in a v0 body with the
//!   supported ranges (KIP-511), so the client can retry;
//! - any other API at a version outside kacl's range: close (Kafka's `parseRequestHeader`);
//! - on a SASL listener before authentication, only ApiVersions, SaslHandshake and
//!   SaslAuthenticate (anything else is Kafka's IllegalSaslState: close);
//! - once a session has outlived `connections.max.reauth.ms`, any request but a SaslHandshake
//!   that starts its re-authentication closes the connection (KIP-368).

use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::header::RequestPrefix;
use kacl_protocol::ApiKey;

use crate::context::{AuthState, RequestContext, Session};
use crate::handlers;
use crate::state::ServerState;

/// The APIs this server routes, in API key order: what ApiVersions advertises.
pub const SERVED_APIS: &[ApiKey] = &[
    ApiKey::Metadata,
    ApiKey::SaslHandshake,
    ApiKey::ApiVersions,
    ApiKey::CreateTopics,
    ApiKey::DeleteTopics,
    ApiKey::DescribeAcls,
    ApiKey::CreateAcls,
    ApiKey::DeleteAcls,
    ApiKey::CreatePartitions,
    ApiKey::SaslAuthenticate,
    ApiKey::DescribeUserScramCredentials,
    ApiKey::AlterUserScramCredentials,
    ApiKey::DescribeCluster,
];

/// What the connection does after a request.
#[derive(Debug)]
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
    /// Close without answering.
    Close {
        /// For the log.
        reason: String,
    },
}

impl Outcome {
    /// A close with a reason for the log.
    pub fn close(reason: impl Into<String>) -> Outcome {
        Outcome::Close {
            reason: reason.into(),
        }
    }
}

/// Answers one request frame payload (size prefix removed), and records it in the metrics.
pub async fn dispatch(state: &Arc<ServerState>, session: &mut Session, payload: &[u8]) -> Outcome {
    let started = std::time::Instant::now();
    let outcome = route(state, session, payload).await;
    state.metrics.request_finished(payload, started.elapsed());
    outcome
}

async fn route(state: &Arc<ServerState>, session: &mut Session, payload: &[u8]) -> Outcome {
    let prefix = match RequestPrefix::peek(payload) {
        Ok(prefix) => prefix,
        Err(err) => return Outcome::close(format!("unreadable request header: {err}")),
    };
    let Some(api) = prefix.api().filter(|api| SERVED_APIS.contains(api)) else {
        return Outcome::close(format!("unsupported API key {}", prefix.api_key));
    };
    if session.is_expired()
        && !(api == ApiKey::SaslHandshake && session.may_reauthenticate(Instant::now()))
    {
        state.metrics.connection_expired();
        return Outcome::close(format!(
            "{api} request after the session expired without re-authentication \
             (connections.max.reauth.ms)"
        ));
    }
    if !api.supports(prefix.api_version) {
        if api == ApiKey::ApiVersions {
            return handlers::api_versions::unsupported_version(prefix.correlation_id);
        }
        return Outcome::close(format!(
            "unsupported version {} of {api} (served: {}-{})",
            prefix.api_version,
            api.versions().min,
            api.versions().max
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
    match api {
        ApiKey::ApiVersions => return handlers::api_versions::handle(&frame),
        ApiKey::SaslHandshake => {
            return handlers::sasl_handshake::handle(state, session, &frame);
        }
        ApiKey::SaslAuthenticate => {
            return handlers::sasl_authenticate::handle(state, session, &frame);
        }
        _ => {}
    }
    let principal = match &session.auth {
        AuthState::Authenticated { principal, .. } => principal.clone(),
        _ => {
            // Kafka: IllegalSaslStateException, the connection is closed.
            return Outcome::close(format!(
                "{api} request before SASL authentication completed"
            ));
        }
    };
    let ctx = RequestContext {
        state,
        principal: &principal,
        client_host: &session.client_host,
        listener: &session.listener,
        api,
        version: frame.version(),
        correlation_id: frame.header.correlation_id,
    };
    match api {
        ApiKey::DescribeAcls => handlers::describe_acls::handle(&ctx, &frame),
        ApiKey::CreateAcls => handlers::create_acls::handle(&ctx, &frame).await,
        ApiKey::DeleteAcls => handlers::delete_acls::handle(&ctx, &frame).await,
        ApiKey::Metadata => handlers::metadata::handle(&ctx, &frame),
        ApiKey::DescribeCluster => handlers::describe_cluster::handle(&ctx, &frame),
        ApiKey::DescribeUserScramCredentials => {
            handlers::describe_user_scram_credentials::handle(&ctx, &frame)
        }
        ApiKey::AlterUserScramCredentials => {
            handlers::alter_user_scram_credentials::handle(&ctx, &frame).await
        }
        ApiKey::CreateTopics => handlers::create_topics::handle(&ctx, &frame).await,
        ApiKey::DeleteTopics => handlers::delete_topics::handle(&ctx, &frame).await,
        ApiKey::CreatePartitions => handlers::create_partitions::handle(&ctx, &frame).await,
        other => Outcome::close(format!("no handler for {other}")),
    }
}
