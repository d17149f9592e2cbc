//! The typed side of the config calls, as Kafka's AdminClient names it: resources, entries,
//! sources, types and alter operations, with their wire codes.

use std::time::Duration;

/// The kind of a config resource (Kafka's `ConfigResource.Type`; the wire code is the
/// discriminant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConfigResourceType {
    /// A topic (2).
    Topic,
    /// A broker, or with the empty name the cluster-wide broker default (4).
    Broker,
    /// A broker's log4j loggers (8).
    BrokerLogger,
    /// A client-metrics subscription (16, KIP-714).
    ClientMetrics,
    /// A consumer group (32, KIP-848).
    Group,
    /// Any other code.
    Unknown(i8),
}

impl ConfigResourceType {
    /// The wire code.
    pub fn code(self) -> i8 {
        match self {
            ConfigResourceType::Topic => 2,
            ConfigResourceType::Broker => 4,
            ConfigResourceType::BrokerLogger => 8,
            ConfigResourceType::ClientMetrics => 16,
            ConfigResourceType::Group => 32,
            ConfigResourceType::Unknown(code) => code,
        }
    }

    /// The type of a wire code.
    pub fn from_code(code: i8) -> Self {
        match code {
            2 => ConfigResourceType::Topic,
            4 => ConfigResourceType::Broker,
            8 => ConfigResourceType::BrokerLogger,
            16 => ConfigResourceType::ClientMetrics,
            32 => ConfigResourceType::Group,
            other => ConfigResourceType::Unknown(other),
        }
    }
}

impl std::fmt::Display for ConfigResourceType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigResourceType::Topic => f.write_str("TOPIC"),
            ConfigResourceType::Broker => f.write_str("BROKER"),
            ConfigResourceType::BrokerLogger => f.write_str("BROKER_LOGGER"),
            ConfigResourceType::ClientMetrics => f.write_str("CLIENT_METRICS"),
            ConfigResourceType::Group => f.write_str("GROUP"),
            ConfigResourceType::Unknown(_) => f.write_str("UNKNOWN"),
        }
    }
}

/// A resource that has configs (Kafka's `ConfigResource`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConfigResource {
    /// The kind of resource.
    pub resource_type: ConfigResourceType,
    /// Its name: a topic name, a broker id in decimal, or `""` for the broker default.
    pub name: String,
}

impl ConfigResource {
    /// A topic's configs.
    pub fn topic(name: impl Into<String>) -> Self {
        ConfigResource {
            resource_type: ConfigResourceType::Topic,
            name: name.into(),
        }
    }

    /// A broker's configs; `""` names the cluster-wide default.
    pub fn broker(name: impl Into<String>) -> Self {
        ConfigResource {
            resource_type: ConfigResourceType::Broker,
            name: name.into(),
        }
    }
}

impl std::fmt::Display for ConfigResource {
    /// Kafka's `ConfigResource.toString`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ConfigResource(type={}, name='{}')",
            self.resource_type, self.name
        )
    }
}

/// Where a config value comes from (Kafka's `ConfigEntry.ConfigSource`; wire ids of
/// DescribeConfigs v1+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigSource {
    /// Set on the topic (wire 1, `TOPIC_CONFIG`).
    DynamicTopicConfig,
    /// Set dynamically for this broker (2).
    DynamicBrokerConfig,
    /// Set dynamically as the cluster-wide broker default (3).
    DynamicDefaultBrokerConfig,
    /// From the broker's properties file (4).
    StaticBrokerConfig,
    /// The built-in default (5).
    DefaultConfig,
    /// A broker logger level set dynamically (6).
    DynamicBrokerLoggerConfig,
    /// A client-metrics subscription config (7).
    DynamicClientMetricsConfig,
    /// A group config (8).
    DynamicGroupConfig,
    /// Not known (0 and any other id).
    Unknown,
}

