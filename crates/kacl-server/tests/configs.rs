//! DescribeConfigs v0-4, IncrementalAlterConfigs v0-1 and AlterConfigs v0-2 over TCP: every
//! version, each error code with Kafka's text, sources and synonyms, secrets never on the
//! wire, `validate_only`, durability across a restart, and authorization both ways.

mod common;
mod topics_support;

use std::borrow::Cow;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::messages::alter_configs::{
    AlterConfigsRequest, AlterConfigsResource, AlterConfigsResponse, AlterableConfig,
};
use kacl_protocol::messages::describe_configs::{
    DescribeConfigsRequest, DescribeConfigsResource, DescribeConfigsResourceResult,
    DescribeConfigsResponse,
};
use kacl_protocol::messages::incremental_alter_configs as iac;
use kacl_protocol::IntoStatic;
use kacl_topics::TOPIC_CONFIGS;
use topics_support::*;

const TOPIC: i8 = 2;
const BROKER: i8 = 4;
const BROKER_LOGGER: i8 = 8;

fn resource(
    resource_type: i8,
    name: &str,
    keys: Option<&[&str]>,
) -> DescribeConfigsResource<'static> {
    DescribeConfigsResource {
        resource_type,
        resource_name: Cow::Owned(name.to_owned()),
        configuration_keys: keys.map(|k| k.iter().map(|k| Cow::Owned(k.to_string())).collect()),
        ..Default::default()
    }
}

async fn describe_raw(
    client: &mut Client,
    version: i16,
    resources: Vec<DescribeConfigsResource<'static>>,
) -> Vec<u8> {
    let request = DescribeConfigsRequest {
        resources,
        include_synonyms: version >= 1,
        include_documentation: version >= 3,
        ..Default::default()
    };
    client.call(version, &request).await
}

async fn describe(
    client: &mut Client,
    version: i16,
    resources: Vec<DescribeConfigsResource<'static>>,
) -> DescribeConfigsResponse<'static> {
    let payload = describe_raw(client, version, resources).await;
    decode::<DescribeConfigsResponse>(&payload, version).into_static()
}

fn entry<'a>(
    configs: &'a [DescribeConfigsResourceResult<'static>],
    name: &str,
) -> &'a DescribeConfigsResourceResult<'static> {
    configs
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

fn op(name: &str, operation: i8, value: Option<&str>) -> iac::AlterableConfig<'static> {
    iac::AlterableConfig {
        name: Cow::Owned(name.to_owned()),
        config_operation: operation,
        value: value.map(|v| Cow::Owned(v.to_owned())),
        ..Default::default()
    }
}

async fn incremental(
    client: &mut Client,
    version: i16,
    resources: Vec<(i8, &str, Vec<iac::AlterableConfig<'static>>)>,
    validate_only: bool,
) -> Vec<(i16, Option<String>)> {
    let request = iac::IncrementalAlterConfigsRequest {
        resources: resources
            .into_iter()
            .map(|(t, n, configs)| iac::AlterConfigsResource {
                resource_type: t,
                resource_name: Cow::Owned(n.to_owned()),
                configs,
                ..Default::default()
            })
            .collect(),
        validate_only,
        ..Default::default()
    };
    let payload = client.call(version, &request).await;
    let response: iac::IncrementalAlterConfigsResponse = decode(&payload, version);
    response
        .responses
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref().map(str::to_owned)))
        .collect()
}

async fn topic_value(client: &mut Client, topic: &str, key: &str) -> (Option<String>, i8) {
    let resp = describe(client, 4, vec![resource(TOPIC, topic, Some(&[key]))]).await;
    let result = &resp.results[0];
    assert_eq!(result.error_code, 0, "{:?}", result.error_message);
    let e = entry(&result.configs, key);
    (e.value.as_deref().map(str::to_owned), e.config_source)
}

