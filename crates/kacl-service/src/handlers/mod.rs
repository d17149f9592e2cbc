//! One module per API. A handler takes the [`RequestContext`](crate::context::RequestContext)
//! and the typed request and returns the typed response; the [router](crate::router) decodes
//! and encodes around it. Long handlers split into a pure plan (unit-tested without a store or
//! socket), the commit, and the response.
//!
//! Deliberate differences from Kafka are marked `Deliberate difference from Kafka` where they
//! are made, and listed together in `kacl_server::DIFFERENCES_FROM_KAFKA`.

pub mod acl_filter;
mod acl_resources;
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
pub fn decode<'a, M: Message<'a>>(
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

/// Why a topic commit failed, with the code to answer.
#[derive(Debug)]
pub(crate) enum CommitFailure {
    /// The store refused one topic of the commit (nothing was stored).
    Topic {
        name: String,
        code: i16,
        message: String,
    },
    /// The commit failed as a whole.
    Whole { code: i16, message: String },
}

impl CommitFailure {
    /// The code and the message to send: none with UNKNOWN_SERVER_ERROR, whose text Kafka never
    /// sends (the cause is in the log).
    pub(crate) fn answer(&self) -> (i16, Option<String>) {
        let (code, message) = match self {
            CommitFailure::Topic { code, message, .. } | CommitFailure::Whole { code, message } => {
                (*code, message)
            }
        };
        let hidden = code == kacl_protocol::ErrorCode::UnknownServerError.code();
        (code, (!hidden).then(|| message.clone()))
    }
}

/// A store error of a topic write, classified: a topic another node created meanwhile
/// (TOPIC_ALREADY_EXISTS, or INVALID_TOPIC_EXCEPTION for a `.`/`_` collision), a store that
/// did not answer in time (REQUEST_TIMED_OUT, retriable, the message naming etcd), anything
/// else UNKNOWN_SERVER_ERROR.
pub(crate) fn topic_store_failure(err: kacl_store::StoreError) -> CommitFailure {
    use kacl_protocol::ErrorCode;
    use kacl_store::StoreError;
    match err {
        StoreError::TopicAlreadyExists { name } => CommitFailure::Topic {
            message: format!("Topic '{name}' already exists."),
            name,
            code: ErrorCode::TopicAlreadyExists.code(),
        },
        StoreError::TopicCollision { name, existing } => CommitFailure::Topic {
            message: format!("Topic '{name}' collides with existing topic: {existing}"),
            name,
            code: ErrorCode::InvalidTopicException.code(),
        },
        StoreError::Unavailable { detail } => CommitFailure::Whole {
            code: ErrorCode::RequestTimedOut.code(),
            message: detail,
        },
        other => CommitFailure::Whole {
            code: ErrorCode::UnknownServerError.code(),
            message: other.to_string(),
        },
    }
}

/// [`TopicRegistry::commit`](crate::topic_registry::TopicRegistry::commit) on a blocking thread
/// (the store fsyncs), for the topic handlers: the outcome, or the failure classified by
/// [`topic_store_failure`].
pub(crate) async fn commit_topics_coded(
    state: &Arc<ServerState>,
    guard: TopicWriteGuard,
    change: TopicChange,
) -> Result<TopicCommit, CommitFailure> {
    use kacl_protocol::ErrorCode;
    let shared = Arc::clone(state);
    let result = tokio::task::spawn_blocking(move || {
        shared.topics.commit(guard, shared.store.as_ref(), change)
    })
    .await
    .map_err(|err| CommitFailure::Whole {
        code: ErrorCode::UnknownServerError.code(),
        message: err.to_string(),
    })?;
    result.map_err(topic_store_failure)
}

/// One broker as Metadata lists it: node id, host, port, rack.
pub(crate) type ListedBroker = (i32, String, u16, Option<String>);

/// The brokers Metadata and DescribeCluster list for a request on `listener`: this node as
/// bound, and every other live node of a shared store's cluster that has a listener of the
/// same name (Kafka lists only the brokers reachable through the request's listener); and
/// the controller (the elected one, else this node).
pub(crate) fn cluster_brokers(
    state: &ServerState,
    listener: &crate::state::BoundListener,
) -> (Vec<ListedBroker>, i32) {
    let me = (
        state.node_id(),
        listener.advertised_host.clone(),
        listener.advertised_port,
        state.config.broker_rack.clone(),
    );
    let Some(cluster) = state.store.cluster() else {
        return (vec![me], state.node_id());
    };
    let mut brokers = vec![me];
    for node in cluster.live_nodes() {
        if node.node_id == state.node_id() {
            continue;
        }
        if let Some((_, host, port)) = node
            .listeners
            .iter()
            .find(|(name, _, _)| name.eq_ignore_ascii_case(&listener.name))
        {
            brokers.push((node.node_id, host.clone(), *port, node.rack.clone()));
        }
    }
    brokers.sort_by_key(|b| b.0);
    (brokers, cluster.controller_id().unwrap_or(state.node_id()))
}

/// Every live node with its `broker.rack` (this node included), for rack-aware placement.
pub(crate) fn racked_brokers(state: &ServerState) -> Vec<(i32, Option<String>)> {
    let mut brokers: Vec<(i32, Option<String>)> = state
        .store
        .cluster()
        .map(|c| {
            c.live_nodes()
                .into_iter()
                .map(|n| (n.node_id, n.rack))
                .collect()
        })
        .unwrap_or_default();
    if !brokers.iter().any(|(id, _)| *id == state.node_id()) {
        brokers.push((state.node_id(), state.config.broker_rack.clone()));
    }
    brokers
}

/// Re-places automatically assigned new partitions rack-aware with balanced leaders
/// ([`kacl_topics::place_racked`]); the checks and their messages stay those of the plan,
/// made over the same brokers. The first leader continues after `previous_leader` (a
/// partition increase, as Kafka's placer continues from the last partition), else starts at
/// a random broker, so that the leaders of many topics spread over the nodes.
pub(crate) fn place_rack_aware(
    racked: &[(i32, Option<String>)],
    previous_leader: Option<i32>,
    partitions: &mut [kacl_store::PartitionRecord],
) {
    let Some(factor) = partitions.first().map(|p| p.replicas.len()) else {
        return;
    };
    let brokers: Vec<kacl_topics::RackedBroker<'_>> = racked
        .iter()
        .map(|(id, rack)| (*id, rack.as_deref()))
        .collect();
    let order = kacl_topics::leader_order(&brokers);
    let first = match previous_leader.and_then(|l| order.iter().position(|b| *b == l)) {
        Some(at) => at + 1,
        None => usize::from(kacl_store::random_kafka_uuid()[0]),
    };
    let placed = kacl_topics::place_racked(&brokers, first, partitions.len(), factor);
    if placed.len() == partitions.len() {
        for (partition, replicas) in partitions.iter_mut().zip(placed) {
            partition.replicas = replicas;
        }
    }
}

/// The brokers topics may be placed on: every live node of a shared store's cluster (etcd),
/// else this node alone.
pub(crate) fn live_brokers(state: &ServerState) -> Vec<i32> {
    let mut brokers: Vec<i32> = state
        .store
        .cluster()
        .map(|c| c.live_nodes().into_iter().map(|n| n.node_id).collect())
        .unwrap_or_default();
    if !brokers.contains(&state.node_id()) {
        brokers.push(state.node_id());
    }
    brokers.sort_unstable();
    brokers
}

/// The longest error message a handler sends: well under the 32,767 bytes a protocol string
/// may hold, so that a message echoing client input (a value, a list of key names) can never
/// make the whole response unencodable and the connection close with every other result.
pub(crate) const MAX_ERROR_MESSAGE_BYTES: usize = 4_096;

/// `message`, cut at a character boundary to [`MAX_ERROR_MESSAGE_BYTES`] with a marker saying
/// how much was left out.
pub(crate) fn bounded_message(mut message: String) -> String {
    if message.len() <= MAX_ERROR_MESSAGE_BYTES {
        return message;
    }
    let total = message.len();
    let mut end = MAX_ERROR_MESSAGE_BYTES - 64;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    message.truncate(end);
    message.push_str(&format!("... ({} more bytes)", total - end));
    message
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_at_a_character_boundary() {
        assert_eq!(bounded_message("short".into()), "short");
        let long = "é".repeat(40_000);
        let cut = bounded_message(long);
        assert!(cut.len() <= MAX_ERROR_MESSAGE_BYTES, "{}", cut.len());
        assert!(cut.ends_with("more bytes)"), "{cut}");
    }
}
