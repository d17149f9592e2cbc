//! AlterPartitionReassignments (API key 45, KIP-455): move partitions to other brokers, or
//! cancel a move in progress. What `kafka-reassign-partitions.sh --execute` and `--cancel` send.
//!
//! v0 is the first version, and flexible; v1 adds `allow_replication_factor_change` (KIP-860):
//! false refuses a target with a different number of replicas.

use std::borrow::Cow;

kafka_message! {
    /// The reassignments to make.
    pub struct AlterPartitionReassignmentsRequest<'a> {
        api_key: AlterPartitionReassignments, versions: 0-1, flexible: 0+;
        /// The time in ms to wait for the request to complete.
        timeout_ms: i32 [versions 0+, default 60000],
        /// Whether a target may change a partition's replication factor (v1+).
        allow_replication_factor_change: bool [versions 1+, default true],
        /// The topics to reassign.
        topics: Vec<ReassignableTopic<'a>> [versions 0+],
    }

    /// One topic to reassign.
    pub struct ReassignableTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The partitions to reassign.
        partitions: Vec<ReassignablePartition<'a>> [versions 0+],
    }

    /// One partition to reassign.
    pub struct ReassignablePartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The replicas to place the partition on, or null to cancel its reassignment.
        replicas: Option<Vec<i32>> [versions 0+, nullable 0+],
    }
}

kafka_message! {
    /// The result of each reassignment.
    pub struct AlterPartitionReassignmentsResponse<'a> {
        api_key: AlterPartitionReassignments, versions: 0-1, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The request's `allow_replication_factor_change`, echoed (v1+).
        allow_replication_factor_change: bool [versions 1+, ignorable, default true],
        /// The top-level error code, or 0.
        error_code: i16 [versions 0+],
        /// The top-level error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The result of each topic.
        responses: Vec<ReassignableTopicResponse<'a>> [versions 0+],
    }

    /// The results of one topic.
    pub struct ReassignableTopicResponse<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The result of each partition.
        partitions: Vec<ReassignablePartitionResponse<'a>> [versions 0+],
    }

    /// The result of one partition.
    pub struct ReassignablePartitionResponse<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}