#[tokio::test]
async fn describes_a_topic_at_every_version() {
    let server = start(&[("log.retention.ms", "86400000")]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![with_configs(
            topic("orders", 1, 1),
            &[("cleanup.policy", Some("compact"))],
        )],
    )
    .await;
    for version in 0..=4 {
        let resp = describe(&mut client, version, vec![resource(TOPIC, "orders", None)]).await;
        assert_eq!(resp.results.len(), 1);
        let result = &resp.results[0];
        assert_eq!((result.error_code, result.resource_type), (0, TOPIC));
        assert_eq!(result.configs.len(), TOPIC_CONFIGS.len(), "v{version}");
        let cleanup = entry(&result.configs, "cleanup.policy");
        assert_eq!(cleanup.value.as_deref(), Some("compact"));
        let retention = entry(&result.configs, "retention.ms");
        assert_eq!(retention.value.as_deref(), Some("86400000"), "24 hours");
        let segment = entry(&result.configs, "segment.bytes");
        if version == 0 {
            assert!(!cleanup.is_default && segment.is_default && !retention.is_default);
        } else {
            assert_eq!(cleanup.config_source, 1, "TOPIC_CONFIG");
            assert_eq!(retention.config_source, 4, "STATIC_BROKER_CONFIG");
            assert_eq!(segment.config_source, 5, "DEFAULT_CONFIG");
            let synonyms: Vec<(&str, Option<&str>, i8)> = retention
                .synonyms
                .iter()
                .map(|s| (&*s.name, s.value.as_deref(), s.source))
                .collect();
            assert_eq!(
                synonyms,
                [
                    ("log.retention.ms", Some("86400000"), 4),
                    ("log.retention.hours", Some("168"), 5)
                ]
            );
        }
        if version >= 3 {
            assert_eq!(cleanup.config_type, 7, "LIST");
            assert!(cleanup
                .documentation
                .as_deref()
                .unwrap()
                .contains("retention policy"));
        }
    }
    // The key filter.
    let resp = describe(
        &mut client,
        4,
        vec![resource(TOPIC, "orders", Some(&["retention.ms", "nope"]))],
    )
    .await;
    let names: Vec<&str> = resp.results[0].configs.iter().map(|c| &*c.name).collect();
    assert_eq!(names, ["retention.ms"]);
}

#[tokio::test]
async fn per_resource_errors_do_not_fail_the_request() {
    let server = start(&[("node.id", "3")]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("orders", 1, 1)]).await;
    let resp = describe(
        &mut client,
        4,
        vec![
            resource(TOPIC, "missing", None),
            resource(TOPIC, "orders", Some(&["segment.ms"])),
            resource(TOPIC, "bad name", None),
            resource(BROKER, "7", None),
            resource(BROKER, "x", None),
            resource(BROKER_LOGGER, "", None),
            resource(BROKER_LOGGER, "3", None),
            resource(32, "group", None),
        ],
    )
    .await;
    let got: Vec<(i16, Option<&str>)> = resp
        .results
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref()))
        .collect();
    assert_eq!(got[0].0, 3, "UNKNOWN_TOPIC_OR_PARTITION");
    assert_eq!(got[1], (0, None));
    assert_eq!(got[2].0, 17, "INVALID_TOPIC_EXCEPTION");
    assert_eq!(
        got[3],
        (
            42,
            Some("Unexpected broker id, expected 3 or empty string, but received 7")
        )
    );
    assert_eq!(
        got[4],
        (42, Some("Broker id must be an integer, but it is: x"))
    );
    assert_eq!(got[5], (42, Some("Broker id must not be empty")));
    assert_eq!(got[6], (0, None));
    assert!(resp.results[6].configs.is_empty(), "kacl has no loggers");
    assert_eq!(got[7], (42, Some("Unsupported resource type: GROUP")));
}

