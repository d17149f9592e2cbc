//! OffsetFetch (API key 9): read a consumer group's committed offsets. Forwarded by a gateway
//! node.
//!
//! v1 reads offsets from the internal `__consumer_offsets` topic; v2 lets the topic list be
//! null (all topics) and adds a top-level error code; v3 adds the throttle time; v4 answers
//! before throttling on a quota violation; v5 adds the committed leader epoch; v6 is the first
//! flexible version; v7 adds `require_stable` (UNSTABLE_OFFSET_COMMIT for pending transactional
//! offsets, KIP-447); v8 batches several groups in one request ([`OffsetFetchRequestGroup`],
//! [`OffsetFetchResponseGroup`]; the single-group fields are gone, KIP-709); v9 adds the member
//! id and epoch of KIP-848 consumer groups. Kafka 4 removed v0; Kafka 4.1's v10 (topic ids
//! instead of names) is still unstable there and not declared.

use std::borrow::Cow;

kafka_message! {
    /// The groups (v8+) or the group (v1-7) and partitions whose offsets to read.
    pub struct OffsetFetchRequest<'a> {
        api_key: OffsetFetch, versions: 1-9, flexible: 6+;
        /// The group to fetch offsets for (v1-7).
        group_id: Cow<'a, str> [versions 0-7],
        /// The topics to fetch offsets for (v1-7), or (v2+) null for all topics.
        topics: Option<Vec<OffsetFetchRequestTopic<'a>>> [versions 0-7, nullable 2-7,
            default Some(Vec::new())],
        /// Each group to fetch offsets for (v8+).
        groups: Vec<OffsetFetchRequestGroup<'a>> [versions 8+],
        /// Whether the broker should answer UNSTABLE_OFFSET_COMMIT for partitions with pending
        /// transactional offsets rather than return them (v7+).
        require_stable: bool [versions 7+, default false],
    }

    /// One topic of the single group (v1-7).
    pub struct OffsetFetchRequestTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0-7],
        /// The partition indexes to fetch offsets for.
        partition_indexes: Vec<i32> [versions 0-7],
    }

    /// One group whose offsets to read (v8+).
    pub struct OffsetFetchRequestGroup<'a> {
        /// The group id.
        group_id: Cow<'a, str> [versions 8+],
        /// The member id of a KIP-848 consumer group member, or null (v9+).
        member_id: Option<Cow<'a, str>> [versions 9+, nullable 9+, ignorable],
        /// The member epoch of a KIP-848 consumer group member, or -1 (v9+).
        member_epoch: i32 [versions 9+, ignorable, default -1],
        /// The topics to fetch offsets for, or null for all topics.
        topics: Option<Vec<OffsetFetchRequestTopics<'a>>> [versions 8+, nullable 8+,
            default Some(Vec::new())],
    }

    /// One topic of a group (v8+).
    pub struct OffsetFetchRequestTopics<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 8-9],
        /// The partition indexes to fetch offsets for.
        partition_indexes: Vec<i32> [versions 8+],
    }
}

kafka_message! {
    /// The committed offsets, per group (v8+) or for the single group (v1-7).
    pub struct OffsetFetchResponse<'a> {
        api_key: OffsetFetch, versions: 1-9, flexible: 6+;
        /// Time the request was throttled for a quota violation, or zero (v3+).
        throttle_time_ms: i32 [versions 3+, ignorable],
        /// The offsets per topic (v1-7).
        topics: Vec<OffsetFetchResponseTopic<'a>> [versions 0-7],
        /// The top-level error code, or 0 (v2-7).
        error_code: i16 [versions 2-7, ignorable],
        /// The offsets per group (v8+).
        groups: Vec<OffsetFetchResponseGroup<'a>> [versions 8+],
    }

    /// The offsets of one topic (v1-7).
    pub struct OffsetFetchResponseTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0-7],
        /// The offsets per partition.
        partitions: Vec<OffsetFetchResponsePartition<'a>> [versions 0-7],
    }

    /// The offset of one partition (v1-7).
    pub struct OffsetFetchResponsePartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0-7],
        /// The committed offset, or -1.
        committed_offset: i64 [versions 0-7],
        /// The leader epoch of the committed offset, or -1 (v5+).
        committed_leader_epoch: i32 [versions 5-7, ignorable, default -1],
        /// The metadata committed with the offset, or null.
        metadata: Option<Cow<'a, str>> [versions 0-7, nullable 0-7,
            default Some(Cow::Borrowed(""))],
        /// The error code, or 0.
        error_code: i16 [versions 0-7],
    }

    /// The offsets of one group (v8+).
    pub struct OffsetFetchResponseGroup<'a> {
        /// The group id.
        group_id: Cow<'a, str> [versions 8+],
        /// The offsets per topic.
        topics: Vec<OffsetFetchResponseTopics<'a>> [versions 8+],
        /// The group-level error code, or 0.
        error_code: i16 [versions 8+],
    }

    /// The offsets of one topic of a group (v8+).
    pub struct OffsetFetchResponseTopics<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 8-9],
        /// The offsets per partition.
        partitions: Vec<OffsetFetchResponsePartitions<'a>> [versions 8+],
    }

    /// The offset of one partition of a group (v8+).
    pub struct OffsetFetchResponsePartitions<'a> {
        /// The partition index.
        partition_index: i32 [versions 8+],
        /// The committed offset, or -1.
        committed_offset: i64 [versions 8+],
        /// The leader epoch of the committed offset, or -1.
        committed_leader_epoch: i32 [versions 8+, ignorable, default -1],
        /// The metadata committed with the offset, or null.
        metadata: Option<Cow<'a, str>> [versions 8+, nullable 8+,
            default Some(Cow::Borrowed(""))],
        /// The partition-level error code, or 0.
        error_code: i16 [versions 8+],
    }
}
