//! Hostile and broken input over real sockets: truncated, empty, negative and oversize frames,
//! unknown API keys and versions, garbage bodies, invalid UTF-8, huge array counts, requests
//! before SASL authentication, half-closed and stalled connections.
//!
//! Every case is followed by the same check ([`Fixture::unharmed`]): a connection opened before
//! the case and a fresh one both still get correct answers, and the stored ACL set (as a full
//! DescribeAcls shows it, and as the store itself holds it after a restart in the last test) is
//! exactly what it was before.

mod common;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::create_acls::CreateAclsRequest;
use kacl_protocol::messages::delete_acls::DeleteAclsRequest;
use kacl_protocol::messages::describe_acls::DescribeAclsResponse;
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic, MetadataResponse};
use kacl_protocol::messages::sasl_handshake::{SaslHandshakeRequest, SaslHandshakeResponse};
use kacl_protocol::{ApiKey, Message};
use kacl_server_config::DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
    username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\";";

/// `socket.request.max.bytes` of the fixture: 1 MiB, above the SASL pre-authentication limit.
const MAX_FRAME: usize = 1 << 20;
/// `kacl.request.max.decoded.bytes` of the fixture: 2 MiB, which a frame of `MAX_FRAME` bytes
/// of empty topic names (24 times as large decoded) exceeds many times over.
const MAX_DECODED: usize = 2 << 20;

/// A server holding a few ACLs, a connection opened before any hostile input, and the ACL set
/// every case must leave alone.
struct Fixture {
    server: TestServer,
    witness: Client,
    acls: BTreeSet<AclRow>,
}

impl Fixture {
    async fn new() -> Fixture {
        let max_frame = MAX_FRAME.to_string();
        let server = start(&[
            (
                "listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            ),
            ("super.users", "User:ANONYMOUS;User:admin"),
            ("sasl.jaas.config", JAAS),
            ("socket.request.max.bytes", &max_frame),
            ("kacl.request.max.decoded.bytes", &MAX_DECODED.to_string()),
        ])
        .await;
        let mut witness = server.client().await;
        let created = witness
            .create(
                3,
                vec![
                    allow_read("orders", "User:alice"),
                    allow_read("payments", "User:bob"),
                    creation(TOPIC, "logs-", PREFIXED, "User:carol", "*", WRITE, ALLOW),
                    creation(TOPIC, "*", LITERAL, "User:mallory", "*", ALL, DENY),
                    creation(GROUP, "app", LITERAL, "User:alice", "10.0.0.1", READ, ALLOW),
                    creation(
                        CLUSTER,
                        "kafka-cluster",
                        LITERAL,
                        "User:ops",
                        "*",
                        ALTER,
                        ALLOW,
                    ),
                ],
            )
            .await;
        assert!(
            created.results.iter().all(|r| r.error_code == 0),
            "{created:?}"
        );
        let acls = acl_set(&mut witness).await;
        assert_eq!(acls.len(), 6);
        Fixture {
            server,
            witness,
            acls,
        }
    }

    fn plaintext(&self) -> SocketAddr {
        self.server.addr_of("PLAINTEXT")
    }

    fn sasl(&self) -> SocketAddr {
        self.server.addr_of("SASL_PLAINTEXT")
    }

    /// The connection opened before the case and a fresh one both answer correctly, and the
    /// ACLs are what they were.
    async fn unharmed(&mut self, case: &str) {
        assert_eq!(acl_set(&mut self.witness).await, self.acls, "after {case}");
        let mut fresh = Client::connect(self.plaintext()).await;
        let versions = fresh.call(3, &api_versions()).await;
        let versions = decode::<ApiVersionsResponse>(&versions, 3);
        assert_eq!(versions.error_code, 0, "after {case}");
        assert_eq!(acl_set(&mut fresh).await, self.acls, "after {case}");
    }
}

fn api_versions() -> ApiVersionsRequest<'static> {
    ApiVersionsRequest {
        client_software_name: Cow::Borrowed("kacl-test"),
        client_software_version: Cow::Borrowed("1"),
        ..Default::default()
    }
}

async fn acl_set(client: &mut Client) -> BTreeSet<AclRow> {
    let response: DescribeAclsResponse<'static> = client.describe(3, &describe_all()).await;
    assert_eq!(response.error_code, 0, "{response:?}");
    acl_rows(&response).into_iter().collect()
}

