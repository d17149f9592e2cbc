//! CreateTopics (API key 19): create topics with a partition count and replication factor or
//! an explicit replica assignment, and per-topic configs.
//!
//! v1 adds `validate_only` and the per-topic error message; v2 the throttle time; v4 lets
//! partitions/replication factor be -1 (broker defaults, KIP-464); v5 is the first flexible
//! version and returns the topic's configs (KIP-525); v6 may return THROTTLING_QUOTA_EXCEEDED
//! (KIP-599); v7 returns the topic id. Versions 0-1 (removed in Kafka 4) are declared because
//! they cost nothing here; kacl serves 2-7 (see [`ApiKey::versions`](crate::ApiKey::versions)).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// The topics to create.
    pub struct CreateTopicsRequest<'a> {
        api_key: CreateTopics, versions: 0-7, flexible: 5+;
        /// The topics to create.
        topics: Vec<CreatableTopic<'a>> [versions 0+],
        /// How long to wait in milliseconds before timing out the request.
        timeout_ms: i32 [versions 0+, default 60000],
        /// If true, check that the topics can be created as specified, but create nothing.
        validate_only: bool [versions 1+, default false],
    }

    /// One topic to create.
    pub struct CreatableTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The number of partitions, or -1 for a manual assignment or the broker default.
        num_partitions: i32 [versions 0+],
        /// The replication factor, or -1 for a manual assignment or the broker default.
        replication_factor: i16 [versions 0+],
        /// The manual partition assignment, or empty for automatic assignment.
        assignments: Vec<CreatableReplicaAssignment<'a>> [versions 0+],
        /// The custom topic configurations to set.
        configs: Vec<CreatableTopicConfig<'a>> [versions 0+],
    }

    /// The replicas of one partition in a manual assignment.
    pub struct CreatableReplicaAssignment<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The brokers to place the partition on.
        broker_ids: Vec<i32> [versions 0+],
    }

    /// One topic config to set.
    pub struct CreatableTopicConfig<'a> {
        /// The configuration name.
        name: Cow<'a, str> [versions 0+],
        /// The configuration value, or null.
        value: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}

kafka_message! {
    /// One result per requested topic.
    pub struct CreateTopicsResponse<'a> {
        api_key: CreateTopics, versions: 0-7, flexible: 5+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 2+, ignorable],
        /// Results for each topic we tried to create.
        topics: Vec<CreatableTopicResult<'a>> [versions 0+],
    }

    /// The outcome for one topic.
    pub struct CreatableTopicResult<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The topic id of the created topic (v7+).
        topic_id: Uuid [versions 7+, ignorable],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null (v1+). Defaults to null, where Kafka's generated code
        /// defaults to "": a result built from `Default` should read as "no error".
        error_message: Option<Cow<'a, str>> [versions 1+, nullable 0+, ignorable],
        /// The topic config error, sent when configs are not (tagged, v5+).
        topic_config_error_code: i16 [versions 5+, tag 0, ignorable],
        /// The number of partitions of the topic, or -1.
        num_partitions: i32 [versions 5+, ignorable, default -1],
        /// The replication factor of the topic, or -1.
        replication_factor: i16 [versions 5+, ignorable, default -1],
        /// The topic's configuration, or null when it could not be described.
        configs: Option<Vec<CreatableTopicConfigs<'a>>> [versions 5+, nullable 5+, ignorable,
            default Some(Vec::new())],
    }

    /// One config entry of a created topic.
    pub struct CreatableTopicConfigs<'a> {
        /// The configuration name.
        name: Cow<'a, str> [versions 5+],
        /// The configuration value, or null.
        value: Option<Cow<'a, str>> [versions 5+, nullable 5+],
        /// True if the configuration is read-only.
        read_only: bool [versions 5+],
        /// The configuration source, or -1.
        config_source: i8 [versions 5+, ignorable, default -1],
        /// True if the configuration is sensitive.
        is_sensitive: bool [versions 5+],
    }
}
