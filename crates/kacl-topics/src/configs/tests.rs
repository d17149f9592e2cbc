use super::*;

fn check(configs: &[(&str, &str)]) -> Result<(), TopicError> {
    validate_topic_configs(configs.iter().map(|(name, value)| (*name, Some(*value))))
}

fn invalid(name: &str, value: &str) -> String {
    match check(&[(name, value)]) {
        Err(TopicError::InvalidConfig(message)) => message,
        other => panic!("expected INVALID_CONFIG for {name}={value:?}, got {other:?}"),
    }
}

#[test]
fn the_table_is_kafkas() {
    assert_eq!(TOPIC_CONFIGS.len(), 37);
    let expected = [
        ("cleanup.policy", ConfigType::List, "delete"),
        ("compression.type", ConfigType::String, "producer"),
        ("compression.gzip.level", ConfigType::Int, "-1"),
        ("compression.lz4.level", ConfigType::Int, "9"),
        ("compression.zstd.level", ConfigType::Int, "3"),
        ("delete.retention.ms", ConfigType::Long, "86400000"),
        ("file.delete.delay.ms", ConfigType::Long, "60000"),
        ("flush.messages", ConfigType::Long, "9223372036854775807"),
        ("flush.ms", ConfigType::Long, "9223372036854775807"),
        (
            "follower.replication.throttled.replicas",
            ConfigType::List,
            "",
        ),
        ("index.interval.bytes", ConfigType::Int, "4096"),
        (
            "leader.replication.throttled.replicas",
            ConfigType::List,
            "",
        ),
        ("local.retention.bytes", ConfigType::Long, "-2"),
        ("local.retention.ms", ConfigType::Long, "-2"),
        (
            "max.compaction.lag.ms",
            ConfigType::Long,
            "9223372036854775807",
        ),
        ("max.message.bytes", ConfigType::Int, "1048588"),
        (
            "max.decompressed.message.bytes",
            ConfigType::Int,
            "2147483639",
        ),
        ("remote.copy.lag.ms", ConfigType::Long, "0"),
        ("remote.copy.lag.bytes", ConfigType::Long, "-1"),
        (
            "errors.deadletterqueue.group.enable",
            ConfigType::Boolean,
            "false",
        ),
        (
            "message.timestamp.after.max.ms",
            ConfigType::Long,
            "3600000",
        ),
        (
            "message.timestamp.before.max.ms",
            ConfigType::Long,
            "9223372036854775807",
        ),
        ("message.timestamp.type", ConfigType::String, "CreateTime"),
        ("min.cleanable.dirty.ratio", ConfigType::Double, "0.5"),
        ("min.compaction.lag.ms", ConfigType::Long, "0"),
        ("min.insync.replicas", ConfigType::Int, "1"),
        ("preallocate", ConfigType::Boolean, "false"),
        ("remote.storage.enable", ConfigType::Boolean, "false"),
        ("retention.bytes", ConfigType::Long, "-1"),
        ("retention.ms", ConfigType::Long, "604800000"),
        ("segment.bytes", ConfigType::Int, "1073741824"),
        ("segment.index.bytes", ConfigType::Int, "10485760"),
        ("segment.jitter.ms", ConfigType::Long, "0"),
        ("segment.ms", ConfigType::Long, "604800000"),
        (
            "unclean.leader.election.enable",
            ConfigType::Boolean,
            "false",
        ),
    ];
    for (name, config_type, default_value) in expected {
        let config = topic_config(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(
            (config.config_type, config.default_value),
            (config_type, default_value),
            "{name}"
        );
    }
    assert!(topic_config("Retention.ms").is_none());
    assert!(topic_config("message.format.version").is_none());
    // Gone in Kafka 4.4 (a no-op since 4.0): "Unknown topic config name".
    assert!(topic_config("message.downconversion.enable").is_none());
}

#[test]
fn every_default_is_itself_valid() {
    for config in TOPIC_CONFIGS
        .iter()
        .filter(|c| c.name != "remote.storage.enable")
    {
        assert_eq!(
            check(&[(config.name, config.default_value)]),
            Ok(()),
            "{}",
            config.name
        );
    }
}

#[test]
fn good_values_pass() {
    let good = [
        ("cleanup.policy", "compact,delete"),
        ("cleanup.policy", " compact , delete "),
        ("cleanup.policy", ""),
        ("compression.type", "zstd"),
        ("compression.type", " gzip "),
        ("retention.ms", "-1"),
        ("retention.ms", "+1000"),
        ("retention.bytes", "-5"),
        ("min.insync.replicas", "2"),
        ("max.message.bytes", "0"),
        ("segment.bytes", "1048576"),
        ("min.cleanable.dirty.ratio", "0"),
        ("min.cleanable.dirty.ratio", "1.0"),
        ("min.cleanable.dirty.ratio", "NaN"),
        ("unclean.leader.election.enable", "TRUE"),
        ("preallocate", " False "),
        ("message.timestamp.type", "LogAppendTime"),
        ("compression.gzip.level", "-1"),
        ("compression.gzip.level", "9"),
        ("compression.zstd.level", "-131072"),
        ("leader.replication.throttled.replicas", "*"),
        ("leader.replication.throttled.replicas", "0:1, 1:2"),
        ("follower.replication.throttled.replicas", "0:1,"),
        ("errors.deadletterqueue.group.enable", "true"),
        ("remote.copy.lag.ms", "-1"),
        ("max.decompressed.message.bytes", "1"),
        ("local.retention.ms", "-2"),
    ];
    for (name, value) in good {
        assert_eq!(check(&[(name, value)]), Ok(()), "{name}={value:?}");
    }
}

#[test]
fn wrong_types_name_the_raw_value() {
    assert_eq!(
        invalid("retention.ms", "1 day"),
        "Invalid value 1 day for configuration retention.ms: Not a number of type LONG"
    );
    assert_eq!(
        invalid("max.message.bytes", " 2147483648 "),
        "Invalid value  2147483648  for configuration max.message.bytes: Not a number of type INT"
    );
    assert_eq!(
        invalid("min.cleanable.dirty.ratio", "half"),
        "Invalid value half for configuration min.cleanable.dirty.ratio: Not a number of type DOUBLE"
    );
    assert_eq!(
        invalid("preallocate", "yes"),
        "Invalid value yes for configuration preallocate: Expected value to be either true or false"
    );
    assert_eq!(
        invalid("segment.ms", ""),
        "Invalid value  for configuration segment.ms: Not a number of type LONG"
    );
}

#[test]
fn ranges_name_the_parsed_value() {
    let cases = [
        ("min.insync.replicas", "0", "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
        ("min.insync.replicas", "+0", "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
        ("retention.ms", "-2", "Invalid value -2 for configuration retention.ms: Value must be at least -1"),
        ("max.message.bytes", "-1", "Invalid value -1 for configuration max.message.bytes: Value must be at least 0"),
        // Kafka 4.4's texts, seen from a 4.4 broker (tests/tools-differential).
        ("remote.copy.lag.ms", "-2", "Invalid value -2 for configuration remote.copy.lag.ms: Value must be at least -1"),
        ("remote.copy.lag.bytes", "-2", "Invalid value -2 for configuration remote.copy.lag.bytes: Value must be at least -1"),
        ("max.decompressed.message.bytes", "0", "Invalid value 0 for configuration max.decompressed.message.bytes: Value must be at least 1"),
        ("max.decompressed.message.bytes", "2147483640", "Invalid value 2147483640 for configuration max.decompressed.message.bytes: Value must be no more than 2147483639"),
        (
            "segment.bytes",
            "14",
            "Invalid value 14 for configuration segment.bytes: Value must be at least 1048576",
        ),
        ("segment.ms", "0", "Invalid value 0 for configuration segment.ms: Value must be at least 1"),
        (
            "segment.index.bytes",
            "3",
            "Invalid value 3 for configuration segment.index.bytes: Value must be at least 4",
        ),
        (
            "local.retention.bytes",
            "-3",
            "Invalid value -3 for configuration local.retention.bytes: Value must be at least -2",
        ),
        (
            "min.cleanable.dirty.ratio",
            "1.5",
            "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1",
        ),
        (
            "min.cleanable.dirty.ratio",
            "2",
            "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1",
        ),
        (
            "min.cleanable.dirty.ratio",
            "-0.1",
            "Invalid value -0.1 for configuration min.cleanable.dirty.ratio: Value must be at least 0",
        ),
        (
            "min.cleanable.dirty.ratio",
            "1e10",
            "Invalid value 1.0E10 for configuration min.cleanable.dirty.ratio: Value must be no more than 1",
        ),
        (
            "compression.lz4.level",
            "18",
            "Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17",
        ),
        (
            "compression.lz4.level",
            "0",
            "Invalid value 0 for configuration compression.lz4.level: Value must be at least 1",
        ),
        (
            "compression.zstd.level",
            "23",
            "Invalid value 23 for configuration compression.zstd.level: Value must be no more than 22",
        ),
        (
            "compression.zstd.level",
            "-131073",
            "Invalid value -131073 for configuration compression.zstd.level: Value must be at least -131072",
        ),
        (
            "compression.gzip.level",
            "0",
            "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1",
        ),
        (
            "compression.gzip.level",
            "10",
            "Invalid value 10 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1",
        ),
    ];
    for (name, value, message) in cases {
        assert_eq!(invalid(name, value), message, "{name}={value:?}");
    }
}

#[test]
fn enumerations_list_kafkas_choices() {
    assert_eq!(
        invalid("compression.type", "GZIP"),
        "Invalid value GZIP for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"
    );
    assert_eq!(
        invalid("compression.type", " brotli "),
        "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"
    );
    assert_eq!(
        invalid("message.timestamp.type", "createtime"),
        "Invalid value createtime for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"
    );
    assert_eq!(
        invalid("cleanup.policy", "compact,Delete"),
        "Invalid value Delete for configuration cleanup.policy: String must be one of: compact, delete"
    );
    assert_eq!(
        invalid("cleanup.policy", "compact,,delete"),
        "Invalid value  for configuration cleanup.policy: String must be one of: compact, delete"
    );
}

#[test]
fn throttled_replica_lists_follow_kafkas_validator() {
    let message = |name: &str, shown: &str| {
        format!(
            "Invalid value {shown} for configuration {name}: {name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."
        )
    };
    assert_eq!(
        invalid("leader.replication.throttled.replicas", "0:1, x"),
        message("leader.replication.throttled.replicas", "[0:1, x]")
    );
    assert_eq!(
        invalid("follower.replication.throttled.replicas", "*,0:1"),
        message("follower.replication.throttled.replicas", "[*, 0:1]")
    );
    assert_eq!(
        invalid("follower.replication.throttled.replicas", "1:"),
        message("follower.replication.throttled.replicas", "[1:]")
    );
}

#[test]
fn unknown_and_null_configs() {
    assert_eq!(
        invalid("retention.hours", "1"),
        "Unknown topic config name: retention.hours"
    );
    assert_eq!(
        invalid("message.format.version", "3.0"),
        "Unknown topic config name: message.format.version"
    );
    let nulls = validate_topic_configs([
        ("retention.ms", None),
        ("bogus", Some("1")),
        ("cleanup.policy", None),
    ]);
    assert_eq!(
        nulls,
        Err(TopicError::InvalidConfig(
            "Null value not supported for topic configs: retention.ms,cleanup.policy".into()
        ))
    );
}

#[test]
fn errors_come_in_kafkas_order() {
    // Unknown names before any bad value.
    assert_eq!(
        check(&[("retention.ms", "x"), ("nope", "1")]),
        Err(TopicError::InvalidConfig(
            "Unknown topic config name: nope".into()
        ))
    );
    // Bad values in LogConfig's definition order, not request order.
    assert_eq!(
        check(&[("cleanup.policy", "bad"), ("segment.bytes", "1")]),
        Err(TopicError::InvalidConfig(
            "Invalid value 1 for configuration segment.bytes: Value must be at least 1048576"
                .into()
        ))
    );
    // The last of two values for one name is the one Kafka keeps.
    assert_eq!(
        check(&[("retention.ms", "x"), ("retention.ms", "5")]),
        Ok(())
    );
    assert!(check(&[("retention.ms", "5"), ("retention.ms", "x")]).is_err());
}

#[test]
fn cross_config_rules() {
    assert_eq!(
        check(&[
            ("min.compaction.lag.ms", "10"),
            ("max.compaction.lag.ms", "5")
        ]),
        Err(TopicError::InvalidConfig(
            "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"
                .into()
        ))
    );
    assert_eq!(
        check(&[
            ("min.compaction.lag.ms", "5"),
            ("max.compaction.lag.ms", "5")
        ]),
        Ok(())
    );
    assert_eq!(
        check(&[("remote.storage.enable", "true")]),
        Err(TopicError::InvalidConfig(
            "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."
                .into()
        ))
    );
    assert_eq!(check(&[("remote.storage.enable", "false")]), Ok(()));
}

#[test]
fn every_error_is_invalid_config() {
    let error = check(&[("retention.ms", "x")]).err();
    assert_eq!(error.map(|e| e.code()), Some(40));
}

#[test]
fn effective_configs_list_everything_sorted_with_sources() {
    let configs = effective_topic_configs([
        ("retention.ms", " 1000 "),
        ("cleanup.policy", "compact"),
        ("retention.ms", "2000"),
    ]);
    assert_eq!(configs.len(), TOPIC_CONFIGS.len());
    let names: Vec<&str> = configs.iter().map(|c| c.name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    let find = |name: &str| configs.iter().find(|c| c.name == name).cloned();
    let retention = find("retention.ms");
    assert_eq!(
        retention.as_ref().map(|c| (c.value.as_str(), c.source)),
        Some(("2000", ConfigSource::DynamicTopicConfig))
    );
    let policy = find("cleanup.policy");
    assert_eq!(
        policy.as_ref().map(|c| (c.value.as_str(), c.source)),
        Some(("compact", ConfigSource::DynamicTopicConfig))
    );
    let segment = find("segment.bytes");
    assert_eq!(
        segment.as_ref().map(|c| (c.value.as_str(), c.source)),
        Some(("1073741824", ConfigSource::DefaultConfig))
    );
    assert!(configs.iter().all(|c| !c.read_only && !c.is_sensitive));
    assert_eq!(ConfigSource::DynamicTopicConfig.id(), 1);
    assert_eq!(ConfigSource::DefaultConfig.id(), 5);
    assert_eq!(ConfigType::Long.describe_configs_id(), 5);
    assert_eq!(ConfigType::List.describe_configs_id(), 7);
}

#[test]
fn odd_values_never_panic_and_always_get_a_kafka_message() {
    let odd = [
        "",
        " ",
        ",",
        ",,",
        "*",
        "-",
        "+",
        "1e309",
        "-0",
        "NaN",
        "Infinity",
        "0x10",
        "9999999999999999999999999999999999999999",
        "\u{0}",
        "é",
        "true ",
        " FALSE",
        "1:2:3",
        "::",
        "compact,",
        "٣",
    ];
    for config in TOPIC_CONFIGS {
        for value in odd {
            match check(&[(config.name, value)]) {
                Ok(()) => {}
                Err(TopicError::InvalidConfig(message)) => assert!(
                    message.starts_with("Invalid value ")
                        || message.starts_with("Tiered Storage functionality is disabled"),
                    "{}={value:?}: {message}",
                    config.name
                ),
                Err(other) => panic!("{}={value:?}: {other:?}", config.name),
            }
        }
    }
}
