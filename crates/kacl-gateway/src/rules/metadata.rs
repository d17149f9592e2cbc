//! Metadata (3) and DescribeCluster (60): the answers that name brokers. Every broker is shown
//! at the gateway endpoint that routes to it; topics are authorized for DESCRIBE as Kafka's
//! `handleTopicMetadataRequest` does (an all-topics list is filtered silently, a named topic
//! the principal may not describe is answered TOPIC_AUTHORIZATION_FAILED without saying
//! whether it exists), auto-creation happens only for a principal with CREATE on the cluster
//! or the topic, and authorized operations are the client principal's, not the gateway's.

use std::borrow::Cow;
use std::sync::Arc;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::describe_cluster::{DescribeClusterRequest, DescribeClusterResponse};
use kacl_protocol::messages::metadata::{
    MetadataRequest, MetadataRequestTopic, MetadataResponse, MetadataResponseTopic,
};
use kacl_protocol::{ErrorCode, Uuid};
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use crate::plan::{Asker, Plan};
use crate::Shared;

const TOPIC_AUTHORIZATION_FAILED: i16 = ErrorCode::TopicAuthorizationFailed.code();
const UNKNOWN_TOPIC_OR_PARTITION: i16 = ErrorCode::UnknownTopicOrPartition.code();

pub(super) fn metadata(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    request: MetadataRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    if ctx.version >= 12 {
        if let Some(ids) = by_id(&request) {
            return metadata_by_id(shared, ctx, request, ids, frame);
        }
    }
    metadata_by_name(shared, ctx, request, frame)
}

/// The ids of a v12+ request that asks by id: Kafka 4.4's `handleTopicMetadataRequest` uses
/// ids as soon as one entry carries one, and then ignores every name in the request (an
/// entry with a name *and* an id is answered for the id; an entry with a name alone is not
/// answered). `None` for a request by name (or for all topics).
fn by_id(request: &MetadataRequest<'_>) -> Option<Vec<Uuid>> {
    let mut ids: Vec<Uuid> = Vec::new();
    for topic in request.topics.as_ref()? {
        if topic.topic_id != Uuid::ZERO && !ids.contains(&topic.topic_id) {
            ids.push(topic.topic_id);
        }
    }
    (!ids.is_empty()).then_some(ids)
}

/// A request by id: the upstream is asked for the ids only (no names, so it can never answer
/// for a name the gateway did not authorize), and every topic of its answer is authorized on
/// the name it gives. A topic the principal may not describe is answered as Kafka does:
/// TOPIC_AUTHORIZATION_FAILED with its id and no name.
fn metadata_by_id(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: MetadataRequest<'_>,
    ids: Vec<Uuid>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let (denied, asked): (Vec<Uuid>, Vec<Uuid>) = ids.into_iter().partition(|id| {
        shared.topic_ids.name(id).is_some_and(|name| {
            !session.allows(
                AclOperation::Describe,
                ResourceType::Topic,
                &name,
                AuditPolicy::ENFORCED,
            )
        })
    });
    drop(session);
    request.topics = Some(
        asked
            .iter()
            .map(|id| MetadataRequestTopic {
                topic_id: *id,
                name: None,
                ..Default::default()
            })
            .collect(),
    );
    request.allow_auto_topic_creation = false;
    let shared_for_answer = shared.clone();
    let include_topic_ops = request.include_topic_authorized_operations;
    let include_cluster_ops = request.include_cluster_authorized_operations;
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<MetadataResponse<'_>>(&payload, |asker, body| {
            show_brokers(&shared_for_answer, body);
            let ctx = asker.context();
            let session = ctx.authorizer();
            hide_undescribable_by_id(&mut body.topics, |name| {
                session.allows(
                    AclOperation::Describe,
                    ResourceType::Topic,
                    name,
                    AuditPolicy::ENFORCED,
                )
            });
            for topic in &mut body.topics {
                if let Some(name) = topic.name.as_deref() {
                    if include_topic_ops {
                        topic.topic_authorized_operations =
                            session.authorized_operations(ResourceType::Topic, name);
                    }
                }
            }
            for id in &denied {
                body.topics.push(refused_by_id(*id));
            }
            cluster_operations(asker, &session, include_cluster_ops, body);
        })
    });
    Plan::reduced(ctx, frame, &request, finish)
}

/// Kafka's answer for a topic asked by id that the principal may not describe.
fn refused_by_id(id: Uuid) -> MetadataResponseTopic<'static> {
    MetadataResponseTopic {
        error_code: TOPIC_AUTHORIZATION_FAILED,
        name: None,
        topic_id: id,
        ..Default::default()
    }
}

