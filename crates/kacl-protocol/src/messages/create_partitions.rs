//! CreatePartitions (API key 37): raise the partition count of existing topics, optionally
//! with an explicit assignment of the new partitions.
//!
//! v1 is the same as v0; v2 is the first flexible version; v3 may return
//! THROTTLING_QUOTA_EXCEEDED (KIP-599).

use std::borrow::Cow;

kafka_message! {
    /// The topics to add partitions to.
    pub struct CreatePartitionsRequest<'a> {
        api_key: CreatePartitions, versions: 0-3, flexible: 2+;
        /// Each topic to add partitions to.
        topics: Vec<CreatePartitionsTopic<'a>> [versions 0+],
        /// The time in ms to wait for the partitions to be created.
        timeout_ms: i32 [versions 0+],
        /// If true, validate the request but do not add partitions.
        validate_only: bool [versions 0+],
    }

    /// One topic and its new partition count.
    pub struct CreatePartitionsTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The new partition count.
        count: i32 [versions 0+],
        /// The replicas of each new partition, or null for automatic assignment. The default,
        /// like Kafka's, is the empty list.
        assignments: Option<Vec<CreatePartitionsAssignment<'a>>> [versions 0+, nullable 0+,
            default Some(Vec::new())],
    }

    /// The replicas of one new partition.
    pub struct CreatePartitionsAssignment<'a> {
        /// The assigned broker ids.
        broker_ids: Vec<i32> [versions 0+],
    }
}

kafka_message! {
    /// One result per requested topic.
    pub struct CreatePartitionsResponse<'a> {
        api_key: CreatePartitions, versions: 0-3, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The partition creation results for each topic.
        results: Vec<CreatePartitionsTopicResult<'a>> [versions 0+],
    }

    /// The outcome for one topic.
    pub struct CreatePartitionsTopicResult<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The result error, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}
