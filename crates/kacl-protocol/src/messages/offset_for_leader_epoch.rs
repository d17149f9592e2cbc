//! OffsetForLeaderEpoch (API key 23, KIP-320): the end offset of a leader epoch, which a
//! consumer asks after a leader change to find out whether its position was truncated away. A
//! gateway node authorizes each topic and forwards it.
//!
//! Kafka 4 serves v2-4: v3 adds the replica id (-1 from a consumer, -2 by default), v4 is the
//! first flexible version.

use std::borrow::Cow;

kafka_message! {
    /// The partitions and the leader epochs to look up.
    pub struct OffsetForLeaderEpochRequest<'a> {
        api_key: OffsetForLeaderEpoch, versions: 2-4, flexible: 4+;
        /// The follower's broker id, or -1 from a consumer (v3+).
        replica_id: i32 [versions 3+, ignorable, default -2],
        /// Each topic to look up.
        topics: Vec<OffsetForLeaderTopic<'a>> [versions 0+],
    }

    /// One topic to look up.
    pub struct OffsetForLeaderTopic<'a> {
        /// The topic name.
        topic: Cow<'a, str> [versions 0+],
        /// Each partition to look up.
        partitions: Vec<OffsetForLeaderPartition<'a>> [versions 0+],
    }

    /// One partition to look up.
    pub struct OffsetForLeaderPartition<'a> {
        /// The partition index.
        partition: i32 [versions 0+],
        /// The epoch the asker knows the leader by, which fences stale metadata; -1: none.
        current_leader_epoch: i32 [versions 2+, ignorable, default -1],
        /// The epoch whose end offset is asked.
        leader_epoch: i32 [versions 0+],
    }
}

kafka_message! {
    /// The end offset per topic and partition.
    pub struct OffsetForLeaderEpochResponse<'a> {
        api_key: OffsetForLeaderEpoch, versions: 2-4, flexible: 4+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 2+, ignorable],
        /// Each topic looked up.
        topics: Vec<OffsetForLeaderTopicResult<'a>> [versions 0+],
    }

    /// One topic looked up.
    pub struct OffsetForLeaderTopicResult<'a> {
        /// The topic name.
        topic: Cow<'a, str> [versions 0+],
        /// Each partition looked up.
        partitions: Vec<EpochEndOffset<'a>> [versions 0+],
    }

    /// One partition looked up.
    pub struct EpochEndOffset<'a> {
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The partition index.
        partition: i32 [versions 0+],
        /// The leader epoch of the partition.
        leader_epoch: i32 [versions 1+, ignorable, default -1],
        /// The end offset of the epoch.
        end_offset: i64 [versions 0+, default -1],
    }
}
