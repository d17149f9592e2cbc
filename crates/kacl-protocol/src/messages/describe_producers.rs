//! DescribeProducers (API key 61, KIP-664): the active producers of partitions, for finding
//! hanging transactions. A gateway node authorizes each topic and forwards it.
//!
//! Only v0 exists; it is flexible.

use std::borrow::Cow;

kafka_message! {
    /// The partitions whose producers to describe.
    pub struct DescribeProducersRequest<'a> {
        api_key: DescribeProducers, versions: 0-0, flexible: 0+;
        /// Each topic to describe.
        topics: Vec<TopicRequest<'a>> [versions 0+],
    }

    /// One topic to describe.
    pub struct TopicRequest<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The partition indexes to describe.
        partition_indexes: Vec<i32> [versions 0+],
    }
}

kafka_message! {
    /// The active producers per topic and partition.
    pub struct DescribeProducersResponse<'a> {
        api_key: DescribeProducers, versions: 0-0, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// Each topic described.
        topics: Vec<TopicResponse<'a>> [versions 0+],
    }

    /// One topic described.
    pub struct TopicResponse<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Each partition described.
        partitions: Vec<PartitionResponse<'a>> [versions 0+],
    }

    /// One partition described.
    pub struct PartitionResponse<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The partition's active producers.
        active_producers: Vec<ProducerState<'a>> [versions 0+],
    }

    /// One active producer.
    pub struct ProducerState<'a> {
        /// The producer id.
        producer_id: i64 [versions 0+],
        /// The producer epoch.
        producer_epoch: i32 [versions 0+],
        /// The last sequence number the producer sent, or -1.
        last_sequence: i32 [versions 0+, default -1],
        /// The timestamp of the producer's last record, or -1.
        last_timestamp: i64 [versions 0+, default -1],
        /// The epoch of the transaction coordinator.
        coordinator_epoch: i32 [versions 0+],
        /// The start offset of the producer's open transaction, or -1.
        current_txn_start_offset: i64 [versions 0+, default -1],
    }
}