#[tokio::test]
async fn broker_configs_are_read_only_and_secrets_never_leave() {
    let secret = "jaas-password-7f3a9c";
    let jaas = format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required \
         user_admin=\"{secret}\";"
    );
    let server = start(&[
        ("sasl.jaas.config", jaas.as_str()),
        ("allow.everyone.if.no.acl.found", "false"),
        ("num.partitions", "3"),
    ])
    .await;
    let mut client = server.client().await;
    for version in 0..=4 {
        let payload = describe_raw(
            &mut client,
            version,
            vec![resource(BROKER, "1", None), resource(BROKER, "", None)],
        )
        .await;
        assert!(
            !payload
                .windows(secret.len())
                .any(|w| w == secret.as_bytes()),
            "v{version}: the JAAS password is in the response bytes"
        );
        let resp = decode::<DescribeConfigsResponse>(&payload, version).into_static();
        let configs = &resp.results[0].configs;
        let jaas = entry(configs, "sasl.jaas.config");
        assert!(jaas.is_sensitive && jaas.value.is_none() && jaas.read_only);
        assert!(jaas.synonyms.iter().all(|s| s.value.is_none()));
        // Masked as Kafka 4.4 masks them: who the super users are is not told.
        for key in ["super.users", "allow.everyone.if.no.acl.found"] {
            let e = entry(configs, key);
            assert!(e.is_sensitive && e.value.is_none(), "v{version} {key}");
            assert!(e.synonyms.iter().all(|s| s.value.is_none()), "{key}");
            assert_eq!(e.config_type, 0, "UNKNOWN, as Kafka types it");
        }
        assert!(!payload
            .windows(b"User:ANONYMOUS".len())
            .any(|w| w == b"User:ANONYMOUS"));
        let min_isr = entry(configs, "min.insync.replicas");
        assert_eq!(min_isr.value.as_deref(), Some("1"));
        let mechanisms = entry(configs, "sasl.enabled.mechanisms");
        assert_eq!(mechanisms.value.as_deref(), Some("GSSAPI"));
        let partitions = entry(configs, "num.partitions");
        assert_eq!(partitions.value.as_deref(), Some("3"));
        let replication = entry(configs, "default.replication.factor");
        if version >= 1 {
            assert_eq!(partitions.config_source, 4, "STATIC_BROKER_CONFIG");
            assert_eq!(replication.config_source, 5, "DEFAULT_CONFIG");
        } else {
            assert!(replication.is_default && !partitions.is_default);
        }
        // The cluster default: Kafka 4.4's min.insync.replicas, kept with ELR on.
        let cluster: Vec<(&str, Option<&str>)> = resp.results[1]
            .configs
            .iter()
            .map(|c| (&*c.name, c.value.as_deref()))
            .collect();
        assert_eq!(cluster, [("min.insync.replicas", Some("1"))], "v{version}");
        if version >= 1 {
            assert_eq!(min_isr.config_source, 3, "DYNAMIC_DEFAULT_BROKER_CONFIG");
            assert_eq!(resp.results[1].configs[0].config_source, 3);
        }
    }
}

#[tokio::test]
async fn incremental_alters_apply_in_order_validate_and_survive_a_restart() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("orders", 1, 1)]).await;
    for version in 0..=1 {
        let got = incremental(
            &mut client,
            version,
            vec![(
                TOPIC,
                "orders",
                vec![
                    op("retention.ms", 0, Some("1000")),
                    op("cleanup.policy", 2, Some("compact")),
                ],
            )],
            false,
        )
        .await;
        assert_eq!(got, [(0, None)], "v{version}");
    }
    assert_eq!(
        topic_value(&mut client, "orders", "cleanup.policy").await,
        (Some("delete,compact".into()), 1)
    );
    // validate_only changes nothing.
    let got = incremental(
        &mut client,
        1,
        vec![(
            TOPIC,
            "orders",
            vec![op("cleanup.policy", 3, Some("delete"))],
        )],
        true,
    )
    .await;
    assert_eq!(got, [(0, None)]);
    assert_eq!(
        topic_value(&mut client, "orders", "cleanup.policy").await.0,
        Some("delete,compact".into())
    );
    let got = incremental(
        &mut client,
        1,
        vec![(
            TOPIC,
            "orders",
            vec![
                op("cleanup.policy", 3, Some("delete")),
                op("retention.ms", 1, None),
            ],
        )],
        false,
    )
    .await;
    assert_eq!(got, [(0, None)]);

    // Refusals, each with Kafka's code and text.
    let got = incremental(
        &mut client,
        1,
        vec![
            (TOPIC, "orders", vec![op("retention.ms", 0, Some("-5"))]),
            (TOPIC, "orders2", vec![op("nope", 0, Some("1"))]),
            (TOPIC, "missing", vec![op("retention.ms", 0, Some("1"))]),
            (TOPIC, "t", vec![op("retention.ms", 2, Some("1"))]),
            (TOPIC, "t2", vec![op("a", 0, Some("1")), op("a", 1, None)]),
            (TOPIC, "t3", vec![op("a", 0, None)]),
            (BROKER, "1", vec![op("log.retention.hours", 0, Some("1"))]),
            (BROKER, "2", vec![]),
            (BROKER_LOGGER, "1", vec![op("kafka", 0, Some("DEBUG"))]),
        ],
        false,
    )
    .await;
    let expect = |code: i16, text: &str| (code, Some(text.to_owned()));
    assert_eq!(
        got,
        [
            expect(
                40,
                "Invalid value -5 for configuration retention.ms: Value must be at least -1"
            ),
            expect(40, "Unknown topic config name: nope"),
            expect(3, "The topic 'missing' does not exist."),
            expect(
                40,
                "Can't APPEND to key retention.ms because its type is not LIST."
            ),
            expect(42, "Error due to duplicate config keys"),
            expect(42, "Null value not supported for : a"),
            expect(
                42,
                "Cannot update these configs dynamically: Set(log.retention.hours)"
            ),
            expect(42, "Unexpected broker id, expected 1, but received 2"),
            expect(40, "Logger kafka does not exist!"),
        ]
    );
    // A resource named twice: both refused.
    let got = incremental(
        &mut client,
        1,
        vec![(TOPIC, "orders", vec![]), (TOPIC, "orders", vec![])],
        false,
    )
    .await;
    assert_eq!(
        got,
        [
            expect(42, "Each resource must appear at most once."),
            expect(42, "Each resource must appear at most once.")
        ]
    );

    drop(client);
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    assert_eq!(
        topic_value(&mut client, "orders", "cleanup.policy").await,
        (Some("compact".into()), 1),
        "durable across a restart"
    );
    assert_eq!(
        topic_value(&mut client, "orders", "retention.ms").await,
        (Some("604800000".into()), 5)
    );
    let stored = server.server.state().store.load_topics().unwrap();
    assert_eq!(
        stored[0].configs.get("cleanup.policy").map(String::as_str),
        Some("compact")
    );
}

