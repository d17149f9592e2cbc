//! The gateway's authorization of each forwarded API, as Kafka's `KafkaApis` decides it: one
//! module per family, each a pure planning step from the typed request to a [`Plan`], plus
//! the rewrite of the upstream's answer where the client must see something else (broker
//! addresses, topics it may not describe, its own authorized operations, the entries the
//! gateway refused merged back in).
//!
//! [`enforceable`] is the list of what can be authorized: an API or version not in it is
//! never offered and never forwarded.

/// The tail every per-entry rule shares once it has taken the refused entries out of
/// `$request` and built `$merge` (`move |&Asker, &mut $Response|`, adding the refusals): with
/// nothing left, the gateway answers alone; otherwise the reduced request is forwarded and the
/// refusals are merged into the upstream's answer.
macro_rules! merged {
    ($ctx:expr, $frame:expr, $request:expr, $Response:ident, $nothing_left:expr, $merge:expr) => {{
        let merge = $merge;
        if $nothing_left {
            let mut body = $Response::default();
            merge(&$crate::plan::Asker::of($ctx), &mut body);
            $crate::plan::Plan::answer($ctx, &body)
        } else {
            $crate::plan::Plan::reduced(
                $ctx,
                $frame,
                &$request,
                Box::new(move |asker: &$crate::plan::Asker, payload: Vec<u8>| {
                    asker.rewrite::<$Response<'_>>(&payload, merge)
                }),
            )
        }
    }};
}

mod admin;
mod endpoints;
mod fetch;
mod groups;
mod metadata;
mod partitions;
mod produce;
mod reassignments;
mod txn;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::{ApiKey, VersionRange};
use kacl_service::context::RequestContext;
use kacl_service::handlers::decode;

use crate::plan::Plan;
pub(crate) use produce::ProduceHead;
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
        | ApiKey::IncrementalAlterConfigs
        | ApiKey::Produce
        | ApiKey::Fetch
        | ApiKey::ListOffsets
        | ApiKey::DeleteRecords
        | ApiKey::OffsetForLeaderEpoch
        | ApiKey::DescribeProducers
        | ApiKey::DescribeLogDirs
        | ApiKey::OffsetCommit
        | ApiKey::OffsetFetch
        | ApiKey::FindCoordinator
        | ApiKey::JoinGroup
        | ApiKey::Heartbeat
        | ApiKey::LeaveGroup
        | ApiKey::SyncGroup
        | ApiKey::DescribeGroups
        | ApiKey::ListGroups
        | ApiKey::DeleteGroups
        | ApiKey::OffsetDelete
        | ApiKey::ConsumerGroupHeartbeat
        | ApiKey::ConsumerGroupDescribe
        | ApiKey::InitProducerId
        | ApiKey::AddOffsetsToTxn
        | ApiKey::EndTxn
        | ApiKey::TxnOffsetCommit
        | ApiKey::DescribeTransactions
        | ApiKey::ListTransactions
        | ApiKey::AlterPartitionReassignments
        | ApiKey::ListPartitionReassignments => Some(declared),
        // v4+ batches several transactions and is broker-to-broker (CLUSTER_ACTION).
        ApiKey::AddPartitionsToTxn => Some(VersionRange::between(declared.min, 3)),
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
pub(crate) fn plan(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    match ctx.api {
        ApiKey::Produce => produce::produce(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::Fetch => fetch::fetch(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::ListOffsets => partitions::list_offsets(ctx, typed!(ctx, frame), frame),
        ApiKey::DeleteRecords => partitions::delete_records(ctx, typed!(ctx, frame), frame),
        ApiKey::OffsetForLeaderEpoch => {
            partitions::offset_for_leader_epoch(ctx, typed!(ctx, frame), frame)
        }
        ApiKey::DescribeProducers => partitions::describe_producers(ctx, typed!(ctx, frame), frame),
        ApiKey::DescribeLogDirs => partitions::describe_log_dirs(ctx),
        ApiKey::OffsetCommit => groups::offset_commit(ctx, typed!(ctx, frame), frame),
        ApiKey::OffsetFetch => groups::offset_fetch(ctx, typed!(ctx, frame), frame),
        ApiKey::FindCoordinator => groups::find_coordinator(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::JoinGroup => groups::join_group(ctx, typed!(ctx, frame)),
        ApiKey::Heartbeat => groups::heartbeat(ctx, typed!(ctx, frame)),
        ApiKey::LeaveGroup => groups::leave_group(ctx, typed!(ctx, frame)),
        ApiKey::SyncGroup => groups::sync_group(ctx, typed!(ctx, frame)),
        ApiKey::DescribeGroups => groups::describe_groups(ctx, typed!(ctx, frame), frame),
        ApiKey::ListGroups => {
            let _request: kacl_protocol::messages::list_groups::ListGroupsRequest<'_> =
                typed!(ctx, frame);
            groups::list_groups(ctx)
        }
        ApiKey::DeleteGroups => groups::delete_groups(ctx, typed!(ctx, frame), frame),
        ApiKey::OffsetDelete => groups::offset_delete(ctx, typed!(ctx, frame), frame),
        ApiKey::ConsumerGroupHeartbeat => groups::consumer_group_heartbeat(ctx, typed!(ctx, frame)),
        ApiKey::ConsumerGroupDescribe => {
            groups::consumer_group_describe(ctx, typed!(ctx, frame), frame)
        }
        ApiKey::InitProducerId => txn::init_producer_id(ctx, typed!(ctx, frame)),
        ApiKey::AddPartitionsToTxn => txn::add_partitions_to_txn(shared, ctx, typed!(ctx, frame)),
        ApiKey::AddOffsetsToTxn => txn::add_offsets_to_txn(ctx, typed!(ctx, frame)),
        ApiKey::EndTxn => txn::end_txn(ctx, typed!(ctx, frame)),
        ApiKey::TxnOffsetCommit => txn::txn_offset_commit(ctx, typed!(ctx, frame), frame),
        ApiKey::DescribeTransactions => txn::describe_transactions(ctx, typed!(ctx, frame), frame),
        ApiKey::ListTransactions => {
            let _request: kacl_protocol::messages::list_transactions::ListTransactionsRequest<'_> =
                typed!(ctx, frame);
            txn::list_transactions(ctx)
        }
        ApiKey::AlterPartitionReassignments => {
            reassignments::alter_partition_reassignments(ctx, typed!(ctx, frame))
        }
        ApiKey::ListPartitionReassignments => {
            let _request: kacl_protocol::messages::list_partition_reassignments::ListPartitionReassignmentsRequest<'_> =
                typed!(ctx, frame);
            reassignments::list_partition_reassignments(ctx)
        }
        ApiKey::Metadata => metadata::metadata(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::DescribeCluster => metadata::describe_cluster(shared, ctx, typed!(ctx, frame)),
        ApiKey::CreateTopics => admin::create_topics(ctx, typed!(ctx, frame), frame),
        ApiKey::DeleteTopics => admin::delete_topics(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::CreatePartitions => admin::create_partitions(ctx, typed!(ctx, frame), frame),
        ApiKey::DescribeConfigs => admin::describe_configs(shared, ctx, typed!(ctx, frame), frame),
        ApiKey::AlterConfigs => admin::alter_configs(ctx, typed!(ctx, frame), frame),
        ApiKey::IncrementalAlterConfigs => {
            admin::incremental_alter_configs(ctx, typed!(ctx, frame), frame)
        }
        api => Plan::Answer(kacl_service::Outcome::close(format!(
            "{api} has no authorization rule in this gateway"
        ))),
    }
}
