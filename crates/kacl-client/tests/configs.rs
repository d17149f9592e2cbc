//! The config calls against small fake clusters that advertise chosen version ranges: the
//! version picked, what is sent at each version (v0's `is_default` read back as Kafka's client
//! reads it), routing of broker-scoped resources to their own broker, per-resource errors and
//! results the broker leaves out.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kacl_client::{
    Admin, AdminConfig, AdminError, AlterConfigOp, AlterConfigOpType, AlterConfigsOptions,
    ConfigResource, ConfigResourceType, ConfigSource, ConfigType, DescribeConfigsOptions,
};
use kacl_protocol::frame::{encode_response_frame, RequestFrame};
use kacl_protocol::messages::alter_configs::{
    AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse,
};
use kacl_protocol::messages::api_versions::{ApiVersion, ApiVersionsResponse};
use kacl_protocol::messages::describe_configs::{
    DescribeConfigsRequest, DescribeConfigsResourceResult, DescribeConfigsResponse,
    DescribeConfigsResult, DescribeConfigsSynonym,
};
use kacl_protocol::messages::incremental_alter_configs as iac;
use kacl_protocol::messages::metadata::{MetadataResponse, MetadataResponseBroker};
use kacl_protocol::{ApiKey, ErrorCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request a fake broker saw: node id, API, version and the resources it named.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    node: i32,
    api: ApiKey,
    version: i16,
    resources: Vec<(i8, String)>,
    /// For IncrementalAlterConfigs: `(name, op, value)` of every change; for AlterConfigs the
    /// op is -1.
    changes: Vec<(String, i8, Option<String>)>,
    flags: (bool, bool),
}

#[derive(Clone)]
struct Cluster {
    /// `(node id, address)` of every broker, as Metadata reports them.
    brokers: Arc<Mutex<Vec<(i32, SocketAddr)>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    ranges: Vec<(ApiKey, i16, i16)>,
}

impl Cluster {
    async fn start(nodes: &[i32], ranges: &[(ApiKey, i16, i16)]) -> Cluster {
        let cluster = Cluster {
            brokers: Arc::default(),
            seen: Arc::default(),
            ranges: ranges.to_vec(),
        };
        for &node in nodes {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            cluster.brokers.lock().unwrap().push((node, addr));
            let shared = cluster.clone();
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(serve(stream, node, shared.clone()));
                }
            });
        }
        cluster
    }

    async fn admin(&self) -> Admin {
        let first = self.brokers.lock().unwrap()[0].1;
        let mut config = AdminConfig::new([first.to_string()]);
        config.retry_backoff = Duration::from_millis(5);
        config.default_api_timeout = Duration::from_secs(5);
        Admin::connect(config).await.unwrap()
    }

    fn seen(&self, api: ApiKey) -> Vec<Seen> {
        let seen = self.seen.lock().unwrap();
        seen.iter().filter(|s| s.api == api).cloned().collect()
    }
}

async fn read_frame(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    stream.read_exact(&mut size).await.ok()?;
    let mut payload = vec![0u8; i32::from_be_bytes(size) as usize];
    stream.read_exact(&mut payload).await.ok()?;
    Some(payload)
}

/// The entries every described resource gets: a topic override with a synonym, a default,
/// and a sensitive one. A resource named `missing` is left out of the response, one named
/// `denied` gets TOPIC_AUTHORIZATION_FAILED.
fn describe_result(resource_type: i8, name: &str, node: i32) -> DescribeConfigsResult<'static> {
    if name == "denied" {
        return DescribeConfigsResult {
            error_code: ErrorCode::TopicAuthorizationFailed.code(),
            error_message: Some("Topic authorization failed.".into()),
            resource_type,
            resource_name: Cow::Owned(name.to_owned()),
            ..Default::default()
        };
    }
    let entry = |name: &str, value: Option<&str>, source: i8, is_default: bool| {
        DescribeConfigsResourceResult {
            name: Cow::Owned(name.to_owned()),
            value: value.map(|v| Cow::Owned(v.to_owned())),
            is_default,
            config_source: source,
            is_sensitive: value.is_none(),
            config_type: 5,
            documentation: Some(format!("doc of {name} on node {node}").into()),
            synonyms: vec![DescribeConfigsSynonym {
                name: Cow::Owned(format!("log.{name}")),
                value: value.map(|v| Cow::Owned(v.to_owned())),
                source,
                ..Default::default()
            }],
            ..Default::default()
        }
    };
    DescribeConfigsResult {
        resource_type,
        resource_name: Cow::Owned(name.to_owned()),
        configs: vec![
            entry("retention.ms", Some("1000"), 1, false),
            entry("segment.ms", Some("604800000"), 5, true),
            entry("secret", None, 4, false),
        ],
        ..Default::default()
    }
}

