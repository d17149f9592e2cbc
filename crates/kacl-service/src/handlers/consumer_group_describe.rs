//! ConsumerGroupDescribe (69), v0-1: KIP-848 consumer groups by id, what the Java AdminClient
//! of Kafka 4 asks first (falling back to DescribeGroups for a group it does not find). A
//! standalone kacl node runs no group coordinator: every group it may describe is answered
//! GROUP_ID_NOT_FOUND with Kafka's `Group X not found.`; without DESCRIBE on the group,
//! GROUP_AUTHORIZATION_FAILED, listed first as Kafka's `KafkaApis` lists refusals. On a gateway
//! node ConsumerGroupDescribe is forwarded to the upstream.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::consumer_group_describe::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, DescribedGroup,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// ConsumerGroupDescribe: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct ConsumerGroupDescribe;

impl Handler for ConsumerGroupDescribe {
    type Request<'r> = ConsumerGroupDescribeRequest<'r>;
    type Response<'r> = ConsumerGroupDescribeResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: ConsumerGroupDescribeRequest<'r>,
    ) -> Result<ConsumerGroupDescribeResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one ConsumerGroupDescribe request.
fn answer<'r>(
    ctx: &RequestContext<'_>,
    request: ConsumerGroupDescribeRequest<'r>,
) -> ConsumerGroupDescribeResponse<'r> {
    let session = ctx.authorizer();
    let (allowed, refused): (Vec<_>, Vec<_>) = request.group_ids.into_iter().partition(|group| {
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
    groups.extend(allowed.into_iter().map(|group_id| DescribedGroup {
        error_code: ErrorCode::GroupIdNotFound.code(),
        error_message: Some(Cow::Owned(format!("Group {group_id} not found."))),
        group_id,
        ..Default::default()
    }));
    ConsumerGroupDescribeResponse {
        groups,
        ..Default::default()
    }
}