/// Every named topic of an answer by id that `may_describe` refuses becomes
/// [`refused_by_id`]: neither its name nor its partitions reach the client.
fn hide_undescribable_by_id(
    topics: &mut [MetadataResponseTopic<'_>],
    mut may_describe: impl FnMut(&str) -> bool,
) {
    for topic in topics {
        if let Some(name) = topic.name.as_deref() {
            if !may_describe(name) {
                *topic = refused_by_id(topic.topic_id);
            }
        }
    }
}

/// Kafka's cluster authorized operations (v8-10, when asked): the principal's, or 0 without
/// DESCRIBE on the cluster.
fn cluster_operations(
    asker: &Asker,
    session: &kacl_service::context::AuditedSession<'_>,
    include: bool,
    body: &mut MetadataResponse<'_>,
) {
    if include && (8..=10).contains(&asker.version) {
        body.cluster_authorized_operations = cluster_operations_value(session);
    }
}

/// The cluster's authorized operations as Kafka's `AuthHelper` reports them when asked.
fn cluster_operations_value(session: &kacl_service::context::AuditedSession<'_>) -> i32 {
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
}

/// Learns the answer's brokers and topic ids and shows every broker at its gateway endpoint.
fn show_brokers(shared: &Shared, body: &mut MetadataResponse<'_>) {
    let joined = shared.upstream.learn_brokers(
        body.brokers
            .iter()
            .map(|b| (b.node_id, b.host.as_ref(), b.port)),
    );
    shared.brokers_joined(joined);
    shared.topic_ids.learn(
        body.topics
            .iter()
            .filter_map(|t| Some((t.topic_id, t.name.as_deref()?))),
    );
    shared.topic_ids.learn_partitions(
        body.topics
            .iter()
            .filter(|t| t.error_code == 0)
            .filter_map(|t| Some((t.name.as_deref()?, t.partitions.len()))),
    );
    body.brokers
        .retain_mut(|broker| match shared.addresses.get(broker.node_id) {
            Some(endpoint) => {
                broker.host = Cow::Owned(endpoint.host);
                broker.port = i32::from(endpoint.port);
                true
            }
            None => false,
        });
    // A controller the client cannot reach through the gateway (none named, or a broker
    // without a gateway port) becomes one it can, as a KRaft broker names any live broker:
    // admin clients send CreateTopics, CreateAcls and the like there, and would otherwise
    // wait for a controller forever (librdkafka's mock cluster names none). The gateway
    // answers the ACL APIs itself on every port.
    if !body.brokers.iter().any(|b| b.node_id == body.controller_id) {
        if let Some(first) = body.brokers.first() {
            body.controller_id = first.node_id;
        }
    }
}

fn metadata_by_name(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: MetadataRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied: Vec<String> = Vec::new();
    let mut create_denied: Vec<String> = Vec::new();
    let mut reduced = false;
    let all_topics = request.topics.is_none();
    if let Some(topics) = &mut request.topics {
        let before = topics.len();
        topics.retain(|topic| {
            let name = topic.name.as_deref().unwrap_or_default();
            if !session.allows(
                AclOperation::Describe,
                ResourceType::Topic,
                name,
                AuditPolicy::ENFORCED,
            ) {
                if !denied.iter().any(|d| d == name) {
                    denied.push(name.to_owned());
                }
                return false;
            }
            true
        });
        reduced |= topics.len() != before;
        if request.allow_auto_topic_creation && !topics.is_empty() {
            let cluster_create = session.allows(
                AclOperation::Create,
                ResourceType::Cluster,
                CLUSTER_NAME,
                AuditPolicy::FILTERING,
            );
            if !cluster_create {
                for topic in topics.iter() {
                    let name = topic.name.as_deref().unwrap_or_default();
                    // Not logged when denied: most requested topics exist, and Kafka asks
                    // CREATE only of those that do not (which the gateway learns only from
                    // the upstream's answer).
                    if !session.allows(
                        AclOperation::Create,
                        ResourceType::Topic,
                        name,
                        AuditPolicy::FILTERING,
                    ) {
                        create_denied.push(name.to_owned());
                    }
                }
            }
            if !create_denied.is_empty() {
                // One topic the principal may not create turns auto-creation off for the whole
                // request: the upstream cannot be told per topic (the others are created on the
                // client's next Metadata request only if it asks for them alone).
                request.allow_auto_topic_creation = false;
                reduced = true;
            }
        }
    }
    drop(session);
    let shared_for_answer = shared.clone();
    let include_topic_ops = request.include_topic_authorized_operations;
    let include_cluster_ops = request.include_cluster_authorized_operations;
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<MetadataResponse<'_>>(&payload, |asker, body| {
            show_brokers(&shared_for_answer, body);
            let ctx = asker.context();
            let session = ctx.authorizer();
            if all_topics {
                body.topics.retain(|topic| {
                    session.allows(
                        AclOperation::Describe,
                        ResourceType::Topic,
                        topic.name.as_deref().unwrap_or_default(),
                        AuditPolicy::FILTERING,
                    )
                });
            }
            for topic in &mut body.topics {
                let name = topic.name.as_deref().unwrap_or_default();
                if topic.error_code == UNKNOWN_TOPIC_OR_PARTITION
                    && create_denied.iter().any(|n| n == name)
                {
                    topic.error_code = TOPIC_AUTHORIZATION_FAILED;
                    topic.topic_authorized_operations = i32::MIN;
                } else if include_topic_ops {
                    topic.topic_authorized_operations =
                        session.authorized_operations(ResourceType::Topic, name);
                }
            }
            for name in &denied {
                body.topics.push(MetadataResponseTopic {
                    error_code: TOPIC_AUTHORIZATION_FAILED,
                    name: Some(Cow::Owned(name.clone())),
                    ..Default::default()
                });
            }
            cluster_operations(asker, &session, include_cluster_ops, body);
        })
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

