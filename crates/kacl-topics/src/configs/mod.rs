//! Topic-level configs: Kafka 4.x's `LogConfig` table (names, types, defaults, valid
//! values), the validation CreateTopics runs on a request's configs with Kafka's
//! INVALID_CONFIG messages, and the effective configs CreateTopics v5+ returns.

mod docs;
mod secrets;
mod synonyms;

pub use docs::documentation;
pub use secrets::{
    is_sensitive_broker_key, is_untyped_broker_key, listener_base, KAFKA_PASSWORD_CONFIGS,
    KAFKA_UNTYPED_BROKER_CONFIGS,
};
pub use synonyms::{broker_synonyms, BrokerSynonym, Unit};

use super::{java, TopicError};

/// A config's type, as `ConfigDef.Type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    /// `true`/`false`, case-insensitive.
    Boolean,
    /// A trimmed string.
    String,
    /// A 32-bit integer.
    Int,
    /// A 64-bit integer.
    Long,
    /// A double.
    Double,
    /// A comma-separated list.
    List,
}

impl ConfigType {
    /// The `config_type` code DescribeConfigs v3+ sends (`DescribeConfigsResponse.ConfigType`).
    pub fn describe_configs_id(self) -> i8 {
        match self {
            ConfigType::Boolean => 1,
            ConfigType::String => 2,
            ConfigType::Int => 3,
            ConfigType::Long => 5,
            ConfigType::Double => 6,
            ConfigType::List => 7,
        }
    }

    /// Kafka's upper-case name, as it appears in "Not a number of type INT".
    pub fn kafka_name(self) -> &'static str {
        match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::Int => "INT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::List => "LIST",
        }
    }
}

/// Where an effective config value comes from (`DescribeConfigsResponse.ConfigSource`).
/// kacl has no broker-level topic defaults, so only two sources occur.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i8)]
pub enum ConfigSource {
    /// Set on the topic (`DYNAMIC_TOPIC_CONFIG`).
    DynamicTopicConfig = 1,
    /// Kafka's built-in default (`DEFAULT_CONFIG`).
    DefaultConfig = 5,
}

impl ConfigSource {
    /// The wire code for `config_source`.
    pub fn id(self) -> i8 {
        self as i8
    }
}

/// What a value must satisfy once parsed (Kafka's `ConfigDef.Validator`s).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rule {
    Any,
    AtLeast(i64),
    Between(i64, i64),
    /// `CompressionType.GZIP.levelValidator()`: 1..=9 or -1.
    GzipLevel,
    OneOf(&'static [&'static str]),
    EachOneOf(&'static [&'static str]),
    /// `ThrottledReplicaListValidator`.
    ThrottledReplicas,
}

/// One topic-level config as Kafka defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicConfigDef {
    /// The config key, e.g. `retention.ms`.
    pub name: &'static str,
    /// Its type.
    pub config_type: ConfigType,
    /// The default as Kafka prints it (`ConfigDef.convertToString`).
    pub default_value: &'static str,
    rule: Rule,
}

const fn def(
    name: &'static str,
    config_type: ConfigType,
    default_value: &'static str,
    rule: Rule,
) -> TopicConfigDef {
    TopicConfigDef {
        name,
        config_type,
        default_value,
        rule,
    }
}

