//! The request loop's handling of forwarded answers: in order, drained at shutdown, spliced.

use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

/// A gateway link whose every answer comes `delay` after the request (the upstream is not
/// what is tested here: the connection's handling of answers still on their way is).
#[derive(Debug)]
struct SlowUpstream(Duration);

impl kacl_service::forward::Forwarder for SlowUpstream {
    fn offered_versions(&self, api: kacl_protocol::ApiKey) -> Option<kacl_protocol::VersionRange> {
        Some(api.versions())
    }

    fn link(&self, _: &BoundListener) -> Box<dyn kacl_service::forward::Link> {
        Box::new(SlowLink(self.0))
    }
}

#[derive(Debug)]
struct SlowLink(Duration);

impl kacl_service::forward::Link for SlowLink {
    fn forward(
        &mut self,
        ctx: &kacl_service::context::RequestContext<'_>,
        _: &kacl_protocol::frame::RequestFrame<'_>,
        _: &Bytes,
    ) -> Outcome {
        let (delay, id) = (self.0, ctx.correlation_id);
        Outcome::Pending(Box::pin(async move {
            tokio::time::sleep(delay).await;
            let mut frame = 4i32.to_be_bytes().to_vec();
            frame.extend_from_slice(&id.to_be_bytes());
            Outcome::Respond(frame)
        }))
    }
}

/// A Metadata v4 request frame (a forwarded API) for all topics.
fn metadata_request(correlation_id: i32) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(&3i16.to_be_bytes());
    payload.extend_from_slice(&4i16.to_be_bytes());
    payload.extend_from_slice(&correlation_id.to_be_bytes());
    payload.extend_from_slice(&[0, 1, b'x']); // client id "x"
    payload.extend_from_slice(&(-1i32).to_be_bytes()); // topics: null (all)
    payload.push(0); // allow_auto_topic_creation
    let mut frame = (payload.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&payload);
    frame
}

/// A gateway connection whose upstream answers after `delay`, served on one end of a
/// duplex pipe: the client's end, the shutdown switch and the serving task.
fn serve_behind(
    delay: Duration,
) -> (
    tokio::io::DuplexStream,
    watch::Sender<bool>,
    tokio::task::JoinHandle<()>,
) {
    let config = kacl_server_config::ServerConfig::development_defaults();
    let store = Arc::new(kacl_store::MemoryStore::new());
    let state = crate::fuzzing::gateway_state_for(config, store, Arc::new(SlowUpstream(delay)))
        .expect("a gateway state");
    let listener = state.listeners[0].clone();
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (stop, shutdown) = watch::channel(false);
    let served = tokio::spawn(serve(
        server_side,
        crate::fuzzing::CLIENT_ADDR,
        listener,
        state,
        shutdown,
    ));
    (client, stop, served)
}

#[tokio::test]
async fn forwarded_answers_still_pending_at_shutdown_are_written_before_closing() {
    let (mut client, stop, served) = serve_behind(Duration::from_millis(300));
    client.write_all(&metadata_request(7)).await.unwrap();
    client.write_all(&metadata_request(8)).await.unwrap();
    // Both are at the "upstream" when the server stops.
    tokio::time::sleep(Duration::from_millis(50)).await;
    stop.send_replace(true);
    let mut answers = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut answers))
        .await
        .expect("the connection closes within the drain bound")
        .unwrap();
    let mut expected = Vec::new();
    for id in [7i32, 8] {
        expected.extend_from_slice(&4i32.to_be_bytes());
        expected.extend_from_slice(&id.to_be_bytes());
    }
    assert_eq!(answers, expected, "both answers, in order, then the close");
    served.await.unwrap();
}

