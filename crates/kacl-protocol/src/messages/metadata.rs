//! Metadata (API key 3): brokers, cluster id, controller and the topics a client asks about.
//! kacl answers it so that admin clients can bootstrap and list or describe topics.
//!
//! v1 makes the topic list nullable (null = all topics; in v0 an empty list meant all) and adds
//! rack, controller id and `is_internal`; v2 the cluster id; v3 the throttle time; v4
//! `allow_auto_topic_creation`; v5 offline replicas; v7 the leader epoch; v8 authorized
//! operations; v9 is the first flexible version; v10 topic ids; v11 drops the cluster authorized
//! operations (moved to DescribeCluster, KIP-700); v12 lets a response topic name be null (a
//! lookup by id); v13 adds a top-level error code (KIP-1102, rebootstrap).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// The topics a client wants metadata for.
    pub struct MetadataRequest<'a> {
        api_key: Metadata, versions: 0-13, flexible: 9+;
        /// The topics to fetch metadata for. v0: empty means all topics; v1+: null means all
        /// topics and empty means none. The default, like Kafka's, is the empty list.
        topics: Option<Vec<MetadataRequestTopic<'a>>> [versions 0+, nullable 1+,
            default Some(Vec::new())],
        /// Whether the broker may auto-create requested topics that do not exist (v4+; older
        /// clients always implied true).
        allow_auto_topic_creation: bool [versions 4+, default true],
        /// Whether to include cluster authorized operations (v8-10 only).
        include_cluster_authorized_operations: bool [versions 8-10],
        /// Whether to include topic authorized operations.
        include_topic_authorized_operations: bool [versions 8+],
    }

    /// One requested topic, by name or (v10+) by id.
    pub struct MetadataRequestTopic<'a> {
        /// The topic id (v10+).
        topic_id: Uuid [versions 10+, ignorable],
        /// The topic name; null (v10+) when asking by id.
        name: Option<Cow<'a, str>> [versions 0+, nullable 10+, default Some(Cow::Borrowed(""))],
    }
}

kafka_message! {
    /// Brokers, cluster id, controller and per-topic partition metadata.
    pub struct MetadataResponse<'a> {
        api_key: Metadata, versions: 0-13, flexible: 9+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 3+, ignorable],
        /// Each broker in the response.
        brokers: Vec<MetadataResponseBroker<'a>> [versions 0+],
        /// The cluster id the responding broker belongs to.
        cluster_id: Option<Cow<'a, str>> [versions 2+, nullable 2+, ignorable],
        /// The id of the controller broker, or -1.
        controller_id: i32 [versions 1+, ignorable, default -1],
        /// Each topic in the response.
        topics: Vec<MetadataResponseTopic<'a>> [versions 0+],
        /// 32-bit bitfield of the operations authorized on the cluster (v8-10), or
        /// `i32::MIN` when not requested.
        cluster_authorized_operations: i32 [versions 8-10, default i32::MIN],
        /// The top-level error code, or 0 (v13+).
        error_code: i16 [versions 13+, ignorable],
    }

    /// One broker.
    pub struct MetadataResponseBroker<'a> {
        /// The broker id.
        node_id: i32 [versions 0+],
        /// The broker hostname.
        host: Cow<'a, str> [versions 0+],
        /// The broker port.
        port: i32 [versions 0+],
        /// The rack of the broker, or null if it has none.
        rack: Option<Cow<'a, str>> [versions 1+, nullable 1+, ignorable],
    }

    /// One topic.
    pub struct MetadataResponseTopic<'a> {
        /// The topic error, or 0.
        error_code: i16 [versions 0+],
        /// The topic name; null (v12+) when the topic was looked up by an unknown id.
        name: Option<Cow<'a, str>> [versions 0+, nullable 12+, default Some(Cow::Borrowed(""))],
        /// The topic id (v10+).
        topic_id: Uuid [versions 10+, ignorable],
        /// Whether the topic is internal.
        is_internal: bool [versions 1+, ignorable, default false],
        /// Each partition of the topic.
        partitions: Vec<MetadataResponsePartition<'a>> [versions 0+],
        /// 32-bit bitfield of the operations authorized on the topic, or `i32::MIN` when not
        /// requested.
        topic_authorized_operations: i32 [versions 8+, default i32::MIN],
    }

    /// One partition.
    pub struct MetadataResponsePartition<'a> {
        /// The partition error, or 0.
        error_code: i16 [versions 0+],
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The id of the leader broker.
        leader_id: i32 [versions 0+],
        /// The leader epoch, or -1.
        leader_epoch: i32 [versions 7+, ignorable, default -1],
        /// Every broker that hosts a replica.
        replica_nodes: Vec<i32> [versions 0+],
        /// The brokers in sync with the leader.
        isr_nodes: Vec<i32> [versions 0+],
        /// The offline replicas (v5+).
        offline_replicas: Vec<i32> [versions 5+, ignorable],
    }
}
