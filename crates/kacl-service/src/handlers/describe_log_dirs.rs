//! DescribeLogDirs (35), v1-4: the log directories of this node, as Kafka's `KafkaApis`
//! answers it: DESCRIBE on the cluster, else no directories (and, from v3,
//! CLUSTER_AUTHORIZATION_FAILED at the top).
//!
//! What kacl can say honestly: it has one directory, its data directory (`metadata.log.dir`,
//! falling back to `log.dirs`), and keeps no partition logs in it, so the directory is listed
//! with no topics whatever partitions were asked for, and its volume's total and usable bytes
//! as -1 ("unknown", which the Java AdminClient reads as absent) rather than figures about a
//! volume that holds no records. On a gateway node this API is forwarded to the upstream,
//! whose brokers have the logs.

use std::borrow::Cow;

use kacl_acl::AclOperation;
use kacl_protocol::messages::describe_log_dirs::{
    DescribeLogDirsRequest, DescribeLogDirsResponse, DescribeLogDirsResult,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// DescribeLogDirs: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeLogDirs;

impl Handler for DescribeLogDirs {
    type Request<'r> = DescribeLogDirsRequest<'r>;
    type Response<'r> = DescribeLogDirsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeLogDirsRequest<'r>,
    ) -> Result<DescribeLogDirsResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one DescribeLogDirs request.
fn answer(
    ctx: &RequestContext<'_>,
    _request: DescribeLogDirsRequest<'_>,
) -> DescribeLogDirsResponse<'static> {
    if !ctx.cluster_allows(AclOperation::Describe) {
        return DescribeLogDirsResponse {
            error_code: ErrorCode::ClusterAuthorizationFailed.code(),
            ..Default::default()
        };
    }
    let dir = &ctx.state.config.data_dir;
    // Kafka reports each directory's absolute path.
    let path = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
    DescribeLogDirsResponse {
        results: vec![DescribeLogDirsResult {
            error_code: 0,
            log_dir: Cow::Owned(path.to_string_lossy().into_owned()),
            topics: Vec::new(),
            total_bytes: -1,
            usable_bytes: -1,
            unknown_tagged_fields: Default::default(),
        }],
        ..Default::default()
    }
}
