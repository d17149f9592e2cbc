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

use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::topic_registry::TopicTable;
use kacl_topics::{is_internal, validate_topic_name};

/// What the request asked for.
enum Wanted<'r> {
    All,
    Names(Vec<&'r str>),
    Ids(Vec<[u8; 16]>),
}

/// Answers one Metadata request from `table`, the topics as the caller holds them locked (the
/// response borrows their names).
pub fn handle<'t>(
    ctx: &RequestContext<'t>,
    request: &'t MetadataRequest<'t>,
    table: &'t TopicTable,
) -> MetadataResponse<'t> {
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
    let node_id = ctx.state.node_id();
    let topics: Vec<MetadataResponseTopic<'_>> = match wanted {
        Wanted::All => table
            .iter()
            .filter(|t| may_describe(&t.name))
            .map(|t| topic_metadata(t, node_id, ops_of(&t.name)))
            .collect(),
        Wanted::Names(names) => {
            let mut found = Vec::new();
            let mut missing = Vec::new();
            let mut refused = Vec::new();
            for name in names {
                if !may_describe(name) {
                    refused.push(topic_error(
                        ErrorCode::TopicAuthorizationFailed,
                        Some(name),
                        [0; 16],
                        false,
                    ));
                } else if let Some(record) = table.get(name) {
                    found.push(topic_metadata(record, node_id, ops_of(name)));
                } else {
                    let code = if validate_topic_name(name).is_ok() {
                        ErrorCode::UnknownTopicOrPartition
                    } else {
                        ErrorCode::InvalidTopicException
                    };
                    let mut topic = topic_error(code, Some(name), [0; 16], is_internal(name));
                    topic.topic_authorized_operations = ops_of(name);
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
                        found.push(topic_metadata(record, node_id, ops_of(&record.name)));
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
    let state = ctx.state;
    let response = MetadataResponse {
        throttle_time_ms: 0,
        brokers: vec![MetadataResponseBroker {
            node_id: state.node_id(),
            host: Cow::Borrowed(&ctx.listener.advertised_host),
            port: i32::from(ctx.listener.advertised_port),
            rack: state.config.broker_rack.as_deref().map(Cow::Borrowed),
            unknown_tagged_fields: Default::default(),
        }],
        cluster_id: Some(Cow::Borrowed(&state.cluster_id)),
        controller_id: state.node_id(),
        topics,
        cluster_authorized_operations,
        error_code: 0,
        unknown_tagged_fields: Default::default(),
    };
    response
}

/// What the request asks for, decided from the request alone (the pure step of the handler),
/// or `None` when Kafka refuses the request outright with INVALID_REQUEST.
fn wanted<'r>(request: &'r MetadataRequest<'r>, version: i16) -> Option<Wanted<'r>> {
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
                Some(Wanted::Names(
                    list.iter()
                        .filter_map(|t| t.name.as_deref())
                        .filter(|name| seen.insert(*name))
                        .collect(),
                ))
            }
        }
    }
}

fn topic_metadata(
    record: &TopicRecord,
    node_id: i32,
    topic_authorized_operations: i32,
) -> MetadataResponseTopic<'_> {
    MetadataResponseTopic {
        error_code: 0,
        name: Some(Cow::Borrowed(&record.name)),
        topic_id: Uuid(record.topic_id),
        is_internal: is_internal(&record.name),
        partitions: record
            .partitions
            .iter()
            .map(|p| partition_metadata(p.partition_index, &p.replicas, node_id))
            .collect(),
        topic_authorized_operations,
        unknown_tagged_fields: Default::default(),
    }
}

/// One partition as this node sees it: its replicas on this node are live and in sync, and the
/// first of them leads. Replicas on other brokers (a data directory last served under another
/// `node.id`) are offline; a partition with none here has no leader (LEADER_NOT_AVAILABLE).
fn partition_metadata(
    partition_index: i32,
    replicas: &[i32],
    node_id: i32,
) -> MetadataResponsePartition<'static> {
    let live: Vec<i32> = replicas.iter().copied().filter(|r| *r == node_id).collect();
    let offline: Vec<i32> = replicas.iter().copied().filter(|r| *r != node_id).collect();
    let leader_id = live.first().copied().unwrap_or(-1);
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
    name: Option<&'r str>,
    id: [u8; 16],
    is_internal: bool,
) -> MetadataResponseTopic<'r> {
    MetadataResponseTopic {
        error_code: code.code(),
        name: name.map(Cow::Borrowed),
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
