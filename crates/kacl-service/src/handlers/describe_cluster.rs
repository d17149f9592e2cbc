//! DescribeCluster (60), v0-1 (KIP-700, KIP-919): the cluster id, this node as broker and
//! controller, and, when asked, the caller's authorized operations on the cluster (computed
//! only if it may DESCRIBE the cluster, else 0, as Kafka; `i32::MIN` when not asked).
//!
//! kacl is broker and controller at once, so endpoint type 2 (controllers, what
//! `--bootstrap-controller` asks for) is answered with the same node; any other endpoint type
//! gets UNSUPPORTED_ENDPOINT_TYPE.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::messages::describe_cluster::{
    DescribeClusterBroker, DescribeClusterRequest, DescribeClusterResponse,
};
use kacl_protocol::ErrorCode;

use super::brokers::cluster_brokers;
use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Endpoint type 1: brokers.
const BROKERS: i8 = 1;
/// Endpoint type 2: controllers.
const CONTROLLERS: i8 = 2;

/// DescribeCluster: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeCluster;

impl Handler for DescribeCluster {
    type Request<'r> = DescribeClusterRequest<'r>;
    type Response<'r> = DescribeClusterResponse<'r>;

    /// Answers one DescribeCluster request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeClusterRequest<'r>,
    ) -> Result<DescribeClusterResponse<'r>, Outcome> {
        let state = ctx.state;
        if !matches!(request.endpoint_type, BROKERS | CONTROLLERS) {
            return Ok(DescribeClusterResponse {
                error_code: ErrorCode::UnsupportedEndpointType.code(),
                error_message: Some(Cow::Owned(format!(
                    "Unsupported endpoint type {}",
                    request.endpoint_type
                ))),
                endpoint_type: request.endpoint_type,
                cluster_id: Cow::Borrowed(&state.cluster_id),
                ..Default::default()
            });
        }
        let cluster_authorized_operations = if request.include_cluster_authorized_operations {
            let session = ctx.authorizer();
            if session.allows(
                AclOperation::Describe,
                ResourceType::Cluster,
                CLUSTER_NAME,
                AuditPolicy::ENFORCED,
            ) {
                session.authorized_operations(ResourceType::Cluster, CLUSTER_NAME)
            } else {
                0
            }
        } else {
            i32::MIN
        };
        let (brokers, controller_id) = cluster_brokers(state, ctx.listener);
        Ok(DescribeClusterResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            endpoint_type: request.endpoint_type,
            cluster_id: Cow::Borrowed(&state.cluster_id),
            controller_id,
            brokers: brokers
                .into_iter()
                .map(|(broker_id, host, port, rack)| DescribeClusterBroker {
                    broker_id,
                    host: Cow::Owned(host),
                    port: i32::from(port),
                    rack: rack.map(Cow::Owned),
                    is_fenced: false,
                    unknown_tagged_fields: Default::default(),
                })
                .collect(),
            cluster_authorized_operations,
            unknown_tagged_fields: Default::default(),
        })
    }
}
