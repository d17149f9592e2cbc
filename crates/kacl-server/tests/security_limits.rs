//! Limits: `socket.request.max.bytes`, `max.connections`, `max.connections.per.ip` and
//! `connections.max.idle.ms`, each closing the connection as Kafka does.

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
    let addr = server.addr("PLAINTEXT");

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
    let addr = server.addr("PLAINTEXT");
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
    let addr = server.addr("PLAINTEXT");
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
    let addr = server.addr("PLAINTEXT");
    let mut idle = Wire::tcp(addr).await;
    assert!(answers(&mut idle).await);
    // Say nothing: the server closes the connection (read_frame gives up after 20 s).
    assert!(idle.is_closed().await);
    assert!(
        Wire::tcp(addr).await.stream.peer_addr().is_ok(),
        "still accepting"
    );
}
