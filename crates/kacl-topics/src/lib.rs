//! Topic administration rules, exactly as Kafka 4.x's KRaft controller applies them.
//!
//! The CreateTopics, DeleteTopics, CreatePartitions and Metadata handlers ask this
//! module every question whose answer Kafka fixes: is a name legal, does it collide,
//! which partition count and replication factor a request resolves to, are its manual
//! replica assignments sound, are its configs known and well typed, where do new
//! replicas go. Each refusal is a [`TopicError`] carrying Kafka's error code and the
//! message Kafka sends, so a handler copies both into its response unchanged.
//!
//! Nothing here touches the network or the store: callers pass in what exists (the
//! registered broker ids, the existing topic names, a topic's current replicas).
//!
//! Sources read (not copied): `Topic.java`, `ReplicationControlManager.java`,
//! `ControllerApis.scala`, `ControllerConfigurationValidator.scala`, `LogConfig.java`,
//! `ConfigDef.java`, `StripedReplicaPlacer.java` in apache/kafka; the config table and the
//! error texts are Kafka 4.4.0's.

mod configs;
mod java;
mod names;
mod placement;

pub use configs::{
    broker_synonyms, documentation, effective_topic_configs, is_sensitive_broker_key,
    is_untyped_broker_key, listener_base, topic_config, validate_topic_configs, BrokerSynonym,
    ConfigSource, ConfigType, EffectiveTopicConfig, TopicConfigDef, Unit, KAFKA_PASSWORD_CONFIGS,
    KAFKA_UNTYPED_BROKER_CONFIGS, TOPIC_CONFIGS,
};
pub use names::{
    check_new_topic_name, find_collision, has_collision, has_collision_chars, is_internal,
    unify_collision_chars, validate_topic_name, CLUSTER_METADATA_TOPIC_NAME,
    GROUP_METADATA_TOPIC_NAME, MAX_TOPIC_NAME_LENGTH, SHARE_GROUP_STATE_TOPIC_NAME,
    TRANSACTION_STATE_TOPIC_NAME,
};
pub use placement::{
    check_request_partition_total, leader_order, place_racked, place_replicas, plan_new_topic,
    plan_partition_increase, requested_partition_count, ManualAssignment, RackedBroker,
    TopicDefaults, TopicPlan, MAX_PARTITIONS_PER_REQUEST,
};

/// Kafka's error codes for the refusals this module produces (`Errors.java`).
pub mod codes {
    /// `INVALID_TOPIC_EXCEPTION`: a bad or colliding topic name.
    pub const INVALID_TOPIC_EXCEPTION: i16 = 17;
    /// `TOPIC_ALREADY_EXISTS`.
    pub const TOPIC_ALREADY_EXISTS: i16 = 36;
    /// `INVALID_PARTITIONS`.
    pub const INVALID_PARTITIONS: i16 = 37;
    /// `INVALID_REPLICATION_FACTOR`.
    pub const INVALID_REPLICATION_FACTOR: i16 = 38;
    /// `INVALID_REPLICA_ASSIGNMENT`.
    pub const INVALID_REPLICA_ASSIGNMENT: i16 = 39;
    /// `INVALID_CONFIG`.
    pub const INVALID_CONFIG: i16 = 40;
    /// `INVALID_REQUEST`.
    pub const INVALID_REQUEST: i16 = 42;
    /// `POLICY_VIOLATION`.
    pub const POLICY_VIOLATION: i16 = 44;
    /// `UNKNOWN_SERVER_ERROR`.
    pub const UNKNOWN_SERVER_ERROR: i16 = -1;
}

/// Why Kafka refuses a topic operation: the variant fixes the error code, the string is
/// the exact `error_message` Kafka puts in the response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopicError {
    /// `INVALID_TOPIC_EXCEPTION` (17).
    #[error("{0}")]
    InvalidTopic(String),
    /// `TOPIC_ALREADY_EXISTS` (36).
    #[error("{0}")]
    TopicAlreadyExists(String),
    /// `INVALID_PARTITIONS` (37).
    #[error("{0}")]
    InvalidPartitions(String),
    /// `INVALID_REPLICATION_FACTOR` (38).
    #[error("{0}")]
    InvalidReplicationFactor(String),
    /// `INVALID_REPLICA_ASSIGNMENT` (39).
    #[error("{0}")]
    InvalidReplicaAssignment(String),
    /// `INVALID_CONFIG` (40).
    #[error("{0}")]
    InvalidConfig(String),
    /// `INVALID_REQUEST` (42).
    #[error("{0}")]
    InvalidRequest(String),
    /// `POLICY_VIOLATION` (44).
    #[error("{0}")]
    PolicyViolation(String),
    /// `UNKNOWN_SERVER_ERROR` (-1): stored state Kafka itself treats as impossible.
    #[error("{0}")]
    UnknownServerError(String),
}

