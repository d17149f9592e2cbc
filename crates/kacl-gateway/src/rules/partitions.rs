//! The per-partition topic APIs besides Produce and Fetch: ListOffsets (2, DESCRIBE on each
//! topic), DeleteRecords (21, DELETE), DescribeProducers (61, READ), and DescribeLogDirs (35,
//! DESCRIBE on the cluster), each refusal answered per partition with
//! TOPIC_AUTHORIZATION_FAILED (DescribeLogDirs: CLUSTER_AUTHORIZATION_FAILED, no results), as
//! Kafka's `KafkaApis` does.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::delete_records::{
    DeleteRecordsPartitionResult, DeleteRecordsRequest, DeleteRecordsResponse,
    DeleteRecordsTopicResult,
};
use kacl_protocol::messages::describe_log_dirs::DescribeLogDirsResponse;
use kacl_protocol::messages::describe_producers::{
    DescribeProducersRequest, DescribeProducersResponse, PartitionResponse, TopicResponse,
};
use kacl_protocol::messages::list_offsets::{
    ListOffsetsPartitionResponse, ListOffsetsRequest, ListOffsetsResponse, ListOffsetsTopicResponse,
};
use kacl_protocol::messages::offset_for_leader_epoch::{
    EpochEndOffset, OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse,
    OffsetForLeaderTopicResult,
};
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use crate::plan::{Asker, Plan};

const TOPIC_DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();

/// Splits a request's topics by `operation`: keeps the allowed ones in `topics`, returns the
/// refused ones' names and partition indexes.
fn split<T>(
    ctx: &RequestContext<'_>,
    operation: AclOperation,
    topics: &mut Vec<T>,
    name: impl Fn(&T) -> &str,
    partitions: impl Fn(&T) -> Vec<i32>,
) -> Vec<(String, Vec<i32>)> {
    let session = ctx.authorizer();
    let mut refused = Vec::new();
    topics.retain(|topic| {
        let ok = session.allows(
            operation,
            ResourceType::Topic,
            name(topic),
            AuditPolicy::ENFORCED,
        );
        if !ok {
            refused.push((name(topic).to_owned(), partitions(topic)));
        }
        ok
    });
    refused
}

/// The plan once the refused topics are known: pass, answer, or a reduced request whose
/// answer gets the refusals merged in by `$merge` (a `fn(&mut Response, refused)`).
macro_rules! plan_with {
    ($ctx:expr, $frame:expr, $request:expr, $refused:expr, $Response:ident, $merge:expr) => {{
        let refused: Vec<(String, Vec<i32>)> = $refused;
        if refused.is_empty() {
            return Plan::pass();
        }
        if $request.topics.is_empty() {
            let mut body = $Response::default();
            $merge(&mut body, refused);
            return Plan::answer($ctx, &body);
        }
        Plan::reduced(
            $ctx,
            $frame,
            &$request,
            Box::new(move |asker: &Asker, payload: Vec<u8>| {
                asker.rewrite::<$Response<'_>>(&payload, |_, body| $merge(body, refused))
            }),
        )
    }};
}

pub(super) fn list_offsets(
    ctx: &RequestContext<'_>,
    mut request: ListOffsetsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = split(
        ctx,
        AclOperation::Describe,
        &mut request.topics,
        |t| &t.name,
        |t| t.partitions.iter().map(|p| p.partition_index).collect(),
    );
    plan_with!(
        ctx,
        frame,
        request,
        refused,
        ListOffsetsResponse,
        merge_list_offsets
    )
}

