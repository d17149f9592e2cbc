//! The client against tiny fake brokers that advertise narrow version ranges, misbehave on
//! purpose, or answer out of order: version fallback (ACL APIs 1-1, KIP-511 ApiVersions
//! fallback, v0-only ACL APIs), unsupported APIs, retries, timeouts and pipelining.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation,
    AclPermissionType, PatternType, ResourcePattern, ResourcePatternFilter, ResourceType,
};
use kacl_client::{Admin, AdminConfig, AdminError, CreateAclsOptions, DescribeAclsOptions};
use kacl_protocol::frame::{encode_response_frame, RequestFrame};
use kacl_protocol::messages::api_versions::{ApiVersion, ApiVersionsResponse};
use kacl_protocol::messages::create_acls::{
    AclCreationResult, CreateAclsRequest, CreateAclsResponse,
};
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::messages::metadata::{MetadataResponse, MetadataResponseBroker};
use kacl_protocol::ApiKey;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake broker does.
#[derive(Clone)]
struct Behaviour {
    /// `(api, min, max)` advertised in ApiVersions.
    ranges: Vec<(ApiKey, i16, i16)>,
    /// Answer DescribeAcls with this top-level error this many times first.
    describe_errors: Arc<Mutex<Vec<i16>>>,
    /// Never answer DescribeAcls.
    silent_describe: bool,
    /// Collect this many DescribeAcls requests, then answer them in reverse order.
    reverse_batch: usize,
    /// Close the connection instead of answering this many DescribeAcls requests.
    hang_ups: Arc<Mutex<u32>>,
    /// Write the UNSUPPORTED_VERSION answer in the request's version instead of KIP-511's v0
    /// body, as librdkafka's mock cluster does.
    unsupported_in_request_version: bool,
}

impl Behaviour {
    fn with_ranges(ranges: &[(ApiKey, i16, i16)]) -> Self {
        Behaviour {
            ranges: ranges.to_vec(),
            describe_errors: Arc::default(),
            silent_describe: false,
            reverse_batch: 0,
            hang_ups: Arc::default(),
            unsupported_in_request_version: false,
        }
    }
}

/// Requests seen, as `(api key, version)`, and connections accepted.
#[derive(Default)]
struct Seen {
    requests: Vec<(i16, i16)>,
    connections: usize,
}

struct FakeBroker {
    addr: SocketAddr,
    seen: Arc<Mutex<Seen>>,
}

impl FakeBroker {
    async fn start(behaviour: Behaviour) -> FakeBroker {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                shared.lock().unwrap().connections += 1;
                tokio::spawn(serve(stream, behaviour.clone(), Arc::clone(&shared), addr));
            }
        });
        FakeBroker { addr, seen }
    }

    fn config(&self) -> AdminConfig {
        let mut config = AdminConfig::new([self.addr.to_string()]);
        config.retry_backoff = Duration::from_millis(5);
        config
    }

    fn requests(&self, api: ApiKey) -> Vec<i16> {
        let seen = self.seen.lock().unwrap();
        seen.requests
            .iter()
            .filter(|(key, _)| *key == api.key())
            .map(|(_, v)| *v)
            .collect()
    }
}

async fn read_frame(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    stream.read_exact(&mut size).await.ok()?;
    let mut payload = vec![0u8; i32::from_be_bytes(size) as usize];
    stream.read_exact(&mut payload).await.ok()?;
    Some(payload)
}

fn api_versions(behaviour: &Behaviour, error: i16) -> ApiVersionsResponse<'static> {
    ApiVersionsResponse {
        error_code: error,
        api_keys: behaviour
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
    }
}

