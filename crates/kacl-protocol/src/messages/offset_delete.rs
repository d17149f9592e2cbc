//! OffsetDelete (API key 47): delete a group's committed offsets for some partitions (the group
//! must not be subscribed to their topics, KIP-496). Forwarded by a gateway node.
//!
//! Only v0 exists; it is not flexible.

use std::borrow::Cow;

kafka_message! {
    /// The group and partitions whose offsets to delete.
    pub struct OffsetDeleteRequest<'a> {
        api_key: OffsetDelete, versions: 0-0, flexible: none;
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The topics to delete offsets for.
        topics: Vec<OffsetDeleteRequestTopic<'a>> [versions 0+],
    }

    /// One topic.
    pub struct OffsetDeleteRequestTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Each partition to delete the offset of.
        partitions: Vec<OffsetDeleteRequestPartition<'a>> [versions 0+],
    }

    /// One partition.
    pub struct OffsetDeleteRequestPartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
    }
}

kafka_message! {
    /// The outcome, overall and per partition.
    pub struct OffsetDeleteResponse<'a> {
        api_key: OffsetDelete, versions: 0-0, flexible: none;
        /// The top-level error code, or 0.
        error_code: i16 [versions 0+],
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+, ignorable],
        /// The results for each topic.
        topics: Vec<OffsetDeleteResponseTopic<'a>> [versions 0+],
    }

    /// The results in one topic.
    pub struct OffsetDeleteResponseTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The results for each partition.
        partitions: Vec<OffsetDeleteResponsePartition<'a>> [versions 0+],
    }

    /// The result for one partition.
    pub struct OffsetDeleteResponsePartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
    }
}
