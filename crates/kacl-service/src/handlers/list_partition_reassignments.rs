//! ListPartitionReassignments (46), v0 (KIP-455): the reassignments in progress, as Kafka's
//! `ControllerApis` answers it: DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED at
//! the top with no topics.
//!
//! kacl completes every reassignment when it accepts it (see
//! [`alter_partition_reassignments`](super::alter_partition_reassignments)), so none is ever in
//! progress and the list is empty, for all topics or the ones named (Kafka leaves out a named
//! topic or partition that is not being reassigned, and a topic it does not know).

use std::borrow::Cow;

use kacl_acl::AclOperation;
use kacl_protocol::messages::list_partition_reassignments::{
    ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// ListPartitionReassignments: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct ListPartitionReassignments;

impl Handler for ListPartitionReassignments {
    type Request<'r> = ListPartitionReassignmentsRequest<'r>;
    type Response<'r> = ListPartitionReassignmentsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: ListPartitionReassignmentsRequest<'r>,
    ) -> Result<ListPartitionReassignmentsResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one ListPartitionReassignments request.
fn answer(
    ctx: &RequestContext<'_>,
    _request: ListPartitionReassignmentsRequest<'_>,
) -> ListPartitionReassignmentsResponse<'static> {
    if !ctx.cluster_allows(AclOperation::Describe) {
        return ListPartitionReassignmentsResponse {
            error_code: ErrorCode::ClusterAuthorizationFailed.code(),
            error_message: Some(Cow::Owned(ctx.cluster_denied_message())),
            ..Default::default()
        };
    }
    ListPartitionReassignmentsResponse::default()
}
