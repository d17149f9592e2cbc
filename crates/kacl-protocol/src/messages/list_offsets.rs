//! ListOffsets (API key 2): the offset of each partition at a timestamp, or at a special
//! position (-1 latest, -2 earliest, ...). A gateway node authorizes each topic and forwards it.
//!
//! v1 asks for one offset per partition instead of a list (KIP-79); v2 adds the isolation level
//! (KIP-98) and the throttle time; v3 changes no fields; v4 adds the current leader epoch and
//! returns the leader epoch (KIP-320); v5 may return OFFSET_NOT_AVAILABLE; v6 is the first
//! flexible version; v7 allows -3, the record with the largest timestamp (KIP-734); v8 allows
//! -4, the earliest local offset (KIP-405); v9 allows -5, the latest tiered offset (KIP-1005);
//! v10 adds a timeout for the remote-storage lookups (KIP-1075). Version 0 was removed in
//! Kafka 4 (KIP-896).

use std::borrow::Cow;

kafka_message! {
    /// The partitions and timestamps to look up.
    pub struct ListOffsetsRequest<'a> {
        api_key: ListOffsets, versions: 1-10, flexible: 6+;
        /// The broker id of the requester, or -1 for a client.
        replica_id: i32 [versions 0+],
        /// 0 = READ_UNCOMMITTED, 1 = READ_COMMITTED (offsets up to the last stable offset;
        /// v2+).
        isolation_level: i8 [versions 2+],
        /// Each topic in the request.
        topics: Vec<ListOffsetsTopic<'a>> [versions 0+],
        /// How long to wait for remote-storage lookups, in milliseconds (v10+).
        timeout_ms: i32 [versions 10+, ignorable],
    }

    /// One topic to look up.
    pub struct ListOffsetsTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Each partition in the request.
        partitions: Vec<ListOffsetsPartition<'a>> [versions 0+],
    }

    /// One partition to look up.
    pub struct ListOffsetsPartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The current leader epoch, or -1 (v4+).
        current_leader_epoch: i32 [versions 4+, ignorable, default -1],
        /// The timestamp to look up, or a special position (-1 latest, -2 earliest, ...).
        timestamp: i64 [versions 0+],
    }
}

kafka_message! {
    /// The offsets found, per topic and partition.
    pub struct ListOffsetsResponse<'a> {
        api_key: ListOffsets, versions: 1-10, flexible: 6+;
        /// Time the request was throttled for a quota violation, or zero (v2+).
        throttle_time_ms: i32 [versions 2+, ignorable],
        /// Each topic in the response.
        topics: Vec<ListOffsetsTopicResponse<'a>> [versions 0+],
    }

    /// The offsets of one topic.
    pub struct ListOffsetsTopicResponse<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Each partition in the response.
        partitions: Vec<ListOffsetsPartitionResponse<'a>> [versions 0+],
    }

    /// The offset of one partition.
    pub struct ListOffsetsPartitionResponse<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The timestamp of the offset found, or -1.
        timestamp: i64 [versions 1+, default -1],
        /// The offset found, or -1.
        offset: i64 [versions 1+, default -1],
        /// The leader epoch of the offset found, or -1 (v4+).
        leader_epoch: i32 [versions 4+, default -1],
    }
}
