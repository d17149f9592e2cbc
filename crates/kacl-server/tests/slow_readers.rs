//! Clients that send requests but never read the answers: each connection's backlog is bounded
//! by `socket.send.buffer.bytes`, a write that makes no progress for `connections.max.idle.ms`
//! closes the connection, and shutdown does not wait the grace period for them.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::*;
use kacl_protocol::frame::encode_request_frame;
use kacl_protocol::messages::api_versions::ApiVersionsRequest;
use kacl_protocol::RequestHeader;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

/// `count` ApiVersions v0 request frames back to back.
fn api_versions_frames(count: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for correlation_id in 0..count {
        let header = RequestHeader {
            correlation_id: correlation_id as i32,
            ..Default::default()
        };
        encode_request_frame(&mut out, &header, 0, &ApiVersionsRequest::default()).unwrap();
    }
    out
}

/// Writes `frames` over and over without reading, until a write fails (the server closed the
/// connection) or `deadline` passes (`None`). Returns when the last write went through and
/// when the connection was found closed.
async fn flood_until_closed(
    mut stream: TcpStream,
    frames: &[u8],
    deadline: Instant,
) -> Option<(Instant, Instant)> {
    let mut last_progress = Instant::now();
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, stream.write_all(frames)).await {
            Err(_) => return None,
            Ok(Err(_)) => return Some((last_progress, Instant::now())),
            Ok(Ok(())) => last_progress = Instant::now(),
        }
    }
}

/// The send and receive queues of the server's end of a loopback connection, from
/// /proc/net/tcp (`tx_queue:rx_queue`, in hex).
fn server_queues(server: SocketAddr, client: SocketAddr) -> (usize, usize) {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let local = format!(":{:04X}", server.port());
    let remote = format!(":{:04X}", client.port());
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields[1].ends_with(&local) && fields[2].ends_with(&remote) {
            let (tx, rx) = fields[4].split_once(':').unwrap();
            let hex = |v: &str| usize::from_str_radix(v, 16).unwrap();
            return (hex(tx), hex(rx));
        }
    }
    panic!("no server socket for {client} in /proc/net/tcp");
}

/// A connection whose own receive buffer is small, so that what piles up is the server's.
async fn small_window(addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(addr).await.unwrap()
}

#[tokio::test]
async fn clients_that_never_read_are_closed_within_the_idle_time() {
    let idle = Duration::from_millis(1_500);
    let server = start(&[("connections.max.idle.ms", "1500")]).await;
    let frames = api_versions_frames(100);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut floods = Vec::new();
    for _ in 0..20 {
        let stream = TcpStream::connect(server.addr()).await.unwrap();
        let frames = frames.clone();
        floods.push(tokio::spawn(async move {
            flood_until_closed(stream, &frames, deadline).await
        }));
    }
    for flood in floods {
        let (stalled, closed) = flood.await.unwrap().expect("closed by the server");
        // The server writes a little after our last write went through, then nothing for the
        // idle time.
        let after = closed - stalled;
        assert!(
            after < idle + Duration::from_secs(3),
            "closed {after:?} after the stall"
        );
    }
    // The server still serves everyone else.
    let mut client = server.client().await;
    client.call(0, &ApiVersionsRequest::default()).await;
}

#[tokio::test]
async fn a_connection_backlog_is_bounded_by_socket_send_buffer_bytes() {
    let server = start(&[]).await;
    let stream = small_window(server.addr()).await;
    let client = stream.local_addr().unwrap();
    // Endless ApiVersions requests; each answer is ~400 bytes.
    let frames = api_versions_frames(1_000);
    let deadline = Instant::now() + Duration::from_secs(30);
    let flood = tokio::spawn(async move { flood_until_closed(stream, &frames, deadline).await });
    let (tx, rx) = wait_until_stalled(server.addr(), &[client]).await[0];
    // SO_SNDBUF / SO_RCVBUF of 102400 (the kernel doubles them); the OS default lets the send
    // queue grow to 4 MB.
    assert!(tx > 0, "the server answered");
    assert!(tx < 300_000, "{tx} bytes in the server's send queue");
    assert!(rx < 300_000, "{rx} bytes in the server's receive queue");
    flood.abort();
}

/// Waits (at most 20 s) until the server's queues for these connections stop changing, and
/// returns them.
async fn wait_until_stalled(server: SocketAddr, clients: &[SocketAddr]) -> Vec<(usize, usize)> {
    let sample =
        || -> Vec<(usize, usize)> { clients.iter().map(|c| server_queues(server, *c)).collect() };
    let mut last = sample();
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = sample();
        if now == last && now.iter().all(|(tx, _)| *tx > 0) {
            return now;
        }
        last = now;
    }
    panic!("the server kept writing: {last:?}");
}

#[tokio::test]
async fn connections_with_large_unread_answers_are_closed_and_memory_stays_bounded() {
    let server = start(&[("connections.max.idle.ms", "1500")]).await;
    let mut client = server.client().await;
    // 2,000 ACLs with 400-byte names: a DescribeAcls answer of ~1 MB.
    for batch in 0..2 {
        let creations = (0..1_000)
            .map(|i| allow_read(&format!("{batch}-{i:05}-{}", "n".repeat(400)), "User:a"))
            .collect();
        let created = client.create(3, creations).await;
        assert!(created.results.iter().all(|r| r.error_code == 0));
    }
    let mut describe = Vec::new();
    for correlation_id in 0..20 {
        let header = RequestHeader {
            correlation_id,
            ..Default::default()
        };
        encode_request_frame(&mut describe, &header, 3, &describe_all()).unwrap();
    }
    let rss_before = rss_bytes();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(20);
    let mut floods = Vec::new();
    for _ in 0..10 {
        let stream = small_window(server.addr()).await;
        let describe = describe.clone();
        floods.push(tokio::spawn(async move {
            flood_until_closed(stream, &describe, deadline).await
        }));
    }
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let rss_during = rss_bytes();
    for flood in floods {
        let (stalled, closed) = flood.await.unwrap().expect("closed by the server");
        let after = closed - stalled;
        assert!(
            after < Duration::from_millis(1_500) + Duration::from_secs(3),
            "{after:?}"
        );
    }
    // Each connection holds at most the one answer it is writing (~1 MB), never the 20 it
    // asked for; the allowance covers the index and allocator slack.
    let grown = rss_during.saturating_sub(rss_before);
    assert!(grown < 64 << 20, "RSS grew by {grown} bytes");
}

#[tokio::test]
async fn shutdown_does_not_wait_the_grace_period_for_clients_that_never_read() {
    let server = start(&[]).await;
    let frames = api_versions_frames(2_000);
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut floods, mut clients) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let stream = small_window(server.addr()).await;
        clients.push(stream.local_addr().unwrap());
        let frames = frames.clone();
        floods.push(tokio::spawn(async move {
            flood_until_closed(stream, &frames, deadline).await
        }));
    }
    // Let every write stall (the idle time is the default ten minutes).
    wait_until_stalled(server.addr(), &clients).await;
    let started = Instant::now();
    server.server.shutdown().await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(4),
        "shutdown took {took:?} (grace period 10 s)"
    );
    for flood in floods {
        assert!(flood.await.unwrap().is_some(), "closed at shutdown");
    }
}

/// This process's resident set size.
fn rss_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map_or(0, |kb| kb * 1024)
}
