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
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataResponse, MetadataResponseTopic};
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
    mut request: MetadataRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied: Vec<String> = Vec::new();
    let mut create_denied: Vec<String> = Vec::new();
    let mut unresolved: Vec<Uuid> = Vec::new();
    let mut reduced = false;
    let all_topics = request.topics.is_none();
    if let Some(topics) = &mut request.topics {
        let before = topics.len();
        topics.retain(|topic| {
            // A lookup by id: the name from the ids the gateway has seen; an id it has not
            // seen is asked of the upstream and authorized on the name the answer gives
            // (KIP-848 consumers learn their topics' ids from the heartbeat and look them up
            // by id only).
            let name = match &topic.name {
                Some(name) => name.to_string(),
                None => match shared.topic_ids.name(&topic.topic_id) {
                    Some(name) => name,
                    None => {
                        unresolved.push(topic.topic_id);
                        return true;
                    }
                },
            };
            if !session.allows(
                AclOperation::Describe,
                ResourceType::Topic,
                &name,
                AuditPolicy::ENFORCED,
            ) {
                denied.push(name);
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
            let joined = shared_for_answer.upstream.learn_brokers(
                body.brokers
                    .iter()
                    .map(|b| (b.node_id, b.host.as_ref(), b.port)),
            );
            shared_for_answer.brokers_joined(joined);
            shared_for_answer.topic_ids.learn(
                body.topics
                    .iter()
                    .filter_map(|t| Some((t.topic_id, t.name.as_deref()?))),
            );
            body.brokers.retain_mut(|broker| {
                match shared_for_answer.addresses.get(broker.node_id) {
                    Some(endpoint) => {
                        broker.host = Cow::Owned(endpoint.host);
                        broker.port = i32::from(endpoint.port);
                        true
                    }
                    None => false,
                }
            });
            // A controller the client cannot reach through the gateway (none named, or a
            // broker without a gateway port) becomes one it can, as a KRaft broker names any
            // live broker: admin clients send CreateTopics, CreateAcls and the like there, and
            // would otherwise wait for a controller forever (librdkafka's mock cluster names
            // none). The gateway answers the ACL APIs itself on every port.
            if !body.brokers.iter().any(|b| b.node_id == body.controller_id) {
                if let Some(first) = body.brokers.first() {
                    body.controller_id = first.node_id;
                }
            }
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
                if topic.error_code == 0
                    && unresolved.contains(&topic.topic_id)
                    && !session.allows(
                        AclOperation::Describe,
                        ResourceType::Topic,
                        topic.name.as_deref().unwrap_or_default(),
                        AuditPolicy::ENFORCED,
                    )
                {
                    *topic = MetadataResponseTopic {
                        error_code: TOPIC_AUTHORIZATION_FAILED,
                        name: None,
                        topic_id: topic.topic_id,
                        ..Default::default()
                    };
                    continue;
                }
                let name = topic.name.as_deref().unwrap_or_default();
                if topic.error_code == UNKNOWN_TOPIC_OR_PARTITION
                    && create_denied.iter().any(|n| n == name)
                {
                    topic.error_code = TOPIC_AUTHORIZATION_FAILED;
                } else if include_topic_ops && topic.error_code == 0 {
                    topic.topic_authorized_operations =
                        session.authorized_operations(ResourceType::Topic, name);
                }
            }
            for name in &denied {
                body.topics.push(MetadataResponseTopic {
                    error_code: if name.is_empty() {
                        ErrorCode::UnknownTopicId.code()
                    } else {
                        TOPIC_AUTHORIZATION_FAILED
                    },
                    name: (!name.is_empty()).then(|| Cow::Owned(name.clone())),
                    ..Default::default()
                });
            }
            if include_cluster_ops && (8..=10).contains(&asker.version) {
                body.cluster_authorized_operations =
                    session.authorized_operations(ResourceType::Cluster, CLUSTER_NAME);
            }
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
                body.cluster_authorized_operations = ctx
                    .authorizer()
                    .authorized_operations(ResourceType::Cluster, CLUSTER_NAME);
            }
        })
    }))
}
