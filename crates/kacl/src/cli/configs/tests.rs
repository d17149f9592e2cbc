use clap::Parser;
use kacl_client::{ConfigSynonym, ConfigType};
use kacl_protocol::ErrorCode;

use super::*;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    args: ConfigsArgs,
}

fn check(flags: &[&str]) -> Result<Command, String> {
    let argv = ["kacl", "--bootstrap-server", "127.0.0.1:1"]
        .iter()
        .chain(flags);
    let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
    cli.args.check().map_err(|e| e.to_string())
}

fn refused(flags: &[&str]) -> String {
    check(flags).expect_err("refused")
}

#[test]
fn actions_and_entities_are_checked_with_kafkas_messages() {
    assert_eq!(
        refused(&["--entity-type", "topics"]),
        "Command must include exactly one action: --describe, --alter"
    );
    assert_eq!(
        refused(&["--describe", "--alter", "--entity-type", "topics"]),
        "Command must include exactly one action: --describe, --alter"
    );
    assert_eq!(
        refused(&[
            "--describe",
            "--entity-type",
            "topics",
            "--add-config",
            "a=b"
        ]),
        "Option \"[describe]\" can't be used with option \"[add-config]\""
    );
    assert_eq!(
        refused(&["--describe"]),
        "At least one entity type must be specified"
    );
    assert_eq!(
        refused(&["--describe", "--entity-type", "ips"]),
        "Invalid entity type ips, the entity type must be one of topics, clients, users, \
         brokers, broker-loggers with a --bootstrap-server or --bootstrap-controller argument"
    );
    assert_eq!(
        refused(&[
            "--describe",
            "--entity-type",
            "topics",
            "--entity-type",
            "users"
        ]),
        "Only '--entity-type users' and '--entity-type clients' may be combined"
    );
    let both = check(&[
        "--alter",
        "--entity-type",
        "users",
        "--entity-name",
        "alice",
        "--entity-type",
        "clients",
        "--entity-name",
        "app",
        "--add-config",
        "producer_byte_rate=10",
    ])
    .unwrap();
    assert_eq!(
        both.targets,
        vec![
            ("users".to_owned(), Some("alice".to_owned())),
            ("clients".to_owned(), Some("app".to_owned()))
        ]
    );
    assert_eq!(
        refused(&[
            "--alter",
            "--entity-type",
            "users",
            "--entity-type",
            "clients",
            "--entity-name",
            "app",
            "--add-config",
            "producer_byte_rate=10",
        ]),
        "An entity-name or default entity must be specified with --alter of users, clients, \
         brokers or ips"
    );
    assert_eq!(
        refused(&[
            "--describe",
            "--entity-type",
            "brokers",
            "--entity-name",
            "one"
        ]),
        "The entity name for brokers must be a valid integer broker id, but it is: one"
    );
    assert_eq!(
        refused(&["--describe", "--entity-type", "topics", "--entity-default"]),
        "--entity-default must not be specified with --describe of topics"
    );
    assert_eq!(
        refused(&["--describe", "--entity-type", "broker-loggers"]),
        "An entity name must be specified with --describe of broker-loggers"
    );
}

#[test]
fn alter_needs_a_name_and_something_to_change() {
    assert_eq!(
        refused(&["--alter", "--entity-type", "topics", "--add-config", "a=b"]),
        "An entity name must be specified with --alter of topics"
    );
    assert_eq!(
        refused(&["--alter", "--entity-type", "brokers", "--add-config", "a=b"]),
        "An entity-name or default entity must be specified with --alter of users, clients, \
         brokers or ips"
    );
    assert_eq!(
        refused(&["--alter", "--entity-type", "topics", "--entity-name", "t"]),
        "At least one of --add-config, --add-config-file, or --delete-config must be specified \
         with --alter"
    );
    assert_eq!(
        refused(&[
            "--alter",
            "--entity-type",
            "topics",
            "--entity-name",
            "t",
            "--add-config",
            "a=b",
            "--add-config-file",
            "/nonexistent"
        ]),
        "Only one of --add-config or --add-config-file must be specified"
    );
    assert_eq!(
        refused(&[
            "--alter",
            "--entity-type",
            "topics",
            "--entity-name",
            "t",
            "--add-config",
            "a b=c"
        ]),
        "Invalid character found for config key: a b"
    );
    let command = check(&[
        "--alter",
        "--entity-type",
        "brokers",
        "--entity-default",
        "--add-config",
        "log.retention.ms=1000,x=[1,2]",
        "--delete-config",
        "a,b",
        "--delete-config",
        "c",
    ])
    .unwrap();
    assert_eq!(command.name.as_deref(), Some(""));
    assert_eq!(command.add["x"], "1,2");
    assert_eq!(command.delete, ["a", "b", "c"]);
}

