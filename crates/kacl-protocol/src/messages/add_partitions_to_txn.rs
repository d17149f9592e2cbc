//! AddPartitionsToTxn (API key 24): add partitions to an ongoing transaction before producing
//! to them. Forwarded by a gateway node.
//!
//! Versions 0-3 carry one transaction and are sent by clients; v4+ batch several transactions,
//! each with `verify_only` (check that the partitions are already in the transaction rather
//! than add them), and are sent by brokers (KIP-890). v1 is the same as v0 (the broker answers
//! before throttling on a quota violation); v2 may return PRODUCER_FENCED (KIP-588); v3 is the
//! first flexible version; v4 batches transactions and adds the response's top-level error
//! code; v5 may return TRANSACTION_ABORTABLE (KIP-890).

use std::borrow::Cow;

kafka_message! {
    /// The partitions to add: one transaction (v0-3) or a batch of them (v4+).
    pub struct AddPartitionsToTxnRequest<'a> {
        api_key: AddPartitionsToTxn, versions: 0-5, flexible: 3+;
        /// The transactions to add partitions to (v4+).
        transactions: Vec<AddPartitionsToTxnTransaction<'a>> [versions 4+],
        /// The transactional id of the transaction (v0-3).
        v3_and_below_transactional_id: Cow<'a, str> [versions 0-3],
        /// The producer id in use by the transactional id (v0-3).
        v3_and_below_producer_id: i64 [versions 0-3],
        /// The epoch of the producer id (v0-3).
        v3_and_below_producer_epoch: i16 [versions 0-3],
        /// The partitions to add to the transaction (v0-3).
        v3_and_below_topics: Vec<AddPartitionsToTxnTopic<'a>> [versions 0-3],
    }

    /// One transaction of a batch (v4+).
    pub struct AddPartitionsToTxnTransaction<'a> {
        /// The transactional id of the transaction.
        transactional_id: Cow<'a, str> [versions 4+],
        /// The producer id in use by the transactional id.
        producer_id: i64 [versions 4+],
        /// The epoch of the producer id.
        producer_epoch: i16 [versions 4+],
        /// If true, only check that the partitions are already in the transaction.
        verify_only: bool [versions 4+, default false],
        /// The partitions to add to the transaction.
        topics: Vec<AddPartitionsToTxnTopic<'a>> [versions 4+],
    }

    /// The partitions of one topic.
    pub struct AddPartitionsToTxnTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The partition indexes to add to the transaction.
        partitions: Vec<i32> [versions 0+],
    }
}

kafka_message! {
    /// The per-partition results: by topic (v0-3) or by transaction (v4+).
    pub struct AddPartitionsToTxnResponse<'a> {
        api_key: AddPartitionsToTxn, versions: 0-5, flexible: 3+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The response's top-level error code, or 0 (v4+).
        error_code: i16 [versions 4+, ignorable],
        /// The results of each transaction (v4+).
        results_by_transaction: Vec<AddPartitionsToTxnResult<'a>> [versions 4+],
        /// The results of each topic of the one transaction (v0-3).
        results_by_topic_v3_and_below: Vec<AddPartitionsToTxnTopicResult<'a>> [versions 0-3],
    }

    /// The results of one transaction (v4+).
    pub struct AddPartitionsToTxnResult<'a> {
        /// The transactional id of the transaction.
        transactional_id: Cow<'a, str> [versions 4+],
        /// The results of each topic.
        topic_results: Vec<AddPartitionsToTxnTopicResult<'a>> [versions 4+],
    }

    /// The results of one topic.
    pub struct AddPartitionsToTxnTopicResult<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The results of each partition.
        results_by_partition: Vec<AddPartitionsToTxnPartitionResult<'a>> [versions 0+],
    }

    /// The result of one partition.
    pub struct AddPartitionsToTxnPartitionResult<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code of the partition, or 0.
        partition_error_code: i16 [versions 0+],
    }
}
