//! The transaction APIs, as Kafka's `KafkaApis` authorizes them: WRITE on the transactional id
//! for everything a transactional producer does (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
//! WRITE on each topic added to a transaction (the others OPERATION_NOT_ATTEMPTED, as nothing
//! is added), READ on the group whose offsets join a transaction, IDEMPOTENT_WRITE on the
//! cluster or WRITE on some topic (KIP-679) for an idempotent producer id, DESCRIBE on a
//! transactional id to describe it or see it listed.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::add_offsets_to_txn::{
    AddOffsetsToTxnRequest, AddOffsetsToTxnResponse,
};
use kacl_protocol::messages::add_partitions_to_txn::{
    AddPartitionsToTxnPartitionResult, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse,
    AddPartitionsToTxnTopicResult,
};
use kacl_protocol::messages::describe_transactions::{
    DescribeTransactionsRequest, DescribeTransactionsResponse, TransactionState,
};
use kacl_protocol::messages::end_txn::{EndTxnRequest, EndTxnResponse};
use kacl_protocol::messages::init_producer_id::{InitProducerIdRequest, InitProducerIdResponse};
use kacl_protocol::messages::list_transactions::ListTransactionsResponse;
use kacl_protocol::messages::txn_offset_commit::{
    TxnOffsetCommitRequest, TxnOffsetCommitResponse, TxnOffsetCommitResponsePartition,
    TxnOffsetCommitResponseTopic,
};
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::{AuditedSession, RequestContext};

use crate::plan::{Asker, Plan};
use crate::Shared;
use std::sync::Arc;

const TXN_DENIED: i16 = ErrorCode::TransactionalIdAuthorizationFailed.code();

fn txn_allows(session: &AuditedSession<'_>, operation: AclOperation, id: &str) -> bool {
    session.allows(
        operation,
        ResourceType::TransactionalId,
        id,
        AuditPolicy::ENFORCED,
    )
}

pub(super) fn init_producer_id(
    ctx: &RequestContext<'_>,
    request: InitProducerIdRequest<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let refusal = match request.transactional_id.as_deref() {
        Some(id) => (!txn_allows(&session, AclOperation::Write, id))
            .then_some(ErrorCode::TransactionalIdAuthorizationFailed),
        None => {
            let idempotent = session.allows(
                AclOperation::IdempotentWrite,
                ResourceType::Cluster,
                CLUSTER_NAME,
                AuditPolicy::FILTERING,
            ) || session.allows_any_of_type(
                AclOperation::Write,
                ResourceType::Topic,
                AuditPolicy::ENFORCED,
            );
            (!idempotent).then_some(ErrorCode::ClusterAuthorizationFailed)
        }
    };
    drop(session);
    match refusal {
        None => Plan::pass(),
        Some(code) => Plan::answer(
            ctx,
            &InitProducerIdResponse {
                error_code: code.code(),
                producer_id: -1,
                producer_epoch: -1,
                ..Default::default()
            },
        ),
    }
}

