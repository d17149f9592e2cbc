//! Partition reassignment through a gateway: AlterPartitionReassignments (45, ALTER on the
//! cluster) and ListPartitionReassignments (46, DESCRIBE on the cluster), as Kafka's
//! `ControllerApis` decides them. A refused request never reaches the upstream and is answered
//! by the gateway with CLUSTER_AUTHORIZATION_FAILED as Kafka's error responses carry it (at the
//! top, and for Alter on every partition); an allowed one is forwarded as it is. The partitions
//! and brokers are the upstream's, so no address needs rewriting (answers name broker ids
//! only).

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::messages::alter_partition_reassignments::{
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse,
    ReassignablePartitionResponse, ReassignableTopicResponse,
};
use kacl_protocol::messages::list_partition_reassignments::ListPartitionReassignmentsResponse;
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use crate::plan::Plan;

fn cluster_allows(ctx: &RequestContext<'_>, operation: AclOperation) -> bool {
    ctx.authorizer().allows(
        operation,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::ENFORCED,
    )
}

pub(super) fn alter_partition_reassignments(
    ctx: &RequestContext<'_>,
    request: AlterPartitionReassignmentsRequest<'_>,
) -> Plan {
    if cluster_allows(ctx, AclOperation::Alter) {
        return Plan::pass();
    }
    let code = ErrorCode::ClusterAuthorizationFailed.code();
    let message = ctx.cluster_denied_message();
    Plan::answer(
        ctx,
        &AlterPartitionReassignmentsResponse {
            allow_replication_factor_change: request.allow_replication_factor_change,
            error_code: code,
            error_message: Some(Cow::Borrowed(&message)),
            responses: request
                .topics
                .iter()
                .map(|topic| ReassignableTopicResponse {
                    name: topic.name.clone(),
                    partitions: topic
                        .partitions
                        .iter()
                        .map(|p| ReassignablePartitionResponse {
                            partition_index: p.partition_index,
                            error_code: code,
                            error_message: Some(Cow::Borrowed(&message)),
                            unknown_tagged_fields: Default::default(),
                        })
                        .collect(),
                    unknown_tagged_fields: Default::default(),
                })
                .collect(),
            ..Default::default()
        },
    )
}

pub(super) fn list_partition_reassignments(ctx: &RequestContext<'_>) -> Plan {
    if cluster_allows(ctx, AclOperation::Describe) {
        return Plan::pass();
    }
    Plan::answer(
        ctx,
        &ListPartitionReassignmentsResponse {
            error_code: ErrorCode::ClusterAuthorizationFailed.code(),
            error_message: Some(Cow::Owned(ctx.cluster_denied_message())),
            ..Default::default()
        },
    )
}