#[test]
fn add_config_file_is_read_as_properties() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("add.properties");
    std::fs::write(
        &path,
        "# comment\nretention.ms=1000\ncleanup.policy = compact\n",
    )
    .unwrap();
    let command = check(&[
        "--alter",
        "--entity-type",
        "topics",
        "--entity-name",
        "t",
        "--add-config-file",
        path.to_str().unwrap(),
    ])
    .unwrap();
    let pairs: Vec<(&str, &str)> = command
        .add
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [("cleanup.policy", "compact"), ("retention.ms", "1000")]
    );
    let err = refused(&[
        "--alter",
        "--entity-type",
        "topics",
        "--entity-name",
        "t",
        "--add-config-file",
        dir.path().join("missing").to_str().unwrap(),
    ]);
    assert!(err.starts_with("cannot read "), "{err}");
}

fn entry(name: &str, value: Option<&str>, source: ConfigSource) -> ConfigEntry {
    ConfigEntry {
        name: name.into(),
        value: value.map(str::to_owned),
        source,
        is_sensitive: value.is_none(),
        is_read_only: false,
        synonyms: Vec::new(),
        config_type: ConfigType::Long,
        documentation: None,
    }
}

#[test]
fn lines_are_kafka_configs_output() {
    let mut retention = entry(
        "retention.ms",
        Some("1000"),
        ConfigSource::DynamicTopicConfig,
    );
    retention.synonyms = vec![
        ConfigSynonym {
            name: "retention.ms".into(),
            value: Some("1000".into()),
            source: ConfigSource::DynamicTopicConfig,
        },
        ConfigSynonym {
            name: "log.retention.hours".into(),
            value: Some("168".into()),
            source: ConfigSource::DefaultConfig,
        },
    ];
    assert_eq!(
        entry_line(&retention),
        "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000, \
         DEFAULT_CONFIG:log.retention.hours=168}"
    );
    let secret = entry("sasl.jaas.config", None, ConfigSource::StaticBrokerConfig);
    assert_eq!(
        entry_line(&secret),
        "  sasl.jaas.config=null sensitive=true synonyms={}"
    );
    assert_eq!(
        header(Entity::Topics, "orders", false),
        "Dynamic configs for topic orders are:"
    );
    assert_eq!(
        header(Entity::Brokers, "1", true),
        "All configs for broker 1 are:"
    );
    assert_eq!(
        header(Entity::Brokers, "", false),
        "Default configs for brokers in the cluster are:"
    );
    assert_eq!(
        header(Entity::BrokerLoggers, "1", false),
        "Dynamic configs for broker-logger 1 are:"
    );
    let doc = entry_json(&retention);
    assert_eq!(doc["source"], "DYNAMIC_TOPIC_CONFIG");
    assert_eq!(doc["synonyms"][1]["name"], "log.retention.hours");
    assert_eq!(entry_json(&secret)["value"], serde_json::Value::Null);
}

#[test]
fn exception_names_follow_kafkas_classes() {
    let name = |code| exception_name(&AdminError::server(code, None));
    assert_eq!(
        name(ErrorCode::ResourceNotFound),
        "ResourceNotFoundException"
    );
    assert_eq!(
        name(ErrorCode::ClusterAuthorizationFailed),
        "ClusterAuthorizationException"
    );
    assert_eq!(name(ErrorCode::InvalidRequest), "InvalidRequestException");
}
