//! DescribeConfigs (32), v0-4: the configs of topics, of this broker and of its loggers, one
//! result per resource, as Kafka's `ConfigHelper` answers.
//!
//! - TOPIC: DESCRIBE_CONFIGS on the topic (ALTER_CONFIGS implies it), else
//!   TOPIC_AUTHORIZATION_FAILED; an illegal name INVALID_TOPIC_EXCEPTION, a missing topic
//!   UNKNOWN_TOPIC_OR_PARTITION. Every config of Kafka 4.4's topic table with its effective
//!   value: set on the topic (TOPIC_CONFIG), else the cluster's dynamic default
//!   (DYNAMIC_DEFAULT_BROKER_CONFIG: `min.insync.replicas`, see [`cluster_dynamic_defaults`]),
//!   else a broker-level synonym in the server's properties (e.g. `log.retention.hours`), else
//!   the default. Synonyms as Kafka's `ConfigHelper` lists them: the topic's own setting, then
//!   the broker synonyms by source (dynamic default, static, default), from the topic config's
//!   primary broker key on (`log.retention.ms` for `retention.ms`: with only
//!   `log.retention.hours` present, none is listed and the source is DEFAULT_CONFIG).
//! - BROKER: DESCRIBE_CONFIGS on the cluster, else CLUSTER_AUTHORIZATION_FAILED. This node's
//!   id: the server's properties (STATIC_BROKER_CONFIG), the cluster's dynamic defaults and
//!   the broker defaults kacl knows (DEFAULT_CONFIG), all read-only; a listener override's
//!   synonyms go on to its base key. Passwords, JAAS configs, key material and the keys Kafka
//!   cannot type (`super.users`, `allow.everyone.if.no.acl.found`) are sensitive and their
//!   values are never sent. `""` (the cluster default): the dynamic defaults. Another id:
//!   INVALID_REQUEST, Kafka's text.
//! - BROKER_LOGGER: as Kafka checks the id; kacl has no log4j loggers, so the list is empty.
//! - authorized results first, then the refused ones, as Kafka orders them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::describe_configs::{
    DescribeConfigsRequest, DescribeConfigsResource, DescribeConfigsResourceResult,
    DescribeConfigsResponse, DescribeConfigsResult, DescribeConfigsSynonym,
};
use kacl_protocol::ErrorCode;
use kacl_topics::{
    broker_synonyms, documentation, is_untyped_broker_key, listener_base, validate_topic_name,
    BrokerSynonym, TOPIC_CONFIGS,
};

use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Resource type codes (`ConfigResource.Type`).
pub(crate) const TOPIC: i8 = 2;
pub(crate) const BROKER: i8 = 4;
pub(crate) const BROKER_LOGGER: i8 = 8;
pub(crate) const CLIENT_METRICS: i8 = 16;
pub(crate) const GROUP: i8 = 32;

/// Config sources (`DescribeConfigsResponse.ConfigSource`).
const TOPIC_CONFIG: i8 = 1;
const DYNAMIC_DEFAULT_BROKER_CONFIG: i8 = 3;
const STATIC_BROKER_CONFIG: i8 = 4;
const DEFAULT_CONFIG: i8 = 5;

/// `ConfigType` codes.
const UNKNOWN_TYPE: i8 = 0;
const PASSWORD: i8 = 9;

/// Broker keys kacl applies whose Kafka default it reports when the file leaves them out.
const BROKER_DEFAULTS: &[(&str, &str)] = &[
    ("num.partitions", "1"),
    ("default.replication.factor", "1"),
    ("socket.request.max.bytes", "104857600"),
    ("connections.max.idle.ms", "600000"),
    ("connections.max.reauth.ms", "0"),
    ("connection.failed.authentication.delay.ms", "100"),
    ("max.connections", "2147483647"),
    ("max.connections.per.ip", "2147483647"),
    ("sasl.server.max.receive.size", "524288"),
    ("sasl.enabled.mechanisms", "GSSAPI"),
];

/// The cluster-level dynamic broker defaults a Kafka 4.4 cluster holds from its start:
/// with Eligible Leader Replicas on (4.x's default), the controller records
/// `min.insync.replicas` cluster-wide, from its own static value or the default 1. kacl has no
/// dynamic broker configs of its own, so these are all it reports at that level.
pub fn cluster_dynamic_defaults(
    broker: &BTreeMap<String, String>,
) -> BTreeMap<&'static str, String> {
    let value = broker
        .get("min.insync.replicas")
        .map_or("1", |v| v.trim())
        .to_owned();
    BTreeMap::from([("min.insync.replicas", value)])
}

