//! DeleteGroups (42), v0-2. A standalone kacl node runs no group coordinator, so every group
//! it is asked to delete is one it does not know, answered as Kafka 4.4's `KafkaApis` and
//! group coordinator answer a group that does not exist: the ids once each (Kafka takes them
//! `distinct`), DELETE on the group checked first. The allowed ones come first, each
//! GROUP_ID_NOT_FOUND (the coordinator's answer, the empty id included), then the refused ones,
//! each GROUP_AUTHORIZATION_FAILED. On a gateway node DeleteGroups is forwarded to the
//! upstream, which has the groups.

use std::borrow::Cow;
use std::collections::HashSet;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::delete_groups::{
    DeletableGroupResult, DeleteGroupsRequest, DeleteGroupsResponse,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// DeleteGroups: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DeleteGroups;

impl Handler for DeleteGroups {
    type Request<'r> = DeleteGroupsRequest<'r>;
    type Response<'r> = DeleteGroupsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DeleteGroupsRequest<'r>,
    ) -> Result<DeleteGroupsResponse<'r>, Outcome> {
        let session = ctx.authorizer();
        let mut groups = request.groups_names;
        let mut seen = HashSet::new();
        groups.retain(|group| seen.insert(group.clone()));
        let (allowed, refused): (Vec<_>, Vec<_>) = groups.into_iter().partition(|group| {
            session.allows(
                AclOperation::Delete,
                ResourceType::Group,
                group,
                AuditPolicy::ENFORCED,
            )
        });
        let answered = |groups: Vec<Cow<'r, str>>, code: ErrorCode| {
            groups
                .into_iter()
                .map(move |group_id| DeletableGroupResult {
                    group_id,
                    error_code: code.code(),
                    ..Default::default()
                })
        };
        let mut results: Vec<DeletableGroupResult<'r>> =
            answered(allowed, ErrorCode::GroupIdNotFound).collect();
        results.extend(answered(refused, ErrorCode::GroupAuthorizationFailed));
        Ok(DeleteGroupsResponse {
            results,
            ..Default::default()
        })
    }
}