/// v0-3, a client's request for its own transaction (v4+ is broker-to-broker and is not
/// offered).
/// WRITE on the transactional id, then on each topic (never on an internal topic), as Kafka's
/// `handleAddPartitionsToTxnRequest` (v0-3) decides: one refused partition fails the whole
/// request, the partitions of unknown topics are answered UNKNOWN_TOPIC_OR_PARTITION and the
/// rest OPERATION_NOT_ATTEMPTED. Whether a partition exists is what the gateway's Metadata
/// answers have shown (a producer asks for its topics' metadata before it adds them).
pub(super) fn add_partitions_to_txn(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    request: AddPartitionsToTxnRequest<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let id_ok = txn_allows(
        &session,
        AclOperation::Write,
        &request.v3_and_below_transactional_id,
    );
    let denied_topics: Vec<&str> = request
        .v3_and_below_topics
        .iter()
        .filter(|t| {
            kacl_topics::is_internal(&t.name)
                || !session.allows(
                    AclOperation::Write,
                    ResourceType::Topic,
                    &t.name,
                    AuditPolicy::ENFORCED,
                )
        })
        .map(|t| t.name.as_ref())
        .collect();
    drop(session);
    if id_ok && denied_topics.is_empty() {
        return Plan::pass();
    }
    let results = request
        .v3_and_below_topics
        .iter()
        .map(|t| AddPartitionsToTxnTopicResult {
            name: Cow::Owned(t.name.to_string()),
            results_by_partition: t
                .partitions
                .iter()
                .map(|p| AddPartitionsToTxnPartitionResult {
                    partition_index: *p,
                    partition_error_code: if !id_ok {
                        TXN_DENIED
                    } else if denied_topics.contains(&t.name.as_ref()) {
                        ErrorCode::TopicAuthorizationFailed.code()
                    } else if !shared.topic_ids.has_partition(&t.name, *p) {
                        ErrorCode::UnknownTopicOrPartition.code()
                    } else {
                        ErrorCode::OperationNotAttempted.code()
                    },
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    Plan::answer(
        ctx,
        &AddPartitionsToTxnResponse {
            results_by_topic_v3_and_below: results,
            ..Default::default()
        },
    )
}

pub(super) fn add_offsets_to_txn(
    ctx: &RequestContext<'_>,
    request: AddOffsetsToTxnRequest<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let code = if !txn_allows(&session, AclOperation::Write, &request.transactional_id) {
        TXN_DENIED
    } else if !session.allows(
        AclOperation::Read,
        ResourceType::Group,
        &request.group_id,
        AuditPolicy::ENFORCED,
    ) {
        ErrorCode::GroupAuthorizationFailed.code()
    } else {
        return Plan::pass();
    };
    drop(session);
    Plan::answer(
        ctx,
        &AddOffsetsToTxnResponse {
            error_code: code,
            ..Default::default()
        },
    )
}

pub(super) fn end_txn(ctx: &RequestContext<'_>, request: EndTxnRequest<'_>) -> Plan {
    if txn_allows(
        &ctx.authorizer(),
        AclOperation::Write,
        &request.transactional_id,
    ) {
        return Plan::pass();
    }
    Plan::answer(
        ctx,
        &EndTxnResponse {
            error_code: TXN_DENIED,
            ..Default::default()
        },
    )
}

/// WRITE on the transactional id, READ on the group (either refused: every partition gets that
/// code), READ on each topic.
pub(super) fn txn_offset_commit(
    ctx: &RequestContext<'_>,
    mut request: TxnOffsetCommitRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let whole = if !txn_allows(&session, AclOperation::Write, &request.transactional_id) {
        Some(TXN_DENIED)
    } else if !session.allows(
        AclOperation::Read,
        ResourceType::Group,
        &request.group_id,
        AuditPolicy::ENFORCED,
    ) {
        Some(ErrorCode::GroupAuthorizationFailed.code())
    } else {
        None
    };
    let mut refused: Vec<(String, Vec<i32>, i16)> = Vec::new();
    request.topics.retain(|t| {
        let code = match whole {
            Some(code) => code,
            None if !session.allows(
                AclOperation::Read,
                ResourceType::Topic,
                &t.name,
                AuditPolicy::ENFORCED,
            ) =>
            {
                ErrorCode::TopicAuthorizationFailed.code()
            }
            None => return true,
        };
        refused.push((
            t.name.to_string(),
            t.partitions.iter().map(|p| p.partition_index).collect(),
            code,
        ));
        false
    });
    drop(session);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut TxnOffsetCommitResponse<'_>| {
        for (name, partitions, code) in refused {
            body.topics.push(TxnOffsetCommitResponseTopic {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| TxnOffsetCommitResponsePartition {
                        partition_index,
                        error_code: code,
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
        TxnOffsetCommitResponse,
        request.topics.is_empty(),
        merge
    )
}

pub(super) fn describe_transactions(
    ctx: &RequestContext<'_>,
    mut request: DescribeTransactionsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut refused: Vec<String> = Vec::new();
    request.transactional_ids.retain(|id| {
        let ok = txn_allows(&session, AclOperation::Describe, id);
        if !ok {
            refused.push(id.to_string());
        }
        ok
    });
    drop(session);
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut DescribeTransactionsResponse<'_>| {
        let ctx = asker.context();
        let session = ctx.authorizer();
        keep_describable_topics(&mut body.transaction_states, |topic| {
            session.allows(
                AclOperation::Describe,
                ResourceType::Topic,
                topic,
                AuditPolicy::ENFORCED,
            )
        });
        for id in refused {
            body.transaction_states.push(TransactionState {
                error_code: TXN_DENIED,
                transactional_id: Cow::Owned(id),
                ..Default::default()
            });
        }
    };
    if request.transactional_ids.is_empty() {
        let mut body = DescribeTransactionsResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<DescribeTransactionsResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// Kafka's `handleDescribeTransactionsRequest` lists only the partitions of topics the
/// principal may describe.
fn keep_describable_topics(
    states: &mut [TransactionState<'_>],
    mut may_describe: impl FnMut(&str) -> bool,
) {
    for state in states {
        state.topics.retain(|topic| may_describe(&topic.topic));
    }
}

/// The list is filtered to the transactional ids the principal may describe.
pub(super) fn list_transactions(_ctx: &RequestContext<'_>) -> Plan {
    Plan::rewrite(Box::new(|asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<ListTransactionsResponse<'_>>(&payload, |asker, body| {
            let ctx = asker.context();
            let session = ctx.authorizer();
            body.transaction_states.retain(|t| {
                session.allows(
                    AclOperation::Describe,
                    ResourceType::TransactionalId,
                    &t.transactional_id,
                    AuditPolicy::FILTERING,
                )
            });
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::describe_transactions::TopicData;

    #[test]
    fn a_transaction_lists_only_the_topics_the_principal_may_describe() {
        let topic = |name: &'static str| TopicData {
            topic: Cow::Borrowed(name),
            partitions: vec![0, 1],
            ..Default::default()
        };
        let mut states = vec![TransactionState {
            transactional_id: Cow::Borrowed("tx"),
            topics: vec![topic("open"), topic("secret")],
            ..Default::default()
        }];
        keep_describable_topics(&mut states, |name| name != "secret");
        assert_eq!(states[0].topics, vec![topic("open")]);
    }
}