/// A request frame with a hand-made header (null client id) and `body` as given.
fn raw_request(api_key: i16, version: i16, body: &[u8]) -> Vec<u8> {
    let flexible =
        ApiKey::from_i16(api_key).is_some_and(|api| api.request_header_version(version) == 2);
    let mut payload = Vec::new();
    payload.extend_from_slice(&api_key.to_be_bytes());
    payload.extend_from_slice(&version.to_be_bytes());
    payload.extend_from_slice(&7i32.to_be_bytes());
    payload.extend_from_slice(&(-1i16).to_be_bytes());
    if flexible {
        payload.push(0); // no tagged fields
    }
    payload.extend_from_slice(body);
    sized(&payload)
}

fn sized(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}

/// The body of `message` encoded at `version`.
fn body<'a, M: Message<'a>>(message: &M, version: i16) -> Vec<u8> {
    message.to_bytes(version).expect("encodable")
}

/// Sends `bytes` on a new connection and expects the server to close it without answering.
async fn closed_after(addr: SocketAddr, bytes: &[u8], case: &str) {
    let mut client = Client::connect(addr).await;
    // The server may close (and reset) before taking everything; that is the point.
    let _ = client.stream.write_all(bytes).await;
    assert!(
        client.is_closed().await,
        "{case}: the server kept the connection"
    );
}

/// Deterministic junk: xorshift64.
fn junk(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[tokio::test]
async fn bad_sizes_close_only_that_connection() {
    let mut fx = Fixture::new().await;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("zero size", 0i32.to_be_bytes().to_vec()),
        ("size -1", (-1i32).to_be_bytes().to_vec()),
        ("size i32::MIN", i32::MIN.to_be_bytes().to_vec()),
        (
            "size limit + 1",
            (MAX_FRAME as i32 + 1).to_be_bytes().to_vec(),
        ),
        ("size i32::MAX", i32::MAX.to_be_bytes().to_vec()),
        ("size below a header", sized(&[0, 29, 0])),
        ("size 1", sized(&[0])),
    ];
    for (case, bytes) in cases {
        closed_after(fx.plaintext(), &bytes, case).await;
        closed_after(fx.sasl(), &bytes, case).await;
        fx.unharmed(case).await;
    }
}

#[tokio::test]
async fn truncated_frames_and_half_closed_connections() {
    let mut fx = Fixture::new().await;
    let whole = raw_request(29, 3, &body(&describe_all(), 3));
    for cut in [1, 2, 3, 4, 5, 9, whole.len() - 1] {
        // Half-close: the client shuts down its write side mid-frame and waits.
        let mut client = Client::connect(fx.plaintext()).await;
        client.stream.write_all(&whole[..cut]).await.unwrap();
        client.stream.shutdown().await.unwrap();
        assert!(client.is_closed().await, "cut at {cut}");
        // Hang-up: the client closes entirely mid-frame.
        let mut client = Client::connect(fx.plaintext()).await;
        client.stream.write_all(&whole[..cut]).await.unwrap();
        drop(client);
        fx.unharmed(&format!("a frame cut at {cut}")).await;
    }
    // A whole request followed by a half-close is still answered, then the server closes.
    let mut client = Client::connect(fx.plaintext()).await;
    client.stream.write_all(&whole).await.unwrap();
    client.stream.shutdown().await.unwrap();
    let answer = client.read_frame().await.expect("answered before closing");
    assert_eq!(decode::<DescribeAclsResponse>(&answer, 3).error_code, 0);
    assert!(client.is_closed().await);
    fx.unharmed("a request then a half-close").await;
}

#[tokio::test]
async fn unknown_api_keys_and_versions_out_of_range() {
    let mut fx = Fixture::new().await;
    for key in [0i16, 1, 2, 34, 67, 1000, -1, i16::MIN, i16::MAX] {
        closed_after(
            fx.plaintext(),
            &raw_request(key, 0, &[]),
            &format!("key {key}"),
        )
        .await;
    }
    fx.unharmed("unknown API keys").await;
    for api in ApiKey::ALL {
        if api == ApiKey::ApiVersions {
            continue;
        }
        let range = api.versions();
        for version in [range.max + 1, range.min - 1, -1, i16::MAX] {
            if version == range.min - 1 && version < 0 {
                continue; // covered by -1
            }
            let frame = raw_request(api.key(), version, &[]);
            closed_after(fx.plaintext(), &frame, &format!("{api} v{version}")).await;
        }
    }
    fx.unharmed("versions out of range").await;
    // ApiVersions of an unknown version is answered (KIP-511) with UNSUPPORTED_VERSION in v0.
    let mut client = Client::connect(fx.plaintext()).await;
    client.send_raw(&raw_request(18, 99, &junk(1, 40))).await;
    let answer = client.read_frame().await.expect("an answer");
    let response = decode::<ApiVersionsResponse>(&answer, 0);
    assert_eq!(response.error_code, 35);
    fx.unharmed("ApiVersions v99").await;
}

