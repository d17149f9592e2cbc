//! Differential properties against `kafka-protocol` 0.18.0 for the transaction APIs a gateway
//! node forwards (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit,
//! DescribeTransactions, ListTransactions) at every version both crates support: for random
//! values, both encoders produce the same bytes, and each decoder reads the other's bytes back
//! to the same value. Also: the declarations cover the versions the API table serves with the
//! same flexibility, and both encoders refuse the same version-gated fields.

#[macro_use]
mod differential_support;
mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    add_offsets_to_txn as ours_aot, add_partitions_to_txn as ours_apt,
    describe_transactions as ours_dtx, end_txn as ours_et, init_producer_id as ours_ipi,
    list_transactions as ours_ltx, txn_offset_commit as ours_toc,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{ApiKey, EncodeError, Message, VersionRange};
use kafka_protocol::messages::{
    add_partitions_to_txn_request as kp_aptr, add_partitions_to_txn_response as kp_aptt,
    describe_transactions_response as kp_dtxt, list_transactions_response as kp_ltxt,
    txn_offset_commit_request as kp_tocr, txn_offset_commit_response as kp_toct, GroupId,
    ProducerId, TopicName, TransactionalId,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

/// Our values as kafka-protocol values, field by field.
mod convert {
    use std::borrow::Cow;

    use super::*;

    fn s(value: &str) -> StrBytes {
        StrBytes::from_string(value.to_string())
    }

    fn ns(value: &Option<Cow<'_, str>>) -> Option<StrBytes> {
        value.as_deref().map(s)
    }

    fn topic(value: &str) -> TopicName {
        TopicName(s(value))
    }

    fn txn(value: &str) -> TransactionalId {
        TransactionalId(s(value))
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    pub(crate) fn init_producer_id_request(
        m: &ours_ipi::InitProducerIdRequest<'_>,
    ) -> kafka_protocol::messages::InitProducerIdRequest {
        let mut t = kafka_protocol::messages::InitProducerIdRequest::default();
        t.transactional_id = m.transactional_id.as_deref().map(txn);
        t.transaction_timeout_ms = m.transaction_timeout_ms;
        t.producer_id = ProducerId(m.producer_id);
        t.producer_epoch = m.producer_epoch;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn init_producer_id_response(
        m: &ours_ipi::InitProducerIdResponse<'_>,
    ) -> kafka_protocol::messages::InitProducerIdResponse {
        let mut t = kafka_protocol::messages::InitProducerIdResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.producer_id = ProducerId(m.producer_id);
        t.producer_epoch = m.producer_epoch;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    fn apt_topic(x: &ours_apt::AddPartitionsToTxnTopic<'_>) -> kp_aptr::AddPartitionsToTxnTopic {
        let mut t = kp_aptr::AddPartitionsToTxnTopic::default();
        t.name = topic(&x.name);
        t.partitions = x.partitions.clone();
        t.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
        t
    }

    pub(crate) fn add_partitions_to_txn_request(
        m: &ours_apt::AddPartitionsToTxnRequest<'_>,
    ) -> kafka_protocol::messages::AddPartitionsToTxnRequest {
        let mut t = kafka_protocol::messages::AddPartitionsToTxnRequest::default();
        t.transactions = m
            .transactions
            .iter()
            .map(|x| {
                let mut tx = kp_aptr::AddPartitionsToTxnTransaction::default();
                tx.transactional_id = txn(&x.transactional_id);
                tx.producer_id = ProducerId(x.producer_id);
                tx.producer_epoch = x.producer_epoch;
                tx.verify_only = x.verify_only;
                tx.topics = x.topics.iter().map(apt_topic).collect();
                tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tx
            })
            .collect();
        t.v3_and_below_transactional_id = txn(&m.v3_and_below_transactional_id);
        t.v3_and_below_producer_id = ProducerId(m.v3_and_below_producer_id);
        t.v3_and_below_producer_epoch = m.v3_and_below_producer_epoch;
        t.v3_and_below_topics = m.v3_and_below_topics.iter().map(apt_topic).collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    fn apt_topic_result(
        x: &ours_apt::AddPartitionsToTxnTopicResult<'_>,
    ) -> kp_aptt::AddPartitionsToTxnTopicResult {
        let mut t = kp_aptt::AddPartitionsToTxnTopicResult::default();
        t.name = topic(&x.name);
        t.results_by_partition = x
            .results_by_partition
            .iter()
            .map(|p| {
                let mut tp = kp_aptt::AddPartitionsToTxnPartitionResult::default();
                tp.partition_index = p.partition_index;
                tp.partition_error_code = p.partition_error_code;
                tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                tp
            })
            .collect();
        t.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
        t
    }

    pub(crate) fn add_partitions_to_txn_response(
        m: &ours_apt::AddPartitionsToTxnResponse<'_>,
    ) -> kafka_protocol::messages::AddPartitionsToTxnResponse {
        let mut t = kafka_protocol::messages::AddPartitionsToTxnResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.results_by_transaction = m
            .results_by_transaction
            .iter()
            .map(|x| {
                let mut tx = kp_aptt::AddPartitionsToTxnResult::default();
                tx.transactional_id = txn(&x.transactional_id);
                tx.topic_results = x.topic_results.iter().map(apt_topic_result).collect();
                tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tx
            })
            .collect();
        t.results_by_topic_v3_and_below = m
            .results_by_topic_v3_and_below
            .iter()
            .map(apt_topic_result)
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn add_offsets_to_txn_request(
        m: &ours_aot::AddOffsetsToTxnRequest<'_>,
    ) -> kafka_protocol::messages::AddOffsetsToTxnRequest {
        let mut t = kafka_protocol::messages::AddOffsetsToTxnRequest::default();
        t.transactional_id = txn(&m.transactional_id);
        t.producer_id = ProducerId(m.producer_id);
        t.producer_epoch = m.producer_epoch;
        t.group_id = GroupId(s(&m.group_id));
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn add_offsets_to_txn_response(
        m: &ours_aot::AddOffsetsToTxnResponse<'_>,
    ) -> kafka_protocol::messages::AddOffsetsToTxnResponse {
        let mut t = kafka_protocol::messages::AddOffsetsToTxnResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn end_txn_request(
        m: &ours_et::EndTxnRequest<'_>,
    ) -> kafka_protocol::messages::EndTxnRequest {
        let mut t = kafka_protocol::messages::EndTxnRequest::default();
        t.transactional_id = txn(&m.transactional_id);
        t.producer_id = ProducerId(m.producer_id);
        t.producer_epoch = m.producer_epoch;
        t.committed = m.committed;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn end_txn_response(
        m: &ours_et::EndTxnResponse<'_>,
    ) -> kafka_protocol::messages::EndTxnResponse {
        let mut t = kafka_protocol::messages::EndTxnResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.producer_id = ProducerId(m.producer_id);
        t.producer_epoch = m.producer_epoch;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn txn_offset_commit_request(
        m: &ours_toc::TxnOffsetCommitRequest<'_>,
    ) -> kafka_protocol::messages::TxnOffsetCommitRequest {
        let mut t = kafka_protocol::messages::TxnOffsetCommitRequest::default();
        t.transactional_id = txn(&m.transactional_id);
        t.group_id = GroupId(s(&m.group_id));
        t.producer_id = ProducerId(m.producer_id);
        t.producer_epoch = m.producer_epoch;
        t.generation_id = m.generation_id;
        t.member_id = s(&m.member_id);
        t.group_instance_id = ns(&m.group_instance_id);
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_tocr::TxnOffsetCommitRequestTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_tocr::TxnOffsetCommitRequestPartition::default();
                        tp.partition_index = p.partition_index;
                        tp.committed_offset = p.committed_offset;
                        tp.committed_leader_epoch = p.committed_leader_epoch;
                        tp.committed_metadata = ns(&p.committed_metadata);
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn txn_offset_commit_response(
        m: &ours_toc::TxnOffsetCommitResponse<'_>,
    ) -> kafka_protocol::messages::TxnOffsetCommitResponse {
        let mut t = kafka_protocol::messages::TxnOffsetCommitResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_toct::TxnOffsetCommitResponseTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_toct::TxnOffsetCommitResponsePartition::default();
                        tp.partition_index = p.partition_index;
                        tp.error_code = p.error_code;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_transactions_request(
        m: &ours_dtx::DescribeTransactionsRequest<'_>,
    ) -> kafka_protocol::messages::DescribeTransactionsRequest {
        let mut t = kafka_protocol::messages::DescribeTransactionsRequest::default();
        t.transactional_ids = m.transactional_ids.iter().map(|x| txn(x)).collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_transactions_response(
        m: &ours_dtx::DescribeTransactionsResponse<'_>,
    ) -> kafka_protocol::messages::DescribeTransactionsResponse {
        let mut t = kafka_protocol::messages::DescribeTransactionsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.transaction_states = m
            .transaction_states
            .iter()
            .map(|x| {
                let mut ts = kp_dtxt::TransactionState::default();
                ts.error_code = x.error_code;
                ts.transactional_id = txn(&x.transactional_id);
                ts.transaction_state = s(&x.transaction_state);
                ts.transaction_timeout_ms = x.transaction_timeout_ms;
                ts.transaction_start_time_ms = x.transaction_start_time_ms;
                ts.producer_id = ProducerId(x.producer_id);
                ts.producer_epoch = x.producer_epoch;
                ts.topics = x
                    .topics
                    .iter()
                    .map(|d| {
                        let mut td = kp_dtxt::TopicData::default();
                        td.topic = topic(&d.topic);
                        td.partitions = d.partitions.clone();
                        td.unknown_tagged_fields = tags(&d.unknown_tagged_fields);
                        td
                    })
                    .collect();
                ts.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                ts
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn list_transactions_request(
        m: &ours_ltx::ListTransactionsRequest<'_>,
    ) -> kafka_protocol::messages::ListTransactionsRequest {
        let mut t = kafka_protocol::messages::ListTransactionsRequest::default();
        t.state_filters = m.state_filters.iter().map(|x| s(x)).collect();
        t.producer_id_filters = m
            .producer_id_filters
            .iter()
            .copied()
            .map(ProducerId)
            .collect();
        t.duration_filter = m.duration_filter;
        t.transactional_id_pattern = ns(&m.transactional_id_pattern);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn list_transactions_response(
        m: &ours_ltx::ListTransactionsResponse<'_>,
    ) -> kafka_protocol::messages::ListTransactionsResponse {
        let mut t = kafka_protocol::messages::ListTransactionsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.unknown_state_filters = m.unknown_state_filters.iter().map(|x| s(x)).collect();
        t.transaction_states = m
            .transaction_states
            .iter()
            .map(|x| {
                let mut ts = kp_ltxt::TransactionState::default();
                ts.transactional_id = txn(&x.transactional_id);
                ts.producer_id = ProducerId(x.producer_id);
                ts.transaction_state = s(&x.transaction_state);
                ts.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                ts
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }
}

/// Random values per version: fields a version lacks hold their schema default and unknown
/// tagged fields appear only in flexible versions, so every value is encodable at its version.
mod txn_strategies {
    use std::borrow::Cow;

    use kacl_protocol::messages::add_offsets_to_txn::*;
    use kacl_protocol::messages::add_partitions_to_txn::*;
    use kacl_protocol::messages::describe_transactions as dtx;
    use kacl_protocol::messages::end_txn::*;
    use kacl_protocol::messages::init_producer_id::*;
    use kacl_protocol::messages::list_transactions as ltx;
    use kacl_protocol::messages::txn_offset_commit::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    use crate::common::{nullable_string, string, unknown_tags, when};

    fn ints() -> BoxedStrategy<Vec<i32>> {
        vec(any::<i32>(), 0..4).boxed()
    }

    fn empty() -> Cow<'static, str> {
        Cow::Borrowed("")
    }

    // ---- InitProducerId (flexible 2+) ---------------------------------------------------------

    pub(crate) fn init_producer_id_request(
        v: i16,
    ) -> BoxedStrategy<InitProducerIdRequest<'static>> {
        (
            nullable_string(),
            any::<i32>(),
            when(v >= 3, any::<i64>(), -1),
            when(v >= 3, any::<i16>(), -1),
            unknown_tags(v >= 2),
        )
            .prop_map(|(id, timeout, pid, epoch, tags)| InitProducerIdRequest {
                transactional_id: id,
                transaction_timeout_ms: timeout,
                producer_id: pid,
                producer_epoch: epoch,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn init_producer_id_response(
        v: i16,
    ) -> BoxedStrategy<InitProducerIdResponse<'static>> {
        (
            any::<i32>(),
            any::<i16>(),
            any::<i64>(),
            any::<i16>(),
            unknown_tags(v >= 2),
        )
            .prop_map(|(throttle, ec, pid, epoch, tags)| InitProducerIdResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                producer_id: pid,
                producer_epoch: epoch,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- AddPartitionsToTxn (flexible 3+; v0-3 one transaction, v4+ a batch) ----------------

    fn apt_topic(v: i16) -> BoxedStrategy<AddPartitionsToTxnTopic<'static>> {
        (string(), ints(), unknown_tags(v >= 3))
            .prop_map(|(name, partitions, tags)| AddPartitionsToTxnTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn apt_transaction(v: i16) -> BoxedStrategy<AddPartitionsToTxnTransaction<'static>> {
        (
            string(),
            any::<i64>(),
            any::<i16>(),
            any::<bool>(),
            vec(apt_topic(v), 0..3),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(id, pid, epoch, verify_only, topics, tags)| AddPartitionsToTxnTransaction {
                    transactional_id: id,
                    producer_id: pid,
                    producer_epoch: epoch,
                    verify_only,
                    topics,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn add_partitions_to_txn_request(
        v: i16,
    ) -> BoxedStrategy<AddPartitionsToTxnRequest<'static>> {
        let batched = v >= 4;
        (
            when(batched, vec(apt_transaction(v), 0..3), Vec::new()),
            when(!batched, string(), empty()),
            when(!batched, any::<i64>(), 0),
            when(!batched, any::<i16>(), 0),
            when(!batched, vec(apt_topic(v), 0..3), Vec::new()),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(transactions, id, pid, epoch, topics, tags)| AddPartitionsToTxnRequest {
                    transactions,
                    v3_and_below_transactional_id: id,
                    v3_and_below_producer_id: pid,
                    v3_and_below_producer_epoch: epoch,
                    v3_and_below_topics: topics,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn apt_topic_result(v: i16) -> BoxedStrategy<AddPartitionsToTxnTopicResult<'static>> {
        let partition = (any::<i32>(), any::<i16>(), unknown_tags(v >= 3)).prop_map(
            |(partition_index, partition_error_code, tags)| AddPartitionsToTxnPartitionResult {
                partition_index,
                partition_error_code,
                unknown_tagged_fields: tags,
            },
        );
        (string(), vec(partition, 0..3), unknown_tags(v >= 3))
            .prop_map(
                |(name, results_by_partition, tags)| AddPartitionsToTxnTopicResult {
                    name,
                    results_by_partition,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn add_partitions_to_txn_response(
        v: i16,
    ) -> BoxedStrategy<AddPartitionsToTxnResponse<'static>> {
        let batched = v >= 4;
        let result = (
            string(),
            vec(apt_topic_result(v), 0..3),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(transactional_id, topic_results, tags)| AddPartitionsToTxnResult {
                    transactional_id,
                    topic_results,
                    unknown_tagged_fields: tags,
                },
            );
        (
            any::<i32>(),
            when(batched, any::<i16>(), 0),
            when(batched, vec(result, 0..3), Vec::new()),
            when(!batched, vec(apt_topic_result(v), 0..3), Vec::new()),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(throttle, ec, by_txn, by_topic, tags)| AddPartitionsToTxnResponse {
                    throttle_time_ms: throttle,
                    error_code: ec,
                    results_by_transaction: by_txn,
                    results_by_topic_v3_and_below: by_topic,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    // ---- AddOffsetsToTxn (flexible 3+) --------------------------------------------------------

    pub(crate) fn add_offsets_to_txn_request(
        v: i16,
    ) -> BoxedStrategy<AddOffsetsToTxnRequest<'static>> {
        (
            string(),
            any::<i64>(),
            any::<i16>(),
            string(),
            unknown_tags(v >= 3),
        )
            .prop_map(|(id, pid, epoch, group, tags)| AddOffsetsToTxnRequest {
                transactional_id: id,
                producer_id: pid,
                producer_epoch: epoch,
                group_id: group,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn add_offsets_to_txn_response(
        v: i16,
    ) -> BoxedStrategy<AddOffsetsToTxnResponse<'static>> {
        (any::<i32>(), any::<i16>(), unknown_tags(v >= 3))
            .prop_map(|(throttle, ec, tags)| AddOffsetsToTxnResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- EndTxn (flexible 3+) -----------------------------------------------------------------

    pub(crate) fn end_txn_request(v: i16) -> BoxedStrategy<EndTxnRequest<'static>> {
        (
            string(),
            any::<i64>(),
            any::<i16>(),
            any::<bool>(),
            unknown_tags(v >= 3),
        )
            .prop_map(|(id, pid, epoch, committed, tags)| EndTxnRequest {
                transactional_id: id,
                producer_id: pid,
                producer_epoch: epoch,
                committed,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn end_txn_response(v: i16) -> BoxedStrategy<EndTxnResponse<'static>> {
        (
            any::<i32>(),
            any::<i16>(),
            when(v >= 5, any::<i64>(), -1),
            when(v >= 5, any::<i16>(), -1),
            unknown_tags(v >= 3),
        )
            .prop_map(|(throttle, ec, pid, epoch, tags)| EndTxnResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                producer_id: pid,
                producer_epoch: epoch,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- TxnOffsetCommit (flexible 3+) --------------------------------------------------------

    fn toc_partition(v: i16) -> BoxedStrategy<TxnOffsetCommitRequestPartition<'static>> {
        (
            any::<i32>(),
            any::<i64>(),
            when(v >= 2, any::<i32>(), -1),
            nullable_string(),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(index, offset, epoch, metadata, tags)| TxnOffsetCommitRequestPartition {
                    partition_index: index,
                    committed_offset: offset,
                    committed_leader_epoch: epoch,
                    committed_metadata: metadata,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn txn_offset_commit_request(
        v: i16,
    ) -> BoxedStrategy<TxnOffsetCommitRequest<'static>> {
        let topic = (string(), vec(toc_partition(v), 0..3), unknown_tags(v >= 3)).prop_map(
            |(name, partitions, tags)| TxnOffsetCommitRequestTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (
            (string(), string(), any::<i64>(), any::<i16>()),
            when(v >= 3, any::<i32>(), -1),
            when(v >= 3, string(), empty()),
            when(v >= 3, nullable_string(), None),
            vec(topic, 0..3),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |((id, group, pid, epoch), generation, member, instance, topics, tags)| {
                    TxnOffsetCommitRequest {
                        transactional_id: id,
                        group_id: group,
                        producer_id: pid,
                        producer_epoch: epoch,
                        generation_id: generation,
                        member_id: member,
                        group_instance_id: instance,
                        topics,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn txn_offset_commit_response(
        v: i16,
    ) -> BoxedStrategy<TxnOffsetCommitResponse<'static>> {
        let partition = (any::<i32>(), any::<i16>(), unknown_tags(v >= 3)).prop_map(
            |(partition_index, error_code, tags)| TxnOffsetCommitResponsePartition {
                partition_index,
                error_code,
                unknown_tagged_fields: tags,
            },
        );
        let topic = (string(), vec(partition, 0..3), unknown_tags(v >= 3)).prop_map(
            |(name, partitions, tags)| TxnOffsetCommitResponseTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (any::<i32>(), vec(topic, 0..3), unknown_tags(v >= 3))
            .prop_map(|(throttle, topics, tags)| TxnOffsetCommitResponse {
                throttle_time_ms: throttle,
                topics,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- DescribeTransactions (flexible 0+) ---------------------------------------------------

    pub(crate) fn describe_transactions_request(
        _v: i16,
    ) -> BoxedStrategy<dtx::DescribeTransactionsRequest<'static>> {
        (vec(string(), 0..4), unknown_tags(true))
            .prop_map(|(ids, tags)| dtx::DescribeTransactionsRequest {
                transactional_ids: ids,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn describe_transactions_response(
        _v: i16,
    ) -> BoxedStrategy<dtx::DescribeTransactionsResponse<'static>> {
        let topic = (string(), ints(), unknown_tags(true)).prop_map(|(topic, partitions, tags)| {
            dtx::TopicData {
                topic,
                partitions,
                unknown_tagged_fields: tags,
            }
        });
        let state = (
            (any::<i16>(), string(), string(), any::<i32>()),
            (any::<i64>(), any::<i64>(), any::<i16>()),
            vec(topic, 0..3),
            unknown_tags(true),
        )
            .prop_map(
                |((ec, id, state, timeout), (start, pid, epoch), topics, tags)| {
                    dtx::TransactionState {
                        error_code: ec,
                        transactional_id: id,
                        transaction_state: state,
                        transaction_timeout_ms: timeout,
                        transaction_start_time_ms: start,
                        producer_id: pid,
                        producer_epoch: epoch,
                        topics,
                        unknown_tagged_fields: tags,
                    }
                },
            );
        (any::<i32>(), vec(state, 0..3), unknown_tags(true))
            .prop_map(
                |(throttle, states, tags)| dtx::DescribeTransactionsResponse {
                    throttle_time_ms: throttle,
                    transaction_states: states,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    // ---- ListTransactions (flexible 0+) -------------------------------------------------------

    pub(crate) fn list_transactions_request(
        v: i16,
    ) -> BoxedStrategy<ltx::ListTransactionsRequest<'static>> {
        (
            vec(string(), 0..4),
            vec(any::<i64>(), 0..4),
            when(v >= 1, any::<i64>(), -1),
            when(v >= 2, nullable_string(), None),
            unknown_tags(true),
        )
            .prop_map(
                |(states, pids, duration, pattern, tags)| ltx::ListTransactionsRequest {
                    state_filters: states,
                    producer_id_filters: pids,
                    duration_filter: duration,
                    transactional_id_pattern: pattern,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn list_transactions_response(
        _v: i16,
    ) -> BoxedStrategy<ltx::ListTransactionsResponse<'static>> {
        let state = (string(), any::<i64>(), string(), unknown_tags(true)).prop_map(
            |(transactional_id, producer_id, transaction_state, tags)| ltx::TransactionState {
                transactional_id,
                producer_id,
                transaction_state,
                unknown_tagged_fields: tags,
            },
        );
        (
            any::<i32>(),
            any::<i16>(),
            vec(string(), 0..4),
            vec(state, 0..3),
            unknown_tags(true),
        )
            .prop_map(
                |(throttle, ec, unknown, states, tags)| ltx::ListTransactionsResponse {
                    throttle_time_ms: throttle,
                    error_code: ec,
                    unknown_state_filters: unknown,
                    transaction_states: states,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }
}

differential! {
    strategies: txn_strategies;
    init_producer_id_request: ours_ipi::InitProducerIdRequest,
        kafka_protocol::messages::InitProducerIdRequest, 0..=5;
    init_producer_id_response: ours_ipi::InitProducerIdResponse,
        kafka_protocol::messages::InitProducerIdResponse, 0..=5;
    add_partitions_to_txn_request: ours_apt::AddPartitionsToTxnRequest,
        kafka_protocol::messages::AddPartitionsToTxnRequest, 0..=5;
    add_partitions_to_txn_response: ours_apt::AddPartitionsToTxnResponse,
        kafka_protocol::messages::AddPartitionsToTxnResponse, 0..=5;
    add_offsets_to_txn_request: ours_aot::AddOffsetsToTxnRequest,
        kafka_protocol::messages::AddOffsetsToTxnRequest, 0..=4;
    add_offsets_to_txn_response: ours_aot::AddOffsetsToTxnResponse,
        kafka_protocol::messages::AddOffsetsToTxnResponse, 0..=4;
    end_txn_request: ours_et::EndTxnRequest,
        kafka_protocol::messages::EndTxnRequest, 0..=5;
    end_txn_response: ours_et::EndTxnResponse,
        kafka_protocol::messages::EndTxnResponse, 0..=5;
    txn_offset_commit_request: ours_toc::TxnOffsetCommitRequest,
        kafka_protocol::messages::TxnOffsetCommitRequest, 0..=5;
    txn_offset_commit_response: ours_toc::TxnOffsetCommitResponse,
        kafka_protocol::messages::TxnOffsetCommitResponse, 0..=5;
    describe_transactions_request: ours_dtx::DescribeTransactionsRequest,
        kafka_protocol::messages::DescribeTransactionsRequest, 0..=0;
    describe_transactions_response: ours_dtx::DescribeTransactionsResponse,
        kafka_protocol::messages::DescribeTransactionsResponse, 0..=0;
    list_transactions_request: ours_ltx::ListTransactionsRequest,
        kafka_protocol::messages::ListTransactionsRequest, 0..=2;
    list_transactions_response: ours_ltx::ListTransactionsResponse,
        kafka_protocol::messages::ListTransactionsResponse, 0..=2;
}

/// `(api, declared versions, declared flexible versions)` of one declaration.
type Declared = (ApiKey, VersionRange, VersionRange);

fn declared<'a, M: Message<'a>>() -> Declared {
    (M::API_KEY, M::VERSIONS, M::FLEXIBLE)
}

#[test]
fn declarations_match_the_api_table() {
    let all = [
        declared::<ours_ipi::InitProducerIdRequest>(),
        declared::<ours_ipi::InitProducerIdResponse>(),
        declared::<ours_apt::AddPartitionsToTxnRequest>(),
        declared::<ours_apt::AddPartitionsToTxnResponse>(),
        declared::<ours_aot::AddOffsetsToTxnRequest>(),
        declared::<ours_aot::AddOffsetsToTxnResponse>(),
        declared::<ours_et::EndTxnRequest>(),
        declared::<ours_et::EndTxnResponse>(),
        declared::<ours_toc::TxnOffsetCommitRequest>(),
        declared::<ours_toc::TxnOffsetCommitResponse>(),
        declared::<ours_dtx::DescribeTransactionsRequest>(),
        declared::<ours_dtx::DescribeTransactionsResponse>(),
        declared::<ours_ltx::ListTransactionsRequest>(),
        declared::<ours_ltx::ListTransactionsResponse>(),
    ];
    for (api, versions, flexible) in all {
        assert_eq!(versions, api.versions(), "{api}: declared versions");
        assert_eq!(flexible, api.flexible(), "{api}: flexible versions");
    }
}

/// Fields outside their versions: both encoders refuse a non-default value of a field Kafka
/// does not mark ignorable, and drop an ignorable one.
#[test]
fn version_gated_fields_are_refused_or_dropped_alike() {
    fn refused<'a, M: Message<'a>, T: Encodable>(ours: &M, theirs: &T, version: i16) {
        assert!(
            matches!(
                ours.to_bytes(version),
                Err(EncodeError::NonDefaultField { .. })
            ),
            "{} v{version}: ours accepted",
            M::NAME
        );
        assert!(
            theirs.encode(&mut Vec::new(), version).is_err(),
            "{} v{version}: theirs accepted",
            M::NAME
        );
    }

    // A batched transaction in a client version, a v3 field in a broker version.
    let mut batch = ours_apt::AddPartitionsToTxnRequest::default();
    batch
        .transactions
        .push(ours_apt::AddPartitionsToTxnTransaction::default());
    refused(&batch, &convert::add_partitions_to_txn_request(&batch), 3);
    let single = ours_apt::AddPartitionsToTxnRequest {
        v3_and_below_producer_id: 7,
        ..Default::default()
    };
    refused(&single, &convert::add_partitions_to_txn_request(&single), 4);

    let init = ours_ipi::InitProducerIdRequest {
        producer_epoch: 3,
        ..Default::default()
    };
    refused(&init, &convert::init_producer_id_request(&init), 2);

    let commit = ours_toc::TxnOffsetCommitRequest {
        group_instance_id: Some("instance".into()),
        ..Default::default()
    };
    refused(&commit, &convert::txn_offset_commit_request(&commit), 2);

    let list = ours_ltx::ListTransactionsRequest {
        transactional_id_pattern: Some("tx-.*".into()),
        ..Default::default()
    };
    refused(&list, &convert::list_transactions_request(&list), 1);

    // EndTxn's v5 producer id and epoch are ignorable: dropped at v4, by both.
    let end = ours_et::EndTxnResponse {
        producer_id: 9,
        producer_epoch: 2,
        ..Default::default()
    };
    let ours_bytes = end.to_bytes(4).unwrap();
    let mut theirs_bytes = Vec::new();
    convert::end_txn_response(&end)
        .encode(&mut theirs_bytes, 4)
        .unwrap();
    assert_eq!(ours_bytes, theirs_bytes);
    let back = ours_et::EndTxnResponse::decode_exact(&ours_bytes, 4).unwrap();
    assert_eq!((back.producer_id, back.producer_epoch), (-1, -1));
}
