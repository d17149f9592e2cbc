//! Metadata (3), v0-13: this node as the only broker and the controller, the cluster id, and
//! the topics the store holds.
//!
//! Kafka's rules kept: the broker's address is the advertised one of the listener the request
//! came in on (clients open new connections to it); v0's empty topic list and v1+'s null both
//! mean every topic; topics the caller may not DESCRIBE are left out of an all-topics answer
//! and answered TOPIC_AUTHORIZATION_FAILED when named (whether they exist or not, so nothing
//! leaks); a named topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION and is never
//! created (kacl has no auto-creation); a topic id that does not exist is UNKNOWN_TOPIC_ID;
//! authorized-operation fields are `i32::MIN` unless asked for.

use std::borrow::Cow;
use std::collections::HashSet;

use kacl_acl::{AclOperation, AuthorizationResult, ResourceType, CLUSTER_NAME};
use kacl_protocol::codec::Uuid;
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::metadata::{
    MetadataRequest, MetadataResponse, MetadataResponseBroker, MetadataResponsePartition,
    MetadataResponseTopic,
};
use kacl_protocol::ErrorCode;
use kacl_store::TopicRecord;

use super::authorized_ops::authorized_operations;
use super::decode_in;
use crate::context::RequestContext;
use crate::router::Outcome;

/// Kafka's internal topics (reported with `is_internal`).
const INTERNAL_TOPICS: [&str; 2] = ["__consumer_offsets", "__transaction_state"];

/// What the request asked for.
enum Wanted<'r> {
    All,
    Some(Vec<TopicKey<'r>>),
}

enum TopicKey<'r> {
    Name(&'r str),
    Id(Uuid),
}

/// Answers one Metadata request.
pub fn handle(ctx: &RequestContext<'_>, frame: &RequestFrame<'_>) -> Outcome {
    let request: MetadataRequest<'_> = match decode_in(ctx, frame) {
        Ok(request) => request,
        Err(outcome) => return outcome,
    };
    let version = ctx.version;
    let wanted = match &request.topics {
        None => Wanted::All,
        Some(list) if list.is_empty() && version == 0 => Wanted::All,
        Some(list) => {
            let mut seen_names = HashSet::new();
            let mut seen_ids = HashSet::new();
            Wanted::Some(
                list.iter()
                    .filter_map(|t| match t.name.as_deref() {
                        Some(name) => seen_names.insert(name).then_some(TopicKey::Name(name)),
                        None => seen_ids
                            .insert(t.topic_id.0)
                            .then_some(TopicKey::Id(t.topic_id)),
                    })
                    .collect(),
            )
        }
    };
    let include_topic_ops = request.include_topic_authorized_operations;
    let topics_guard = ctx.state.topics.read();
    let session = ctx.state.authorizer.session(ctx.principal, ctx.client_host);
    let may_describe = |name: &str| {
        session.authorize(AclOperation::Describe, ResourceType::Topic, name)
            == AuthorizationResult::Allowed
    };
    let ops_of = |record: &TopicRecord| {
        if include_topic_ops {
            authorized_operations(&session, ResourceType::Topic, &record.name)
        } else {
            i32::MIN
        }
    };
    let describe = |record| topic_metadata(record, ops_of(record));
    let topics: Vec<MetadataResponseTopic<'_>> = match wanted {
        Wanted::All => topics_guard
            .values()
            .filter(|t| may_describe(&t.name))
            .map(describe)
            .collect(),
        Wanted::Some(keys) => keys
            .into_iter()
            .map(|key| match key {
                TopicKey::Name(name) => {
                    if !may_describe(name) {
                        topic_error(ErrorCode::TopicAuthorizationFailed, Some(name), Uuid::ZERO)
                    } else if let Some(record) = topics_guard.get(name) {
                        describe(record)
                    } else {
                        topic_error(ErrorCode::UnknownTopicOrPartition, Some(name), Uuid::ZERO)
                    }
                }
                TopicKey::Id(id) => match topics_guard.values().find(|t| t.topic_id == id.0) {
                    Some(record) if may_describe(&record.name) => describe(record),
                    Some(_) => topic_error(ErrorCode::TopicAuthorizationFailed, None, id),
                    None => topic_error(ErrorCode::UnknownTopicId, None, id),
                },
            })
            .collect(),
    };
    let cluster_authorized_operations =
        if request.include_cluster_authorized_operations && (8..=10).contains(&version) {
            if session.authorize(AclOperation::Describe, ResourceType::Cluster, CLUSTER_NAME)
                == AuthorizationResult::Allowed
            {
                authorized_operations(&session, ResourceType::Cluster, CLUSTER_NAME)
            } else {
                0
            }
        } else {
            i32::MIN
        };
    let state = ctx.state;
    let response = MetadataResponse {
        throttle_time_ms: 0,
        brokers: vec![MetadataResponseBroker {
            node_id: state.node_id(),
            host: Cow::Borrowed(&ctx.listener.advertised_host),
            port: i32::from(ctx.listener.advertised_port),
            rack: state.config.broker_rack.as_deref().map(Cow::Borrowed),
            unknown_tagged_fields: Vec::new(),
        }],
        cluster_id: Some(Cow::Borrowed(&state.cluster_id)),
        controller_id: state.node_id(),
        topics,
        cluster_authorized_operations,
        error_code: 0,
        unknown_tagged_fields: Vec::new(),
    };
    let outcome = ctx.respond(&response);
    drop(session);
    drop(topics_guard);
    outcome
}

fn topic_metadata<'t>(
    record: &'t TopicRecord,
    topic_authorized_operations: i32,
) -> MetadataResponseTopic<'t> {
    MetadataResponseTopic {
        error_code: 0,
        name: Some(Cow::Borrowed(&record.name)),
        topic_id: Uuid(record.topic_id),
        is_internal: INTERNAL_TOPICS.contains(&record.name.as_str()),
        partitions: record
            .partitions
            .iter()
            .map(|p| MetadataResponsePartition {
                error_code: 0,
                partition_index: p.partition_index,
                leader_id: p.replicas.first().copied().unwrap_or(-1),
                leader_epoch: 0,
                replica_nodes: p.replicas.clone(),
                isr_nodes: p.replicas.clone(),
                offline_replicas: Vec::new(),
                unknown_tagged_fields: Vec::new(),
            })
            .collect(),
        topic_authorized_operations,
        unknown_tagged_fields: Vec::new(),
    }
}

fn topic_error<'r>(code: ErrorCode, name: Option<&'r str>, id: Uuid) -> MetadataResponseTopic<'r> {
    MetadataResponseTopic {
        error_code: code.code(),
        name: name.map(Cow::Borrowed),
        topic_id: id,
        ..Default::default()
    }
}