#[tokio::test]
async fn a_forwarded_answer_slower_than_the_drain_bound_is_dropped_at_shutdown() {
    let (mut client, stop, served) = serve_behind(DRAIN_FORWARDED + Duration::from_secs(60));
    client.write_all(&metadata_request(9)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let stopped_at = tokio::time::Instant::now();
    stop.send_replace(true);
    let mut answers = Vec::new();
    tokio::time::timeout(
        DRAIN_FORWARDED + Duration::from_secs(5),
        client.read_to_end(&mut answers),
    )
    .await
    .expect("closed after the drain bound")
    .unwrap();
    assert!(answers.is_empty());
    assert!(stopped_at.elapsed() >= DRAIN_FORWARDED - Duration::from_millis(100));
    served.await.unwrap();
}

/// A gateway link whose every request is metered, as a client quota meters them: while one
/// is unanswered the link asks the connection to read nothing more. Counts what it forwarded.
#[derive(Debug)]
struct MeteredUpstream {
    forwarded: Arc<std::sync::atomic::AtomicUsize>,
}

impl kacl_service::forward::Forwarder for MeteredUpstream {
    fn offered_versions(&self, api: kacl_protocol::ApiKey) -> Option<kacl_protocol::VersionRange> {
        Some(api.versions())
    }

    fn link(&self, _: &BoundListener) -> Box<dyn kacl_service::forward::Link> {
        Box::new(MeteredLink {
            forwarded: self.forwarded.clone(),
            unanswered: Arc::default(),
        })
    }
}

#[derive(Debug)]
struct MeteredLink {
    forwarded: Arc<std::sync::atomic::AtomicUsize>,
    unanswered: Arc<std::sync::atomic::AtomicUsize>,
}

impl kacl_service::forward::Link for MeteredLink {
    fn forward(
        &mut self,
        ctx: &kacl_service::context::RequestContext<'_>,
        _: &kacl_protocol::frame::RequestFrame<'_>,
        _: &Bytes,
    ) -> Outcome {
        use std::sync::atomic::Ordering;
        self.forwarded.fetch_add(1, Ordering::SeqCst);
        self.unanswered.fetch_add(1, Ordering::SeqCst);
        let (unanswered, id) = (self.unanswered.clone(), ctx.correlation_id);
        Outcome::Pending(Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            unanswered.fetch_sub(1, Ordering::SeqCst);
            let mut frame = 4i32.to_be_bytes().to_vec();
            frame.extend_from_slice(&id.to_be_bytes());
            Outcome::Respond(frame)
        }))
    }

    fn awaits_answer(&self) -> bool {
        self.unanswered.load(std::sync::atomic::Ordering::SeqCst) > 0
    }
}

#[tokio::test]
async fn a_metered_request_is_answered_before_the_next_is_read() {
    let forwarded = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let config = kacl_server_config::ServerConfig::development_defaults();
    let store = Arc::new(kacl_store::MemoryStore::new());
    let upstream = Arc::new(MeteredUpstream {
        forwarded: forwarded.clone(),
    });
    let state = crate::fuzzing::gateway_state_for(config, store, upstream).expect("a state");
    let listener = state.listeners[0].clone();
    let (mut client, server_side) = tokio::io::duplex(1 << 16);
    let (_stop, shutdown) = watch::channel(false);
    let served = tokio::spawn(serve(
        server_side,
        crate::fuzzing::CLIENT_ADDR,
        listener,
        state,
        shutdown,
    ));
    // Three pipelined requests: the second is read only once the first is answered.
    for id in [1i32, 2, 3] {
        client.write_all(&metadata_request(id)).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(forwarded.load(std::sync::atomic::Ordering::SeqCst), 1);
    let mut answers = vec![0u8; 24];
    tokio::time::timeout(Duration::from_secs(5), client.read_exact(&mut answers))
        .await
        .expect("all three answered")
        .unwrap();
    let mut expected = Vec::new();
    for id in [1i32, 2, 3] {
        expected.extend_from_slice(&4i32.to_be_bytes());
        expected.extend_from_slice(&id.to_be_bytes());
    }
    assert_eq!(answers, expected, "in order");
    assert_eq!(forwarded.load(std::sync::atomic::Ordering::SeqCst), 3);
    drop(client);
    served.await.unwrap();
}

/// A gateway link whose every answer is a frame of `body` bytes after the correlation id,
/// spliced: a loopback "broker" socket writes the body, and the connection relays it from the
/// socket that reads it, as it relays an upstream connection's.
#[derive(Debug)]
struct SplicingUpstream {
    body: usize,
}

impl kacl_service::forward::Forwarder for SplicingUpstream {
    fn offered_versions(&self, api: kacl_protocol::ApiKey) -> Option<kacl_protocol::VersionRange> {
        Some(api.versions())
    }

    fn link(&self, _: &BoundListener) -> Box<dyn kacl_service::forward::Link> {
        Box::new(SplicingLink { body: self.body })
    }
}

#[derive(Debug)]
struct SplicingLink {
    body: usize,
}

fn body_bytes(id: i32, len: usize) -> Vec<u8> {
    (0..len).map(|i| (i as i32 * 31 + id) as u8).collect()
}

/// The frame a client must read for request `id`.
fn spliced_answer(id: i32, body: usize) -> Vec<u8> {
    let mut frame = ((4 + body) as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&id.to_be_bytes());
    frame.extend(body_bytes(id, body));
    frame
}

async fn socket_pair() -> (tokio::net::TcpStream, tokio::net::TcpStream) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (connected, accepted) =
        tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
    (connected.unwrap(), accepted.unwrap().0)
}