/// Whether a broker key holds a secret (every PASSWORD-typed key of Kafka's broker config,
/// listener overrides included, and kacl's SCRAM bootstrap credentials).
pub use kacl_topics::is_sensitive_broker_key;

/// DescribeConfigs: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeConfigs;

impl Handler for DescribeConfigs {
    type Request<'r> = DescribeConfigsRequest<'r>;
    type Response<'r> = DescribeConfigsResponse<'r>;

    /// Answers one DescribeConfigs request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeConfigsRequest<'r>,
    ) -> Result<DescribeConfigsResponse<'r>, Outcome> {
        let flags = Flags {
            synonyms: request.include_synonyms,
            documentation: request.include_documentation,
            v0: ctx.version == 0,
        };
        let mut authorized = Vec::new();
        let mut refused = Vec::new();
        for resource in &request.resources {
            let allowed = match resource.resource_type {
                BROKER | BROKER_LOGGER | CLIENT_METRICS => {
                    ctx.cluster_allows(AclOperation::DescribeConfigs)
                }
                TOPIC => ctx.authorize(
                    AclOperation::DescribeConfigs,
                    ResourceType::Topic,
                    &resource.resource_name,
                ),
                GROUP => ctx.authorize(
                    AclOperation::DescribeConfigs,
                    ResourceType::Group,
                    &resource.resource_name,
                ),
                _ => true,
            };
            if allowed {
                authorized.push(describe(ctx, resource, flags));
            } else {
                let code = match resource.resource_type {
                    TOPIC => ErrorCode::TopicAuthorizationFailed,
                    GROUP => ErrorCode::GroupAuthorizationFailed,
                    _ => ErrorCode::ClusterAuthorizationFailed,
                };
                refused.push(failed(resource, code, code.default_message().to_owned()));
            }
        }
        authorized.extend(refused);
        Ok(DescribeConfigsResponse {
            results: authorized,
            ..Default::default()
        })
    }
}

/// What a DescribeConfigs request asks for besides the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    /// `include_synonyms`.
    pub synonyms: bool,
    /// `include_documentation`.
    pub documentation: bool,
    /// Answering v0 (whose entries say `is_default` instead of a source).
    pub v0: bool,
}

fn failed(
    resource: &DescribeConfigsResource<'_>,
    code: ErrorCode,
    message: String,
) -> DescribeConfigsResult<'static> {
    DescribeConfigsResult {
        error_code: code.code(),
        error_message: Some(Cow::Owned(super::bounded_message(message))),
        resource_type: resource.resource_type,
        resource_name: Cow::Owned(resource.resource_name.to_string()),
        ..Default::default()
    }
}

fn describe(
    ctx: &RequestContext<'_>,
    resource: &DescribeConfigsResource<'_>,
    flags: Flags,
) -> DescribeConfigsResult<'static> {
    let entries = match resource.resource_type {
        TOPIC => topic_entries(ctx, &resource.resource_name, flags),
        BROKER => broker_entries(ctx, &resource.resource_name, flags),
        BROKER_LOGGER => logger_entries(ctx, &resource.resource_name),
        other => Err((
            ErrorCode::InvalidRequest,
            format!("Unsupported resource type: {}", type_name(other)),
        )),
    };
    match entries {
        Ok(mut configs) => {
            // An empty or null key list means every key (Kafka's `createResponseConfig`).
            if let Some(keys) = resource
                .configuration_keys
                .as_ref()
                .filter(|k| !k.is_empty())
            {
                configs.retain(|c| keys.contains(&c.name));
            }
            DescribeConfigsResult {
                resource_type: resource.resource_type,
                resource_name: Cow::Owned(resource.resource_name.to_string()),
                configs,
                ..Default::default()
            }
        }
        Err((code, message)) => failed(resource, code, message),
    }
}

/// Kafka's `ConfigResource.Type` name of a code, as its messages print it.
pub(crate) fn type_name(code: i8) -> &'static str {
    match code {
        TOPIC => "TOPIC",
        BROKER => "BROKER",
        BROKER_LOGGER => "BROKER_LOGGER",
        CLIENT_METRICS => "CLIENT_METRICS",
        GROUP => "GROUP",
        _ => "UNKNOWN",
    }
}

type Entries = Result<Vec<DescribeConfigsResourceResult<'static>>, (ErrorCode, String)>;

fn synonym(name: &str, value: Option<&str>, source: i8) -> DescribeConfigsSynonym<'static> {
    DescribeConfigsSynonym {
        name: Cow::Owned(name.to_owned()),
        value: value.map(|v| Cow::Owned(v.to_owned())),
        source,
        ..Default::default()
    }
}

