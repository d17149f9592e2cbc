//! Metadata (3), v0-13: this node as the only broker and the controller, the cluster id, and
//! the topics the store holds.
//!
//! Kafka's rules kept (`KafkaApis.handleTopicMetadataRequest`, with `auto.create.topics.enable`
//! off): the broker's address is the advertised one of the listener the request came in on
//! (clients open new connections to it); v0's empty topic list and v1+'s null both mean every
//! topic, listed in name order, leaving out those the caller may not DESCRIBE. Topics asked for
//! by name: DESCRIBE denied → TOPIC_AUTHORIZATION_FAILED whether the topic exists or not (so
//! nothing leaks); missing → UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for an
//! illegal name, and never created. By id (v12+; any non-zero id makes the names ignored, as
//! in Kafka): missing → UNKNOWN_TOPIC_ID, DESCRIBE denied → TOPIC_AUTHORIZATION_FAILED with the
//! id and no name. Results come in Kafka's order: unknown ids, described topics, missing
//! names, refused topics. A v10-11 request naming a topic by id or with a null name is
//! answered INVALID_REQUEST on every topic, as Kafka does. Authorized-operation fields are
//! `i32::MIN` unless asked for; when asked, every topic that passed DESCRIBE gets its bit field.
//!
//! Every decision goes through one [`AuthorizerSession`](kacl_acl::AuthorizerSession): the
//! principal is resolved once and each topic costs a few hash probes on its own name, however
//! many ACLs exist, so listing 10,000 topics never scans ACLs per topic.

use std::borrow::Cow;
use std::collections::HashSet;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::metadata::{
    MetadataRequest, MetadataResponse, MetadataResponseBroker, MetadataResponsePartition,
    MetadataResponseTopic,
};
use kacl_protocol::ErrorCode;
use kacl_store::TopicRecord;

use super::brokers::{cluster_brokers, live_brokers};
use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use kacl_topics::{is_internal, validate_topic_name};

/// What the request asked for.
enum Wanted<'r> {
    All,
    Names(Vec<Cow<'r, str>>),
    Ids(Vec<[u8; 16]>),
}

/// Metadata: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct Metadata;

impl Handler for Metadata {
    type Request<'r> = MetadataRequest<'r>;
    type Response<'r> = MetadataResponse<'r>;

    /// Answers one Metadata request from the topics in memory, chosen under the table's read
    /// lock; the names the response takes from the table are copied, since the response
    /// outlives the lock (names the request asked for are the request's own).
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: MetadataRequest<'r>,
    ) -> Result<MetadataResponse<'r>, Outcome> {
        Ok(answer(ctx, &request))
    }
}

