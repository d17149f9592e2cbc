//! The consumer-group APIs, as Kafka's `KafkaApis` authorizes them: READ on the group to
//! join, sync, heartbeat, leave and commit (plus READ on each committed topic), DESCRIBE on
//! the group to fetch offsets and describe it, DELETE to delete it or its offsets, DESCRIBE
//! on the group or transactional id to find its coordinator, and DESCRIBE on the cluster to
//! list every group (otherwise the list is filtered to the groups the principal may
//! describe). Coordinator addresses are shown at the gateway endpoints.

mod access;
mod coordinator;
mod listing;
mod offsets;

use std::borrow::Cow;

use kacl_acl::AclOperation;
use kacl_protocol::messages::consumer_group_heartbeat::{
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
};
use kacl_protocol::messages::heartbeat::{HeartbeatRequest, HeartbeatResponse};
use kacl_protocol::messages::join_group::{JoinGroupRequest, JoinGroupResponse};
use kacl_protocol::messages::leave_group::{LeaveGroupRequest, LeaveGroupResponse};
use kacl_protocol::messages::sync_group::{SyncGroupRequest, SyncGroupResponse};
use kacl_service::context::RequestContext;

use crate::plan::Plan;
use access::{group_allows, group_read_or, topic_allows, GROUP_DENIED, TOPIC_DENIED};
pub(super) use coordinator::find_coordinator;
pub(super) use listing::{consumer_group_describe, delete_groups, describe_groups, list_groups};
pub(super) use offsets::{offset_commit, offset_delete, offset_fetch};

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
