//! The config APIs against hostile requests: authorization decided before anything about the
//! resource is checked, every PASSWORD-typed key of Kafka's broker config kept off the wire,
//! and thousands of resources or a huge value answered per resource with nothing
//! half-applied.

mod common;
mod topics_support;

use std::borrow::Cow;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::messages::alter_configs::{
    AlterConfigsRequest, AlterConfigsResource, AlterConfigsResponse, AlterableConfig,
};
use kacl_protocol::messages::describe_configs::{
    DescribeConfigsRequest, DescribeConfigsResource, DescribeConfigsResponse,
};
use kacl_protocol::messages::incremental_alter_configs as iac;
use kacl_protocol::IntoStatic;
use kacl_topics::KAFKA_PASSWORD_CONFIGS;
use topics_support::*;

const TOPIC: i8 = 2;
const BROKER: i8 = 4;
const BROKER_LOGGER: i8 = 8;
const SET: i8 = 0;

fn op(name: &str, value: Option<&str>) -> iac::AlterableConfig<'static> {
    iac::AlterableConfig {
        name: Cow::Owned(name.to_owned()),
        config_operation: SET,
        value: value.map(|v| Cow::Owned(v.to_owned())),
        ..Default::default()
    }
}

async fn incremental(
    client: &mut Client,
    resources: Vec<(i8, String, Vec<iac::AlterableConfig<'static>>)>,
) -> Vec<(i16, Option<String>)> {
    let request = iac::IncrementalAlterConfigsRequest {
        resources: resources
            .into_iter()
            .map(|(t, n, configs)| iac::AlterConfigsResource {
                resource_type: t,
                resource_name: Cow::Owned(n),
                configs,
                ..Default::default()
            })
            .collect(),
        validate_only: false,
        ..Default::default()
    };
    let payload = client.call(1, &request).await;
    let response: iac::IncrementalAlterConfigsResponse = decode(&payload, 1);
    response
        .responses
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref().map(str::to_owned)))
        .collect()
}