fn answer<'r>(ctx: &'r RequestContext<'r>, request: &MetadataRequest<'r>) -> MetadataResponse<'r> {
    let version = ctx.version;
    let Some(wanted) = wanted(request, version) else {
        return invalid_request(request);
    };
    let include_topic_ops = request.include_topic_authorized_operations && version >= 8;
    // Kafka's KafkaApis: the all-topics list is filtered without logging denials (a hidden topic
    // is not a refusal); topics the client named are audited both ways.
    let policy = match wanted {
        Wanted::All => AuditPolicy::FILTERING,
        _ => AuditPolicy::ENFORCED,
    };
    let session = ctx.authorizer();
    let may_describe =
        |name: &str| session.allows(AclOperation::Describe, ResourceType::Topic, name, policy);
    let ops_of = |name: &str| {
        if include_topic_ops {
            session.authorized_operations(ResourceType::Topic, name)
        } else {
            i32::MIN
        }
    };
    // The live brokers (this node alone without a shared store): their replicas are in sync.
    let live = live_brokers(ctx.state);
    let table = ctx.state.topics.read();
    let owned = |record: &TopicRecord| Cow::Owned(record.name.clone());
    let topics: Vec<MetadataResponseTopic<'r>> = match wanted {
        Wanted::All => table
            .iter()
            .filter(|t| may_describe(&t.name))
            .map(|t| topic_metadata(t, owned(t), &live, ops_of(&t.name)))
            .collect(),
        Wanted::Names(names) => {
            let mut found = Vec::new();
            let mut missing = Vec::new();
            let mut refused = Vec::new();
            for name in names {
                if !may_describe(&name) {
                    refused.push(topic_error(
                        ErrorCode::TopicAuthorizationFailed,
                        Some(name),
                        [0; 16],
                        false,
                    ));
                } else if let Some(record) = table.get(&name) {
                    let ops = ops_of(&name);
                    found.push(topic_metadata(record, name, &live, ops));
                } else {
                    let code = if validate_topic_name(&name).is_ok() {
                        ErrorCode::UnknownTopicOrPartition
                    } else {
                        ErrorCode::InvalidTopicException
                    };
                    let (internal, ops) = (is_internal(&name), ops_of(&name));
                    let mut topic = topic_error(code, Some(name), [0; 16], internal);
                    topic.topic_authorized_operations = ops;
                    missing.push(topic);
                }
            }
            found.extend(missing);
            found.extend(refused);
            found
        }
        Wanted::Ids(ids) => {
            let mut unknown = Vec::new();
            let mut found = Vec::new();
            let mut refused = Vec::new();
            for id in ids {
                match table.by_id(&id) {
                    None => unknown.push(topic_error(ErrorCode::UnknownTopicId, None, id, false)),
                    Some(record) if may_describe(&record.name) => {
                        let ops = ops_of(&record.name);
                        found.push(topic_metadata(record, owned(record), &live, ops));
                    }
                    // Kafka: topic ids are not secret, so the refusal may carry the id.
                    Some(_) => refused.push(topic_error(
                        ErrorCode::TopicAuthorizationFailed,
                        None,
                        id,
                        false,
                    )),
                }
            }
            unknown.extend(found);
            unknown.extend(refused);
            unknown
        }
    };
    let cluster_authorized_operations =
        if request.include_cluster_authorized_operations && (8..=10).contains(&version) {
            if session.allows(
                AclOperation::Describe,
                ResourceType::Cluster,
                CLUSTER_NAME,
                AuditPolicy::ENFORCED,
            ) {
                session.authorized_operations(ResourceType::Cluster, CLUSTER_NAME)
            } else {
                0
            }
        } else {
            i32::MIN
        };
    drop(table);
    let state = ctx.state;
    let (brokers, controller_id) = cluster_brokers(state, ctx.listener);
    let response = MetadataResponse {
        throttle_time_ms: 0,
        brokers: brokers
            .into_iter()
            .map(|(node_id, host, port, rack)| MetadataResponseBroker {
                node_id,
                host: Cow::Owned(host),
                port: i32::from(port),
                rack: rack.map(Cow::Owned),
                unknown_tagged_fields: Default::default(),
            })
            .collect(),
        cluster_id: Some(Cow::Borrowed(&state.cluster_id)),
        controller_id,
        topics,
        cluster_authorized_operations,
        error_code: 0,
        unknown_tagged_fields: Default::default(),
    };
    response
}

/// What the request asks for, decided from the request alone (the pure step of the handler),
/// or `None` when Kafka refuses the request outright with INVALID_REQUEST.
fn wanted<'r>(request: &MetadataRequest<'r>, version: i16) -> Option<Wanted<'r>> {
    match &request.topics {
        None => Some(Wanted::All),
        Some(list) if list.is_empty() && version == 0 => Some(Wanted::All),
        Some(list) => {
            let by_id = |t: &&kacl_protocol::messages::metadata::MetadataRequestTopic<'_>| {
                t.topic_id != Uuid::ZERO
            };
            if version < 12 && list.iter().any(|t| t.name.is_none() || by_id(&t)) {
                return None;
            }
            if list.iter().any(|t| by_id(&t)) {
                let mut seen = HashSet::new();
                Some(Wanted::Ids(
                    list.iter()
                        .filter(by_id)
                        .map(|t| t.topic_id.0)
                        .filter(|id| seen.insert(*id))
                        .collect(),
                ))
            } else if list.iter().any(|t| t.name.is_none()) {
                // Deliberate difference from Kafka: a null name with no id is INVALID_REQUEST;
                // Kafka fails on it with UNKNOWN_SERVER_ERROR.
                None
            } else {
                let mut seen = HashSet::new();
                let mut names = Vec::new();
                for name in list.iter().filter_map(|t| t.name.as_ref()) {
                    if seen.insert(name.as_ref()) {
                        names.push(name.clone());
                    }
                }
                Some(Wanted::Names(names))
            }
        }
    }
}

fn topic_metadata<'r>(
    record: &TopicRecord,
    name: Cow<'r, str>,
    live: &[i32],
    topic_authorized_operations: i32,
) -> MetadataResponseTopic<'r> {
    MetadataResponseTopic {
        error_code: 0,
        name: Some(name),
        topic_id: Uuid(record.topic_id),
        is_internal: is_internal(&record.name),
        partitions: record
            .partitions
            .iter()
            .map(|p| partition_metadata(p.partition_index, &p.replicas, live))
            .collect(),
        topic_authorized_operations,
        unknown_tagged_fields: Default::default(),
    }
}