fn merge_list_offsets(body: &mut ListOffsetsResponse<'_>, refused: Vec<(String, Vec<i32>)>) {
    {
        for (name, partitions) in refused {
            body.topics.push(ListOffsetsTopicResponse {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| ListOffsetsPartitionResponse {
                        partition_index,
                        error_code: TOPIC_DENIED,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    }
}

pub(super) fn delete_records(
    ctx: &RequestContext<'_>,
    mut request: DeleteRecordsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = split(
        ctx,
        AclOperation::Delete,
        &mut request.topics,
        |t| &t.name,
        |t| t.partitions.iter().map(|p| p.partition_index).collect(),
    );
    plan_with!(
        ctx,
        frame,
        request,
        refused,
        DeleteRecordsResponse,
        merge_delete_records
    )
}

fn merge_delete_records(body: &mut DeleteRecordsResponse<'_>, refused: Vec<(String, Vec<i32>)>) {
    {
        for (name, partitions) in refused {
            body.topics.push(DeleteRecordsTopicResult {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| DeleteRecordsPartitionResult {
                        partition_index,
                        low_watermark: -1,
                        error_code: TOPIC_DENIED,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    }
}

/// A topic name Kafka's `Topic.validate` refuses is answered INVALID_TOPIC_EXCEPTION with
/// Kafka's message before any authorization; then READ on each topic.
pub(super) fn describe_producers(
    ctx: &RequestContext<'_>,
    mut request: DescribeProducersRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let mut answered: Vec<(String, Vec<i32>, i16, String)> = Vec::new();
    request
        .topics
        .retain(|t| match kacl_topics::validate_topic_name(&t.name) {
            Ok(()) => true,
            Err(err) => {
                answered.push((
                    t.name.to_string(),
                    t.partition_indexes.clone(),
                    err.code(),
                    err.message().to_owned(),
                ));
                false
            }
        });
    let refused = split(
        ctx,
        AclOperation::Read,
        &mut request.topics,
        |t| &t.name,
        |t| t.partition_indexes.clone(),
    );
    answered.extend(refused.into_iter().map(|(name, partitions)| {
        let message = ErrorCode::TopicAuthorizationFailed.default_message();
        (name, partitions, TOPIC_DENIED, message.to_owned())
    }));
    if answered.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut DescribeProducersResponse<'_>| {
        for (name, partitions, code, message) in answered {
            body.topics.push(TopicResponse {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| PartitionResponse {
                        partition_index,
                        error_code: code,
                        error_message: Some(Cow::Owned(message.clone())),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    };
    merged!(
        ctx,
        frame,
        request,
        DescribeProducersResponse,
        request.topics.is_empty(),
        merge
    )
}

/// CLUSTER_ACTION on the cluster (a follower) passes every topic; otherwise DESCRIBE on each
/// topic, a refused one answered TOPIC_AUTHORIZATION_FAILED per partition (Kafka's
/// `handleOffsetForLeaderEpochRequest`, where consumers check their position after a leader
/// change, KIP-320).
pub(super) fn offset_for_leader_epoch(
    ctx: &RequestContext<'_>,
    mut request: OffsetForLeaderEpochRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let follower = ctx.authorizer().allows(
        AclOperation::ClusterAction,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    if follower {
        return Plan::pass();
    }
    let refused = split(
        ctx,
        AclOperation::Describe,
        &mut request.topics,
        |t| &t.topic,
        |t| t.partitions.iter().map(|p| p.partition).collect(),
    );
    plan_with!(
        ctx,
        frame,
        request,
        refused,
        OffsetForLeaderEpochResponse,
        merge_offset_for_leader_epoch
    )
}

fn merge_offset_for_leader_epoch(
    body: &mut OffsetForLeaderEpochResponse<'_>,
    refused: Vec<(String, Vec<i32>)>,
) {
    for (topic, partitions) in refused {
        body.topics.push(OffsetForLeaderTopicResult {
            topic: Cow::Owned(topic),
            partitions: partitions
                .into_iter()
                .map(|partition| EpochEndOffset {
                    error_code: TOPIC_DENIED,
                    partition,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
    }
}

pub(super) fn describe_log_dirs(ctx: &RequestContext<'_>) -> Plan {
    let allowed = ctx.authorizer().allows(
        AclOperation::Describe,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::ENFORCED,
    );
    if allowed {
        return Plan::pass();
    }
    Plan::answer(
        ctx,
        &DescribeLogDirsResponse {
            error_code: ErrorCode::ClusterAuthorizationFailed.code(),
            ..Default::default()
        },
    )
}