async fn topic_value(client: &mut Client, topic: &str, key: &str) -> Option<String> {
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: TOPIC,
            resource_name: Cow::Owned(topic.to_owned()),
            configuration_keys: Some(vec![Cow::Owned(key.to_owned())]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let payload = client.call(4, &request).await;
    let response = decode::<DescribeConfigsResponse>(&payload, 4).into_static();
    let result = &response.results[0];
    assert_eq!(result.error_code, 0, "{:?}", result.error_message);
    result.configs[0].value.as_deref().map(str::to_owned)
}

#[tokio::test]
async fn authorization_is_decided_before_names_keys_and_values_are_looked_at() {
    let server = start(NOT_SUPER).await;
    let mut client = server.client().await;
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::Create,
    );
    create_ok(&mut client, vec![topic("t", 1, 1)]).await;
    let cluster_refused = (31, Some("Cluster authorization failed.".to_owned()));
    let topic_refused = (29, Some("Topic authorization failed.".to_owned()));
    // Each would be INVALID_REQUEST or INVALID_CONFIG for a principal allowed to alter.
    let got = incremental(
        &mut client,
        vec![
            (BROKER, "1".into(), vec![op("num.partitions", Some("2"))]),
            (BROKER, "x".into(), vec![]),
            (BROKER, "7".into(), vec![op("a", Some("1")), op("a", None)]),
            (BROKER, "".into(), vec![op("sasl.jaas.config", None)]),
            (BROKER_LOGGER, "1".into(), vec![op("root", Some("DEBUG"))]),
            (TOPIC, "t".into(), vec![op("retention.ms", Some("soon"))]),
            (TOPIC, "t2".into(), vec![op("no.such.key", None)]),
            (TOPIC, "bad name!".into(), vec![]),
        ],
    )
    .await;
    let mut expected = vec![cluster_refused.clone(); 5];
    expected.extend(vec![topic_refused.clone(); 3]);
    assert_eq!(got, expected);

    let legacy = AlterConfigsRequest {
        resources: vec![
            AlterConfigsResource {
                resource_type: BROKER,
                resource_name: "x".into(),
                configs: vec![AlterableConfig {
                    name: "num.partitions".into(),
                    value: None,
                    ..Default::default()
                }],
                ..Default::default()
            },
            AlterConfigsResource {
                resource_type: TOPIC,
                resource_name: "t".into(),
                configs: vec![AlterableConfig {
                    name: "retention.ms".into(),
                    value: None,
                    ..Default::default()
                }],
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let payload = client.call(2, &legacy).await;
    let response: AlterConfigsResponse = decode(&payload, 2);
    let got: Vec<(i16, Option<String>)> = response
        .responses
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref().map(str::to_owned)))
        .collect();
    assert_eq!(got, [cluster_refused, topic_refused]);
}

#[tokio::test]
async fn every_kafka_password_key_stays_off_the_wire() {
    // Keys kacl itself parses (ssl.*, sasl.jaas.config) go under a listener that does not
    // exist; the others as they are, since kacl ignores them.
    let mut owned: Vec<(String, String)> = Vec::new();
    for (i, key) in KAFKA_PASSWORD_CONFIGS.iter().enumerate() {
        let secret = format!("s3cret-{i:02}-value");
        if key.starts_with("ssl.") || *key == "sasl.jaas.config" {
            owned.push((format!("listener.name.elsewhere.{key}"), secret.clone()));
        } else {
            owned.push(((*key).to_owned(), secret.clone()));
        }
    }
    owned.push((
        "listener.name.elsewhere.scram-sha-256.sasl.jaas.config".into(),
        "s3cret-jaas-mech".into(),
    ));
    let properties: Vec<(&str, &str)> = owned
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let server = start(&properties).await;
    let mut client = server.client().await;
    for version in 0..=4 {
        let request = DescribeConfigsRequest {
            resources: vec![DescribeConfigsResource {
                resource_type: BROKER,
                resource_name: "1".into(),
                configuration_keys: None,
                ..Default::default()
            }],
            include_synonyms: version >= 1,
            include_documentation: version >= 3,
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        assert!(
            !payload.windows(6).any(|w| w == b"s3cret"),
            "v{version}: a secret is in the response bytes"
        );
        let response = decode::<DescribeConfigsResponse>(&payload, version).into_static();
        for (key, _) in &owned {
            let entry = response.results[0]
                .configs
                .iter()
                .find(|c| c.name == key.as_str())
                .unwrap_or_else(|| panic!("v{version}: no {key}"));
            assert!(entry.is_sensitive && entry.value.is_none(), "{key}");
        }
    }
}

#[tokio::test]
async fn thousands_of_resources_and_huge_values_are_answered_per_resource() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("orders", 1, 1)]).await;
    // The longest string the protocol carries.
    let huge = "9".repeat(i16::MAX as usize);
    let mut resources: Vec<(i8, String, Vec<iac::AlterableConfig<'static>>)> = (0..3_000)
        .map(|i| {
            (
                TOPIC,
                format!("missing-{i}"),
                vec![op("retention.ms", Some("1"))],
            )
        })
        .collect();
    // A valid change and a huge invalid one on the same topic: neither is applied.
    resources.push((
        TOPIC,
        "orders".into(),
        vec![
            op("segment.ms", Some("123456")),
            op("retention.ms", Some(&huge)),
        ],
    ));
    let got = incremental(&mut client, resources).await;
    assert_eq!(got.len(), 3_001);
    assert!(
        got[..3_000].iter().all(|(code, _)| *code == 3),
        "UNKNOWN_TOPIC_OR_PARTITION"
    );
    assert_eq!(got[3_000].0, 40, "INVALID_CONFIG");
    assert_eq!(
        topic_value(&mut client, "orders", "segment.ms")
            .await
            .as_deref(),
        Some("604800000"),
        "nothing half-applied"
    );
    assert_eq!(
        topic_value(&mut client, "orders", "retention.ms")
            .await
            .as_deref(),
        Some("604800000")
    );
}
