//! DescribeGroups (15), v0-6: classic groups by id. A standalone kacl node runs no group
//! coordinator, so every group it may describe is one it does not know, answered as Kafka's
//! group coordinator answers an unknown group: state `Dead` with no members, and from v6
//! GROUP_ID_NOT_FOUND with `Group X not found.` (KIP-1043). Without DESCRIBE on the group:
//! GROUP_AUTHORIZATION_FAILED, listed first as Kafka's `KafkaApis` lists refusals. Authorized
//! operations (v3+, when asked) are set, as in Kafka, on every group answered without error:
//! the `Dead` groups of v3-5. On a gateway node DescribeGroups is forwarded to the upstream.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::describe_groups::{
    DescribeGroupsRequest, DescribeGroupsResponse, DescribedGroup,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// The state Kafka gives a group it does not know.
pub const DEAD: &str = "Dead";

/// DescribeGroups: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeGroups;

impl Handler for DescribeGroups {
    type Request<'r> = DescribeGroupsRequest<'r>;
    type Response<'r> = DescribeGroupsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeGroupsRequest<'r>,
    ) -> Result<DescribeGroupsResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one DescribeGroups request.
fn answer<'r>(
    ctx: &RequestContext<'_>,
    request: DescribeGroupsRequest<'r>,
) -> DescribeGroupsResponse<'r> {
    let session = ctx.authorizer();
    let include_operations = request.include_authorized_operations;
    let (allowed, refused): (Vec<_>, Vec<_>) = request.groups.into_iter().partition(|group| {
        session.allows(
            AclOperation::Describe,
            ResourceType::Group,
            group,
            AuditPolicy::ENFORCED,
        )
    });
    let mut groups: Vec<DescribedGroup<'r>> = refused
        .into_iter()
        .map(|group_id| DescribedGroup {
            error_code: ErrorCode::GroupAuthorizationFailed.code(),
            group_id,
            ..Default::default()
        })
        .collect();
    groups.extend(allowed.into_iter().map(|group_id| {
        let (error_code, error_message) = if ctx.version >= 6 {
            let message = format!("Group {group_id} not found.");
            (ErrorCode::GroupIdNotFound.code(), Some(Cow::Owned(message)))
        } else {
            (0, None)
        };
        let authorized_operations = if error_code == 0 && ctx.version >= 3 && include_operations {
            session.authorized_operations(ResourceType::Group, &group_id)
        } else {
            i32::MIN
        };
        DescribedGroup {
            error_code,
            error_message,
            group_id,
            group_state: Cow::Borrowed(DEAD),
            authorized_operations,
            ..Default::default()
        }
    }));
    DescribeGroupsResponse {
        groups,
        ..Default::default()
    }
}