pub(super) fn describe_cluster(
    shared: &Arc<Shared>,
    _ctx: &RequestContext<'_>,
    request: DescribeClusterRequest<'_>,
) -> Plan {
    let shared = shared.clone();
    let include_ops = request.include_cluster_authorized_operations;
    Plan::rewrite(Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<DescribeClusterResponse<'_>>(&payload, |asker, body| {
            // endpoint_type 2 (controllers, KIP-919) lists the upstream's controllers, which
            // clients of a gateway are never to reach: shown like brokers, by id.
            shared.upstream.learn_brokers(
                body.brokers
                    .iter()
                    .map(|b| (b.broker_id, b.host.as_ref(), b.port)),
            );
            body.brokers
                .retain_mut(|broker| match shared.addresses.get(broker.broker_id) {
                    Some(endpoint) => {
                        broker.host = Cow::Owned(endpoint.host);
                        broker.port = i32::from(endpoint.port);
                        true
                    }
                    None => false,
                });
            if include_ops && body.error_code == 0 {
                let ctx = asker.context();
                body.cluster_authorized_operations = cluster_operations_value(&ctx.authorizer());
            }
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: Option<&'static str>, id: u8) -> MetadataRequestTopic<'static> {
        MetadataRequestTopic {
            name: name.map(Cow::Borrowed),
            topic_id: Uuid([id; 16]),
            ..Default::default()
        }
    }

    #[test]
    fn one_id_makes_the_whole_request_by_id() {
        let by_name = MetadataRequest {
            topics: Some(vec![entry(Some("a"), 0), entry(Some("b"), 0)]),
            ..Default::default()
        };
        assert_eq!(by_id(&by_name), None);
        assert_eq!(by_id(&MetadataRequest::default()), None, "all topics");
        // A name beside another topic's id: Kafka answers for the id, never for the name.
        let mixed = MetadataRequest {
            topics: Some(vec![
                entry(Some("allowed"), 7),
                entry(Some("ignored"), 0),
                entry(None, 7),
                entry(None, 9),
            ]),
            ..Default::default()
        };
        assert_eq!(by_id(&mixed), Some(vec![Uuid([7; 16]), Uuid([9; 16])]));
    }

    #[test]
    fn an_undescribable_topic_answered_by_id_keeps_only_its_id() {
        let mut topics = vec![
            MetadataResponseTopic {
                name: Some(Cow::Borrowed("secret")),
                topic_id: Uuid([7; 16]),
                partitions: vec![Default::default()],
                ..Default::default()
            },
            MetadataResponseTopic {
                name: Some(Cow::Borrowed("open")),
                topic_id: Uuid([8; 16]),
                partitions: vec![Default::default()],
                ..Default::default()
            },
            MetadataResponseTopic {
                error_code: ErrorCode::UnknownTopicId.code(),
                name: None,
                topic_id: Uuid([9; 16]),
                ..Default::default()
            },
        ];
        hide_undescribable_by_id(&mut topics, |name| name == "open");
        assert_eq!(topics[0], refused_by_id(Uuid([7; 16])));
        assert_eq!(topics[0].name, None);
        assert!(topics[0].partitions.is_empty());
        assert_eq!(topics[1].name.as_deref(), Some("open"));
        assert_eq!(topics[1].partitions.len(), 1);
        assert_eq!(topics[2].error_code, ErrorCode::UnknownTopicId.code());
    }
}