/// One entry; its source is its first synonym's, as in Kafka.
fn entry(
    name: &str,
    value: Option<String>,
    synonyms: Vec<DescribeConfigsSynonym<'static>>,
    (read_only, sensitive, config_type): (bool, bool, i8),
    doc: Option<&'static str>,
    flags: Flags,
) -> DescribeConfigsResourceResult<'static> {
    let source = synonyms.first().map_or(DEFAULT_CONFIG, |s| s.source);
    DescribeConfigsResourceResult {
        name: Cow::Owned(name.to_owned()),
        value: value.map(Cow::Owned),
        read_only,
        // v0 has no source: only whether the value is the default.
        is_default: flags.v0 && source == DEFAULT_CONFIG,
        config_source: source,
        is_sensitive: sensitive,
        synonyms: if flags.synonyms { synonyms } else { Vec::new() },
        config_type,
        documentation: doc.filter(|_| flags.documentation).map(Cow::Borrowed),
        ..Default::default()
    }
}

/// The topic's entries: every config of the table, sorted by name.
fn topic_entries(ctx: &RequestContext<'_>, name: &str, flags: Flags) -> Entries {
    validate_topic_name(name)
        .map_err(|e| (ErrorCode::from_code(e.code()), e.message().to_owned()))?;
    let table = ctx.state.topics.read();
    let Some(topic) = table.get(name) else {
        return Err((
            ErrorCode::UnknownTopicOrPartition,
            ErrorCode::UnknownTopicOrPartition
                .default_message()
                .to_owned(),
        ));
    };
    Ok(topic_entries_of(
        &topic.configs,
        &ctx.state.config.static_properties,
        flags,
    ))
}