/// How one partition's replicas stand as this node sees them: `(leader, in sync, offline)`.
/// Its replicas on live brokers (this node, and in cluster mode every live node) are in sync,
/// and the first of them leads. Replicas on other brokers (a dead node, or a data directory
/// last served under another `node.id`) are offline; with none live the leader is -1. Shared
/// by Metadata and DescribeTopicPartitions, so both say the same thing.
pub(crate) fn replica_states(replicas: &[i32], live_brokers: &[i32]) -> (i32, Vec<i32>, Vec<i32>) {
    let (live, offline): (Vec<i32>, Vec<i32>) =
        replicas.iter().partition(|r| live_brokers.contains(r));
    (live.first().copied().unwrap_or(-1), live, offline)
}

/// One partition for Metadata ([`replica_states`]); a partition with no live replica has no
/// leader (LEADER_NOT_AVAILABLE).
fn partition_metadata(
    partition_index: i32,
    replicas: &[i32],
    live_brokers: &[i32],
) -> MetadataResponsePartition<'static> {
    let (leader_id, live, offline) = replica_states(replicas, live_brokers);
    MetadataResponsePartition {
        error_code: if leader_id == -1 {
            ErrorCode::LeaderNotAvailable.code()
        } else {
            0
        },
        partition_index,
        leader_id,
        leader_epoch: 0,
        replica_nodes: replicas.to_vec(),
        isr_nodes: live,
        offline_replicas: offline,
        unknown_tagged_fields: Default::default(),
    }
}

fn topic_error<'r>(
    code: ErrorCode,
    name: Option<Cow<'r, str>>,
    id: [u8; 16],
    is_internal: bool,
) -> MetadataResponseTopic<'r> {
    MetadataResponseTopic {
        error_code: code.code(),
        name,
        topic_id: Uuid(id),
        is_internal,
        ..Default::default()
    }
}

/// Kafka's answer to a request it refuses outright (`MetadataRequest.getErrorResponse`): no
/// brokers, every requested topic with the error (a null name as ""), and the error at the top
/// level (v13+).
fn invalid_request<'t>(request: &MetadataRequest<'t>) -> MetadataResponse<'t> {
    let code = ErrorCode::InvalidRequest;
    let topics = request
        .topics
        .iter()
        .flatten()
        .map(|t| MetadataResponseTopic {
            error_code: code.code(),
            name: Some(t.name.clone().unwrap_or(Cow::Borrowed(""))),
            topic_id: t.topic_id,
            ..Default::default()
        })
        .collect();
    MetadataResponse {
        topics,
        error_code: code.code(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::metadata::MetadataRequestTopic;

    fn by_name(name: &str) -> MetadataRequestTopic<'_> {
        MetadataRequestTopic {
            name: Some(Cow::Borrowed(name)),
            ..Default::default()
        }
    }

    fn by_id(id: u8) -> MetadataRequestTopic<'static> {
        MetadataRequestTopic {
            topic_id: Uuid([id; 16]),
            name: None,
            ..Default::default()
        }
    }

    fn request(topics: Option<Vec<MetadataRequestTopic<'_>>>) -> MetadataRequest<'_> {
        MetadataRequest {
            topics,
            ..Default::default()
        }
    }

    #[test]
    fn null_list_and_v0_empty_list_mean_every_topic() {
        assert!(matches!(wanted(&request(None), 1), Some(Wanted::All)));
        assert!(matches!(
            wanted(&request(Some(vec![])), 0),
            Some(Wanted::All)
        ));
        // From v1 on an empty list means no topic at all.
        assert!(
            matches!(wanted(&request(Some(vec![])), 1), Some(Wanted::Names(n)) if n.is_empty())
        );
    }

    #[test]
    fn names_keep_request_order_without_repeats() {
        let req = request(Some(vec![by_name("b"), by_name("a"), by_name("b")]));
        assert!(matches!(wanted(&req, 9), Some(Wanted::Names(n)) if n == ["b", "a"]));
    }

    #[test]
    fn any_id_makes_names_ignored_from_v12() {
        let req = request(Some(vec![by_name("a"), by_id(7), by_id(7), by_id(8)]));
        assert!(matches!(wanted(&req, 12), Some(Wanted::Ids(ids)) if ids == [[7; 16], [8; 16]]));
    }

    #[test]
    fn ids_or_null_names_before_v12_are_invalid_requests() {
        assert!(wanted(&request(Some(vec![by_id(1)])), 11).is_none());
        let null_name = MetadataRequestTopic {
            name: None,
            ..Default::default()
        };
        assert!(wanted(&request(Some(vec![null_name.clone()])), 10).is_none());
        // From v12 a null name without an id is refused too (a deliberate difference).
        assert!(wanted(&request(Some(vec![null_name])), 12).is_none());
    }
}
