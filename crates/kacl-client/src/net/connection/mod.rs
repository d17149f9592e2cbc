//! One connection to one broker, pipelined: any number of requests may be in flight, each
//! tagged with its own correlation id. A writer task sends frames in the order they are
//! queued; a reader task reads response frames and hands each to the request whose
//! correlation id it carries (Kafka answers in order on a connection, but matching by id does
//! not depend on it).
//!
//! A connection that fails (I/O error, EOF, a request timing out, an undecodable frame) is
//! closed for good: every request in flight fails with the same error and later requests fail
//! at once, so the owner knows to open a new one.

mod frames;
mod in_flight;
mod reading;
mod replies;

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Buf;
use kacl_protocol::frame::encode_request_frame;
use kacl_protocol::{Message, RequestHeader};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use crate::error::AdminError;
use frames::Outgoing;
pub use frames::{OutgoingFrame, TrySendError};
use in_flight::{lock, InFlight, Waiter};
pub use in_flight::{Chunk, ForwardedAnswer};
use reading::read_loop;
pub use reading::{MAX_RESPONSE_BYTES, SPLICE_MIN_BODY};
pub use replies::{PendingReply, Response, StreamedResponse};

/// How many frames may wait for the writer before `send` waits too.
const WRITE_QUEUE: usize = 128;

/// How many chunks of a streamed response may wait for their reader before the connection
/// stops reading (4 MiB: the memory a slow consumer can make the connection hold).
const CHUNK_QUEUE: usize = 16;

/// A byte stream to a broker: TCP, or TLS over TCP.
pub trait BrokerStream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> BrokerStream for T {}

/// A pipelined connection to one broker.
pub struct Connection {
    addr: String,
    client_id: String,
    request_timeout: Duration,
    next_correlation_id: AtomicI32,
    outgoing: mpsc::Sender<Outgoing>,
    in_flight: Arc<Mutex<InFlight>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("addr", &self.addr)
            .field("closed", &self.is_closed())
            .finish()
    }
}
impl Connection {
    /// Starts the reader and writer tasks over an established stream. Must be called inside a
    /// tokio runtime.
    pub fn start(
        stream: impl BrokerStream,
        addr: &str,
        client_id: &str,
        request_timeout: Duration,
    ) -> Connection {
        let (read_half, write_half) = tokio::io::split(stream);
        Connection::start_halves(
            read_half,
            None,
            write_half,
            addr,
            client_id,
            request_timeout,
        )
    }

    /// [`Connection::start`] over plain TCP, whose large forwarded answers can be spliced
    /// ([`OutgoingFrame::with_spliced_answer`]). The socket is registered twice with the
    /// runtime (a duplicated descriptor): once for the reader's and writer's halves, once for
    /// whoever relays a spliced body, so that each waits on its own readiness.
    pub fn start_tcp(
        stream: tokio::net::TcpStream,
        addr: &str,
        client_id: &str,
        request_timeout: Duration,
    ) -> std::io::Result<Connection> {
        let std = stream.into_std()?;
        let relay = std
            .try_clone()
            .and_then(tokio::net::TcpStream::from_std)
            .ok()
            .map(Arc::new);
        let stream = tokio::net::TcpStream::from_std(std)?;
        let (read_half, write_half) = stream.into_split();
        Ok(Connection::start_halves(
            read_half,
            relay,
            write_half,
            addr,
            client_id,
            request_timeout,
        ))
    }

    fn start_halves(
        read_half: impl AsyncRead + Unpin + Send + 'static,
        splice_source: Option<Arc<tokio::net::TcpStream>>,
        write_half: impl AsyncWrite + Unpin + Send + 'static,
        addr: &str,
        client_id: &str,
        request_timeout: Duration,
    ) -> Connection {
        let (outgoing, queue) = mpsc::channel(WRITE_QUEUE);
        let in_flight = Arc::new(Mutex::new(InFlight::default()));
        let (stop_reader, reader_stopped) = oneshot::channel::<()>();
        tokio::spawn(write_loop(
            write_half,
            queue,
            Arc::clone(&in_flight),
            addr.to_owned(),
            stop_reader,
        ));
        tokio::spawn(read_loop(
            read_half,
            splice_source,
            Arc::clone(&in_flight),
            addr.to_owned(),
            reader_stopped,
        ));
        Connection {
            addr: addr.to_owned(),
            client_id: client_id.to_owned(),
            request_timeout,
            next_correlation_id: AtomicI32::new(0),
            outgoing,
            in_flight,
        }
    }