impl kacl_service::forward::Link for SplicingLink {
    fn forward(
        &mut self,
        ctx: &kacl_service::context::RequestContext<'_>,
        _: &kacl_protocol::frame::RequestFrame<'_>,
        _: &Bytes,
    ) -> Outcome {
        let (len, id) = (self.body, ctx.correlation_id);
        Outcome::Pending(Box::pin(async move {
            let (mut broker, relay_in) = socket_pair().await;
            let (body, ended) =
                kacl_splice::relay(Arc::new(relay_in), len, Duration::from_secs(10))
                    .expect("a pipe");
            tokio::spawn(async move {
                broker.write_all(&body_bytes(id, len)).await.unwrap();
                // The broker's end stays open until the body has gone, as an upstream's does.
                let _ = ended.wait().await;
            });
            let mut head = ((4 + len) as i32).to_be_bytes().to_vec();
            head.extend_from_slice(&id.to_be_bytes());
            Outcome::Spliced(kacl_splice::SplicedFrame { head, body })
        }))
    }
}

fn splicing_state(body: usize) -> (Arc<ServerState>, BoundListener) {
    let config = kacl_server_config::ServerConfig::development_defaults();
    let store = Arc::new(kacl_store::MemoryStore::new());
    let state =
        crate::fuzzing::gateway_state_for(config, store, Arc::new(SplicingUpstream { body }))
            .expect("a gateway state");
    let listener = state.listeners[0].clone();
    (state, listener)
}

/// Sends three requests and reads their three answers, each `body` bytes, in order.
async fn three_spliced_answers(
    mut client: impl tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    body: usize,
) {
    for id in [3, 4, 5] {
        client.write_all(&metadata_request(id)).await.unwrap();
    }
    for id in [3, 4, 5] {
        let mut got = vec![0u8; 8 + body];
        tokio::time::timeout(Duration::from_secs(20), client.read_exact(&mut got))
            .await
            .expect("the answer arrives")
            .unwrap();
        assert!(
            got == spliced_answer(id, body),
            "answer {id}: every byte, in order"
        );
    }
}

/// Serves `server_side` behind a splicing upstream whose answers are `body` bytes, and checks
/// three answers read from `client`.
async fn spliced_answers_through(
    client: impl tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    server_side: impl crate::connection::ClientStream + 'static,
    body: usize,
) {
    let (state, listener) = splicing_state(body);
    let (_stop, shutdown) = watch::channel(false);
    let served = tokio::spawn(serve(
        server_side,
        crate::fuzzing::CLIENT_ADDR,
        listener,
        state,
        shutdown,
    ));
    three_spliced_answers(client, body).await;
    served.abort();
}

#[tokio::test]
async fn spliced_answers_reach_a_tcp_client_whole_and_in_order() {
    let (client, server_side) = socket_pair().await;
    spliced_answers_through(client, server_side, 2_500_000).await;
}

#[tokio::test]
async fn spliced_answers_are_copied_to_a_stream_that_cannot_take_them() {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    spliced_answers_through(client, server_side, 700_000).await;
}
