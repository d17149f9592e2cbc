//! What hostile clients can make the server log: bare connects cost no INFO lines, and
//! client-chosen strings cannot forge a log line.

mod common;
mod security_support;

use kacl_protocol::messages::api_versions::ApiVersionsRequest;
use security_support::*;
use tokio::net::TcpStream;

#[tokio::test]
async fn connects_and_disconnects_are_debug_lines() {
    let (log, _guard) = LogCapture::start("kacl_server=info");
    let server = start(&[]).await;
    let addr = server.addr_of("PLAINTEXT");
    for _ in 0..20 {
        drop(TcpStream::connect(addr).await.unwrap());
    }
    let mut wire = Wire::tcp(addr).await;
    wire.send(0, &ApiVersionsRequest::default()).await;
    assert!(wire.read_frame().await.is_some());
    drop(wire);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let text = log.text();
    assert!(!text.contains("connection opened"), "{text}");
    assert!(!text.contains("connection closed"), "{text}");
    assert_eq!(server.server.state().metrics.open_connections(), 0);
    drop(_guard);

    // Still there at DEBUG.
    let (log, _guard) = LogCapture::start("kacl_server=debug");
    drop(TcpStream::connect(addr).await.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(log.lines_with("connection opened").len(), 1);
    assert_eq!(log.lines_with("connection closed").len(), 1);
}