    /// The broker address this connection dialled.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether the connection has failed and must be replaced.
    pub fn is_closed(&self) -> bool {
        lock(&self.in_flight).closed.is_some()
    }

    /// Sends `body` at `version` and waits for the matching response, for at most the
    /// request timeout. A timeout closes the connection, as Kafka's NetworkClient does.
    pub async fn send<'r, M: Message<'r>>(
        &self,
        version: i16,
        body: &M,
    ) -> Result<Response, AdminError> {
        let correlation_id = self.next_correlation_id.fetch_add(1, Ordering::Relaxed);
        let frame = encode_request(&self.client_id, correlation_id, version, body)?;
        let (reply, response) = oneshot::channel();
        if let Some(reason) = lock(&self.in_flight).closed.clone() {
            return Err(reason);
        }
        let queued = Outgoing {
            frame: OutgoingFrame::whole(frame),
            correlation_id,
            reply: Waiter::Whole(reply),
        };
        if self.outgoing.send(queued).await.is_err() {
            return Err(self.closed_reason());
        }
        match tokio::time::timeout(self.request_timeout, response).await {
            Ok(Ok(Ok(payload))) => Ok(Response { payload, version }),
            Ok(Ok(Err(err))) => Err(err),
            Ok(Err(_)) => Err(self.closed_reason()),
            Err(_) => {
                let err = AdminError::Timeout {
                    what: format!("{} request to {}", M::API_KEY, self.addr),
                    after: self.request_timeout,
                };
                lock(&self.in_flight).close(AdminError::network(
                    &self.addr,
                    "connection closed after a request timed out",
                ));
                Err(err)
            }
        }
    }

    /// Sends `body` at `version` and hands back its response as it arrives, in chunks
    /// ([`StreamedResponse`]), for answers too large to wait for whole (a DescribeAcls of
    /// millions of ACLs). The connection reads no further than the chunk queue allows, so a
    /// slow consumer holds at most `CHUNK_QUEUE` chunks; dropping the stream discards the
    /// rest of the frame and keeps the connection usable.
    pub async fn send_streamed<'r, M: Message<'r>>(
        &self,
        version: i16,
        body: &M,
    ) -> Result<StreamedResponse, AdminError> {
        let correlation_id = self.next_correlation_id.fetch_add(1, Ordering::Relaxed);
        let frame = encode_request(&self.client_id, correlation_id, version, body)?;
        let (chunks_tx, chunks) = mpsc::channel(CHUNK_QUEUE);
        if let Some(reason) = lock(&self.in_flight).closed.clone() {
            return Err(reason);
        }
        let deadline = tokio::time::Instant::now() + self.request_timeout;
        let queued = Outgoing {
            frame: OutgoingFrame::whole(frame),
            correlation_id,
            reply: Waiter::Chunks(chunks_tx),
        };
        if self.outgoing.send(queued).await.is_err() {
            return Err(self.closed_reason());
        }
        Ok(StreamedResponse {
            chunks,
            version,
            deadline,
            timeout: self.request_timeout,
            what: format!("{} request to {}", M::API_KEY, self.addr),
            addr: self.addr.clone(),
            in_flight: Arc::clone(&self.in_flight),
        })
    }

    /// Sends a request frame encoded elsewhere (a gateway forwarding a client's request); its
    /// correlation id is overwritten with this connection's next one. Returns the response's
    /// waiter, or `None` when `expects_response` is false (a Produce with acks=0, which the
    /// broker never answers).
    pub async fn send_frame(
        &self,
        frame: OutgoingFrame,
        expects_response: bool,
    ) -> Result<Option<PendingReply>, AdminError> {
        let (queued, pending) = self.prepare_frame(frame, expects_response)?;
        if self.outgoing.send(queued).await.is_err() {
            return Err(self.closed_reason());
        }
        Ok(pending)
    }

