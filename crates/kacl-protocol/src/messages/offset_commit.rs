//! OffsetCommit (API key 8): commit a consumer group's consumed offsets. Forwarded by a gateway
//! node.
//!
//! v2 adds the retention time (and drops v1's per-partition commit timestamp); v3 adds the
//! throttle time to the response; v4 answers before throttling on a quota violation; v5 removes
//! the retention time (a broker config now); v6 adds the committed leader epoch; v7 the group
//! instance id (static membership, KIP-345); v8 is the first flexible version; v9 may be used by
//! KIP-848 consumer groups (the generation id carries the member epoch; STALE_MEMBER_EPOCH,
//! GROUP_ID_NOT_FOUND). Kafka 4 removed v0-1; Kafka 4.1's v10 (topic ids instead of names) is
//! still unstable there and not declared.

use std::borrow::Cow;

kafka_message! {
    /// The offsets a group member commits.
    pub struct OffsetCommitRequest<'a> {
        api_key: OffsetCommit, versions: 2-9, flexible: 8+;
        /// The unique group identifier.
        group_id: Cow<'a, str> [versions 0+],
        /// The generation of a classic group, or the member epoch of a KIP-848 group.
        generation_id_or_member_epoch: i32 [versions 1+, ignorable, default -1],
        /// The member id assigned by the group coordinator.
        member_id: Cow<'a, str> [versions 1+, ignorable],
        /// The static member's instance id, or null (v7+).
        group_instance_id: Option<Cow<'a, str>> [versions 7+, nullable 7+],
        /// How long in milliseconds to retain the offsets, or -1 for the broker default (v2-4).
        retention_time_ms: i64 [versions 2-4, ignorable, default -1],
        /// The topics to commit offsets for.
        topics: Vec<OffsetCommitRequestTopic<'a>> [versions 0+],
    }

    /// The offsets to commit in one topic.
    pub struct OffsetCommitRequestTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0-9],
        /// Each partition to commit an offset for.
        partitions: Vec<OffsetCommitRequestPartition<'a>> [versions 0+],
    }

    /// The offset to commit in one partition.
    pub struct OffsetCommitRequestPartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The offset to commit.
        committed_offset: i64 [versions 0+],
        /// The leader epoch of the partition, or -1 (v6+).
        committed_leader_epoch: i32 [versions 6+, ignorable, default -1],
        /// Metadata the client keeps with the offset, or null.
        committed_metadata: Option<Cow<'a, str>> [versions 0+, nullable 0+,
            default Some(Cow::Borrowed(""))],
    }
}

kafka_message! {
    /// One error code per partition committed.
    pub struct OffsetCommitResponse<'a> {
        api_key: OffsetCommit, versions: 2-9, flexible: 8+;
        /// Time the request was throttled for a quota violation, or zero (v3+).
        throttle_time_ms: i32 [versions 3+, ignorable],
        /// The results for each topic.
        topics: Vec<OffsetCommitResponseTopic<'a>> [versions 0+],
    }

    /// The results in one topic.
    pub struct OffsetCommitResponseTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0-9],
        /// The results for each partition.
        partitions: Vec<OffsetCommitResponsePartition<'a>> [versions 0+],
    }

    /// The result for one partition.
    pub struct OffsetCommitResponsePartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
    }
}
