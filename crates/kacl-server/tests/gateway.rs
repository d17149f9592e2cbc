//! Gateway mode over TCP, with a real upstream: a standalone kacl node (which serves the
//! Metadata, topic and config APIs, but none of the data path) behind a gateway node whose
//! clients log in with SASL PLAIN. What the gateway offers, how it shows brokers, what it
//! refuses and what reaches the upstream; the data path (Produce, Fetch, groups,
//! transactions) is tested with real clients against Apache Kafka and Tansu in
//! tests/gateway.

mod common;
mod security_support;

use std::borrow::Cow;
use std::net::SocketAddr;

use common::*;
use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::create_topics::{
    CreatableTopic, CreateTopicsRequest, CreateTopicsResponse,
};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic, MetadataResponse};
use kacl_protocol::{ApiKey, ErrorCode};
use kacl_server::Server;
use security_support::{sasl_server, JAAS};

const CREATE: i8 = 5;

/// An upstream (standalone kacl, every client a super user) and a gateway in front of it.
async fn gateway_over_kacl() -> (TestServer, TestServer) {
    let upstream = start(&[]).await;
    let bootstrap = upstream.addr().to_string();
    let gateway = sasl_server(&[("kacl.gateway.upstream.bootstrap.servers", &bootstrap)]).await;
    (upstream, gateway)
}

async fn login(addr: SocketAddr, user: &str) -> Client {
    let mut client = Client::connect(addr).await;
    client.plain_login(user, &format!("{user}-secret")).await;
    client
}

async fn metadata(client: &mut Client, topics: Option<&[&str]>) -> MetadataResponse<'static> {
    let request = MetadataRequest {
        topics: topics.map(|names| {
            names
                .iter()
                .map(|n| MetadataRequestTopic {
                    name: Some(Cow::Owned(n.to_string())),
                    ..Default::default()
                })
                .collect()
        }),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let payload = client.call(12, &request).await;
    kacl_protocol::IntoStatic::into_static(decode::<MetadataResponse>(&payload, 12))
}

async fn create_topic(client: &mut Client, name: &str) -> i16 {
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: Cow::Owned(name.to_owned()),
            num_partitions: 1,
            replication_factor: 1,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let payload = client.call(7, &request).await;
    let response = decode::<CreateTopicsResponse>(&payload, 7);
    response.topics[0].error_code
}

