//! TxnOffsetCommit (API key 28): commit a consumer group's offsets as part of a transaction
//! (they become visible when the transaction commits). Forwarded by a gateway node.
//!
//! v1 is the same as v0 (the broker answers before throttling on a quota violation); v2 adds
//! the committed leader epoch; v3 is the first flexible version and adds the group generation,
//! member id and group instance id (KIP-447); v4 may return TRANSACTION_ABORTABLE (KIP-890);
//! v5 is for transactions v2 (KIP-890 part 2): the commit itself adds the group's offsets to
//! the transaction, with no AddOffsetsToTxn before it.

use std::borrow::Cow;

kafka_message! {
    /// The offsets to commit in the transaction.
    pub struct TxnOffsetCommitRequest<'a> {
        api_key: TxnOffsetCommit, versions: 0-5, flexible: 3+;
        /// The transactional id of the transaction.
        transactional_id: Cow<'a, str> [versions 0+],
        /// The consumer group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The producer id in use by the transactional id.
        producer_id: i64 [versions 0+],
        /// The epoch of the producer id.
        producer_epoch: i16 [versions 0+],
        /// The generation of the consumer, or -1 (v3+).
        generation_id: i32 [versions 3+, default -1],
        /// The member id assigned by the group coordinator, or "" (v3+).
        member_id: Cow<'a, str> [versions 3+],
        /// The static member's group instance id, or null (v3+).
        group_instance_id: Option<Cow<'a, str>> [versions 3+, nullable 3+],
        /// The topics to commit offsets for.
        topics: Vec<TxnOffsetCommitRequestTopic<'a>> [versions 0+],
    }

    /// The offsets of one topic.
    pub struct TxnOffsetCommitRequestTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The partitions to commit offsets for.
        partitions: Vec<TxnOffsetCommitRequestPartition<'a>> [versions 0+],
    }

    /// The offset of one partition.
    pub struct TxnOffsetCommitRequestPartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The offset to commit.
        committed_offset: i64 [versions 0+],
        /// The leader epoch of the last consumed record, or -1 (v2+).
        committed_leader_epoch: i32 [versions 2+, ignorable, default -1],
        /// Metadata the client wants kept with the offset, or null.
        committed_metadata: Option<Cow<'a, str>> [versions 0+, nullable 0+,
            default Some(Cow::Borrowed(""))],
    }
}

kafka_message! {
    /// The outcome for each partition.
    pub struct TxnOffsetCommitResponse<'a> {
        api_key: TxnOffsetCommit, versions: 0-5, flexible: 3+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The results of each topic.
        topics: Vec<TxnOffsetCommitResponseTopic<'a>> [versions 0+],
    }

    /// The results of one topic.
    pub struct TxnOffsetCommitResponseTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The results of each partition.
        partitions: Vec<TxnOffsetCommitResponsePartition<'a>> [versions 0+],
    }

    /// The result of one partition.
    pub struct TxnOffsetCommitResponsePartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
    }
}
