//! The broker-level synonyms of topic configs (Kafka's `ServerTopicConfigSynonyms` and
//! `DynamicBrokerConfig.brokerConfigSynonyms`), in Kafka's precedence order, each with the
//! broker default Kafka's `KafkaConfig` gives it (`None`: no default, so it is never listed).
//! DescribeConfigs reports a broker synonym set in the server's properties as
//! STATIC_BROKER_CONFIG and one with a default as DEFAULT_CONFIG.

/// How a broker synonym's value becomes the topic value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// The same value.
    Same,
    /// Minutes to milliseconds.
    Minutes,
    /// Hours to milliseconds.
    Hours,
}

/// One broker-level key that sets a topic config's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokerSynonym {
    /// The broker key, e.g. `log.retention.hours`.
    pub name: &'static str,
    /// Kafka's broker default, as Kafka prints it.
    pub default_value: Option<&'static str>,
    /// How its value converts to the topic config's.
    pub unit: Unit,
}

const fn syn(name: &'static str, default_value: Option<&'static str>, unit: Unit) -> BrokerSynonym {
    BrokerSynonym {
        name,
        default_value,
        unit,
    }
}

const LONG_MAX: Option<&str> = Some("9223372036854775807");

static SYNONYMS: &[(&str, &[BrokerSynonym])] = {
    use Unit::*;
    &[
        (
            "segment.bytes",
            &[syn("log.segment.bytes", Some("1073741824"), Same)],
        ),
        (
            "segment.ms",
            &[
                syn("log.roll.ms", None, Same),
                syn("log.roll.hours", Some("168"), Hours),
            ],
        ),
        (
            "segment.jitter.ms",
            &[
                syn("log.roll.jitter.ms", None, Same),
                syn("log.roll.jitter.hours", Some("0"), Hours),
            ],
        ),
        (
            "segment.index.bytes",
            &[syn("log.index.size.max.bytes", Some("10485760"), Same)],
        ),
        (
            "flush.messages",
            &[syn("log.flush.interval.messages", LONG_MAX, Same)],
        ),
        (
            "flush.ms",
            &[
                syn("log.flush.interval.ms", None, Same),
                syn("log.flush.scheduler.interval.ms", LONG_MAX, Same),
            ],
        ),
        (
            "retention.bytes",
            &[syn("log.retention.bytes", Some("-1"), Same)],
        ),
        (
            "retention.ms",
            &[
                syn("log.retention.ms", None, Same),
                syn("log.retention.minutes", None, Minutes),
                syn("log.retention.hours", Some("168"), Hours),
            ],
        ),
        (
            "max.message.bytes",
            &[syn("message.max.bytes", Some("1048588"), Same)],
        ),
        (
            "max.decompressed.message.bytes",
            &[syn(
                "max.decompressed.message.bytes",
                Some("2147483639"),
                Same,
            )],
        ),
        (
            "index.interval.bytes",
            &[syn("log.index.interval.bytes", Some("4096"), Same)],
        ),
        (
            "delete.retention.ms",
            &[syn(
                "log.cleaner.delete.retention.ms",
                Some("86400000"),
                Same,
            )],
        ),
        (
            "min.compaction.lag.ms",
            &[syn("log.cleaner.min.compaction.lag.ms", Some("0"), Same)],
        ),
        (
            "max.compaction.lag.ms",
            &[syn("log.cleaner.max.compaction.lag.ms", LONG_MAX, Same)],
        ),
        (
            "file.delete.delay.ms",
            &[syn("log.segment.delete.delay.ms", Some("60000"), Same)],
        ),
        (
            "min.cleanable.dirty.ratio",
            &[syn("log.cleaner.min.cleanable.ratio", Some("0.5"), Same)],
        ),
        (
            "cleanup.policy",
            &[syn("log.cleanup.policy", Some("delete"), Same)],
        ),
        (
            "unclean.leader.election.enable",
            &[syn("unclean.leader.election.enable", Some("false"), Same)],
        ),
        (
            "min.insync.replicas",
            &[syn("min.insync.replicas", Some("1"), Same)],
        ),
        (
            "compression.type",
            &[syn("compression.type", Some("producer"), Same)],
        ),
        (
            "compression.gzip.level",
            &[syn("compression.gzip.level", Some("-1"), Same)],
        ),
        (
            "compression.lz4.level",
            &[syn("compression.lz4.level", Some("9"), Same)],
        ),
        (
            "compression.zstd.level",
            &[syn("compression.zstd.level", Some("3"), Same)],
        ),
        (
            "preallocate",
            &[syn("log.preallocate", Some("false"), Same)],
        ),
        (
            "message.timestamp.type",
            &[syn("log.message.timestamp.type", Some("CreateTime"), Same)],
        ),
        (
            "message.timestamp.before.max.ms",
            &[syn("log.message.timestamp.before.max.ms", LONG_MAX, Same)],
        ),
        (
            "message.timestamp.after.max.ms",
            &[syn(
                "log.message.timestamp.after.max.ms",
                Some("3600000"),
                Same,
            )],
        ),
        (
            "local.retention.ms",
            &[syn("log.local.retention.ms", Some("-2"), Same)],
        ),
        (
            "local.retention.bytes",
            &[syn("log.local.retention.bytes", Some("-2"), Same)],
        ),
        (
            "remote.copy.lag.ms",
            &[syn("log.remote.copy.lag.ms", Some("0"), Same)],
        ),
        (
            "remote.copy.lag.bytes",
            &[syn("log.remote.copy.lag.bytes", Some("-1"), Same)],
        ),
    ]
};

/// The broker synonyms of a topic config, most specific first; empty for the configs Kafka
/// gives no server default (`LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS`).
pub fn broker_synonyms(topic_config: &str) -> &'static [BrokerSynonym] {
    SYNONYMS
        .iter()
        .find(|(name, _)| *name == topic_config)
        .map_or(&[], |(_, synonyms)| synonyms)
}

impl BrokerSynonym {
    /// The topic value this broker value stands for (`ConfigSynonym`'s converter); `None`
    /// when it does not parse.
    pub fn to_topic_value(&self, value: &str) -> Option<String> {
        let factor: i64 = match self.unit {
            Unit::Same => return Some(value.trim().to_owned()),
            Unit::Minutes => 60_000,
            Unit::Hours => 3_600_000,
        };
        let n: i64 = value.trim().parse().ok()?;
        n.checked_mul(factor).map(|ms| ms.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synonyms_follow_kafkas_precedence_and_convert_units() {
        let names: Vec<&str> = broker_synonyms("retention.ms")
            .iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(
            names,
            [
                "log.retention.ms",
                "log.retention.minutes",
                "log.retention.hours"
            ]
        );
        let hours = broker_synonyms("retention.ms")[2];
        assert_eq!(hours.to_topic_value("168").as_deref(), Some("604800000"));
        assert_eq!(hours.to_topic_value("x"), None);
        assert!(broker_synonyms("remote.storage.enable").is_empty());
        // Every synonym's default converts to the topic default (where it has one).
        for config in crate::TOPIC_CONFIGS {
            if let Some(last) = broker_synonyms(config.name).last() {
                let default = last.default_value.expect("the last synonym has a default");
                assert_eq!(
                    last.to_topic_value(default).as_deref(),
                    Some(config.default_value),
                    "{}",
                    config.name
                );
            }
        }
    }
}