impl ConfigSource {
    /// The source of a wire id.
    pub fn from_id(id: i8) -> Self {
        match id {
            1 => ConfigSource::DynamicTopicConfig,
            2 => ConfigSource::DynamicBrokerConfig,
            3 => ConfigSource::DynamicDefaultBrokerConfig,
            4 => ConfigSource::StaticBrokerConfig,
            5 => ConfigSource::DefaultConfig,
            6 => ConfigSource::DynamicBrokerLoggerConfig,
            7 => ConfigSource::DynamicClientMetricsConfig,
            8 => ConfigSource::DynamicGroupConfig,
            _ => ConfigSource::Unknown,
        }
    }

    /// The wire id.
    pub fn id(self) -> i8 {
        match self {
            ConfigSource::DynamicTopicConfig => 1,
            ConfigSource::DynamicBrokerConfig => 2,
            ConfigSource::DynamicDefaultBrokerConfig => 3,
            ConfigSource::StaticBrokerConfig => 4,
            ConfigSource::DefaultConfig => 5,
            ConfigSource::DynamicBrokerLoggerConfig => 6,
            ConfigSource::DynamicClientMetricsConfig => 7,
            ConfigSource::DynamicGroupConfig => 8,
            ConfigSource::Unknown => 0,
        }
    }

    /// Kafka's admin-side name, as kafka-configs.sh prints it (`DYNAMIC_TOPIC_CONFIG`).
    pub fn name(self) -> &'static str {
        match self {
            ConfigSource::DynamicTopicConfig => "DYNAMIC_TOPIC_CONFIG",
            ConfigSource::DynamicBrokerConfig => "DYNAMIC_BROKER_CONFIG",
            ConfigSource::DynamicDefaultBrokerConfig => "DYNAMIC_DEFAULT_BROKER_CONFIG",
            ConfigSource::StaticBrokerConfig => "STATIC_BROKER_CONFIG",
            ConfigSource::DefaultConfig => "DEFAULT_CONFIG",
            ConfigSource::DynamicBrokerLoggerConfig => "DYNAMIC_BROKER_LOGGER_CONFIG",
            ConfigSource::DynamicClientMetricsConfig => "DYNAMIC_CLIENT_METRICS_CONFIG",
            ConfigSource::DynamicGroupConfig => "DYNAMIC_GROUP_CONFIG",
            ConfigSource::Unknown => "UNKNOWN",
        }
    }
}

impl std::fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The data type of a config (Kafka's `ConfigEntry.ConfigType`; DescribeConfigs v3+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // Kafka's type names
pub enum ConfigType {
    Boolean,
    String,
    Int,
    Short,
    Long,
    Double,
    List,
    Class,
    Password,
    /// Not reported (before v3) or not known.
    Unknown,
}

impl ConfigType {
    const ALL: [ConfigType; 9] = [
        ConfigType::Boolean,
        ConfigType::String,
        ConfigType::Int,
        ConfigType::Short,
        ConfigType::Long,
        ConfigType::Double,
        ConfigType::List,
        ConfigType::Class,
        ConfigType::Password,
    ];

    /// The type of a wire id (1 BOOLEAN ... 9 PASSWORD).
    pub fn from_id(id: i8) -> Self {
        usize::try_from(id)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| Self::ALL.get(i).copied())
            .unwrap_or(ConfigType::Unknown)
    }

    /// The wire id.
    pub fn id(self) -> i8 {
        Self::ALL
            .iter()
            .position(|t| *t == self)
            .map_or(0, |i| i as i8 + 1)
    }

    /// Kafka's name (`BOOLEAN`, `LIST`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::Int => "INT",
            ConfigType::Short => "SHORT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::List => "LIST",
            ConfigType::Class => "CLASS",
            ConfigType::Password => "PASSWORD",
            ConfigType::Unknown => "UNKNOWN",
        }
    }
}

