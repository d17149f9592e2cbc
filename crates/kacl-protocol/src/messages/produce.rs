//! Produce (API key 0): write record batches to partitions. A gateway node authorizes each
//! topic and forwards the request; the record batches stay borrowed bytes, never decoded.
//!
//! v3 adds the transactional id (KIP-98) and requires record batch format v2; v4 may return
//! KAFKA_STORAGE_ERROR; v5 returns the log start offset; v6 and v7 (ZStd, KIP-110) change no
//! fields; v8 returns per-record errors and an error message (KIP-467); v9 is the first flexible
//! version; v10 returns the current leader and the leaders' endpoints in tagged fields (KIP-951);
//! v11 may return TRANSACTION_ABORTABLE (KIP-890); v12 lets a transactional producer skip
//! AddPartitionsToTxn (KIP-890 part 2); v13 names topics by id instead of name (KIP-516).
//! Versions 0-2 were removed in Kafka 4 (KIP-896).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// Record batches to append, per topic and partition.
    pub struct ProduceRequest<'a> {
        api_key: Produce, versions: 3-13, flexible: 9+;
        /// The transactional id, or null if the producer is not transactional.
        transactional_id: Option<Cow<'a, str>> [versions 3+, nullable 3+],
        /// The acknowledgments required: 0 none, 1 the leader, -1 the full ISR.
        acks: i16 [versions 0+],
        /// How long to wait for the acknowledgments, in milliseconds.
        timeout_ms: i32 [versions 0+],
        /// Each topic to produce to.
        topic_data: Vec<TopicProduceData<'a>> [versions 0+],
    }

    /// The data for one topic.
    pub struct TopicProduceData<'a> {
        /// The topic name (v0-12).
        name: Cow<'a, str> [versions 0-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// Each partition to produce to.
        partition_data: Vec<PartitionProduceData<'a>> [versions 0+],
    }

    /// The data for one partition.
    pub struct PartitionProduceData<'a> {
        /// The partition index.
        index: i32 [versions 0+],
        /// The record batches, borrowed from the frame and never decoded.
        records: Option<Cow<'a, [u8]>> [versions 0+, nullable 0+,
            default Some(Cow::Borrowed(&[]))],
    }
}

kafka_message! {
    /// The outcome per topic and partition.
    pub struct ProduceResponse<'a> {
        api_key: Produce, versions: 3-13, flexible: 9+;
        /// Each topic produced to.
        responses: Vec<TopicProduceResponse<'a>> [versions 0+],
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The endpoints of the current leaders named in partitions that failed with
        /// NOT_LEADER_OR_FOLLOWER (tagged, v10+).
        node_endpoints: Vec<NodeEndpoint<'a>> [versions 10+, tag 0, ignorable],
    }

    /// The outcome for one topic.
    pub struct TopicProduceResponse<'a> {
        /// The topic name (v0-12).
        name: Cow<'a, str> [versions 0-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// Each partition produced to.
        partition_responses: Vec<PartitionProduceResponse<'a>> [versions 0+],
    }

    /// The outcome for one partition.
    pub struct PartitionProduceResponse<'a> {
        /// The partition index.
        index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The offset of the first appended record.
        base_offset: i64 [versions 0+],
        /// The broker's append time with LogAppendTime, or -1 with CreateTime.
        log_append_time_ms: i64 [versions 2+, default -1],
        /// The log start offset, or -1.
        log_start_offset: i64 [versions 5+, ignorable, default -1],
        /// The batch indices of the records that caused the batch to be dropped (v8+).
        record_errors: Vec<BatchIndexAndErrorMessage<'a>> [versions 8+, ignorable],
        /// The error message common to the dropped records, or null (v8+).
        error_message: Option<Cow<'a, str>> [versions 8+, nullable 8+, ignorable],
        /// The leader the producer should use from now on (tagged, v10+).
        current_leader: LeaderIdAndEpoch<'a> [versions 10+, tag 0, ignorable],
    }

    /// One record that caused its batch to be dropped.
    pub struct BatchIndexAndErrorMessage<'a> {
        /// The index of the record in its batch.
        batch_index: i32 [versions 8+],
        /// The record's error message, or null.
        batch_index_error_message: Option<Cow<'a, str>> [versions 8+, nullable 8+],
    }

    /// A partition's current leader.
    pub struct LeaderIdAndEpoch<'a> {
        /// The id of the leader broker, or -1 if unknown.
        leader_id: i32 [versions 10+, default -1],
        /// The leader epoch, or -1.
        leader_epoch: i32 [versions 10+, default -1],
    }

    /// The endpoint of one broker.
    pub struct NodeEndpoint<'a> {
        /// The broker id.
        node_id: i32 [versions 10+],
        /// The broker hostname.
        host: Cow<'a, str> [versions 10+],
        /// The broker port.
        port: i32 [versions 10+],
        /// The rack of the broker, or null if it has none.
        rack: Option<Cow<'a, str>> [versions 10+, nullable 10+],
    }
}