    /// [`Connection::send_frame`] without waiting: `Err(Full(frame))` hands the frame back when
    /// the writer's queue is full (the caller then waits with `send_frame`), so a gateway
    /// whose upstream keeps up forwards from the client connection's own task.
    pub fn try_send_frame(
        &self,
        frame: OutgoingFrame,
        expects_response: bool,
    ) -> Result<Option<PendingReply>, TrySendError> {
        let (queued, pending) = self
            .prepare_frame(frame, expects_response)
            .map_err(TrySendError::Failed)?;
        match self.outgoing.try_send(queued) {
            Ok(()) => Ok(pending),
            Err(mpsc::error::TrySendError::Full(queued)) => Err(TrySendError::Full(queued.frame)),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                Err(TrySendError::Failed(self.closed_reason()))
            }
        }
    }

    /// Gives a forwarded `frame` this connection's next correlation id and pairs it with its
    /// waiter and the caller's end of it (`None` for a frame that gets no answer); fails for a
    /// frame too short to have a header, or once the connection has closed.
    fn prepare_frame(
        &self,
        mut frame: OutgoingFrame,
        expects_response: bool,
    ) -> Result<(Outgoing, Option<PendingReply>), AdminError> {
        let correlation_id = self.next_correlation_id.fetch_add(1, Ordering::Relaxed);
        if !frame.set_correlation_id(correlation_id) {
            return Err(AdminError::decode(
                "a request frame shorter than its header",
            ));
        }
        if let Some(reason) = lock(&self.in_flight).closed.clone() {
            return Err(reason);
        }
        let (reply, response) = oneshot::channel();
        let splice = frame.splice_answer;
        let queued = Outgoing {
            frame,
            correlation_id,
            reply: if expects_response {
                Waiter::Framed { reply, splice }
            } else {
                Waiter::Nobody
            },
        };
        let pending = expects_response.then(|| PendingReply {
            response,
            timeout: self.request_timeout,
            addr: self.addr.clone(),
            in_flight: Arc::clone(&self.in_flight),
        });
        Ok((queued, pending))
    }

    fn closed_reason(&self) -> AdminError {
        lock(&self.in_flight)
            .closed
            .clone()
            .unwrap_or_else(|| AdminError::network(&self.addr, "connection closed"))
    }
}

/// A complete request frame: size, request header (with `client_id`), body at `version`.
pub fn encode_request<'r, M: Message<'r>>(
    client_id: &str,
    correlation_id: i32,
    version: i16,
    body: &M,
) -> Result<Vec<u8>, AdminError> {
    let header = RequestHeader {
        request_api_key: M::API_KEY.key(),
        request_api_version: version,
        correlation_id,
        client_id: Some(client_id.into()),
        unknown_tagged_fields: Default::default(),
    };
    let mut frame = Vec::with_capacity(32 + body.encoded_len(version));
    encode_request_frame(&mut frame, &header, version, body).map_err(|e| {
        AdminError::UnsupportedVersion {
            api: M::API_KEY,
            detail: format!("cannot encode {} v{version}: {e}", M::NAME),
        }
    })?;
    Ok(frame)
}

