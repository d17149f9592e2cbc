//! DescribeTopicPartitions (API key 75, KIP-966, Kafka 3.8+): the partitions of topics, paged by
//! a cursor so that a topic with many partitions never makes one huge answer. What
//! `kafka-topics.sh --describe` and the Java AdminClient's `describeTopics` send first (falling
//! back to Metadata when a broker does not offer it).
//!
//! v0 is the only version, and flexible.

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// The topics to describe and where to start.
    pub struct DescribeTopicPartitionsRequest<'a> {
        api_key: DescribeTopicPartitions, versions: 0-0, flexible: 0+;
        /// The topics to describe; empty describes every topic.
        topics: Vec<TopicRequest<'a>> [versions 0+],
        /// The most partitions the answer may hold.
        response_partition_limit: i32 [versions 0+, default 2000],
        /// The first topic and partition to describe, or null to start at the beginning.
        cursor: Option<Cursor<'a>> [versions 0+, nullable 0+],
    }

    /// One topic to describe.
    pub struct TopicRequest<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
    }

    /// A position: the first topic and partition of a page (in the request), or of the page
    /// that follows (in the response).
    pub struct Cursor<'a> {
        /// The topic name.
        topic_name: Cow<'a, str> [versions 0+],
        /// The partition index within that topic.
        partition_index: i32 [versions 0+],
    }
}

kafka_message! {
    /// The described topics and, when the limit cut the answer short, where to go on.
    pub struct DescribeTopicPartitionsResponse<'a> {
        api_key: DescribeTopicPartitions, versions: 0-0, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// Each topic in the answer.
        topics: Vec<DescribeTopicPartitionsResponseTopic<'a>> [versions 0+],
        /// Where the next page starts, or null when nothing is left.
        next_cursor: Option<Cursor<'a>> [versions 0+, nullable 0+],
    }

    /// One topic.
    pub struct DescribeTopicPartitionsResponseTopic<'a> {
        /// The topic error, or 0.
        error_code: i16 [versions 0+],
        /// The topic name.
        name: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The topic id (zero when refused or unknown).
        topic_id: Uuid [versions 0+],
        /// Whether the topic is internal.
        is_internal: bool [versions 0+, default false],
        /// The described partitions of the topic (a range of them when paged).
        partitions: Vec<DescribeTopicPartitionsResponsePartition<'a>> [versions 0+],
        /// 32-bit bitfield of the operations the caller may perform on the topic.
        topic_authorized_operations: i32 [versions 0+, default i32::MIN],
    }

    /// One partition.
    pub struct DescribeTopicPartitionsResponsePartition<'a> {
        /// The partition error, or 0.
        error_code: i16 [versions 0+],
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The id of the leader broker, or -1.
        leader_id: i32 [versions 0+],
        /// The leader epoch, or -1.
        leader_epoch: i32 [versions 0+, default -1],
        /// Every broker that hosts a replica.
        replica_nodes: Vec<i32> [versions 0+],
        /// The brokers in sync with the leader.
        isr_nodes: Vec<i32> [versions 0+],
        /// The eligible leader replicas (KIP-966), or null.
        eligible_leader_replicas: Option<Vec<i32>> [versions 0+, nullable 0+],
        /// The last known eligible leader replicas, or null.
        last_known_elr: Option<Vec<i32>> [versions 0+, nullable 0+],
        /// The offline replicas.
        offline_replicas: Vec<i32> [versions 0+],
    }
}
