//! The consumer-group APIs, as Kafka's `KafkaApis` authorizes them: READ on the group to
//! join, sync, heartbeat, leave and commit (plus READ on each committed topic), DESCRIBE on
//! the group to fetch offsets and describe it, DELETE to delete it or its offsets, DESCRIBE
//! on the group or transactional id to find its coordinator, and DESCRIBE on the cluster to
//! list every group (otherwise the list is filtered to the groups the principal may
//! describe). Coordinator addresses are shown at the gateway endpoints.

use std::borrow::Cow;
use std::sync::Arc;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::consumer_group_describe::{
    self as cg_describe, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
};
use kacl_protocol::messages::consumer_group_heartbeat::{
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
};
use kacl_protocol::messages::delete_groups::{
    DeletableGroupResult, DeleteGroupsRequest, DeleteGroupsResponse,
};
use kacl_protocol::messages::describe_groups::{
    DescribeGroupsRequest, DescribeGroupsResponse, DescribedGroup,
};
use kacl_protocol::messages::find_coordinator::{
    Coordinator, FindCoordinatorRequest, FindCoordinatorResponse,
};
use kacl_protocol::messages::heartbeat::{HeartbeatRequest, HeartbeatResponse};
use kacl_protocol::messages::join_group::{JoinGroupRequest, JoinGroupResponse};
use kacl_protocol::messages::leave_group::{LeaveGroupRequest, LeaveGroupResponse};
use kacl_protocol::messages::list_groups::ListGroupsResponse;
use kacl_protocol::messages::offset_commit::{
    OffsetCommitRequest, OffsetCommitResponse, OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
};
use kacl_protocol::messages::offset_delete::{
    OffsetDeleteRequest, OffsetDeleteResponse, OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
};
use kacl_protocol::messages::offset_fetch::{
    OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponseGroup,
    OffsetFetchResponsePartition, OffsetFetchResponsePartitions, OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
};
use kacl_protocol::messages::sync_group::{SyncGroupRequest, SyncGroupResponse};
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::{AuditedSession, RequestContext};

use crate::plan::{Asker, Plan};
use crate::Shared;

const GROUP_DENIED: i16 = ErrorCode::GroupAuthorizationFailed.code();
const TOPIC_DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();

fn group_allows(session: &AuditedSession<'_>, operation: AclOperation, group: &str) -> bool {
    session.allows(operation, ResourceType::Group, group, AuditPolicy::ENFORCED)
}

fn topic_allows(session: &AuditedSession<'_>, operation: AclOperation, topic: &str) -> bool {
    session.allows(operation, ResourceType::Topic, topic, AuditPolicy::ENFORCED)
}

/// READ on the group, or the answer `refuse` builds.
fn group_read_or<'m, M: kacl_protocol::Message<'m>>(
    ctx: &RequestContext<'_>,
    group: &str,
    refuse: impl FnOnce() -> M,
) -> Plan {
    if group_allows(&ctx.authorizer(), AclOperation::Read, group) {
        Plan::pass()
    } else {
        Plan::answer(ctx, &refuse())
    }
}

pub(super) fn join_group(ctx: &RequestContext<'_>, request: JoinGroupRequest<'_>) -> Plan {
    group_read_or(ctx, &request.group_id, || JoinGroupResponse {
        error_code: GROUP_DENIED,
        generation_id: -1,
        protocol_name: (ctx.version < 7).then_some(Cow::Borrowed("")),
        ..Default::default()
    })
}

pub(super) fn sync_group(ctx: &RequestContext<'_>, request: SyncGroupRequest<'_>) -> Plan {
    group_read_or(ctx, &request.group_id, || SyncGroupResponse {
        error_code: GROUP_DENIED,
        ..Default::default()
    })
}

pub(super) fn heartbeat(ctx: &RequestContext<'_>, request: HeartbeatRequest<'_>) -> Plan {
    group_read_or(ctx, &request.group_id, || HeartbeatResponse {
        error_code: GROUP_DENIED,
        ..Default::default()
    })
}