async fn serve(mut stream: TcpStream, node: i32, cluster: Cluster) {
    while let Some(payload) = read_frame(&mut stream).await {
        let Ok(frame) = RequestFrame::parse(&payload) else {
            return;
        };
        let (version, id) = (frame.version(), frame.header.correlation_id);
        let mut seen = Seen {
            node,
            api: frame.api_key,
            version,
            resources: Vec::new(),
            changes: Vec::new(),
            flags: (false, false),
        };
        let mut out = Vec::new();
        match frame.api_key {
            ApiKey::ApiVersions => {
                let body = ApiVersionsResponse {
                    api_keys: cluster
                        .ranges
                        .iter()
                        .map(|(api, min, max)| ApiVersion {
                            api_key: api.key(),
                            min_version: *min,
                            max_version: *max,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version.min(3), &body).unwrap();
            }
            ApiKey::Metadata => {
                let brokers = cluster.brokers.lock().unwrap().clone();
                let body = MetadataResponse {
                    brokers: brokers
                        .iter()
                        .map(|(node, addr)| MetadataResponseBroker {
                            node_id: *node,
                            host: addr.ip().to_string().into(),
                            port: i32::from(addr.port()),
                            ..Default::default()
                        })
                        .collect(),
                    controller_id: brokers[0].0,
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version, &body).unwrap();
            }
            ApiKey::DescribeConfigs => {
                let request: DescribeConfigsRequest = frame.decode_body().unwrap();
                seen.flags = (request.include_synonyms, request.include_documentation);
                seen.resources = request
                    .resources
                    .iter()
                    .map(|r| (r.resource_type, r.resource_name.to_string()))
                    .collect();
                seen.changes = request
                    .resources
                    .iter()
                    .flat_map(|r| r.configuration_keys.iter().flatten())
                    .map(|k| (k.to_string(), 0, None))
                    .collect();
                let mut results: Vec<_> = request
                    .resources
                    .iter()
                    .filter(|r| r.resource_name != "missing")
                    .map(|r| describe_result(r.resource_type, &r.resource_name, node))
                    .collect();
                for config in results.iter_mut().flat_map(|r| r.configs.iter_mut()) {
                    if version > 0 {
                        config.is_default = false;
                    }
                }
                let body = DescribeConfigsResponse {
                    results,
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version, &body).unwrap();
            }
            ApiKey::IncrementalAlterConfigs => {
                let request: iac::IncrementalAlterConfigsRequest = frame.decode_body().unwrap();
                seen.flags = (request.validate_only, false);
                seen.resources = request
                    .resources
                    .iter()
                    .map(|r| (r.resource_type, r.resource_name.to_string()))
                    .collect();
                seen.changes = request
                    .resources
                    .iter()
                    .flat_map(|r| r.configs.iter())
                    .map(|c| {
                        let value = c.value.as_deref().map(str::to_owned);
                        (c.name.to_string(), c.config_operation, value)
                    })
                    .collect();
                let body = iac::IncrementalAlterConfigsResponse {
                    responses: request
                        .resources
                        .iter()
                        .map(|r| iac::AlterConfigsResourceResponse {
                            error_code: if r.resource_name == "denied" { 29 } else { 0 },
                            resource_type: r.resource_type,
                            resource_name: r.resource_name.clone(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version, &body).unwrap();
            }
            ApiKey::AlterConfigs => {
                let request: AlterConfigsRequest = frame.decode_body().unwrap();
                seen.flags = (request.validate_only, false);
                seen.resources = request
                    .resources
                    .iter()
                    .map(|r| (r.resource_type, r.resource_name.to_string()))
                    .collect();
                seen.changes = request
                    .resources
                    .iter()
                    .flat_map(|r| r.configs.iter())
                    .map(|c| {
                        (
                            c.name.to_string(),
                            -1,
                            c.value.as_deref().map(str::to_owned),
                        )
                    })
                    .collect();
                let body = AlterConfigsResponse {
                    responses: request
                        .resources
                        .iter()
                        .map(|r| AlterConfigsResourceResponse {
                            error_code: if r.resource_name == "denied" { 29 } else { 0 },
                            error_message: (r.resource_name == "denied")
                                .then(|| "Topic authorization failed.".into()),
                            resource_type: r.resource_type,
                            resource_name: r.resource_name.clone(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version, &body).unwrap();
            }
            _ => return,
        }
        cluster.seen.lock().unwrap().push(seen);
        if stream.write_all(&out).await.is_err() {
            return;
        }
    }
}

fn ranges(
    describe: (i16, i16),
    alter: (i16, i16),
    incremental: (i16, i16),
) -> Vec<(ApiKey, i16, i16)> {
    vec![
        (ApiKey::ApiVersions, 0, 3),
        (ApiKey::Metadata, 1, 12),
        (ApiKey::DescribeConfigs, describe.0, describe.1),
        (ApiKey::AlterConfigs, alter.0, alter.1),
        (
            ApiKey::IncrementalAlterConfigs,
            incremental.0,
            incremental.1,
        ),
    ]
}

#[tokio::test]
async fn describe_at_v4_reads_every_field() {
    let cluster = Cluster::start(&[1], &ranges((0, 4), (0, 2), (0, 1))).await;
    let admin = cluster.admin().await;
    let options = DescribeConfigsOptions {
        include_synonyms: true,
        include_documentation: true,
        ..Default::default()
    };
    let results = admin
        .describe_configs(vec![ConfigResource::topic("orders")], options)
        .await;
    let entries = results[0].as_ref().unwrap();
    assert_eq!(entries.len(), 3);
    let retention = &entries[0];
    assert_eq!(retention.name, "retention.ms");
    assert_eq!(retention.value.as_deref(), Some("1000"));
    assert_eq!(retention.source, ConfigSource::DynamicTopicConfig);
    assert_eq!(retention.config_type, ConfigType::Long);
    assert_eq!(
        retention.documentation.as_deref(),
        Some("doc of retention.ms on node 1")
    );
    assert_eq!(retention.synonyms[0].name, "log.retention.ms");
    assert_eq!(
        retention.synonyms[0].source,
        ConfigSource::DynamicTopicConfig
    );
    assert!(entries[1].is_default());
    assert!(entries[2].is_sensitive && entries[2].value.is_none());
    let seen = cluster.seen(ApiKey::DescribeConfigs);
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].version, seen[0].flags), (4, (true, true)));
}

#[tokio::test]
async fn describe_at_v0_derives_sources_from_is_default() {
    let cluster = Cluster::start(&[1], &ranges((0, 0), (0, 0), (0, 0))).await;
    let admin = cluster.admin().await;
    let results = admin
        .describe_configs(
            vec![ConfigResource::topic("orders"), ConfigResource::broker("1")],
            DescribeConfigsOptions::default(),
        )
        .await;
    let topic = results[0].as_ref().unwrap();
    assert_eq!(topic[0].source, ConfigSource::DynamicTopicConfig);
    assert_eq!(topic[1].source, ConfigSource::DefaultConfig);
    assert_eq!(topic[0].config_type, ConfigType::Unknown);
    assert_eq!(topic[0].documentation, None);
    assert!(topic[0].synonyms.is_empty());
    let broker = results[1].as_ref().unwrap();
    assert_eq!(broker[0].source, ConfigSource::StaticBrokerConfig);
    assert!(cluster
        .seen(ApiKey::DescribeConfigs)
        .iter()
        .all(|s| s.version == 0));
}

#[tokio::test]
async fn options_the_broker_cannot_honour_are_refused_not_dropped() {
    let cluster = Cluster::start(&[1], &ranges((1, 2), (0, 2), (0, 1))).await;
    let admin = cluster.admin().await;
    let options = DescribeConfigsOptions {
        include_documentation: true,
        ..Default::default()
    };
    let results = admin
        .describe_configs(vec![ConfigResource::topic("orders")], options)
        .await;
    match &results[0] {
        Err(AdminError::UnsupportedVersion { api, detail }) => {
            assert_eq!(*api, ApiKey::DescribeConfigs);
            assert!(detail.contains("v3+"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    assert!(cluster.seen(ApiKey::DescribeConfigs).is_empty());
    // Without documentation, v2 is used and the key filter is sent.
    let options = DescribeConfigsOptions {
        include_synonyms: true,
        configuration_keys: Some(vec!["retention.ms".into()]),
        ..Default::default()
    };
    let results = admin
        .describe_configs(vec![ConfigResource::topic("orders")], options)
        .await;
    assert!(results[0].is_ok());
    let seen = cluster.seen(ApiKey::DescribeConfigs);
    assert_eq!((seen[0].version, seen[0].flags), (2, (true, false)));
    assert_eq!(seen[0].changes, [("retention.ms".to_owned(), 0, None)]);
}

#[tokio::test]
async fn broker_resources_go_to_their_own_broker() {
    let cluster = Cluster::start(&[1, 2], &ranges((0, 4), (0, 2), (0, 1))).await;
    let admin = cluster.admin().await;
    let logger = ConfigResource {
        resource_type: ConfigResourceType::BrokerLogger,
        name: "2".into(),
    };
    let results = admin
        .describe_configs(
            vec![
                ConfigResource::broker("2"),
                ConfigResource::topic("orders"),
                ConfigResource::broker(""),
                logger.clone(),
                ConfigResource::broker("1"),
                ConfigResource::topic("orders"),
                ConfigResource::broker("7"),
                ConfigResource::broker("one"),
            ],
            DescribeConfigsOptions::default(),
        )
        .await;
    assert_eq!(results.len(), 8);
    assert!(results[..6].iter().all(Result::is_ok), "{results:?}");
    assert_eq!(
        results[1], results[5],
        "a repeated resource shares its result"
    );
    match &results[6] {
        Err(AdminError::Server { code, message }) => {
            assert_eq!(*code, ErrorCode::BrokerNotAvailable);
            assert_eq!(message, "Broker 7 is not in the cluster metadata");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&results[7], Err(AdminError::InvalidRequest(_))));
    let mut seen: Vec<(i32, Vec<(i8, String)>)> = cluster
        .seen(ApiKey::DescribeConfigs)
        .into_iter()
        .map(|s| (s.node, s.resources))
        .collect();
    seen.sort();
    // Topics and the default went to the bootstrap broker (1) together; broker 1 separately.
    assert_eq!(
        seen,
        [
            (1, vec![(2, "orders".to_owned()), (4, String::new())]),
            (1, vec![(4, "1".to_owned())]),
            (2, vec![(4, "2".to_owned()), (8, "2".to_owned())]),
        ]
    );
}

#[tokio::test]
async fn per_resource_errors_and_missing_results_stay_per_resource() {
    let cluster = Cluster::start(&[1], &ranges((0, 4), (0, 2), (0, 1))).await;
    let admin = cluster.admin().await;
    let results = admin
        .describe_configs(
            vec![
                ConfigResource::topic("denied"),
                ConfigResource::topic("ok"),
                ConfigResource::topic("missing"),
            ],
            DescribeConfigsOptions::default(),
        )
        .await;
    assert_eq!(
        results[0],
        Err(AdminError::server(
            ErrorCode::TopicAuthorizationFailed,
            Some("Topic authorization failed.")
        ))
    );
    assert!(results[1].is_ok());
    assert_eq!(
        results[2].as_ref().unwrap_err().to_string(),
        "UNKNOWN_SERVER_ERROR: The node response did not contain a result for config \
         resource ConfigResource(type=TOPIC, name='missing')"
    );
}

#[tokio::test]
async fn incremental_alter_sends_ops_at_the_negotiated_version() {
    for max in [0, 1] {
        let cluster = Cluster::start(&[1], &ranges((0, 4), (0, 2), (0, max))).await;
        let admin = cluster.admin().await;
        let ops = vec![
            AlterConfigOp::set("retention.ms", "1000"),
            AlterConfigOp::delete("segment.ms"),
            AlterConfigOp {
                name: "cleanup.policy".into(),
                op: AlterConfigOpType::Append,
                value: Some("compact".into()),
            },
            AlterConfigOp {
                name: "cleanup.policy".into(),
                op: AlterConfigOpType::Subtract,
                value: Some("delete".into()),
            },
        ];
        let results = admin
            .incremental_alter_configs(
                vec![
                    (ConfigResource::topic("orders"), ops),
                    (ConfigResource::topic("denied"), vec![]),
                ],
                AlterConfigsOptions {
                    validate_only: true,
                    ..Default::default()
                },
            )
            .await;
        assert!(results[0].is_ok());
        assert_eq!(
            results[1].as_ref().unwrap_err().code(),
            Some(ErrorCode::TopicAuthorizationFailed)
        );
        let seen = cluster.seen(ApiKey::IncrementalAlterConfigs);
        assert_eq!((seen[0].version, seen[0].flags.0), (max, true));
        assert_eq!(
            seen[0].changes,
            [
                ("retention.ms".to_owned(), 0, Some("1000".to_owned())),
                ("segment.ms".to_owned(), 1, None),
                ("cleanup.policy".to_owned(), 2, Some("compact".to_owned())),
                ("cleanup.policy".to_owned(), 3, Some("delete".to_owned())),
            ]
        );
    }
}

#[tokio::test]
async fn alter_configs_replaces_whole_sets_per_broker() {
    let cluster = Cluster::start(&[1, 2], &ranges((0, 4), (0, 2), (0, 1))).await;
    let admin = cluster.admin().await;
    let results = admin
        .alter_configs(
            vec![
                (
                    ConfigResource::topic("orders"),
                    vec![("retention.ms".into(), "1000".into())],
                ),
                (ConfigResource::broker("2"), vec![]),
                (ConfigResource::topic("denied"), vec![]),
            ],
            AlterConfigsOptions::default(),
        )
        .await;
    assert!(results[0].is_ok() && results[1].is_ok());
    assert_eq!(
        results[2].as_ref().unwrap_err().to_string(),
        "TOPIC_AUTHORIZATION_FAILED: Topic authorization failed."
    );
    type Sent = (i32, i16, Vec<(i8, String)>);
    let mut seen: Vec<Sent> = cluster
        .seen(ApiKey::AlterConfigs)
        .into_iter()
        .map(|s| (s.node, s.version, s.resources))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (
                1,
                2,
                vec![(2, "orders".to_owned()), (2, "denied".to_owned())]
            ),
            (2, 2, vec![(4, "2".to_owned())]),
        ]
    );
}

#[tokio::test]
async fn a_broker_without_the_api_is_unsupported() {
    let cluster = Cluster::start(
        &[1],
        &[(ApiKey::ApiVersions, 0, 3), (ApiKey::Metadata, 1, 12)],
    )
    .await;
    let admin = cluster.admin().await;
    let results = admin
        .incremental_alter_configs(
            vec![(ConfigResource::topic("t"), vec![AlterConfigOp::delete("x")])],
            AlterConfigsOptions::default(),
        )
        .await;
    assert_eq!(
        results[0].as_ref().unwrap_err().to_string(),
        "UNSUPPORTED_VERSION: the broker does not support IncrementalAlterConfigs (API key 44)"
    );
}