#[tokio::test]
async fn garbage_bodies_never_change_the_acls() {
    let mut fx = Fixture::new().await;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for api in ApiKey::ALL {
        let range = api.versions();
        for version in range.min..=range.max {
            for len in [1usize, 3, 17, 200] {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                let frame = raw_request(api.key(), version, &junk(seed, len));
                // Junk may happen to decode (an empty Metadata request is valid); what matters
                // is that the server either answers or closes, and nobody else notices.
                let mut client = Client::connect(fx.plaintext()).await;
                client.send_raw(&frame).await;
                let _ = client.read_frame().await;
            }
        }
        fx.unharmed(&format!("junk {api} bodies")).await;
    }
    // A valid body with trailing bytes is answered: Kafka ignores them, and librdkafka sends some.
    for (api, mut frame) in [
        (29i16, body(&describe_all(), 1)),
        (
            31,
            body(
                &DeleteAclsRequest {
                    // Matches nothing, so answering it leaves the ACLs as they were.
                    filters: vec![delete_filter(ANY, None, ANY, Some("User:nobody"), ANY, ANY)],
                    ..Default::default()
                },
                1,
            ),
        ),
    ] {
        frame.extend_from_slice(&[0xde, 0xad]);
        let mut client = Client::connect(fx.plaintext()).await;
        client.send_raw(&raw_request(api, 1, &frame)).await;
        assert!(
            client.read_frame().await.is_some(),
            "API {api}: a body followed by trailing bytes must be answered"
        );
    }
    fx.unharmed("trailing bytes").await;
}

