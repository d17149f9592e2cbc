//! ListGroups (16), v0-5: the groups this node coordinates. A standalone kacl node runs no
//! group coordinator, so it has none and answers an empty list with no error, whatever the
//! state and type filters (Kafka answers the same on a cluster without groups). Kafka checks
//! DESCRIBE on the cluster without logging a denial and, without it, filters the groups by
//! DESCRIBE on each; with no groups only the cluster check is left, made the same way so the
//! audit log reads as Kafka's. On a gateway node ListGroups is forwarded to the upstream.

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::messages::list_groups::{ListGroupsRequest, ListGroupsResponse};

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// ListGroups: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct ListGroups;

impl Handler for ListGroups {
    type Request<'r> = ListGroupsRequest<'r>;
    type Response<'r> = ListGroupsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: ListGroupsRequest<'r>,
    ) -> Result<ListGroupsResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one ListGroups request.
fn answer(
    ctx: &RequestContext<'_>,
    _request: ListGroupsRequest<'_>,
) -> ListGroupsResponse<'static> {
    ctx.authorizer().allows(
        AclOperation::Describe,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    ListGroupsResponse::default()
}