impl std::fmt::Display for ConfigType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A key that sets the same value at another level (Kafka's `ConfigEntry.ConfigSynonym`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSynonym {
    /// The synonym's key, e.g. `log.retention.ms` for `retention.ms`.
    pub name: String,
    /// Its value, `None` when sensitive or unset.
    pub value: Option<String>,
    /// Where it is set.
    pub source: ConfigSource,
}

/// One described config (Kafka's `ConfigEntry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The key.
    pub name: String,
    /// The effective value; `None` for sensitive configs and unset values.
    pub value: Option<String>,
    /// Where the value comes from.
    pub source: ConfigSource,
    /// Whether the value is secret (it is then never sent).
    pub is_sensitive: bool,
    /// Whether the config cannot be altered.
    pub is_read_only: bool,
    /// The synonyms in precedence order, when asked for.
    pub synonyms: Vec<ConfigSynonym>,
    /// The data type (v3+, else `Unknown`).
    pub config_type: ConfigType,
    /// The documentation, when asked for (v3+).
    pub documentation: Option<String>,
}

impl ConfigEntry {
    /// Whether the value is the built-in default (Kafka's `ConfigEntry.isDefault`).
    pub fn is_default(&self) -> bool {
        self.source == ConfigSource::DefaultConfig
    }
}

/// Options of [`Admin::describe_configs`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribeConfigsOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
    /// Ask for each entry's synonyms (needs DescribeConfigs v1+).
    pub include_synonyms: bool,
    /// Ask for each entry's documentation (needs v3+).
    pub include_documentation: bool,
    /// Only these keys of every resource; `None` for all (Kafka's AdminClient always asks for
    /// all).
    pub configuration_keys: Option<Vec<String>>,
}

/// An incremental change (Kafka's `AlterConfigOp.OpType`; the wire code is the position).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlterConfigOpType {
    /// Set the value (0).
    Set,
    /// Return the key to its default (1).
    Delete,
    /// Add to a list-typed value (2).
    Append,
    /// Remove from a list-typed value (3).
    Subtract,
}

impl AlterConfigOpType {
    /// The wire code.
    pub fn code(self) -> i8 {
        match self {
            AlterConfigOpType::Set => 0,
            AlterConfigOpType::Delete => 1,
            AlterConfigOpType::Append => 2,
            AlterConfigOpType::Subtract => 3,
        }
    }
}

/// One change to one key (Kafka's `AlterConfigOp`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AlterConfigOp {
    /// The key.
    pub name: String,
    /// What to do.
    pub op: AlterConfigOpType,
    /// The operand (`None` for DELETE).
    pub value: Option<String>,
}

impl AlterConfigOp {
    /// Sets `name` to `value`.
    pub fn set(name: impl Into<String>, value: impl Into<String>) -> Self {
        AlterConfigOp {
            name: name.into(),
            op: AlterConfigOpType::Set,
            value: Some(value.into()),
        }
    }

    /// Returns `name` to its default.
    pub fn delete(name: impl Into<String>) -> Self {
        AlterConfigOp {
            name: name.into(),
            op: AlterConfigOpType::Delete,
            value: None,
        }
    }
}

/// Options of [`Admin::incremental_alter_configs`] and [`Admin::alter_configs`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlterConfigsOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
    /// Check only; change nothing.
    pub validate_only: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_codes_round_trip() {
        for code in [2i8, 4, 8, 16, 32, 0, -1, 3] {
            assert_eq!(ConfigResourceType::from_code(code).code(), code);
        }
        for id in 0..=8i8 {
            assert_eq!(ConfigSource::from_id(id).id(), id);
        }
        assert_eq!(ConfigSource::from_id(42), ConfigSource::Unknown);
        for id in 0..=9i8 {
            assert_eq!(ConfigType::from_id(id).id(), id);
        }
        assert_eq!(ConfigType::from_id(-3), ConfigType::Unknown);
        assert_eq!(ConfigType::from_id(7), ConfigType::List);
    }
}