#[tokio::test]
async fn invalid_utf8_and_huge_array_counts() {
    let mut fx = Fixture::new().await;
    // DescribeAcls v1: resource type, name (nullable string), pattern type, principal, host,
    // operation, permission. The name is two bytes that are not UTF-8.
    let mut describe = vec![1u8, 0, 2, 0xff, 0xfe, 3, 0xff, 0xff, 0xff, 0xff, 1, 1];
    closed_after(
        fx.plaintext(),
        &raw_request(29, 1, &describe),
        "invalid UTF-8 name",
    )
    .await;
    // The same in a flexible version (compact string: length + 1 as a varint).
    describe = vec![1u8, 3, 0xc3, 0x28, 3, 0, 0, 1, 1, 0];
    closed_after(
        fx.plaintext(),
        &raw_request(29, 2, &describe),
        "invalid UTF-8 v2",
    )
    .await;
    // A DeleteAcls filter that matches everything, except that its principal is not UTF-8:
    // nothing may be deleted.
    let mut filter = body(
        &DeleteAclsRequest {
            filters: vec![delete_filter(ANY, None, ANY, Some("User:xx"), ANY, ANY)],
            ..Default::default()
        },
        1,
    );
    let at = filter.windows(7).position(|w| w == b"User:xx").unwrap();
    filter[at + 5] = 0xff;
    closed_after(
        fx.plaintext(),
        &raw_request(31, 1, &filter),
        "invalid UTF-8 filter",
    )
    .await;
    // A client id that is not UTF-8 in the header.
    let mut frame = raw_request(29, 1, &body(&describe_all(), 1));
    frame.splice(12..14, [0u8, 2, 0xff, 0xfe]);
    let len = (frame.len() - 4) as i32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    let mut client = Client::connect(fx.plaintext()).await;
    client.send_raw(&frame).await;
    let _ = client.read_frame().await; // answered or closed; either is fine
    fx.unharmed("invalid UTF-8").await;

    // Arrays that claim far more elements than the frame holds.
    let huge = i32::MAX.to_be_bytes();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("CreateAcls v1 creations", raw_request(30, 1, &huge)),
        ("DeleteAcls v1 filters", raw_request(31, 1, &huge)),
        ("Metadata v1 topics", raw_request(3, 1, &huge)),
        ("CreateTopics v4 topics", raw_request(19, 4, &huge)),
        // Compact arrays: a varint count of 2^32 - 2 elements.
        (
            "CreateAcls v2 creations",
            raw_request(30, 2, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ),
        (
            "Metadata v12 topics",
            raw_request(3, 12, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ),
        // A varint that never ends.
        ("endless varint", raw_request(31, 3, &[0xff; 12])),
    ];
    for (case, frame) in cases {
        closed_after(fx.plaintext(), &frame, case).await;
    }
    fx.unharmed("huge array counts").await;
}

/// A Metadata v0 request of `names` empty topic names: 2 bytes each on the wire, one
/// `MetadataRequestTopic` each once decoded.
fn metadata_of_empty_names(names: usize) -> Vec<u8> {
    let mut body = (names as i32).to_be_bytes().to_vec();
    body.resize(4 + 2 * names, 0);
    raw_request(3, 0, &body)
}

#[tokio::test]
async fn requests_decoding_past_the_memory_budget_close_only_that_connection() {
    let mut fx = Fixture::new().await;
    let per_name = std::mem::size_of::<MetadataRequestTopic<'static>>();
    // Just within the budget: answered (once for the one distinct name, as Kafka does).
    let fits = MAX_DECODED / per_name - 1;
    let mut client = Client::connect(fx.plaintext()).await;
    client.send_raw(&metadata_of_empty_names(fits)).await;
    let answer = client.read_frame().await.expect("answered");
    let response = decode::<MetadataResponse>(&answer, 0);
    assert_eq!(response.topics.len(), 1);
    assert_ne!(response.topics[0].error_code, 0);
    // Past it: the frame is well within socket.request.max.bytes (2 bytes a name) but would
    // decode to more than the budget; that connection is closed, nobody else notices.
    let past = MAX_DECODED / per_name + 100;
    assert!(4 + 2 * past < MAX_FRAME);
    closed_after(
        fx.plaintext(),
        &metadata_of_empty_names(past),
        "Metadata v0 of empty names past the budget",
    )
    .await;
    fx.unharmed("a request past the memory budget").await;
}

#[tokio::test]
async fn requests_before_sasl_authentication_are_refused() {
    let mut fx = Fixture::new().await;
    let create = CreateAclsRequest {
        creations: vec![allow_read("stolen", "User:eve")],
        ..Default::default()
    };
    let delete_all = DeleteAclsRequest {
        filters: vec![delete_filter(ANY, None, ANY, None, ANY, ANY)],
        ..Default::default()
    };
    // Before SaslHandshake.
    closed_after(fx.sasl(), &raw_request(30, 3, &body(&create, 3)), "create").await;
    closed_after(
        fx.sasl(),
        &raw_request(31, 3, &body(&delete_all, 3)),
        "delete",
    )
    .await;
    closed_after(
        fx.sasl(),
        &raw_request(29, 3, &body(&describe_all(), 3)),
        "list",
    )
    .await;
    closed_after(fx.sasl(), &raw_request(3, 1, &[0, 0, 0, 0]), "metadata").await;
    // SaslAuthenticate before SaslHandshake.
    closed_after(
        fx.sasl(),
        &raw_request(36, 1, &[0, 0, 0, 0]),
        "authenticate",
    )
    .await;
    fx.unharmed("requests before SaslHandshake").await;

    // After SaslHandshake, before SaslAuthenticate.
    let mut client = Client::connect(fx.sasl()).await;
    let handshake = SaslHandshakeRequest {
        mechanism: Cow::Borrowed("PLAIN"),
        ..Default::default()
    };
    let answer = client.call(1, &handshake).await;
    assert_eq!(decode::<SaslHandshakeResponse>(&answer, 1).error_code, 0);
    client
        .send_raw(&raw_request(31, 3, &body(&delete_all, 3)))
        .await;
    assert!(client.is_closed().await);
    // After handshake v0 the next frame is a raw token: a DeleteAcls frame is just a bad token.
    let mut client = Client::connect(fx.sasl()).await;
    let answer = client.call(0, &handshake).await;
    assert_eq!(decode::<SaslHandshakeResponse>(&answer, 0).error_code, 0);
    client
        .send_raw(&raw_request(31, 3, &body(&delete_all, 3)))
        .await;
    assert!(client.is_closed().await);
    fx.unharmed("requests during the SASL exchange").await;
}

#[tokio::test]
async fn frames_above_the_sasl_limit_are_refused_before_authentication_only() {
    let mut fx = Fixture::new().await;
    // A Metadata v1 request for 24,000 topics that do not exist: about 600 KiB, valid.
    let big = MetadataRequest {
        topics: Some(
            (0..24_000)
                .map(|i| MetadataRequestTopic {
                    name: Some(Cow::Owned(format!("no-such-topic-{i:010}"))),
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    };
    let frame = raw_request(3, 1, &body(&big, 1));
    let all_unknown = |answer: &[u8]| {
        let response = decode::<MetadataResponse>(answer, 1);
        response.topics.len() == 24_000 && response.topics.iter().all(|t| t.error_code == 3)
    };
    assert!(frame.len() > DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE as usize && frame.len() < MAX_FRAME);

    // Before authentication the size prefix alone closes the connection.
    let mut client = Client::connect(fx.sasl()).await;
    client.send_raw(&frame[..4]).await;
    assert!(client.is_closed().await);
    // The same frame is fine on PLAINTEXT ...
    let mut client = Client::connect(fx.plaintext()).await;
    client.send_raw(&frame).await;
    let answer = client.read_frame().await.expect("answered");
    assert!(all_unknown(&answer));
    // ... and on the SASL listener once authenticated.
    let mut client = Client::connect(fx.sasl()).await;
    let handshake = SaslHandshakeRequest {
        mechanism: Cow::Borrowed("PLAIN"),
        ..Default::default()
    };
    client.call(1, &handshake).await;
    let login = kacl_protocol::messages::sasl_authenticate::SaslAuthenticateRequest {
        auth_bytes: Cow::Owned(kacl_sasl::plain::client_token("", "admin", "admin-secret")),
        ..Default::default()
    };
    let answer = client.call(1, &login).await;
    assert_eq!(&answer[4..6], &[0, 0], "logged in");
    client.send_raw(&frame).await;
    let answer = client.read_frame().await.expect("answered");
    assert!(all_unknown(&answer));
    fx.unharmed("large frames").await;
}

#[tokio::test]
async fn stalled_and_slow_connections_block_nobody() {
    let mut fx = Fixture::new().await;
    let whole = raw_request(29, 3, &body(&describe_all(), 3));
    // Connections that send part of a frame and then nothing.
    let mut stalled = Vec::new();
    for (i, addr) in [fx.plaintext(), fx.sasl()]
        .into_iter()
        .cycle()
        .take(40)
        .enumerate()
    {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let cut = 1 + i % (whole.len() - 1);
        stream.write_all(&whole[..cut]).await.unwrap();
        stalled.push(stream);
    }
    // A connection that sends a size prefix promising 1 MiB and only a few bytes of it.
    let mut promised = TcpStream::connect(fx.plaintext()).await.unwrap();
    promised
        .write_all(&(MAX_FRAME as i32).to_be_bytes())
        .await
        .unwrap();
    promised.write_all(&[0, 29, 0, 3]).await.unwrap();
    stalled.push(promised);
    for round in 0..3 {
        fx.unharmed(&format!("stalled connections, round {round}"))
            .await;
    }
    // A request trickled one byte at a time is still answered.
    let mut slow = Client::connect(fx.plaintext()).await;
    for byte in &whole {
        slow.stream
            .write_all(std::slice::from_ref(byte))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let answer = slow.read_frame().await.expect("answered");
    assert_eq!(
        acl_count(&decode::<DescribeAclsResponse>(&answer, 3)),
        fx.acls.len()
    );
    // The stalled connections are still open (no idle timeout configured), not answered.
    let mut probe = [0u8; 1];
    let stalled_one = stalled.first_mut().unwrap();
    let read = tokio::time::timeout(Duration::from_millis(50), stalled_one.read(&mut probe)).await;
    assert!(read.is_err(), "a stalled connection got {read:?}");
    drop(stalled);
    fx.unharmed("stalled connections closed").await;
}

#[tokio::test]
async fn after_all_of_it_the_store_holds_the_same_acls() {
    let fx = Fixture::new().await;
    let Fixture {
        server,
        witness,
        acls,
    } = fx;
    // A mix of the cases above, then a restart: what the store holds is what it held.
    for frame in [
        raw_request(31, 1, &i32::MAX.to_be_bytes()),
        raw_request(30, 3, &junk(7, 64)),
        raw_request(31, 3, &junk(8, 64)),
        (-1i32).to_be_bytes().to_vec(),
    ] {
        closed_after(server.addr(), &frame, "mixed").await;
    }
    closed_after(
        server.addr_of("SASL_PLAINTEXT"),
        &raw_request(
            31,
            3,
            &body(
                &DeleteAclsRequest {
                    filters: vec![delete_filter(ANY, None, ANY, None, ANY, ANY)],
                    ..Default::default()
                },
                3,
            ),
        ),
        "delete before SASL",
    )
    .await;
    drop(witness);
    let max_frame = MAX_FRAME.to_string();
    let server = restart(
        server,
        &[
            (
                "listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            ),
            ("super.users", "User:ANONYMOUS;User:admin"),
            ("sasl.jaas.config", JAAS),
            ("socket.request.max.bytes", &max_frame),
        ],
    )
    .await;
    let mut client = server.client().await;
    assert_eq!(acl_set(&mut client).await, acls);
}
