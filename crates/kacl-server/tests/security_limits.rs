//! Limits: `socket.request.max.bytes`, `max.connections`, `max.connections.per.ip` with its
//! overrides, `connections.max.idle.ms` and `sasl.server.max.receive.size`, each closing the
//! connection as Kafka does; and `queued.max.request.bytes`, which makes connections wait
//! instead.

mod common;
mod security_support;

use std::net::SocketAddr;
use std::time::Duration;

use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use security_support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

async fn plaintext(extra: &[(&str, &str)]) -> TestServer {
    let mut props = vec![
        ("listeners", "PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:ANONYMOUS"),
    ];
    props.extend_from_slice(extra);
    start(&props).await
}

/// True if the server answers an ApiVersions request on this connection.
async fn answers(wire: &mut Wire<TcpStream>) -> bool {
    if wire.send(0, &ApiVersionsRequest::default()).await < 0 {
        return false;
    }
    match wire.read_frame().await {
        Some(payload) => {
            kacl_protocol::frame::decode_response_frame::<ApiVersionsResponse>(&payload, 0)
                .map(|(_, r)| r.error_code == 0)
                .unwrap_or(false)
        }
        None => false,
    }
}

/// A connection from a chosen loopback address.
async fn connect_from(local: &str, server: SocketAddr) -> Wire<TcpStream> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{local}:0").parse().unwrap()).unwrap();
    Wire::new(socket.connect(server).await.unwrap())
}

#[tokio::test]
async fn a_frame_larger_than_socket_request_max_bytes_closes_before_its_body() {
    let server = plaintext(&[("socket.request.max.bytes", "1000")]).await;
    let addr = server.addr_of("PLAINTEXT");

    // Requests within the limit are served.
    let mut wire = Wire::tcp(addr).await;
    assert!(answers(&mut wire).await);

    // Only the size prefix of a 1001-byte frame: the server closes without waiting for a
    // body (read_frame would time out if it waited).
    let mut wire = Wire::tcp(addr).await;
    wire.stream.write_all(&1001i32.to_be_bytes()).await.unwrap();
    assert!(wire.is_closed().await);

    // A negative size too.
    let mut wire = Wire::tcp(addr).await;
    wire.stream.write_all(&(-1i32).to_be_bytes()).await.unwrap();
    assert!(wire.is_closed().await);
}