const LONG_MAX: &str = "9223372036854775807";
const CLEANUP_POLICIES: &[&str] = &["compact", "delete"];
const COMPRESSION_TYPES: &[&str] = &["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];
const TIMESTAMP_TYPES: &[&str] = &["CreateTime", "LogAppendTime"];

/// Every topic config Kafka 4.4 accepts, in `LogConfig`'s definition order, which is the
/// order Kafka parses them in and so decides which bad value is reported first.
///
/// Deliberate difference: the test-only `internal.segment.bytes` is not accepted.
pub static TOPIC_CONFIGS: &[TopicConfigDef] = {
    use ConfigType::*;
    use Rule::*;
    &[
        def("segment.bytes", Int, "1073741824", AtLeast(1024 * 1024)),
        def("segment.ms", Long, "604800000", AtLeast(1)),
        def("segment.jitter.ms", Long, "0", AtLeast(0)),
        def("segment.index.bytes", Int, "10485760", AtLeast(4)),
        def("flush.messages", Long, LONG_MAX, AtLeast(1)),
        def("flush.ms", Long, LONG_MAX, AtLeast(0)),
        def("retention.bytes", Long, "-1", Any),
        def("retention.ms", Long, "604800000", AtLeast(-1)),
        def("max.message.bytes", Int, "1048588", AtLeast(0)),
        def(
            "max.decompressed.message.bytes",
            Int,
            "2147483639",
            Between(1, 2147483639),
        ),
        def("index.interval.bytes", Int, "4096", AtLeast(0)),
        def("delete.retention.ms", Long, "86400000", AtLeast(0)),
        def("min.compaction.lag.ms", Long, "0", AtLeast(0)),
        def("max.compaction.lag.ms", Long, LONG_MAX, AtLeast(1)),
        def("file.delete.delay.ms", Long, "60000", AtLeast(0)),
        def("min.cleanable.dirty.ratio", Double, "0.5", Between(0, 1)),
        def(
            "cleanup.policy",
            List,
            "delete",
            EachOneOf(CLEANUP_POLICIES),
        ),
        def("unclean.leader.election.enable", Boolean, "false", Any),
        def("min.insync.replicas", Int, "1", AtLeast(1)),
        def(
            "compression.type",
            String,
            "producer",
            OneOf(COMPRESSION_TYPES),
        ),
        def("compression.gzip.level", Int, "-1", GzipLevel),
        def("compression.lz4.level", Int, "9", Between(1, 17)),
        def("compression.zstd.level", Int, "3", Between(-131072, 22)),
        def("preallocate", Boolean, "false", Any),
        def(
            "message.timestamp.type",
            String,
            "CreateTime",
            OneOf(TIMESTAMP_TYPES),
        ),
        def(
            "message.timestamp.before.max.ms",
            Long,
            LONG_MAX,
            AtLeast(0),
        ),
        def(
            "message.timestamp.after.max.ms",
            Long,
            "3600000",
            AtLeast(0),
        ),
        def(
            "leader.replication.throttled.replicas",
            List,
            "",
            ThrottledReplicas,
        ),
        def(
            "follower.replication.throttled.replicas",
            List,
            "",
            ThrottledReplicas,
        ),
        def("remote.storage.enable", Boolean, "false", Any),
        def("local.retention.ms", Long, "-2", AtLeast(-2)),
        def("local.retention.bytes", Long, "-2", AtLeast(-2)),
        def("remote.log.copy.disable", Boolean, "false", Any),
        def("remote.copy.lag.ms", Long, "0", AtLeast(-1)),
        def("remote.copy.lag.bytes", Long, "-1", AtLeast(-1)),
        def("remote.log.delete.on.disable", Boolean, "false", Any),
        def("errors.deadletterqueue.group.enable", Boolean, "false", Any),
    ]
};

impl TopicConfigDef {
    /// The value as Kafka prints it after parsing (`ConfigDef.convertToString`): trimmed,
    /// booleans lower-case, lists joined by commas without spaces. A value that does not
    /// parse (never stored: validation refuses it) is shown trimmed.
    pub fn display_value(&self, raw: &str) -> String {
        match self.parse(raw) {
            Ok(Parsed::Boolean(value)) => value.to_string(),
            Ok(Parsed::String(value)) => value.to_owned(),
            Ok(Parsed::Integer(value)) => value.to_string(),
            Ok(Parsed::Double(value)) => java::format_double(value),
            Ok(Parsed::List(items)) => items.join(","),
            Err(_) => java::trim(raw).to_owned(),
        }
    }

    /// Whether APPEND and SUBTRACT apply (Kafka's `isSplittable`: LIST-typed configs).
    pub fn is_list(&self) -> bool {
        self.config_type == ConfigType::List
    }
}

/// Looks a topic config up by its exact (case-sensitive) name.
pub fn topic_config(name: &str) -> Option<&'static TopicConfigDef> {
    TOPIC_CONFIGS.iter().find(|config| config.name == name)
}