/// Every topic config's entry for a topic whose own settings are `set`, on a broker whose
/// properties are `broker` (pure: the benchmark and unit tests call it directly).
pub fn topic_entries_of(
    set: &BTreeMap<String, String>,
    broker: &BTreeMap<String, String>,
    flags: Flags,
) -> Vec<DescribeConfigsResourceResult<'static>> {
    let dynamic = cluster_dynamic_defaults(broker);
    let mut entries: Vec<DescribeConfigsResourceResult<'static>> = TOPIC_CONFIGS
        .iter()
        .map(|config| {
            let brokers = broker_synonyms(config.name);
            let own = set.get(config.name).map(|v| config.display_value(v));
            // Kafka's `configSynonyms`: by source, each in the synonyms' precedence order.
            let mut listed: Vec<(&BrokerSynonym, &str, i8)> = Vec::new();
            for s in brokers {
                if let Some(value) = dynamic.get(s.name) {
                    listed.push((s, value.as_str(), DYNAMIC_DEFAULT_BROKER_CONFIG));
                }
            }
            for s in brokers {
                if let Some(value) = broker.get(s.name) {
                    listed.push((s, value.as_str(), STATIC_BROKER_CONFIG));
                }
            }
            for s in brokers {
                if let Some(default) = s.default_value {
                    listed.push((s, default, DEFAULT_CONFIG));
                }
            }
            let value = own.clone().unwrap_or_else(|| {
                listed
                    .iter()
                    .find_map(|(s, v, _)| s.to_topic_value(v))
                    .map_or_else(
                        || config.default_value.to_owned(),
                        |v| config.display_value(&v),
                    )
            });
            // ... then `dropWhile(_.name != primary)`: nothing before the primary broker key.
            let primary = brokers.first().map(|s| s.name);
            let from = listed
                .iter()
                .position(|(s, _, _)| Some(s.name) == primary)
                .unwrap_or(listed.len());
            let mut synonyms = Vec::new();
            if let Some(own) = &own {
                synonyms.push(synonym(config.name, Some(own), TOPIC_CONFIG));
            }
            for &(s, value, source) in &listed[from..] {
                synonyms.push(synonym(s.name, Some(value), source));
            }
            entry(
                config.name,
                Some(value),
                synonyms,
                (false, false, config.config_type.describe_configs_id()),
                documentation(config.name),
                flags,
            )
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

/// The id checks Kafka makes for a broker-scoped resource name.
fn own_broker_id(ctx: &RequestContext<'_>, name: &str) -> Result<(), (ErrorCode, String)> {
    let id = ctx.state.node_id();
    match name.parse::<i32>() {
        Err(_) => Err((
            ErrorCode::InvalidRequest,
            format!("Broker id must be an integer, but it is: {name}"),
        )),
        Ok(asked) if asked != id => Err((
            ErrorCode::InvalidRequest,
            format!("Unexpected broker id, expected {id} or empty string, but received {name}"),
        )),
        Ok(_) => Ok(()),
    }
}

fn broker_entries(ctx: &RequestContext<'_>, name: &str, flags: Flags) -> Entries {
    let statics = &ctx.state.config.static_properties;
    let dynamic = cluster_dynamic_defaults(statics);
    if name.is_empty() {
        // The cluster-wide dynamic defaults, each with only its dynamic-default synonym.
        return Ok(dynamic
            .iter()
            .map(|(key, value)| {
                let synonyms = vec![synonym(
                    key,
                    Some(value.as_str()),
                    DYNAMIC_DEFAULT_BROKER_CONFIG,
                )];
                entry(
                    key,
                    Some(value.clone()),
                    synonyms,
                    (true, false, UNKNOWN_TYPE),
                    None,
                    flags,
                )
            })
            .collect());
    }
    own_broker_id(ctx, name)?;
    let mut defaults: BTreeMap<&str, &str> = BROKER_DEFAULTS.iter().copied().collect();
    for config in TOPIC_CONFIGS {
        for s in broker_synonyms(config.name) {
            if let Some(default) = s.default_value {
                defaults.insert(s.name, default);
            }
        }
    }
    let mut names: Vec<&str> = statics.keys().map(String::as_str).collect();
    names.extend(
        defaults
            .keys()
            .chain(dynamic.keys())
            .filter(|k| !statics.contains_key(**k)),
    );
    names.sort_unstable();
    names.dedup();
    Ok(names
        .into_iter()
        .map(|key| {
            let sensitive = is_sensitive_broker_key(key);
            let shown = |v: &str| (!sensitive).then(|| v.to_owned());
            // Kafka's `brokerConfigSynonyms`: a listener override, then its base key.
            let base = listener_base(key);
            let keys: Vec<&str> = if base == key {
                vec![key]
            } else {
                vec![key, base]
            };
            let mut listed: Vec<(&str, &str, i8)> = Vec::new();
            for &k in &keys {
                if let Some(value) = dynamic.get(k) {
                    listed.push((k, value.as_str(), DYNAMIC_DEFAULT_BROKER_CONFIG));
                }
            }
            for &k in &keys {
                if let Some(value) = statics.get(k) {
                    listed.push((k, value.as_str(), STATIC_BROKER_CONFIG));
                }
            }
            for &k in &keys {
                if let Some(&default) = defaults.get(k) {
                    listed.push((k, default, DEFAULT_CONFIG));
                }
            }
            let value = listed.first().and_then(|&(_, v, _)| shown(v));
            let synonyms = listed
                .iter()
                .map(|&(k, v, source)| synonym(k, shown(v).as_deref(), source))
                .collect();
            let config_type = if sensitive && !is_untyped_broker_key(key) {
                PASSWORD
            } else {
                UNKNOWN_TYPE
            };
            entry(
                key,
                value,
                synonyms,
                (true, sensitive, config_type),
                None,
                flags,
            )
        })
        .collect())
}

fn logger_entries(ctx: &RequestContext<'_>, name: &str) -> Entries {
    if name.is_empty() {
        return Err((
            ErrorCode::InvalidRequest,
            "Broker id must not be empty".to_owned(),
        ));
    }
    let id = ctx.state.node_id();
    match name.parse::<i32>() {
        Err(_) => Err((
            ErrorCode::InvalidRequest,
            format!("Broker id must be an integer, but it is: {name}"),
        )),
        Ok(asked) if asked != id => Err((
            ErrorCode::InvalidRequest,
            format!("Unexpected broker id, expected {id} but received {name}"),
        )),
        // Deliberate difference from Kafka: kacl has no log4j loggers to list.
        Ok(_) => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Flags = Flags {
        synonyms: true,
        documentation: true,
        v0: false,
    };

    fn find<'a>(
        entries: &'a [DescribeConfigsResourceResult<'static>],
        name: &str,
    ) -> &'a DescribeConfigsResourceResult<'static> {
        entries.iter().find(|e| e.name == name).unwrap()
    }

    /// An entry's synonyms as (name, source), in the order they are listed.
    fn synonyms_of<'a>(entry: &'a DescribeConfigsResourceResult<'static>) -> Vec<(&'a str, i8)> {
        entry
            .synonyms
            .iter()
            .map(|s| (&*s.name, s.source))
            .collect()
    }

    #[test]
    fn sources_and_synonyms_follow_kafkas_precedence() {
        let set = BTreeMap::from([("cleanup.policy".to_owned(), "Compact, Delete".to_owned())]);
        let broker = BTreeMap::from([("log.retention.hours".to_owned(), "1".to_owned())]);
        let entries = topic_entries_of(&set, &broker, ALL);
        assert_eq!(entries.len(), TOPIC_CONFIGS.len());
        assert!(entries.windows(2).all(|w| w[0].name < w[1].name));

        let cleanup = find(&entries, "cleanup.policy");
        assert_eq!(cleanup.value.as_deref(), Some("Compact,Delete"));
        assert_eq!(cleanup.config_source, TOPIC_CONFIG);
        assert_eq!(
            synonyms_of(cleanup),
            [
                ("cleanup.policy", TOPIC_CONFIG),
                ("log.cleanup.policy", DEFAULT_CONFIG)
            ]
        );
        assert_eq!(cleanup.config_type, 7);
        assert!(cleanup
            .documentation
            .as_deref()
            .unwrap()
            .contains("retention policy"));

        // Kafka lists broker synonyms only from the primary key (`log.retention.ms`) on: with
        // only `log.retention.hours` set the value follows it, but no synonym is listed.
        let retention = find(&entries, "retention.ms");
        assert_eq!(retention.value.as_deref(), Some("3600000"));
        assert_eq!(retention.config_source, DEFAULT_CONFIG);
        assert!(retention.synonyms.is_empty());
        for name in ["flush.ms", "segment.ms", "segment.jitter.ms"] {
            assert!(find(&entries, name).synonyms.is_empty(), "{name}");
        }

        // The cluster-level dynamic default Kafka 4.4 keeps with ELR on.
        let min_isr = find(&entries, "min.insync.replicas");
        assert_eq!(min_isr.config_source, DYNAMIC_DEFAULT_BROKER_CONFIG);
        assert_eq!(
            synonyms_of(min_isr),
            [
                ("min.insync.replicas", DYNAMIC_DEFAULT_BROKER_CONFIG),
                ("min.insync.replicas", DEFAULT_CONFIG)
            ]
        );

        let throttled = find(&entries, "leader.replication.throttled.replicas");
        assert_eq!(throttled.config_source, DEFAULT_CONFIG);
        assert!(throttled.synonyms.is_empty());
    }

    #[test]
    fn a_static_primary_key_lists_the_lower_precedence_synonyms_after_it() {
        let broker = BTreeMap::from([
            ("log.retention.ms".to_owned(), "5000".to_owned()),
            ("min.insync.replicas".to_owned(), "2".to_owned()),
        ]);
        let entries = topic_entries_of(&BTreeMap::new(), &broker, ALL);
        let retention = find(&entries, "retention.ms");
        assert_eq!(retention.value.as_deref(), Some("5000"));
        assert_eq!(retention.config_source, STATIC_BROKER_CONFIG);
        assert_eq!(
            synonyms_of(retention),
            [
                ("log.retention.ms", STATIC_BROKER_CONFIG),
                ("log.retention.hours", DEFAULT_CONFIG)
            ]
        );
        let min_isr = find(&entries, "min.insync.replicas");
        assert_eq!(min_isr.value.as_deref(), Some("2"));
        let sources: Vec<i8> = min_isr.synonyms.iter().map(|s| s.source).collect();
        assert_eq!(
            sources,
            [
                DYNAMIC_DEFAULT_BROKER_CONFIG,
                STATIC_BROKER_CONFIG,
                DEFAULT_CONFIG
            ]
        );
    }

    #[test]
    fn flags_decide_synonyms_documentation_and_v0s_is_default() {
        let none = Flags {
            synonyms: false,
            documentation: false,
            v0: true,
        };
        let entries = topic_entries_of(&BTreeMap::new(), &BTreeMap::new(), none);
        let segment = find(&entries, "segment.ms");
        assert!(segment.synonyms.is_empty());
        assert_eq!(segment.documentation, None);
        assert!(segment.is_default);
        assert_eq!(segment.value.as_deref(), Some("604800000"));
    }

    #[test]
    fn secrets_are_recognised() {
        for key in [
            "sasl.jaas.config",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config",
            "ssl.keystore.password",
            "ssl.key.password",
            "ssl.keystore.key",
            "kacl.scram.bootstrap.credentials",
        ] {
            assert!(is_sensitive_broker_key(key), "{key}");
        }
        // Kafka's broker ConfigDef does not type the authorizer's keys, so it masks them.
        for key in ["super.users", "allow.everyone.if.no.acl.found"] {
            assert!(is_sensitive_broker_key(key), "{key}");
        }
        assert!(!is_sensitive_broker_key("listeners"));
    }
}