pub(super) fn leave_group(ctx: &RequestContext<'_>, request: LeaveGroupRequest<'_>) -> Plan {
    group_read_or(ctx, &request.group_id, || LeaveGroupResponse {
        error_code: GROUP_DENIED,
        ..Default::default()
    })
}

/// KIP-848: READ on the group, and DESCRIBE on every topic the member subscribes to by name
/// (Kafka answers TOPIC_AUTHORIZATION_FAILED naming the others). A regex subscription is
/// resolved by the upstream, which does not know kacl's ACLs; the topics it assigns are still
/// authorized for READ on every Fetch.
pub(super) fn consumer_group_heartbeat(
    ctx: &RequestContext<'_>,
    request: ConsumerGroupHeartbeatRequest<'_>,
) -> Plan {
    let session = ctx.authorizer();
    if !group_allows(&session, AclOperation::Read, &request.group_id) {
        drop(session);
        return Plan::answer(
            ctx,
            &ConsumerGroupHeartbeatResponse {
                error_code: GROUP_DENIED,
                ..Default::default()
            },
        );
    }
    let denied: Vec<&str> = request
        .subscribed_topic_names
        .iter()
        .flatten()
        .map(|t| t.as_ref())
        .filter(|topic| !topic_allows(&session, AclOperation::Describe, topic))
        .collect();
    drop(session);
    if denied.is_empty() {
        return Plan::pass();
    }
    Plan::answer(
        ctx,
        &ConsumerGroupHeartbeatResponse {
            error_code: TOPIC_DENIED,
            error_message: Some(Cow::Owned(format!(
                "The group has subscribed to topics which are not authorized: {}",
                denied.join(", ")
            ))),
            ..Default::default()
        },
    )
}