/// A parsed value: what a validator sees.
#[derive(Debug, Clone, PartialEq)]
enum Parsed<'a> {
    Boolean(bool),
    String(&'a str),
    Integer(i64),
    Double(f64),
    List(Vec<&'a str>),
}

/// Kafka's `ConfigException(name, value, message)` text, sent as INVALID_CONFIG.
fn config_exception(name: &str, value: &str, message: &str) -> TopicError {
    TopicError::InvalidConfig(format!(
        "Invalid value {value} for configuration {name}: {message}"
    ))
}

impl TopicConfigDef {
    /// `ConfigDef.parseType`: the raw value in the error is the one the client sent.
    fn parse<'a>(&self, raw: &'a str) -> Result<Parsed<'a>, TopicError> {
        let trimmed = java::trim(raw);
        let not_a_number = || {
            config_exception(
                self.name,
                raw,
                &format!("Not a number of type {}", self.config_type.kafka_name()),
            )
        };
        Ok(match self.config_type {
            ConfigType::Boolean => {
                if java::equals_ignore_case(trimmed, "true") {
                    Parsed::Boolean(true)
                } else if java::equals_ignore_case(trimmed, "false") {
                    Parsed::Boolean(false)
                } else {
                    return Err(config_exception(
                        self.name,
                        raw,
                        "Expected value to be either true or false",
                    ));
                }
            }
            ConfigType::String => Parsed::String(trimmed),
            ConfigType::Int => {
                Parsed::Integer(java::parse_int(trimmed).ok_or_else(not_a_number)?.into())
            }
            ConfigType::Long => {
                Parsed::Integer(java::parse_long(trimmed).ok_or_else(not_a_number)?)
            }
            ConfigType::Double => {
                Parsed::Double(java::parse_double(trimmed).ok_or_else(not_a_number)?)
            }
            ConfigType::List => Parsed::List(java::split_list(trimmed)),
        })
    }

    /// The validator; the value in the error is the parsed one, printed as Java prints it.
    fn check(&self, parsed: &Parsed<'_>) -> Result<(), TopicError> {
        let shown = || match parsed {
            Parsed::Boolean(value) => value.to_string(),
            Parsed::String(value) => (*value).to_owned(),
            Parsed::Integer(value) => value.to_string(),
            Parsed::Double(value) => java::format_double(*value),
            Parsed::List(items) => java::list_to_string(items),
        };
        // Java's Range compares `doubleValue()`s; NaN passes both bounds, as in Kafka.
        let number = match parsed {
            Parsed::Integer(value) => Some(*value as f64),
            Parsed::Double(value) => Some(*value),
            _ => None,
        };
        match (self.rule, number) {
            (Rule::AtLeast(min) | Rule::Between(min, _), Some(n)) if n < min as f64 => {
                Err(config_exception(
                    self.name,
                    &shown(),
                    &format!("Value must be at least {min}"),
                ))
            }
            (Rule::Between(_, max), Some(n)) if n > max as f64 => Err(config_exception(
                self.name,
                &shown(),
                &format!("Value must be no more than {max}"),
            )),
            (Rule::GzipLevel, Some(n)) if n > 9.0 || (n < 1.0 && n != -1.0) => {
                Err(config_exception(
                    self.name,
                    &shown(),
                    "Value must be between 1 and 9 or equal to -1",
                ))
            }
            (Rule::OneOf(allowed), _) => match parsed {
                Parsed::String(value) if !allowed.contains(value) => {
                    Err(one_of(self.name, value, allowed))
                }
                _ => Ok(()),
            },
            (Rule::EachOneOf(allowed), _) => match parsed {
                Parsed::List(items) => match items.iter().find(|item| !allowed.contains(item)) {
                    Some(item) => Err(one_of(self.name, item, allowed)),
                    None => Ok(()),
                },
                _ => Ok(()),
            },
            (Rule::ThrottledReplicas, _) => match parsed {
                Parsed::List(items) if !is_throttled_replica_list(items) => Err(config_exception(
                    self.name,
                    &shown(),
                    &format!(
                        "{} must be the literal '*' or a list of replicas in the following format: \
                         [partitionId]:[brokerId],[partitionId]:[brokerId],...",
                        self.name
                    ),
                )),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

fn one_of(name: &str, value: &str, allowed: &[&str]) -> TopicError {
    config_exception(
        name,
        value,
        &format!("String must be one of: {}", allowed.join(", ")),
    )
}

/// Every entry is empty or `digits:digits`, or the entries joined are exactly `*`.
fn is_throttled_replica_list(items: &[&str]) -> bool {
    let trimmed: Vec<&str> = items.iter().map(|item| java::trim(item)).collect();
    let is_pair = |item: &&str| match item.split_once(':') {
        None => item.is_empty(),
        Some((partition, broker)) => [partition, broker]
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())),
    };
    trimmed.iter().all(is_pair) || trimmed.concat() == "*"
}

/// Validates a CreateTopics request's configs as Kafka's controller does, in its order:
/// null values (all named, comma-joined), then unknown names, then each known value's
/// type and range in `LogConfig` order, then the cross-config rules. A name given twice
/// keeps its last value, as Kafka's map does.
///
/// Deliberate difference: with several unknown names Kafka names whichever its hash map
/// yields first; kacl names the first in request order.
pub fn validate_topic_configs<'a, I>(configs: I) -> Result<(), TopicError>
where
    I: IntoIterator<Item = (&'a str, Option<&'a str>)>,
{
    let configs: Vec<(&str, Option<&str>)> = configs.into_iter().collect();
    let nulls: Vec<&str> = configs
        .iter()
        .filter(|(_, value)| value.is_none())
        .map(|(name, _)| *name)
        .collect();
    if !nulls.is_empty() {
        return Err(TopicError::InvalidConfig(format!(
            "Null value not supported for topic configs: {}",
            nulls.join(",")
        )));
    }
    if let Some((unknown, _)) = configs
        .iter()
        .find(|(name, _)| topic_config(name).is_none())
    {
        return Err(TopicError::InvalidConfig(format!(
            "Unknown topic config name: {unknown}"
        )));
    }
    let value_of = |name: &str| -> Option<&str> {
        configs
            .iter()
            .rev()
            .find(|(key, _)| *key == name)
            .and_then(|(_, value)| *value)
    };
    for config in TOPIC_CONFIGS {
        if let Some(raw) = value_of(config.name) {
            config.check(&config.parse(raw)?)?;
        }
    }
    let effective = |name: &str| -> Option<Parsed<'_>> {
        let config = topic_config(name)?;
        config
            .parse(value_of(name).unwrap_or(config.default_value))
            .ok()
    };
    if let (Some(Parsed::Integer(min_lag)), Some(Parsed::Integer(max_lag))) = (
        effective("min.compaction.lag.ms"),
        effective("max.compaction.lag.ms"),
    ) {
        if min_lag > max_lag {
            return Err(TopicError::InvalidConfig(format!(
                "conflict topic config setting min.compaction.lag.ms ({min_lag}) > max.compaction.lag.ms ({max_lag})"
            )));
        }
    }
    // kacl has no tiered storage, so it answers as a Kafka broker with it switched off.
    if effective("remote.storage.enable") == Some(Parsed::Boolean(true)) {
        return Err(TopicError::InvalidConfig(
            "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."
                .to_owned(),
        ));
    }
    Ok(())
}

