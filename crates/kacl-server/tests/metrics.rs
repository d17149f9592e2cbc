//! `/metrics` over TCP: after a known sequence of requests (successes, per-entry errors, a
//! store failure, a denied request, a failed login, a rejected frame), a scrape shows exactly
//! those counts; the endpoint speaks just enough HTTP and stops with the server.

mod common;

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use kacl_protocol::messages::describe_acls::DescribeAclsResponse;
use kacl_protocol::messages::sasl_authenticate::SaslAuthenticateRequest;
use kacl_protocol::messages::sasl_handshake::SaslHandshakeRequest;
use kacl_sasl::plain::client_token;
use kacl_server::Server;
use kacl_store::MemoryStore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
    username=\"admin\" password=\"admin-secret\" user_alice=\"alice-secret\";";

/// Sends a raw HTTP request to the metrics endpoint; returns the whole answer.
async fn http(addr: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("metrics endpoint");
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer))
        .await
        .expect("answered in time")
        .unwrap();
    String::from_utf8(answer).expect("text")
}

async fn scrape(addr: SocketAddr) -> String {
    let answer = http(addr, b"GET /metrics HTTP/1.1\r\nHost: kacl\r\n\r\n").await;
    let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(
        head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"),
        "{head}"
    );
    assert!(
        head.contains(&format!("Content-Length: {}", body.len())),
        "{head}"
    );
    body.to_owned()
}

/// The value of the sample `series` (name and labels exactly as printed), if present.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

