//! DescribeGroups, ConsumerGroupDescribe, ListGroups and DeleteGroups: DESCRIBE on each group
//! (authorized operations recomputed for the client's principal), the list filtered to the
//! groups the principal may describe unless it may describe the cluster, DELETE to delete.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::consumer_group_describe::{
    self as cg_describe, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
};
use kacl_protocol::messages::delete_groups::{
    DeletableGroupResult, DeleteGroupsRequest, DeleteGroupsResponse,
};
use kacl_protocol::messages::describe_groups::{
    DescribeGroupsRequest, DescribeGroupsResponse, DescribedGroup,
};
use kacl_protocol::messages::list_groups::ListGroupsResponse;
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use super::access::{keep_allowed_groups, GROUP_DENIED};
use crate::plan::{Asker, Plan};

/// DESCRIBE on each group; authorized operations are the client principal's.
pub(in crate::rules) fn describe_groups(
    ctx: &RequestContext<'_>,
    mut request: DescribeGroupsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = keep_allowed_groups(ctx, AclOperation::Describe, &mut request.groups);
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
pub(in crate::rules) fn consumer_group_describe(
    ctx: &RequestContext<'_>,
    mut request: ConsumerGroupDescribeRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = keep_allowed_groups(ctx, AclOperation::Describe, &mut request.group_ids);
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
pub(in crate::rules) fn list_groups(ctx: &RequestContext<'_>) -> Plan {
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
pub(in crate::rules) fn delete_groups(
    ctx: &RequestContext<'_>,
    mut request: DeleteGroupsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = keep_allowed_groups(ctx, AclOperation::Delete, &mut request.groups_names);
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