#[tokio::test]
async fn max_connections_closes_connections_over_the_total() {
    let server = plaintext(&[("max.connections", "2")]).await;
    let addr = server.addr_of("PLAINTEXT");
    let mut first = Wire::tcp(addr).await;
    let mut second = connect_from("127.0.0.2", addr).await;
    assert!(answers(&mut first).await);
    assert!(answers(&mut second).await);

    let mut third = connect_from("127.0.0.3", addr).await;
    assert!(
        third.is_closed().await,
        "a third connection is closed at once"
    );
    assert!(answers(&mut first).await, "the admitted ones are untouched");

    // Closing one frees its slot (the server notices the close asynchronously).
    drop(second);
    let mut admitted = false;
    for _ in 0..100 {
        let mut next = Wire::tcp(addr).await;
        if answers(&mut next).await {
            admitted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(admitted, "a freed slot admits a new connection");
}

#[tokio::test]
async fn max_connections_per_ip_counts_each_address() {
    let server = plaintext(&[("max.connections.per.ip", "1")]).await;
    let addr = server.addr_of("PLAINTEXT");
    let mut first = connect_from("127.0.0.1", addr).await;
    assert!(answers(&mut first).await);
    let mut second = connect_from("127.0.0.1", addr).await;
    assert!(
        second.is_closed().await,
        "a second connection from 127.0.0.1"
    );
    let mut other = connect_from("127.0.0.2", addr).await;
    assert!(
        answers(&mut other).await,
        "another address has its own count"
    );
}

#[tokio::test]
async fn idle_connections_are_closed() {
    let server = plaintext(&[("connections.max.idle.ms", "150")]).await;
    let addr = server.addr_of("PLAINTEXT");
    let mut idle = Wire::tcp(addr).await;
    assert!(answers(&mut idle).await);
    // Say nothing: the server closes the connection (read_frame gives up after 20 s).
    assert!(idle.is_closed().await);
    assert!(
        Wire::tcp(addr).await.stream.peer_addr().is_ok(),
        "still accepting"
    );
}

#[tokio::test]
async fn a_busy_connection_outlives_the_idle_limit_then_closes_once_quiet() {
    // The idle timer is armed once per connection and re-armed when it fires early: a
    // connection asking every 60 ms over 5 idle limits of 150 ms stays open throughout.
    let server = plaintext(&[("connections.max.idle.ms", "150")]).await;
    let mut busy = Wire::tcp(server.addr_of("PLAINTEXT")).await;
    let started = std::time::Instant::now();
    for _ in 0..12 {
        assert!(answers(&mut busy).await, "closed while busy");
        tokio::time::sleep(std::time::Duration::from_millis(60)).await;
    }
    assert!(started.elapsed() > std::time::Duration::from_millis(700));
    let quiet = std::time::Instant::now();
    assert!(busy.is_closed().await);
    assert!(
        quiet.elapsed() < std::time::Duration::from_secs(5),
        "closed by the idle limit, not the test's read timeout"
    );
}

/// The server's `queued.max.request.bytes` pool.
fn pool(server: &TestServer) -> std::sync::Arc<kacl_service::request_memory::RequestMemoryPool> {
    server
        .server
        .state()
        .request_memory
        .clone()
        .expect("queued.max.request.bytes is set")
}

/// Waits until the server's `queued.max.request.bytes` pool has `used` bytes leased.
async fn until_leased(server: &TestServer, used: i64) {
    let pool = pool(server);
    for _ in 0..400 {
        if pool.used() == used {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the pool never held {used} bytes (holds {})", pool.used());
}

/// Sends ApiVersions and checks that no answer comes for a while: the connection is waiting
/// for memory. The answer is read later with [`answered_now`].
async fn send_and_see_no_answer(wire: &mut Wire<TcpStream>) {
    assert!(wire.send(0, &ApiVersionsRequest::default()).await >= 0);
    let early = tokio::time::timeout(Duration::from_millis(300), wire.read_frame()).await;
    assert!(
        early.is_err(),
        "answered while the pool was depleted: {early:?}"
    );
}

/// Reads the answer to the ApiVersions request already sent.
async fn answered_now(wire: &mut Wire<TcpStream>) -> bool {
    wire.read_frame().await.is_some_and(|payload| {
        kacl_protocol::frame::decode_response_frame::<ApiVersionsResponse>(&payload, 0)
            .is_ok_and(|(_, r)| r.error_code == 0)
    })
}

#[tokio::test]
async fn a_depleted_request_pool_makes_connections_wait_until_memory_returns() {
    let server = plaintext(&[
        ("socket.request.max.bytes", "1000"),
        ("queued.max.request.bytes", "1000"),
    ])
    .await;
    let addr = server.addr_of("PLAINTEXT");
    let mut before = Wire::tcp(addr).await;
    assert!(answers(&mut before).await, "served while memory is free");
    until_leased(&server, 0).await;

    // A client declares a 1,000-byte frame and sends only part of it: its lease holds the
    // whole pool while the body is pending.
    let mut hog = Wire::tcp(addr).await;
    hog.stream.write_all(&1000i32.to_be_bytes()).await.unwrap();
    hog.stream.write_all(&[0u8; 10]).await.unwrap();
    until_leased(&server, 1000).await;

    // Other connections stop reading: not refused, not closed, just not answered yet.
    let mut waiting = Wire::tcp(addr).await;
    send_and_see_no_answer(&mut waiting).await;
    send_and_see_no_answer(&mut before).await;

    // The hog leaves mid-frame: its lease comes back and both requests are answered.
    drop(hog);
    assert!(answered_now(&mut waiting).await);
    assert!(answered_now(&mut before).await);
    until_leased(&server, 0).await;
    let waits = pool(&server).waits();
    assert!(waits >= 2, "both waits counted: {waits}");
}

#[tokio::test]
async fn a_handled_request_returns_its_memory_before_the_next_is_read() {
    let server = plaintext(&[
        ("socket.request.max.bytes", "1000"),
        ("queued.max.request.bytes", "1000"),
    ])
    .await;
    let mut wire = Wire::tcp(server.addr_of("PLAINTEXT")).await;
    // Each request takes the whole pool while it is read; many in a row only work if every
    // one gives its bytes back once handled.
    for _ in 0..50 {
        assert!(answers(&mut wire).await);
    }
    until_leased(&server, 0).await;
    assert_eq!(pool(&server).waits(), 0);
}

#[tokio::test]
async fn frames_before_sasl_authentication_are_not_charged_to_the_pool() {
    let server = sasl_server(&[
        ("socket.request.max.bytes", "1000"),
        ("queued.max.request.bytes", "1000"),
    ])
    .await;
    let addr = server.addr_of("SASL_PLAINTEXT");
    let mut hog = Wire::tcp(addr).await;
    hog.plain_login("alice", "alice-secret").await;
    hog.stream.write_all(&1000i32.to_be_bytes()).await.unwrap();
    until_leased(&server, 1000).await;

    // The pool is depleted by an authenticated client, yet a new client can still log in:
    // unauthenticated frames are bounded by sasl.server.max.receive.size instead.
    let mut late = Wire::tcp(addr).await;
    late.plain_login("admin", "admin-secret").await;
    // Once authenticated, it waits for memory like everyone else.
    send_and_see_no_answer(&mut late).await;
    drop(hog);
    assert!(answered_now(&mut late).await);
}

#[tokio::test]
async fn sasl_server_max_receive_size_bounds_frames_until_authentication() {
    let server = sasl_server(&[
        ("sasl.server.max.receive.size", "1024"),
        ("socket.request.max.bytes", "4096"),
    ])
    .await;
    let addr = server.addr_of("SASL_PLAINTEXT");

    // Before authentication a declared 1,025 bytes closes the connection before its body ...
    let mut early = Wire::tcp(addr).await;
    early
        .stream
        .write_all(&1025i32.to_be_bytes())
        .await
        .unwrap();
    assert!(early.is_closed().await);
    // ... while for 1,024 the server waits for the body.
    let mut within = Wire::tcp(addr).await;
    within
        .stream
        .write_all(&1024i32.to_be_bytes())
        .await
        .unwrap();
    let quiet = tokio::time::timeout(Duration::from_millis(200), within.read_frame()).await;
    assert!(
        quiet.is_err(),
        "a frame within the limit waits for its body"
    );

    // Once authenticated, socket.request.max.bytes applies: ApiVersions padded to 2,000 bytes
    // (trailing bytes after a complete body are ignored) is answered.
    let mut wire = Wire::tcp(addr).await;
    wire.plain_login("alice", "alice-secret").await;
    let mut frame = Vec::new();
    kacl_protocol::frame::encode_request_frame(
        &mut frame,
        &kacl_protocol::RequestHeader {
            correlation_id: 7,
            ..Default::default()
        },
        0,
        &ApiVersionsRequest::default(),
    )
    .unwrap();
    frame.resize(2004, 0);
    frame[..4].copy_from_slice(&2000i32.to_be_bytes());
    wire.stream.write_all(&frame).await.unwrap();
    let answer = wire.read_frame().await.expect("answered");
    assert_eq!(answer[..4], 7i32.to_be_bytes(), "correlation id");
}

#[tokio::test]
async fn per_ip_overrides_with_a_zero_default_admit_only_the_listed_addresses() {
    let server = plaintext(&[
        ("max.connections.per.ip", "0"),
        ("max.connections.per.ip.overrides", "127.0.0.2:1"),
    ])
    .await;
    let addr = server.addr_of("PLAINTEXT");
    let mut unlisted = connect_from("127.0.0.1", addr).await;
    assert!(unlisted.is_closed().await, "an address without an override");
    let mut listed = connect_from("127.0.0.2", addr).await;
    assert!(answers(&mut listed).await, "the listed address");
    let mut second = connect_from("127.0.0.2", addr).await;
    assert!(second.is_closed().await, "over the override's limit of 1");
    assert!(answers(&mut listed).await, "the admitted one is untouched");
}