/// Scrapes until `series` reads `expected` (connection tasks end a moment after the client
/// sees the close); fails after a generous deadline.
async fn scrape_until(addr: SocketAddr, series: &str, expected: f64) -> String {
    for _ in 0..400 {
        let text = scrape(addr).await;
        if sample(&text, series) == Some(expected) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let text = scrape(addr).await;
    panic!("{series} never became {expected}:\n{text}");
}

#[tokio::test]
async fn a_scrape_counts_what_the_server_did() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(MemoryStore::new());
    let config = config(
        dir.path(),
        &[
            (
                "listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            ),
            ("super.users", "User:ANONYMOUS;User:admin"),
            ("sasl.jaas.config", JAAS),
            ("kacl.metrics.listen", "127.0.0.1:0"),
        ],
    );
    let server = Server::start_with_store(config, store.clone())
        .await
        .expect("starts");
    let metrics = server.metrics_addr().expect("metrics bound");
    let plaintext = server.local_addr("PLAINTEXT").unwrap();
    let sasl = server.local_addr("SASL_PLAINTEXT").unwrap();

    let before = scrape(metrics).await;
    assert_eq!(
        sample(&before, "kacl_connections_accepted_total"),
        Some(0.0)
    );
    assert_eq!(sample(&before, "kacl_acls"), Some(0.0));

    // PLAINTEXT (a super user): 3 DescribeAcls v3, 1 v1; CreateAcls with two valid entries and
    // one invalid (INVALID_REQUEST); then a CreateAcls the store fails (KAFKA_STORAGE_ERROR).
    let mut client = Client::connect(plaintext).await;
    for _ in 0..3 {
        assert_eq!(client.describe(3, &describe_all()).await.error_code, 0);
    }
    assert_eq!(client.describe(1, &describe_all()).await.error_code, 0);
    let created = client
        .create(
            3,
            vec![
                allow_read("orders", "User:alice"),
                allow_read("payments", "User:alice"),
                creation(TOPIC, "x", LITERAL, "alice-without-type", "*", READ, ALLOW),
            ],
        )
        .await;
    let codes: Vec<i16> = created.results.iter().map(|r| r.error_code).collect();
    assert_eq!(codes, [0, 0, 42]);
    store.set_fail_writes(true);
    let failed = client
        .create(2, vec![allow_read("audit", "User:bob")])
        .await;
    assert_eq!(failed.results[0].error_code, 56, "{failed:?}");
    store.set_fail_writes(false);

    // alice (not a super user, no Cluster:Describe) is refused a DescribeAcls.
    let mut alice = Client::connect(sasl).await;
    let handshake = SaslHandshakeRequest {
        mechanism: Cow::Borrowed("PLAIN"),
        ..Default::default()
    };
    alice.call(1, &handshake).await;
    let login = |password: &str| SaslAuthenticateRequest {
        auth_bytes: Cow::Owned(client_token("", "alice", password)),
        ..Default::default()
    };
    let answer = alice.call(1, &login("alice-secret")).await;
    assert_eq!(&answer[4..6], &[0, 0], "alice logged in");
    let payload = alice.call(3, &describe_all()).await;
    assert_eq!(decode::<DescribeAclsResponse>(&payload, 3).error_code, 31);

    // A failed login, and a frame for an API kacl does not serve.
    let mut intruder = Client::connect(sasl).await;
    intruder.call(1, &handshake).await;
    intruder.send(1, &login("wrong")).await;
    let _ = intruder.read_frame().await;
    assert!(intruder.is_closed().await);
    drop(intruder);
    let mut stranger = Client::connect(plaintext).await;
    stranger
        .send_raw(&[0, 0, 0, 10, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0])
        .await;
    assert!(stranger.is_closed().await);
    drop(stranger);

    // Four connections were accepted; the two refused ones end on their own.
    let text = scrape_until(metrics, "kacl_connections_open", 2.0).await;
    let expect = [
        ("kacl_requests_total{api=\"DescribeAcls\",version=\"3\"}", 4.0),
        ("kacl_requests_total{api=\"DescribeAcls\",version=\"1\"}", 1.0),
        ("kacl_requests_total{api=\"CreateAcls\",version=\"3\"}", 1.0),
        ("kacl_requests_total{api=\"CreateAcls\",version=\"2\"}", 1.0),
        ("kacl_requests_total{api=\"SaslHandshake\",version=\"1\"}", 2.0),
        ("kacl_requests_total{api=\"SaslAuthenticate\",version=\"1\"}", 2.0),
        (
            "kacl_request_errors_total{api=\"CreateAcls\",code=\"42\",error=\"INVALID_REQUEST\"}",
            1.0,
        ),
        (
            "kacl_request_errors_total{api=\"CreateAcls\",code=\"56\",error=\"KAFKA_STORAGE_ERROR\"}",
            1.0,
        ),
        (
            "kacl_request_errors_total{api=\"DescribeAcls\",code=\"31\",error=\"CLUSTER_AUTHORIZATION_FAILED\"}",
            1.0,
        ),
        ("kacl_request_duration_seconds_count{api=\"DescribeAcls\"}", 5.0),
        (
            "kacl_request_duration_seconds_bucket{api=\"DescribeAcls\",le=\"+Inf\"}",
            5.0,
        ),
        ("kacl_requests_rejected_total", 1.0),
        ("kacl_connections_accepted_total", 4.0),
        ("kacl_connections_refused_total", 0.0),
        ("kacl_authentication_failures_total", 1.0),
        ("kacl_authorizer_decisions_total{result=\"denied\"}", 1.0),
        ("kacl_acls", 2.0),
        ("kacl_topics", 0.0),
        (
            "kacl_store_commit_duration_seconds_count{operation=\"acls\"}",
            2.0,
        ),
        ("kacl_store_commit_failures_total{operation=\"acls\"}", 1.0),
        ("kacl_store_commit_failures_total{operation=\"topics\"}", 0.0),
    ];
    for (series, value) in expect {
        assert_eq!(sample(&text, series), Some(value), "{series} in\n{text}");
    }
    // Every DescribeAcls and CreateAcls of the super user was an audited ALLOWED decision.
    let allowed = sample(&text, "kacl_authorizer_decisions_total{result=\"allowed\"}").unwrap();
    assert!(allowed >= 6.0, "{allowed}");
    // No error series for APIs that had none, and no code-0 "errors".
    assert!(!text.contains("code=\"0\""), "{text}");
    assert!(!text.contains("api=\"Metadata\""), "{text}");

    // Closing the last connections brings the gauge to zero.
    drop((client, alice));
    scrape_until(metrics, "kacl_connections_open", 0.0).await;

    // Just enough HTTP.
    let not_found = http(metrics, b"GET / HTTP/1.1\r\n\r\n").await;
    assert!(not_found.starts_with("HTTP/1.1 404 "), "{not_found}");
    let post = http(
        metrics,
        b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
    )
    .await;
    assert!(
        post.starts_with("HTTP/1.1 405 ") && post.contains("Allow: GET"),
        "{post}"
    );
    let huge = http(metrics, &[b'a'; 20_000]).await;
    assert!(huge.starts_with("HTTP/1.1 431 "), "{huge}");
    let with_query = http(metrics, b"GET /metrics?x=1 HTTP/1.0\n\n").await;
    assert!(with_query.starts_with("HTTP/1.1 200 OK"), "{with_query}");

    // The endpoint stops with the server (and does not hold the shutdown up).
    tokio::time::timeout(Duration::from_secs(8), server.shutdown())
        .await
        .expect("shutdown finishes well within its grace period");
    assert!(TcpStream::connect(metrics).await.is_err());
}

#[tokio::test]
async fn without_the_key_nothing_listens() {
    let server = start(&[]).await;
    assert_eq!(server.server.metrics_addr(), None);
}

#[tokio::test]
async fn an_unbindable_metrics_address_refuses_to_start() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &[("kacl.metrics.listen", &address)]);
    let error = Server::start(config).await.expect_err("port in use");
    assert!(error.to_string().contains("kacl.metrics.listen"), "{error}");
}