#[tokio::test]
async fn legacy_alter_configs_replaces_the_whole_set() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![with_configs(
            topic("orders", 1, 1),
            &[
                ("cleanup.policy", Some("compact")),
                ("retention.ms", Some("1000")),
            ],
        )],
    )
    .await;
    for version in 0..=2 {
        let request = AlterConfigsRequest {
            resources: vec![
                AlterConfigsResource {
                    resource_type: TOPIC,
                    resource_name: "orders".into(),
                    configs: vec![AlterableConfig {
                        name: "segment.ms".into(),
                        value: Some(format!("{}", 100_000 + i64::from(version)).into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                },
                AlterConfigsResource {
                    resource_type: BROKER,
                    resource_name: "1".into(),
                    configs: vec![AlterableConfig {
                        name: "num.partitions".into(),
                        value: Some("2".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ],
            validate_only: false,
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let response: AlterConfigsResponse = decode(&payload, version);
        assert_eq!(response.responses[0].error_code, 0);
        assert_eq!(
            response.responses[1].error_message.as_deref(),
            Some("Cannot update these configs dynamically: Set(num.partitions)")
        );
    }
    assert_eq!(
        topic_value(&mut client, "orders", "segment.ms").await,
        (Some("100002".into()), 1)
    );
    assert_eq!(
        topic_value(&mut client, "orders", "cleanup.policy").await,
        (Some("delete".into()), 5),
        "a key left out returns to its default"
    );
}

#[tokio::test]
async fn authorization_is_per_resource_and_alter_implies_describe() {
    let server = start(NOT_SUPER).await;
    let mut admin_free = server.client().await;
    // ANONYMOUS is not a super user here: it may do nothing without ACLs.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::Create,
    );
    create_ok(
        &mut admin_free,
        vec![topic("open", 1, 1), topic("closed", 1, 1)],
    )
    .await;
    let resp = describe(
        &mut admin_free,
        4,
        vec![
            resource(TOPIC, "open", Some(&["segment.ms"])),
            resource(BROKER, "1", None),
        ],
    )
    .await;
    let codes: Vec<(i16, &str)> = resp
        .results
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        codes,
        [
            (29, "Topic authorization failed."),
            (31, "Cluster authorization failed.")
        ]
    );
    // ALTER_CONFIGS on the topic implies DESCRIBE_CONFIGS and allows the change; the other
    // topic stays refused in the same request.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "open",
        PatternType::Literal,
        AclOperation::AlterConfigs,
    );
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::DescribeConfigs,
    );
    let resp = describe(
        &mut admin_free,
        4,
        vec![
            resource(TOPIC, "closed", Some(&["segment.ms"])),
            resource(TOPIC, "open", Some(&["segment.ms"])),
            resource(BROKER, "1", Some(&["num.partitions"])),
        ],
    )
    .await;
    let got: Vec<(&str, i16)> = resp
        .results
        .iter()
        .map(|r| (&*r.resource_name, r.error_code))
        .collect();
    assert_eq!(
        got,
        [("open", 0), ("1", 0), ("closed", 29)],
        "authorized results first, as Kafka orders them"
    );
    let got = incremental(
        &mut admin_free,
        1,
        vec![
            (TOPIC, "open", vec![op("retention.ms", 0, Some("5000"))]),
            (TOPIC, "closed", vec![op("retention.ms", 0, Some("5000"))]),
            (BROKER, "1", vec![op("x", 1, None)]),
        ],
        false,
    )
    .await;
    assert_eq!(got[0], (0, None));
    assert_eq!(got[1], (29, Some("Topic authorization failed.".into())));
    assert_eq!(got[2], (31, Some("Cluster authorization failed.".into())));
}