impl TopicError {
    /// Kafka's error code for the response's `error_code` field.
    pub fn code(&self) -> i16 {
        match self {
            TopicError::InvalidTopic(_) => codes::INVALID_TOPIC_EXCEPTION,
            TopicError::TopicAlreadyExists(_) => codes::TOPIC_ALREADY_EXISTS,
            TopicError::InvalidPartitions(_) => codes::INVALID_PARTITIONS,
            TopicError::InvalidReplicationFactor(_) => codes::INVALID_REPLICATION_FACTOR,
            TopicError::InvalidReplicaAssignment(_) => codes::INVALID_REPLICA_ASSIGNMENT,
            TopicError::InvalidConfig(_) => codes::INVALID_CONFIG,
            TopicError::InvalidRequest(_) => codes::INVALID_REQUEST,
            TopicError::PolicyViolation(_) => codes::POLICY_VIOLATION,
            TopicError::UnknownServerError(_) => codes::UNKNOWN_SERVER_ERROR,
        }
    }

    /// The exact message for the response's `error_message` field.
    pub fn message(&self) -> &str {
        match self {
            TopicError::InvalidTopic(m)
            | TopicError::TopicAlreadyExists(m)
            | TopicError::InvalidPartitions(m)
            | TopicError::InvalidReplicationFactor(m)
            | TopicError::InvalidReplicaAssignment(m)
            | TopicError::InvalidConfig(m)
            | TopicError::InvalidRequest(m)
            | TopicError::PolicyViolation(m)
            | TopicError::UnknownServerError(m) => m,
        }
    }

    /// Kafka's name for the code (`Errors.name()`), for logs and the CLI's one-line errors.
    pub fn kafka_name(&self) -> &'static str {
        match self {
            TopicError::InvalidTopic(_) => "INVALID_TOPIC_EXCEPTION",
            TopicError::TopicAlreadyExists(_) => "TOPIC_ALREADY_EXISTS",
            TopicError::InvalidPartitions(_) => "INVALID_PARTITIONS",
            TopicError::InvalidReplicationFactor(_) => "INVALID_REPLICATION_FACTOR",
            TopicError::InvalidReplicaAssignment(_) => "INVALID_REPLICA_ASSIGNMENT",
            TopicError::InvalidConfig(_) => "INVALID_CONFIG",
            TopicError::InvalidRequest(_) => "INVALID_REQUEST",
            TopicError::PolicyViolation(_) => "POLICY_VIOLATION",
            TopicError::UnknownServerError(_) => "UNKNOWN_SERVER_ERROR",
        }
    }

    /// Kafka's `TOPIC_ALREADY_EXISTS` for CreateTopics: `Topic 'x' already exists.`
    pub fn already_exists(name: &str) -> Self {
        TopicError::TopicAlreadyExists(format!("Topic '{name}' already exists."))
    }

    /// `ControllerApis`' refusal of a name given twice in one CreateTopics, DeleteTopics
    /// or CreatePartitions request (every copy of the name gets it).
    pub fn duplicate_name() -> Self {
        TopicError::InvalidRequest("Duplicate topic name.".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_carries_its_kafka_code_name_and_message() {
        let cases = [
            (
                TopicError::InvalidTopic("a".into()),
                17,
                "INVALID_TOPIC_EXCEPTION",
            ),
            (
                TopicError::TopicAlreadyExists("a".into()),
                36,
                "TOPIC_ALREADY_EXISTS",
            ),
            (
                TopicError::InvalidPartitions("a".into()),
                37,
                "INVALID_PARTITIONS",
            ),
            (
                TopicError::InvalidReplicationFactor("a".into()),
                38,
                "INVALID_REPLICATION_FACTOR",
            ),
            (
                TopicError::InvalidReplicaAssignment("a".into()),
                39,
                "INVALID_REPLICA_ASSIGNMENT",
            ),
            (TopicError::InvalidConfig("a".into()), 40, "INVALID_CONFIG"),
            (
                TopicError::InvalidRequest("a".into()),
                42,
                "INVALID_REQUEST",
            ),
            (
                TopicError::PolicyViolation("a".into()),
                44,
                "POLICY_VIOLATION",
            ),
            (
                TopicError::UnknownServerError("a".into()),
                -1,
                "UNKNOWN_SERVER_ERROR",
            ),
        ];
        for (error, code, name) in cases {
            assert_eq!(error.code(), code);
            assert_eq!(error.kafka_name(), name);
            assert_eq!(error.message(), "a");
            assert_eq!(error.to_string(), "a");
        }
    }

    #[test]
    fn request_level_messages_are_kafkas() {
        let exists = TopicError::already_exists("orders");
        assert_eq!(exists.code(), 36);
        assert_eq!(exists.message(), "Topic 'orders' already exists.");
        let duplicate = TopicError::duplicate_name();
        assert_eq!(duplicate.code(), 42);
        assert_eq!(duplicate.message(), "Duplicate topic name.");
    }
}
