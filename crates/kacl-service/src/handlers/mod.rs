//! One module per API. A handler takes the [`RequestContext`](crate::context::RequestContext)
//! and the typed request and returns the typed response; the [router](crate::router) decodes
//! and encodes around it. Long handlers split into a pure plan (unit-tested without a store or
//! socket), the commit, and the response.
//!
//! Deliberate differences from Kafka are marked `Deliberate difference from Kafka` where they
//! are made, and listed together in `kacl_server::DIFFERENCES_FROM_KAFKA`.

pub mod acl_filter;
pub mod alter_configs;
pub mod alter_user_scram_credentials;
pub mod api_versions;
pub mod create_acls;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_acls;
pub mod delete_topics;
pub mod describe_acls;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_user_scram_credentials;
pub mod incremental_alter_configs;
pub mod metadata;
pub mod sasl_authenticate;
pub mod sasl_handshake;

use std::sync::Arc;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::{DecodeError, Message};

use crate::outcome::Outcome;
use crate::state::ServerState;
use crate::topic_registry::{TopicChange, TopicCommit, TopicWriteGuard};

/// Decodes the body of `frame` as `M`; a malformed body closes the connection, as in Kafka.
///
/// Bytes after a complete body are ignored, as Kafka's request parser ignores them (it never
/// checks that the buffer was consumed). Real clients rely on this: librdkafka 2.x sends three
/// extra bytes after a flexible all-topics Metadata request (librdkafka #5049) and one after
/// AlterUserScramCredentials.
pub(crate) fn decode<'a, M: Message<'a>>(
    ctx_api: kacl_protocol::ApiKey,
    frame: &RequestFrame<'a>,
) -> Result<M, Outcome> {
    // Bounded by `kacl.request.max.decoded.bytes`, whose budget the router parsed the frame with.
    let mut reader = frame.body_reader();
    let body = M::decode(&mut reader, frame.version()).map_err(|err| {
        let hint = match err {
            DecodeError::MemoryBudgetExceeded { .. } => " (kacl.request.max.decoded.bytes)",
            _ => "",
        };
        Outcome::close(format!(
            "malformed {ctx_api} v{} request body: {err}{hint}",
            frame.version()
        ))
    })?;
    if !reader.is_empty() {
        tracing::debug!(
            api = %ctx_api,
            version = frame.version(),
            trailing = reader.remaining(),
            "ignored bytes after the request body, as Kafka does"
        );
    }
    Ok(body)
}

/// Encodes `body` as the response to a request known only by its correlation id and version
/// (the SASL handlers run before a [`RequestContext`] exists).
pub(crate) fn respond_to<'m, M: Message<'m>>(
    correlation_id: i32,
    version: i16,
    body: &M,
) -> Outcome {
    let mut out = Vec::new();
    let encoded =
        kacl_protocol::frame::encode_response_frame(&mut out, correlation_id, version, body);
    Outcome::encoded(M::API_KEY, version, out, encoded)
}

/// [`TopicRegistry::commit`](crate::topic_registry::TopicRegistry::commit) on a blocking thread
/// (the store fsyncs), for the topic handlers: the outcome, or why there is none as text for the
/// log (the client gets UNKNOWN_SERVER_ERROR, whose text Kafka never sends).
pub(crate) async fn commit_topics(
    state: &Arc<ServerState>,
    guard: TopicWriteGuard,
    change: TopicChange,
) -> Result<TopicCommit, String> {
    let shared = Arc::clone(state);
    tokio::task::spawn_blocking(move || shared.topics.commit(guard, shared.store.as_ref(), change))
        .await
        .map_err(|err| err.to_string())?
        .map_err(|err| err.to_string())
}