/// READ on the group (else every partition GROUP_AUTHORIZATION_FAILED), READ on each topic.
pub(super) fn offset_commit(
    ctx: &RequestContext<'_>,
    mut request: OffsetCommitRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let group_ok = group_allows(&session, AclOperation::Read, &request.group_id);
    let mut refused: Vec<(String, Vec<i32>, i16)> = Vec::new();
    request.topics.retain(|topic| {
        let code = if !group_ok {
            GROUP_DENIED
        } else if !topic_allows(&session, AclOperation::Read, &topic.name) {
            TOPIC_DENIED
        } else {
            return true;
        };
        let partitions = topic.partitions.iter().map(|p| p.partition_index).collect();
        refused.push((topic.name.to_string(), partitions, code));
        false
    });
    drop(session);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut OffsetCommitResponse<'_>| {
        for (name, partitions, code) in refused {
            body.topics.push(OffsetCommitResponseTopic {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| OffsetCommitResponsePartition {
                        partition_index,
                        error_code: code,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    };
    merged!(
        ctx,
        frame,
        request,
        OffsetCommitResponse,
        request.topics.is_empty(),
        merge
    )
}

/// DESCRIBE on the group (v8+: on each group) and on each topic; a fetch of all the group's
/// offsets (null topics) is filtered to the topics the principal may describe.
pub(super) fn offset_fetch(
    ctx: &RequestContext<'_>,
    mut request: OffsetFetchRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    if ctx.version < 8 {
        if !group_allows(&session, AclOperation::Describe, &request.group_id) {
            drop(session);
            let topics = request
                .topics
                .iter()
                .flatten()
                .map(|t| OffsetFetchResponseTopic {
                    name: Cow::Owned(t.name.to_string()),
                    partitions: t
                        .partition_indexes
                        .iter()
                        .map(|p| OffsetFetchResponsePartition {
                            partition_index: *p,
                            committed_offset: -1,
                            error_code: GROUP_DENIED,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            return Plan::answer(
                ctx,
                &OffsetFetchResponse {
                    error_code: GROUP_DENIED,
                    topics,
                    ..Default::default()
                },
            );
        }
        let mut refused: Vec<(String, Vec<i32>)> = Vec::new();
        if let Some(topics) = &mut request.topics {
            topics.retain(|t| {
                let ok = topic_allows(&session, AclOperation::Describe, &t.name);
                if !ok {
                    refused.push((t.name.to_string(), t.partition_indexes.clone()));
                }
                ok
            });
        }
        drop(session);
        let all = request.topics.is_none();
        let reduced = !refused.is_empty();
        let merge = move |asker: &Asker, body: &mut OffsetFetchResponse<'_>| {
            if all {
                let ctx = asker.context();
                let session = ctx.authorizer();
                body.topics.retain(|t| {
                    session.allows(
                        AclOperation::Describe,
                        ResourceType::Topic,
                        &t.name,
                        AuditPolicy::FILTERING,
                    )
                });
            }
            for (name, partitions) in refused {
                body.topics.push(OffsetFetchResponseTopic {
                    name: Cow::Owned(name),
                    partitions: partitions
                        .into_iter()
                        .map(|partition_index| OffsetFetchResponsePartition {
                            partition_index,
                            committed_offset: -1,
                            error_code: TOPIC_DENIED,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                });
            }
        };
        if !all && !reduced {
            return Plan::pass();
        }
        let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
            asker.rewrite::<OffsetFetchResponse<'_>>(&payload, merge)
        });
        return if reduced {
            Plan::reduced(ctx, frame, &request, finish)
        } else {
            Plan::rewrite(finish)
        };
    }
    // v8+: several groups per request.
    let mut refused_groups: Vec<String> = Vec::new();
    let mut refused_topics: Vec<(String, String, Vec<i32>)> = Vec::new();
    let mut filter_all = false;
    request.groups.retain_mut(|group| {
        if !group_allows(&session, AclOperation::Describe, &group.group_id) {
            refused_groups.push(group.group_id.to_string());
            return false;
        }
        match &mut group.topics {
            None => filter_all = true,
            Some(topics) => topics.retain(|t| {
                let ok = topic_allows(&session, AclOperation::Describe, &t.name);
                if !ok {
                    refused_topics.push((
                        group.group_id.to_string(),
                        t.name.to_string(),
                        t.partition_indexes.clone(),
                    ));
                }
                ok
            }),
        }
        true
    });
    drop(session);
    let reduced = !refused_groups.is_empty() || !refused_topics.is_empty();
    let merge = move |asker: &Asker, body: &mut OffsetFetchResponse<'_>| {
        if filter_all {
            let ctx = asker.context();
            let session = ctx.authorizer();
            for group in &mut body.groups {
                group.topics.retain(|t| {
                    session.allows(
                        AclOperation::Describe,
                        ResourceType::Topic,
                        &t.name,
                        AuditPolicy::FILTERING,
                    )
                });
            }
        }
        for (group_id, name, partitions) in refused_topics {
            let topic = OffsetFetchResponseTopics {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| OffsetFetchResponsePartitions {
                        partition_index,
                        committed_offset: -1,
                        error_code: TOPIC_DENIED,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            };
            match body
                .groups
                .iter_mut()
                .find(|g| g.group_id == group_id.as_str())
            {
                Some(group) => group.topics.push(topic),
                None => body.groups.push(OffsetFetchResponseGroup {
                    group_id: Cow::Owned(group_id),
                    topics: vec![topic],
                    ..Default::default()
                }),
            }
        }
        for group_id in refused_groups {
            body.groups.push(OffsetFetchResponseGroup {
                group_id: Cow::Owned(group_id),
                error_code: GROUP_DENIED,
                ..Default::default()
            });
        }
    };
    if request.groups.is_empty() {
        let mut body = OffsetFetchResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if !reduced && !filter_all {
        return Plan::pass();
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<OffsetFetchResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// DELETE on the group (else GROUP_AUTHORIZATION_FAILED for the request), READ on each topic.
pub(super) fn offset_delete(
    ctx: &RequestContext<'_>,
    mut request: OffsetDeleteRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    if !group_allows(&session, AclOperation::Delete, &request.group_id) {
        drop(session);
        return Plan::answer(
            ctx,
            &OffsetDeleteResponse {
                error_code: GROUP_DENIED,
                ..Default::default()
            },
        );
    }
    let mut refused: Vec<(String, Vec<i32>)> = Vec::new();
    request.topics.retain(|t| {
        let ok = topic_allows(&session, AclOperation::Read, &t.name);
        if !ok {
            refused.push((
                t.name.to_string(),
                t.partitions.iter().map(|p| p.partition_index).collect(),
            ));
        }
        ok
    });
    drop(session);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut OffsetDeleteResponse<'_>| {
        for (name, partitions) in refused {
            body.topics.push(OffsetDeleteResponseTopic {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| OffsetDeleteResponsePartition {
                        partition_index,
                        error_code: TOPIC_DENIED,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    };
    merged!(
        ctx,
        frame,
        request,
        OffsetDeleteResponse,
        request.topics.is_empty(),
        merge
    )
}

/// DESCRIBE on each group; authorized operations are the client principal's.
pub(super) fn describe_groups(
    ctx: &RequestContext<'_>,
    mut request: DescribeGroupsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut refused: Vec<String> = Vec::new();
    request.groups.retain(|group| {
        let ok = group_allows(&session, AclOperation::Describe, group);
        if !ok {
            refused.push(group.to_string());
        }
        ok
    });
    drop(session);
    let include_ops = request.include_authorized_operations;
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut DescribeGroupsResponse<'_>| {
        if include_ops {
            let ctx = asker.context();
            let session = ctx.authorizer();
            for group in &mut body.groups {
                if group.error_code == 0 {
                    group.authorized_operations =
                        session.authorized_operations(ResourceType::Group, &group.group_id);
                }
            }
        }
        for group_id in refused {
            body.groups.push(DescribedGroup {
                error_code: GROUP_DENIED,
                group_id: Cow::Owned(group_id),
                ..Default::default()
            });
        }
    };
    if request.groups.is_empty() {
        let mut body = DescribeGroupsResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if !reduced && !include_ops {
        return Plan::pass();
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<DescribeGroupsResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// KIP-848 groups: DESCRIBE on each group.
pub(super) fn consumer_group_describe(
    ctx: &RequestContext<'_>,
    mut request: ConsumerGroupDescribeRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut refused: Vec<String> = Vec::new();
    request.group_ids.retain(|group| {
        let ok = group_allows(&session, AclOperation::Describe, group);
        if !ok {
            refused.push(group.to_string());
        }
        ok
    });
    drop(session);
    let include_ops = request.include_authorized_operations;
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut ConsumerGroupDescribeResponse<'_>| {
        if include_ops {
            let ctx = asker.context();
            let session = ctx.authorizer();
            for group in &mut body.groups {
                if group.error_code == 0 {
                    group.authorized_operations =
                        session.authorized_operations(ResourceType::Group, &group.group_id);
                }
            }
        }
        for group_id in refused {
            body.groups.push(cg_describe::DescribedGroup {
                error_code: GROUP_DENIED,
                error_message: Some(Cow::Borrowed(
                    ErrorCode::GroupAuthorizationFailed.default_message(),
                )),
                group_id: Cow::Owned(group_id),
                ..Default::default()
            });
        }
    };
    if request.group_ids.is_empty() {
        let mut body = ConsumerGroupDescribeResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if !reduced && !include_ops {
        return Plan::pass();
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<ConsumerGroupDescribeResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// DESCRIBE on the cluster lists every group; otherwise the list is filtered to the groups the
/// principal may describe (Kafka's `handleListGroupsRequest`).
pub(super) fn list_groups(ctx: &RequestContext<'_>) -> Plan {
    let cluster = ctx.authorizer().allows(
        AclOperation::Describe,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    if cluster {
        return Plan::pass();
    }
    Plan::rewrite(Box::new(|asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<ListGroupsResponse<'_>>(&payload, |asker, body| {
            let ctx = asker.context();
            let session = ctx.authorizer();
            body.groups.retain(|g| {
                session.allows(
                    AclOperation::Describe,
                    ResourceType::Group,
                    &g.group_id,
                    AuditPolicy::FILTERING,
                )
            });
        })
    }))
}

/// DELETE on each group.
pub(super) fn delete_groups(
    ctx: &RequestContext<'_>,
    mut request: DeleteGroupsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut refused: Vec<String> = Vec::new();
    request.groups_names.retain(|group| {
        let ok = group_allows(&session, AclOperation::Delete, group);
        if !ok {
            refused.push(group.to_string());
        }
        ok
    });
    drop(session);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut DeleteGroupsResponse<'_>| {
        body.results
            .extend(refused.into_iter().map(|group_id| DeletableGroupResult {
                group_id: Cow::Owned(group_id),
                error_code: GROUP_DENIED,
                ..Default::default()
            }));
    };
    merged!(
        ctx,
        frame,
        request,
        DeleteGroupsResponse,
        request.groups_names.is_empty(),
        merge
    )
}

/// Kafka's coordinator key types.
const GROUP_KEY: i8 = 0;
const TRANSACTION_KEY: i8 = 1;

/// DESCRIBE on the group or transactional id of each key; the coordinator is shown at its
/// gateway endpoint (COORDINATOR_NOT_AVAILABLE when the gateway has no port for it, which
/// makes the client ask again).
pub(super) fn find_coordinator(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: FindCoordinatorRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let key_type = request.key_type;
    let refusal = |key: &str| -> Option<ErrorCode> {
        match key_type {
            GROUP_KEY => (!group_allows(&session, AclOperation::Describe, key))
                .then_some(ErrorCode::GroupAuthorizationFailed),
            TRANSACTION_KEY => (!session.allows(
                AclOperation::Describe,
                ResourceType::TransactionalId,
                key,
                AuditPolicy::ENFORCED,
            ))
            .then_some(ErrorCode::TransactionalIdAuthorizationFailed),
            // Share-group keys (KIP-932) and unknown types: not forwarded.
            _ => Some(ErrorCode::InvalidRequest),
        }
    };
    let mut refused: Vec<(String, ErrorCode)> = Vec::new();
    if ctx.version < 4 {
        if let Some(code) = refusal(&request.key) {
            drop(session);
            return Plan::answer(
                ctx,
                &FindCoordinatorResponse {
                    error_code: code.code(),
                    error_message: Some(Cow::Borrowed(code.default_message())),
                    node_id: -1,
                    host: Cow::Borrowed(""),
                    port: -1,
                    ..Default::default()
                },
            );
        }
    } else {
        request.coordinator_keys.retain(|key| match refusal(key) {
            Some(code) => {
                refused.push((key.to_string(), code));
                false
            }
            None => true,
        });
    }
    drop(session);
    let shared = shared.clone();
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut FindCoordinatorResponse<'_>| {
        if asker.version < 4 {
            if body.error_code == 0 {
                match shared.addresses.get(body.node_id) {
                    Some(endpoint) => {
                        body.host = Cow::Owned(endpoint.host);
                        body.port = i32::from(endpoint.port);
                    }
                    None => unavailable(&mut body.error_code, &mut body.host, &mut body.port),
                }
            }
            return;
        }
        for coordinator in &mut body.coordinators {
            if coordinator.error_code == 0 {
                match shared.addresses.get(coordinator.node_id) {
                    Some(endpoint) => {
                        coordinator.host = Cow::Owned(endpoint.host);
                        coordinator.port = i32::from(endpoint.port);
                    }
                    None => unavailable(
                        &mut coordinator.error_code,
                        &mut coordinator.host,
                        &mut coordinator.port,
                    ),
                }
            }
        }
        for (key, code) in refused {
            body.coordinators.push(Coordinator {
                key: Cow::Owned(key),
                node_id: -1,
                host: Cow::Borrowed(""),
                port: -1,
                error_code: code.code(),
                error_message: Some(Cow::Borrowed(code.default_message())),
                ..Default::default()
            });
        }
    };
    if ctx.version >= 4 && request.coordinator_keys.is_empty() {
        let mut body = FindCoordinatorResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<FindCoordinatorResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// A coordinator the gateway has no port for: never shown with its upstream address.
fn unavailable(code: &mut i16, host: &mut Cow<'_, str>, port: &mut i32) {
    *code = ErrorCode::CoordinatorNotAvailable.code();
    *host = Cow::Borrowed("");
    *port = -1;
}