fn topic_names(response: &MetadataResponse<'_>) -> Vec<String> {
    let mut names: Vec<String> = response
        .topics
        .iter()
        .map(|t| t.name.as_deref().unwrap_or_default().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn api_versions_offer_only_what_both_sides_serve() {
    let (_upstream, gateway) = gateway_over_kacl().await;
    let mut client = Client::connect(gateway.addr()).await;
    let payload = client.call(2, &ApiVersionsRequest::default()).await;
    let response = decode::<ApiVersionsResponse>(&payload, 2);
    let keys: Vec<i16> = response.api_keys.iter().map(|a| a.api_key).collect();
    // kacl's own APIs, and the upstream's admin APIs the gateway can authorize.
    for api in [
        ApiKey::DescribeAcls,
        ApiKey::CreateAcls,
        ApiKey::SaslHandshake,
        ApiKey::Metadata,
        ApiKey::CreateTopics,
        ApiKey::DescribeConfigs,
    ] {
        assert!(keys.contains(&api.key()), "{api} offered: {keys:?}");
    }
    // The upstream (a standalone kacl) serves no data path: nothing of it is offered.
    for api in [
        ApiKey::Produce,
        ApiKey::Fetch,
        ApiKey::JoinGroup,
        ApiKey::InitProducerId,
    ] {
        assert!(
            !keys.contains(&api.key()),
            "{api} must not be offered: {keys:?}"
        );
    }
    let metadata = response
        .api_keys
        .iter()
        .find(|a| a.api_key == ApiKey::Metadata.key())
        .unwrap();
    assert_eq!(
        (metadata.min_version, metadata.max_version),
        (4, 13),
        "Metadata from v4 (auto-creation can be refused) to both sides' max"
    );
}

#[tokio::test]
async fn brokers_are_shown_at_gateway_ports_and_topics_are_filtered() {
    let (upstream, gateway) = gateway_over_kacl().await;
    let mut direct = upstream.client().await;
    for topic in ["visible", "hidden"] {
        assert_eq!(create_topic(&mut direct, topic).await, 0);
    }
    let mut admin = login(gateway.addr(), "admin").await;
    let acl = creation(
        TOPIC,
        "visible",
        LITERAL,
        "User:alice",
        "*",
        DESCRIBE,
        ALLOW,
    );
    assert_eq!(admin.create(3, vec![acl]).await.results[0].error_code, 0);

    let mut alice = login(gateway.addr(), "alice").await;
    let all = metadata(&mut alice, None).await;
    assert_eq!(
        topic_names(&all),
        ["visible"],
        "an all-topics list is filtered"
    );
    let node_port = gateway
        .server
        .listeners()
        .iter()
        .find(|l| l.upstream_node == Some(1))
        .expect("a port for upstream node 1")
        .local_addr
        .port();
    let brokers: Vec<(i32, i32)> = all.brokers.iter().map(|b| (b.node_id, b.port)).collect();
    assert_eq!(brokers, [(1, i32::from(node_port))]);
    assert_ne!(i32::from(upstream.addr().port()), brokers[0].1);

    let named = metadata(&mut alice, Some(&["visible", "hidden", "missing"])).await;
    let codes: Vec<(String, i16)> = named
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_deref().unwrap_or_default().to_owned(),
                t.error_code,
            )
        })
        .collect();
    assert!(codes.contains(&("visible".into(), 0)), "{codes:?}");
    assert!(
        codes.contains(&("hidden".into(), ErrorCode::TopicAuthorizationFailed.code())),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("missing".into(), ErrorCode::TopicAuthorizationFailed.code())),
        "a topic the principal may not describe is not said to be missing: {codes:?}"
    );

    // The per-broker port serves the same principal and the same rules.
    let mut on_node = login(SocketAddr::new(gateway.addr().ip(), node_port), "alice").await;
    assert_eq!(
        topic_names(&metadata(&mut on_node, None).await),
        ["visible"]
    );
}

#[tokio::test]
async fn a_refused_creation_never_reaches_the_upstream() {
    let (upstream, gateway) = gateway_over_kacl().await;
    let mut admin = login(gateway.addr(), "admin").await;
    let acl = creation(TOPIC, "granted", LITERAL, "User:alice", "*", CREATE, ALLOW);
    assert_eq!(admin.create(3, vec![acl]).await.results[0].error_code, 0);
    let mut alice = login(gateway.addr(), "alice").await;
    assert_eq!(
        create_topic(&mut alice, "refused").await,
        ErrorCode::TopicAuthorizationFailed.code()
    );
    assert_eq!(create_topic(&mut alice, "granted").await, 0);
    let mut direct = upstream.client().await;
    assert_eq!(
        topic_names(&metadata(&mut direct, None).await),
        ["granted"],
        "only the granted topic exists upstream"
    );
}

#[tokio::test]
async fn a_revoked_acl_applies_to_the_next_request_of_an_open_connection() {
    let (upstream, gateway) = gateway_over_kacl().await;
    assert_eq!(
        create_topic(&mut upstream.client().await, "orders").await,
        0
    );
    let mut admin = login(gateway.addr(), "admin").await;
    let acl = creation(TOPIC, "orders", LITERAL, "User:alice", "*", DESCRIBE, ALLOW);
    assert_eq!(admin.create(3, vec![acl]).await.results[0].error_code, 0);
    let mut alice = login(gateway.addr(), "alice").await;
    assert_eq!(
        metadata(&mut alice, Some(&["orders"])).await.topics[0].error_code,
        0
    );
    let removed = admin
        .delete(
            3,
            vec![delete_filter(
                TOPIC,
                Some("orders"),
                LITERAL,
                Some("User:alice"),
                DESCRIBE,
                ALLOW,
            )],
        )
        .await;
    assert_eq!(removed.filter_results[0].matching_acls.len(), 1);
    assert_eq!(
        metadata(&mut alice, Some(&["orders"])).await.topics[0].error_code,
        ErrorCode::TopicAuthorizationFailed.code(),
        "the same connection's next request is refused"
    );
}