/// One entry of CreateTopics v5+'s `configs`: every topic config with its effective value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveTopicConfig {
    /// The config key.
    pub name: &'static str,
    /// The value: as the client sent it when set, else Kafka's default.
    pub value: String,
    /// Always false, as in Kafka's controller.
    pub read_only: bool,
    /// Where the value comes from.
    pub source: ConfigSource,
    /// Always false: no topic config is a password.
    pub is_sensitive: bool,
    /// The config's type, for DescribeConfigs.
    pub config_type: ConfigType,
}

/// The configs CreateTopics v5+ reports for a new topic, sorted by name as Kafka sorts
/// them: the topic's own settings (last one wins) and Kafka's defaults for the rest.
/// Names that are not topic configs are ignored; validate first.
pub fn effective_topic_configs<'a, I>(overrides: I) -> Vec<EffectiveTopicConfig>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    let overrides: Vec<(&str, &str)> = overrides.into_iter().collect();
    let mut configs: Vec<EffectiveTopicConfig> = TOPIC_CONFIGS
        .iter()
        .map(|config| {
            let set = overrides
                .iter()
                .rev()
                .find(|(name, _)| *name == config.name);
            EffectiveTopicConfig {
                name: config.name,
                value: set
                    .map_or(config.default_value, |(_, value)| value)
                    .to_owned(),
                read_only: false,
                source: if set.is_some() {
                    ConfigSource::DynamicTopicConfig
                } else {
                    ConfigSource::DefaultConfig
                },
                is_sensitive: false,
                config_type: config.config_type,
            }
        })
        .collect();
    configs.sort_by(|a, b| a.name.cmp(b.name));
    configs
}

#[cfg(test)]
mod tests;