async fn write_loop(
    mut writer: impl AsyncWrite + Unpin,
    mut queue: mpsc::Receiver<Outgoing>,
    in_flight: Arc<Mutex<InFlight>>,
    addr: String,
    _stop_reader: oneshot::Sender<()>,
) {
    while let Some(request) = queue.recv().await {
        {
            let mut state = lock(&in_flight);
            if let Some(reason) = state.closed.clone() {
                request.reply.fail(reason);
                continue;
            }
            // Registered before the bytes leave, so the reader always finds its waiter.
            if !matches!(request.reply, Waiter::Nobody) {
                state.waiting.insert(request.correlation_id, request.reply);
            }
        }
        let written = async {
            let OutgoingFrame { head, tail, .. } = request.frame;
            if tail.is_empty() {
                writer.write_all(&head).await?;
            } else {
                // Vectored where the stream supports it: one system call for both parts.
                writer
                    .write_all_buf(&mut Buf::chain(head.as_slice(), tail))
                    .await?;
            }
            writer.flush().await
        }
        .await;
        if let Err(err) = written {
            lock(&in_flight).close(AdminError::network(&addr, err));
        }
        if lock(&in_flight).closed.is_some() {
            break;
        }
    }
    // Dropping `_stop_reader` tells the reader nobody will send again.
    let _ = writer.shutdown().await;
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A fake broker over a duplex pipe: answers each request (read whole) with `answer(id)`,
    /// written in pieces with a pause between them.
    fn broker(
        stream: tokio::io::DuplexStream,
        pieces: usize,
        answer: impl Fn(i32) -> Vec<u8> + Send + 'static,
        gate: tokio::sync::mpsc::Receiver<()>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut gate = gate;
            let (mut rx, mut tx) = tokio::io::split(stream);
            loop {
                let mut size = [0u8; 4];
                if rx.read_exact(&mut size).await.is_err() {
                    return;
                }
                let mut request = vec![0u8; i32::from_be_bytes(size) as usize];
                rx.read_exact(&mut request).await.unwrap();
                let id = i32::from_be_bytes(request[4..8].try_into().unwrap());
                let body = answer(id);
                let mut frame = ((body.len() + 4) as i32).to_be_bytes().to_vec();
                frame.extend(id.to_be_bytes());
                frame.extend(body);
                let step = frame.len().div_ceil(pieces);
                for piece in frame.chunks(step) {
                    tx.write_all(piece).await.unwrap();
                    tx.flush().await.unwrap();
                    // Each further piece waits for the test's go-ahead.
                    if gate.recv().await.is_none() {
                        return;
                    }
                }
            }
        })
    }

    #[tokio::test]
    async fn streamed_responses_arrive_in_chunks_before_the_frame_is_complete() {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let body: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let expected = body.clone();
        let (go, gate) = tokio::sync::mpsc::channel(64);
        let _broker = broker(theirs, 4, move |_| body.clone(), gate);
        let conn = Connection::start(ours, "b:9092", "t", Duration::from_secs(10));
        let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
        let mut stream = conn.send_streamed(0, &request).await.unwrap();
        let mut got = Vec::new();
        let mut frame_len = 0;
        // The first quarter arrives while the broker waits for the go-ahead.
        while got.len() < expected.len() / 8 {
            let chunk = stream.next_chunk().await.unwrap().unwrap();
            frame_len = chunk.frame_len;
            got.extend(chunk.bytes);
        }
        assert!(
            got.len() < frame_len,
            "only part of the frame has been sent"
        );
        for _ in 0..4 {
            go.send(()).await.unwrap();
        }
        while let Some(chunk) = stream.next_chunk().await.unwrap() {
            got.extend(chunk.bytes);
        }
        assert_eq!(got.len(), frame_len);
        assert_eq!(&got[4..], &expected[..]);
    }

    #[tokio::test]
    async fn a_dropped_stream_is_read_to_its_end_and_the_connection_goes_on() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (go, gate) = tokio::sync::mpsc::channel(64);
        for _ in 0..64 {
            go.send(()).await.unwrap();
        }
        let _broker = broker(theirs, 8, |id| vec![id as u8; 3_000_000], gate);
        let conn = Connection::start(ours, "b:9092", "t", Duration::from_secs(10));
        let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
        let mut stream = conn.send_streamed(0, &request).await.unwrap();
        let first = stream.next_chunk().await.unwrap().unwrap();
        assert_eq!(first.frame_len, 3_000_004);
        drop(stream);
        let whole = conn.send(0, &request).await.unwrap();
        assert_eq!(whole.after_correlation_id(), &vec![1u8; 3_000_000][..]);
    }

    /// A broker on real loopback TCP answering request `id` with a body of `sizes[id]` bytes.
    async fn tcp_broker(sizes: Vec<usize>) -> std::net::SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            loop {
                let mut size = [0u8; 4];
                if socket.read_exact(&mut size).await.is_err() {
                    return;
                }
                let mut request = vec![0u8; i32::from_be_bytes(size) as usize];
                socket.read_exact(&mut request).await.unwrap();
                let id = i32::from_be_bytes(request[4..8].try_into().unwrap());
                socket
                    .write_all(&answer_frame(id, sizes[id as usize]))
                    .await
                    .unwrap();
            }
        });
        addr
    }

    fn answer_frame(id: i32, body: usize) -> Vec<u8> {
        let mut frame = ((body + 4) as i32).to_be_bytes().to_vec();
        frame.extend(id.to_be_bytes());
        frame.extend((0..body).map(|i| (i * 13 % 251) as u8));
        frame
    }

    fn spliceable_request() -> OutgoingFrame {
        let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
        OutgoingFrame::whole(encode_request("t", 0, 0, &request).unwrap()).with_spliced_answer()
    }

    async fn whole_frame(answer: ForwardedAnswer) -> (bool, Vec<u8>) {
        match answer {
            ForwardedAnswer::Whole(frame) => (false, frame),
            ForwardedAnswer::Spliced(mut frame) => {
                let mut bytes = frame.head.clone();
                let mut piece = vec![0u8; 100_000];
                loop {
                    let n = frame.body.read_some(&mut piece).await.unwrap();
                    if n == 0 {
                        return (true, bytes);
                    }
                    bytes.extend_from_slice(&piece[..n]);
                }
            }
        }
    }

    #[tokio::test]
    async fn a_large_forwarded_answer_comes_spliced_and_a_small_one_whole() {
        let addr = tcp_broker(vec![2_000_000, 100]).await;
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let conn = Connection::start_tcp(stream, "b:9092", "t", Duration::from_secs(10)).unwrap();
        let large = conn
            .send_frame(spliceable_request(), true)
            .await
            .unwrap()
            .unwrap();
        let small = conn
            .send_frame(spliceable_request(), true)
            .await
            .unwrap()
            .unwrap();
        let (spliced, frame) = whole_frame(large.wait().await.unwrap()).await;
        assert!(spliced, "a 2 MB answer over TCP comes through a pipe");
        assert!(frame == answer_frame(0, 2_000_000), "every byte, in order");
        let (spliced, frame) = whole_frame(small.wait().await.unwrap()).await;
        assert!(!spliced, "below SPLICE_MIN_BODY an answer is read whole");
        assert_eq!(frame, answer_frame(1, 100));
    }

    #[tokio::test]
    async fn a_spliced_answer_dropped_half_way_is_read_past_and_the_connection_goes_on() {
        let addr = tcp_broker(vec![3_000_000, 300_000]).await;
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let conn = Connection::start_tcp(stream, "b:9092", "t", Duration::from_secs(10)).unwrap();
        let first = conn
            .send_frame(spliceable_request(), true)
            .await
            .unwrap()
            .unwrap();
        match first.wait().await.unwrap() {
            ForwardedAnswer::Spliced(frame) => drop(frame),
            ForwardedAnswer::Whole(_) => panic!("expected a spliced answer"),
        }
        let second = conn
            .send_frame(spliceable_request(), true)
            .await
            .unwrap()
            .unwrap();
        let (_, frame) = whole_frame(second.wait().await.unwrap()).await;
        assert!(
            frame == answer_frame(1, 300_000),
            "the next answer is intact"
        );
        assert!(!conn.is_closed());
    }

    #[tokio::test]
    async fn a_frame_sent_without_the_splice_flag_is_always_whole() {
        let addr = tcp_broker(vec![1_000_000]).await;
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let conn = Connection::start_tcp(stream, "b:9092", "t", Duration::from_secs(10)).unwrap();
        let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
        let frame = OutgoingFrame::whole(encode_request("t", 0, 0, &request).unwrap());
        let reply = conn.send_frame(frame, true).await.unwrap().unwrap();
        assert!(
            matches!(reply.wait().await.unwrap(), ForwardedAnswer::Whole(f) if f == answer_frame(0, 1_000_000))
        );
    }
}