#[tokio::test]
async fn an_upstream_that_refuses_the_service_identity_stops_the_start() {
    let upstream = sasl_server(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let bootstrap = upstream.addr().to_string();
    let config = bare_config(
        dir.path(),
        &[
            ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
            ("sasl.jaas.config", JAAS),
            ("kacl.gateway.upstream.bootstrap.servers", &bootstrap),
            ("kacl.gateway.upstream.security.protocol", "SASL_PLAINTEXT"),
            ("kacl.gateway.upstream.sasl.mechanism", "PLAIN"),
            (
                "kacl.gateway.upstream.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required \
                 username=\"admin\" password=\"wrong\";",
            ),
        ],
    );
    let err = Server::start(config).await.expect_err("must not start");
    let text = err.to_string();
    assert!(text.contains(&bootstrap), "names the upstream: {text}");
    assert!(text.contains("PLAIN"), "names the mechanism: {text}");
    assert!(!text.contains("wrong"), "never the password: {text}");
}

#[tokio::test]
async fn a_client_of_a_stopped_upstream_is_disconnected_not_left_hanging() {
    let (upstream, gateway) = gateway_over_kacl().await;
    let mut alice = login(gateway.addr(), "admin").await;
    assert!(metadata(&mut alice, None).await.brokers.len() == 1);
    upstream.server.shutdown().await;
    let mut fresh = login(gateway.addr(), "admin").await;
    let request = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    fresh.send(12, &request).await;
    let answer = tokio::time::timeout(std::time::Duration::from_secs(20), fresh.read_frame())
        .await
        .expect("an answer or a close within the connect timeout");
    assert!(
        answer.is_none(),
        "the connection is closed, as a broker gone away"
    );
}

/// KIP-848 consumers learn their topics' ids from the heartbeat and look them up by id only:
/// an id the gateway has not seen is asked of the upstream and authorized on its name.
#[tokio::test]
async fn a_lookup_by_an_unseen_topic_id_is_resolved_upstream_and_authorized() {
    let (upstream, gateway) = gateway_over_kacl().await;
    let mut direct = upstream.client().await;
    for topic in ["visible", "hidden"] {
        assert_eq!(create_topic(&mut direct, topic).await, 0);
    }
    let ids = metadata(&mut direct, None).await;
    let id_of = |name: &str| {
        ids.topics
            .iter()
            .find(|t| t.name.as_deref() == Some(name))
            .expect("topic")
            .topic_id
    };
    let (visible, hidden) = (id_of("visible"), id_of("hidden"));
    let mut admin = login(gateway.addr(), "admin").await;
    let acl = creation(
        TOPIC,
        "visible",
        LITERAL,
        "User:alice",
        "*",
        DESCRIBE,
        ALLOW,
    );
    assert_eq!(admin.create(3, vec![acl]).await.results[0].error_code, 0);

    let mut alice = login(gateway.addr(), "alice").await;
    let request = MetadataRequest {
        topics: Some(
            [visible, hidden]
                .into_iter()
                .map(|topic_id| MetadataRequestTopic {
                    topic_id,
                    name: None,
                    ..Default::default()
                })
                .collect(),
        ),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let payload = alice.call(12, &request).await;
    let response = decode::<MetadataResponse>(&payload, 12);
    let by_id = |id| {
        response
            .topics
            .iter()
            .find(|t| t.topic_id == id)
            .map(|t| (t.name.as_deref().map(str::to_owned), t.error_code))
    };
    assert_eq!(by_id(visible), Some((Some("visible".to_owned()), 0)));
    assert_eq!(
        by_id(hidden),
        Some((None, ErrorCode::TopicAuthorizationFailed.code())),
        "refused, without its name"
    );

    // Now the gateway has seen both ids. As in Kafka 4.4, once one entry carries an id the
    // request is by id: a name alice may describe beside the hidden topic's id is answered
    // for the id (refused, no name, no partitions), never for the name.
    for entries in [
        vec![(Some("visible"), hidden)],
        vec![(None, hidden)],
        vec![(Some("visible"), kacl_protocol::Uuid::ZERO), (None, hidden)],
    ] {
        let request = MetadataRequest {
            topics: Some(
                entries
                    .iter()
                    .map(|(name, topic_id)| MetadataRequestTopic {
                        topic_id: *topic_id,
                        name: name.map(|n| Cow::Owned(n.to_owned())),
                        ..Default::default()
                    })
                    .collect(),
            ),
            allow_auto_topic_creation: false,
            ..Default::default()
        };
        let payload = alice.call(12, &request).await;
        let response = decode::<MetadataResponse>(&payload, 12);
        let answered: Vec<_> = response
            .topics
            .iter()
            .map(|t| (t.name.clone(), t.topic_id, t.error_code, t.partitions.len()))
            .collect();
        assert_eq!(
            answered,
            vec![(None, hidden, ErrorCode::TopicAuthorizationFailed.code(), 0)],
            "{entries:?}"
        );
    }
}

/// The service identity reaches a TLS upstream with the upstream client properties
/// (`kacl.gateway.upstream.security.protocol=SSL`, a PEM trust store); one that does not
/// trust the upstream's certificate never starts.
#[tokio::test]
async fn the_upstream_connection_speaks_tls_with_the_upstream_properties() {
    let pki = security_support::TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    let upstream = security_support::start(&[
        ("listeners", "SSL://127.0.0.1:0"),
        ("super.users", "User:ANONYMOUS"),
        ("ssl.keystore.location", &keystore),
    ])
    .await;
    let bootstrap = upstream.addr().to_string();
    let gateway = sasl_server(&[
        ("kacl.gateway.upstream.bootstrap.servers", &bootstrap),
        ("kacl.gateway.upstream.security.protocol", "SSL"),
        ("kacl.gateway.upstream.ssl.truststore.location", &truststore),
    ])
    .await;
    let mut admin = login(gateway.addr(), "admin").await;
    assert_eq!(create_topic(&mut admin, "over-tls").await, 0);
    assert_eq!(topic_names(&metadata(&mut admin, None).await), ["over-tls"]);

    // A trust store without the upstream's CA: refused at start, naming the protocol.
    let other = security_support::TestPki::new();
    let (_, untrusted) = other.server_files();
    let dir = tempfile::tempdir().unwrap();
    let untrusted = untrusted.display().to_string();
    let config = bare_config(
        dir.path(),
        &[
            ("listeners", "PLAINTEXT://127.0.0.1:0"),
            ("kacl.gateway.upstream.bootstrap.servers", &bootstrap),
            ("kacl.gateway.upstream.security.protocol", "SSL"),
            ("kacl.gateway.upstream.ssl.truststore.location", &untrusted),
        ],
    );
    let err = Server::start(config).await.expect_err("must not start");
    assert!(err.to_string().contains("SSL"), "{err}");
}

/// PEM text of one DER item (`CERTIFICATE`, `PRIVATE KEY`), 64 base64 characters a line.
fn pem_block(label: &str, der: &[u8]) -> String {
    use base64::Engine;
    let text = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in text.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// mTLS to the upstream: an upstream that requires client certificates
/// (`ssl.client.auth=required`) accepts the gateway's service identity from
/// `kacl.gateway.upstream.ssl.keystore.location` (a PEM key and chain, `ssl.keystore.type=PEM`)
/// and knows it by its certificate's subject (`User:CN=kaclgw`, a super user there); without
/// the keystore the gateway does not start.
#[tokio::test]
async fn the_upstream_connection_authenticates_with_a_client_certificate() {
    let pki = security_support::TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    let upstream = security_support::start(&[
        ("listeners", "SSL://127.0.0.1:0"),
        ("ssl.client.auth", "required"),
        ("ssl.truststore.location", &truststore),
        ("super.users", "User:CN=kaclgw"),
        ("ssl.keystore.location", &keystore),
    ])
    .await;
    let bootstrap = upstream.addr().to_string();
    let identity = pki.client(&[("CN", "kaclgw")]);
    let dir = tempfile::tempdir().unwrap();
    let client_pem = dir.path().join("kaclgw.pem");
    let mut text = pem_block("PRIVATE KEY", identity.key.secret_der());
    for cert in &identity.chain {
        text.push_str(&pem_block("CERTIFICATE", cert));
    }
    std::fs::write(&client_pem, text).unwrap();
    let client_pem = client_pem.display().to_string();
    let gateway = sasl_server(&[
        ("kacl.gateway.upstream.bootstrap.servers", &bootstrap),
        ("kacl.gateway.upstream.security.protocol", "SSL"),
        ("kacl.gateway.upstream.ssl.truststore.location", &truststore),
        ("kacl.gateway.upstream.ssl.keystore.type", "PEM"),
        ("kacl.gateway.upstream.ssl.keystore.location", &client_pem),
    ])
    .await;
    let mut admin = login(gateway.addr(), "admin").await;
    // CreateTopics needs CREATE on the cluster upstream: granted only to the super user
    // User:CN=kaclgw, so the upstream saw the gateway's certificate.
    assert_eq!(create_topic(&mut admin, "over-mtls").await, 0);
    assert_eq!(
        topic_names(&metadata(&mut admin, None).await),
        ["over-mtls"]
    );

    // Without a client certificate the upstream refuses the handshake: no start.
    let dir = tempfile::tempdir().unwrap();
    let config = bare_config(
        dir.path(),
        &[
            ("listeners", "PLAINTEXT://127.0.0.1:0"),
            ("kacl.gateway.upstream.bootstrap.servers", &bootstrap),
            ("kacl.gateway.upstream.security.protocol", "SSL"),
            ("kacl.gateway.upstream.ssl.truststore.location", &truststore),
        ],
    );
    let err = Server::start(config).await.expect_err("must not start");
    assert!(err.to_string().contains("SSL"), "{err}");
}

/// A forwarded request's latency runs until its answer from the upstream has been written to
/// the client, not just while the gateway plans it: a client that reads a large Metadata
/// answer only after a pause holds up the gateway's write, and the latency recorded covers it.
#[tokio::test]
async fn a_forwarded_answer_is_timed_until_it_is_written_to_the_client() {
    const PAUSE: std::time::Duration = std::time::Duration::from_millis(600);
    let upstream = start(&[]).await;
    let bootstrap = upstream.addr().to_string();
    let gateway = sasl_server(&[
        ("kacl.gateway.upstream.bootstrap.servers", &bootstrap),
        ("socket.send.buffer.bytes", "4096"),
    ])
    .await;
    // 3,000 partitions: a Metadata answer of about 80 KB, many times the socket buffers.
    let mut direct = upstream.client().await;
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: Cow::Borrowed("wide"),
            num_partitions: 3_000,
            replication_factor: 1,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let payload = direct.call(7, &request).await;
    assert_eq!(
        decode::<CreateTopicsResponse>(&payload, 7).topics[0].error_code,
        0
    );

    let mut reader = Client::with_small_window(gateway.addr()).await;
    reader.plain_login("admin", "admin-secret").await;
    let request = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic {
            name: Some(Cow::Borrowed("wide")),
            ..Default::default()
        }]),
        ..Default::default()
    };
    reader.send(12, &request).await;
    tokio::time::sleep(PAUSE).await;
    let payload = reader.read_frame().await.expect("the answer");
    let answer = decode::<MetadataResponse>(&payload, 12);
    assert_eq!(answer.topics[0].partitions.len(), 3_000);
    let latency = latency_after(&gateway, ApiKey::Metadata, 1).await;
    assert_eq!(latency.count, 1);
    assert!(
        std::time::Duration::from_nanos(latency.sum_nanos) >= PAUSE,
        "recorded {} ms for an answer the client read after {PAUSE:?}",
        latency.sum_nanos / 1_000_000
    );
}