/// One binding per DescribeAcls, named after the filter's resource name (so a reply can be
/// matched to its request).
fn describe_reply(request: &DescribeAclsRequest<'_>) -> DescribeAclsResponse<'static> {
    let name = request
        .resource_name_filter
        .as_deref()
        .unwrap_or("any")
        .to_owned();
    DescribeAclsResponse {
        resources: vec![DescribeAclsResource {
            resource_type: ResourceType::Topic.code(),
            resource_name: Cow::Owned(name),
            pattern_type: PatternType::Literal.code(),
            acls: kacl_protocol::SmallArray::one(AclDescription {
                principal: "User:alice".into(),
                host: "*".into(),
                operation: AclOperation::Read.code(),
                permission_type: AclPermissionType::Allow.code(),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    }
}

async fn serve(
    mut stream: TcpStream,
    behaviour: Behaviour,
    seen: Arc<Mutex<Seen>>,
    me: SocketAddr,
) {
    let mut held: Vec<(i32, i16, DescribeAclsResponse<'static>)> = Vec::new();
    while let Some(payload) = read_frame(&mut stream).await {
        let Ok(frame) = RequestFrame::parse(&payload) else {
            return;
        };
        let (version, id) = (frame.version(), frame.header.correlation_id);
        seen.lock()
            .unwrap()
            .requests
            .push((frame.api_key.key(), version));
        let mut out = Vec::new();
        match frame.api_key {
            ApiKey::ApiVersions => {
                let ours = behaviour
                    .ranges
                    .iter()
                    .find(|(api, _, _)| *api == ApiKey::ApiVersions)
                    .map_or(3, |(_, _, max)| *max);
                if version > ours {
                    // KIP-511: UNSUPPORTED_VERSION in a v0 body listing our ranges.
                    let body = api_versions(&behaviour, 35);
                    let written = if behaviour.unsupported_in_request_version {
                        version
                    } else {
                        0
                    };
                    encode_response_frame(&mut out, id, written, &body).unwrap();
                } else {
                    let body = api_versions(&behaviour, 0);
                    encode_response_frame(&mut out, id, version, &body).unwrap();
                }
            }
            ApiKey::Metadata => {
                let body = MetadataResponse {
                    brokers: vec![MetadataResponseBroker {
                        node_id: 1,
                        host: me.ip().to_string().into(),
                        port: i32::from(me.port()),
                        ..Default::default()
                    }],
                    controller_id: 1,
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version, &body).unwrap();
            }
            ApiKey::DescribeAcls => {
                if behaviour.silent_describe {
                    continue;
                }
                {
                    let mut hang_ups = behaviour.hang_ups.lock().unwrap();
                    if *hang_ups > 0 {
                        *hang_ups -= 1;
                        return;
                    }
                }
                let request: DescribeAclsRequest = frame.decode_body().unwrap();
                let mut body = describe_reply(&request);
                if let Some(code) = behaviour.describe_errors.lock().unwrap().pop() {
                    body = DescribeAclsResponse {
                        error_code: code,
                        error_message: Some("try again".into()),
                        ..Default::default()
                    };
                }
                if behaviour.reverse_batch > 0 {
                    held.push((id, version, body));
                    if held.len() == behaviour.reverse_batch {
                        for (id, version, body) in held.drain(..).rev() {
                            encode_response_frame(&mut out, id, version, &body).unwrap();
                        }
                    }
                } else {
                    encode_response_frame(&mut out, id, version, &body).unwrap();
                }
            }
            ApiKey::CreateAcls => {
                let request: CreateAclsRequest = frame.decode_body().unwrap();
                let body = CreateAclsResponse {
                    results: request
                        .creations
                        .iter()
                        .map(|_| AclCreationResult::default())
                        .collect(),
                    ..Default::default()
                };
                encode_response_frame(&mut out, id, version, &body).unwrap();
            }
            _ => return,
        }
        if stream.write_all(&out).await.is_err() {
            return;
        }
    }
}

const NARROW_ACLS: &[(ApiKey, i16, i16)] = &[
    (ApiKey::ApiVersions, 0, 3),
    (ApiKey::Metadata, 1, 1),
    (ApiKey::DescribeAcls, 1, 1),
    (ApiKey::CreateAcls, 1, 1),
    (ApiKey::DeleteAcls, 1, 1),
];

fn binding(name: &str, pattern_type: PatternType) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, name, pattern_type),
        AccessControlEntry::new(
            "User:alice",
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        ),
    )
}

fn topic_filter(name: &str, pattern_type: PatternType) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::new(ResourceType::Topic, Some(name), pattern_type),
        AccessControlEntryFilter::ANY,
    )
}

#[tokio::test]
async fn acl_calls_fall_back_to_the_brokers_narrow_ranges() {
    let broker = FakeBroker::start(Behaviour::with_ranges(NARROW_ACLS)).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let found = admin
        .describe_acls(
            topic_filter("orders", PatternType::Prefixed),
            DescribeAclsOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(found, [binding("orders", PatternType::Literal)]);
    let created = admin
        .create_acls(
            vec![
                binding("a", PatternType::Prefixed),
                binding("b", PatternType::Literal),
            ],
            CreateAclsOptions::default(),
        )
        .await;
    assert_eq!(created, [Ok(()), Ok(())]);
    assert_eq!(broker.requests(ApiKey::ApiVersions), [3]);
    assert_eq!(broker.requests(ApiKey::DescribeAcls), [1]);
    assert_eq!(broker.requests(ApiKey::Metadata), [1]);
    assert_eq!(broker.requests(ApiKey::CreateAcls), [1]);
    // The controller is the bootstrap broker: its connection is reused.
    assert_eq!(broker.seen.lock().unwrap().connections, 1);
}

#[tokio::test]
async fn api_versions_falls_back_per_kip_511() {
    let mut ranges = NARROW_ACLS.to_vec();
    ranges[0] = (ApiKey::ApiVersions, 0, 2);
    let broker = FakeBroker::start(Behaviour::with_ranges(&ranges)).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    assert_eq!(broker.requests(ApiKey::ApiVersions), [3, 2]);
    admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
}

/// librdkafka's mock cluster answers an ApiVersions version it does not serve in that
/// version's (flexible) encoding, not in KIP-511's v0 body: read like Kafka's Java client
/// does, at v0 and then at the version sent.
#[tokio::test]
async fn an_unsupported_version_answer_in_the_requests_own_version_is_read_too() {
    let mut ranges = NARROW_ACLS.to_vec();
    ranges[0] = (ApiKey::ApiVersions, 0, 2);
    let mut behaviour = Behaviour::with_ranges(&ranges);
    behaviour.unsupported_in_request_version = true;
    let broker = FakeBroker::start(behaviour).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    assert_eq!(broker.requests(ApiKey::ApiVersions), [3, 2]);
    admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_missing_api_is_a_clear_unsupported_error() {
    let broker = FakeBroker::start(Behaviour::with_ranges(&[(ApiKey::ApiVersions, 0, 3)])).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let err = admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "UNSUPPORTED_VERSION: the broker does not support DescribeAcls (API key 29)"
    );
    assert!(broker.requests(ApiKey::DescribeAcls).is_empty());
}

#[tokio::test]
async fn version_0_brokers_get_literal_filters_only() {
    let broker = FakeBroker::start(Behaviour::with_ranges(&[
        (ApiKey::ApiVersions, 0, 3),
        (ApiKey::DescribeAcls, 0, 0),
    ]))
    .await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let err = admin
        .describe_acls(
            topic_filter("t", PatternType::Prefixed),
            DescribeAclsOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "UNSUPPORTED_VERSION: Version 0 only supports literal resource pattern types"
    );
    assert!(
        broker.requests(ApiKey::DescribeAcls).is_empty(),
        "refused before sending"
    );
    let found = admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(broker.requests(ApiKey::DescribeAcls), [0]);
}

#[tokio::test]
async fn retriable_errors_are_retried_and_others_are_not() {
    let behaviour = Behaviour::with_ranges(NARROW_ACLS);
    // REQUEST_TIMED_OUT twice (retriable), then success.
    behaviour.describe_errors.lock().unwrap().extend([7, 7]);
    let broker = FakeBroker::start(behaviour.clone()).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
    assert_eq!(broker.requests(ApiKey::DescribeAcls).len(), 3);

    // CLUSTER_AUTHORIZATION_FAILED fails at once, with the broker's message.
    behaviour.describe_errors.lock().unwrap().push(31);
    let err = admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "CLUSTER_AUTHORIZATION_FAILED: try again");
    assert_eq!(broker.requests(ApiKey::DescribeAcls).len(), 4);
}

#[tokio::test]
async fn a_dropped_connection_is_replaced_and_the_call_retried() {
    let behaviour = Behaviour::with_ranges(NARROW_ACLS);
    *behaviour.hang_ups.lock().unwrap() = 2;
    let broker = FakeBroker::start(behaviour).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let found = admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(broker.requests(ApiKey::DescribeAcls).len(), 3);
    // Each hang-up cost a connection; each new one negotiated versions again.
    assert_eq!(broker.seen.lock().unwrap().connections, 3);
    assert_eq!(broker.requests(ApiKey::ApiVersions).len(), 3);
}

#[tokio::test]
async fn a_silent_broker_times_the_call_out() {
    let mut behaviour = Behaviour::with_ranges(NARROW_ACLS);
    behaviour.silent_describe = true;
    let broker = FakeBroker::start(behaviour).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let options = DescribeAclsOptions {
        timeout: Some(Duration::from_millis(200)),
    };
    let err = admin
        .describe_acls(AclBindingFilter::ANY, options)
        .await
        .unwrap_err();
    assert!(matches!(err, AdminError::Timeout { .. }), "{err:?}");
}

#[tokio::test]
async fn pipelined_requests_are_matched_by_correlation_id() {
    let mut behaviour = Behaviour::with_ranges(NARROW_ACLS);
    behaviour.reverse_batch = 8;
    let broker = FakeBroker::start(behaviour).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let mut calls = Vec::new();
    for i in 0..8 {
        let filter = topic_filter(&format!("topic-{i}"), PatternType::Literal);
        calls.push(tokio::spawn(
            admin.describe_acls(filter, DescribeAclsOptions::default()),
        ));
    }
    let mut names = HashMap::new();
    for (i, call) in calls.into_iter().enumerate() {
        let found = call.await.unwrap().unwrap();
        names.insert(i, found[0].pattern.name.clone());
    }
    for (i, name) in names {
        assert_eq!(name, format!("topic-{i}"));
    }
    // All eight were in flight at once on the one connection (the broker held every reply
    // until it had all eight requests).
    assert_eq!(broker.seen.lock().unwrap().connections, 1);
}

#[tokio::test]
async fn unknown_filters_and_indefinite_bindings_fail_locally() {
    let broker = FakeBroker::start(Behaviour::with_ranges(NARROW_ACLS)).await;
    let admin = Admin::connect(broker.config()).await.unwrap();
    let unknown = topic_filter("t", PatternType::Unknown);
    let err = admin
        .describe_acls(unknown, DescribeAclsOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "INVALID_REQUEST: The AclBindingFilter must not contain UNKNOWN elements."
    );
    let mut any_op = binding("t", PatternType::Literal);
    any_op.entry.operation = AclOperation::Any;
    let good = binding("t", PatternType::Literal);
    let results = admin
        .create_acls(
            vec![any_op, good.clone(), good],
            CreateAclsOptions::default(),
        )
        .await;
    assert_eq!(
        results[0].as_ref().unwrap_err().to_string(),
        "INVALID_REQUEST: Invalid ACL creation: Operation is ANY"
    );
    assert_eq!(results[1..], [Ok(()), Ok(())]);
    assert!(broker.requests(ApiKey::DescribeAcls).is_empty());
    assert_eq!(broker.requests(ApiKey::CreateAcls).len(), 1);
}
