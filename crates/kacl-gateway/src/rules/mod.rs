//! The gateway's authorization of each forwarded API, as Kafka's `KafkaApis` decides it: one
//! module per family, each a pure planning step from the typed request to a [`Plan`], plus
//! the rewrite of the upstream's answer where the client must see something else (broker
//! addresses, topics it may not describe, its own authorized operations, the entries the
//! gateway refused merged back in).
//!
//! [`enforceable`] is the list of what can be authorized: an API or version not in it is
//! never offered and never forwarded.

mod admin;
mod metadata;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::{ApiKey, VersionRange};
use kacl_service::context::RequestContext;
use kacl_service::handlers::decode;

use crate::plan::Plan;
use std::sync::Arc;

use crate::Shared;

/// The versions of `api` the gateway can authorize, or `None` for an API it cannot.
pub(crate) fn enforceable(api: ApiKey) -> Option<VersionRange> {
    let declared = api.versions();
    match api {
        // v0-3 cannot say "do not auto-create", which the gateway needs for a principal
        // without CREATE; clients of the last ten years send v4+.
        ApiKey::Metadata => Some(VersionRange::between(4, declared.max)),
        ApiKey::DescribeCluster
        | ApiKey::CreateTopics
        | ApiKey::DeleteTopics
        | ApiKey::CreatePartitions
        | ApiKey::DescribeConfigs
        | ApiKey::AlterConfigs
        | ApiKey::IncrementalAlterConfigs => Some(declared),
        _ => None,
    }
}

/// Decodes the typed request of `$api`, or answers with the close a malformed body gets.
macro_rules! typed {
    ($ctx:expr, $frame:expr) => {
        match decode($ctx.api, $frame) {
            Ok(request) => request,
            Err(outcome) => return Plan::Answer(outcome),
        }
    };
}

/// The plan for one request of an offered API.
pub(crate) fn plan(shared: &Arc<Shared>, ctx: &RequestContext<'_>, frame: &RequestFrame<'_>) -> Plan {
    match ctx.api {
        ApiKey::Metadata => metadata::metadata(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::DescribeCluster => metadata::describe_cluster(shared, ctx, typed!(ctx, frame)),
        ApiKey::CreateTopics => admin::create_topics(ctx, typed!(ctx, frame), frame),
        ApiKey::DeleteTopics => admin::delete_topics(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::CreatePartitions => admin::create_partitions(ctx, typed!(ctx, frame), frame),
        ApiKey::DescribeConfigs => admin::describe_configs(ctx, typed!(ctx, frame), frame),
        ApiKey::AlterConfigs => admin::alter_configs(ctx, typed!(ctx, frame), frame),
        ApiKey::IncrementalAlterConfigs => {
            admin::incremental_alter_configs(ctx, typed!(ctx, frame), frame)
        }
        api => Plan::Answer(kacl_service::Outcome::close(format!(
            "{api} has no authorization rule in this gateway"
        ))),
    }
}
