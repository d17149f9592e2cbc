//! ListPartitionReassignments (API key 46, KIP-455): the partition reassignments in progress.
//! What `kafka-reassign-partitions.sh --list` and `--verify` send.
//!
//! v0 is the only version, and flexible.

use std::borrow::Cow;

kafka_message! {
    /// The partitions whose reassignments to list.
    pub struct ListPartitionReassignmentsRequest<'a> {
        api_key: ListPartitionReassignments, versions: 0-0, flexible: 0+;
        /// The time in ms to wait for the request to complete.
        timeout_ms: i32 [versions 0+, default 60000],
        /// The topics to list, or null for every reassignment in progress.
        topics: Option<Vec<ListPartitionReassignmentsTopics<'a>>> [versions 0+, nullable 0+],
    }

    /// One topic to list.
    pub struct ListPartitionReassignmentsTopics<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The partitions to list.
        partition_indexes: Vec<i32> [versions 0+],
    }
}

kafka_message! {
    /// The reassignments in progress.
    pub struct ListPartitionReassignmentsResponse<'a> {
        api_key: ListPartitionReassignments, versions: 0-0, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The top-level error code, or 0.
        error_code: i16 [versions 0+],
        /// The top-level error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The topics with a reassignment in progress.
        topics: Vec<OngoingTopicReassignment<'a>> [versions 0+],
    }

    /// One topic with reassignments in progress.
    pub struct OngoingTopicReassignment<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Its partitions being reassigned.
        partitions: Vec<OngoingPartitionReassignment<'a>> [versions 0+],
    }

    /// One partition being reassigned.
    pub struct OngoingPartitionReassignment<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The current replica set.
        replicas: Vec<i32> [versions 0+],
        /// The replicas being added.
        adding_replicas: Vec<i32> [versions 0+],
        /// The replicas being removed.
        removing_replicas: Vec<i32> [versions 0+],
    }
}
