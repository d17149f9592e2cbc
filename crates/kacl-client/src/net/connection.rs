//! One connection to one broker, pipelined: any number of requests may be in flight, each
//! tagged with its own correlation id. A writer task sends frames in the order they are
//! queued; a reader task reads response frames and hands each to the request whose
//! correlation id it carries (Kafka answers in order on a connection, but matching by id does
//! not depend on it).
//!
//! A connection that fails (I/O error, EOF, a request timing out, an undecodable frame) is
//! closed for good: every request in flight fails with the same error and later requests fail
//! at once, so the owner knows to open a new one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Buf, Bytes};
use kacl_protocol::frame::{decode_broker_response_frame, encode_request_frame};
use kacl_protocol::{Message, RequestHeader};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::error::AdminError;

/// Largest response frame accepted. Kafka's DescribeAcls has no pagination, so a listing of a
/// million ACLs is one frame of some 100 MB; anything past this bound is taken as garbage.
pub const MAX_RESPONSE_BYTES: usize = 1 << 30;

/// The first room made for a response body; more is made as its bytes arrive.
const FIRST_READ_ROOM: usize = 64 * 1024;

/// How many frames may wait for the writer before `send` waits too.
const WRITE_QUEUE: usize = 128;

/// Most bytes one chunk of a streamed response carries.
const CHUNK: usize = 256 * 1024;

/// How many chunks of a streamed response may wait for their reader before the connection
/// stops reading (4 MiB: the memory a slow consumer can make the connection hold).
const CHUNK_QUEUE: usize = 16;

/// A byte stream to a broker: TCP, or TLS over TCP.
pub trait BrokerStream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> BrokerStream for T {}

type Reply = Result<Vec<u8>, AdminError>;

/// One piece of a streamed response frame.
#[derive(Debug)]
pub struct Chunk {
    /// The whole payload's length (response header and body, after the size prefix).
    pub frame_len: usize,
    /// The next bytes of the payload; the first chunk starts with the correlation id.
    pub bytes: Vec<u8>,
}

type ChunkReply = Result<Chunk, AdminError>;

/// Who waits for a response: the whole frame at once, or its chunks as they arrive.
enum Waiter {
    Whole(oneshot::Sender<Reply>),
    Chunks(mpsc::Sender<ChunkReply>),
    /// The whole frame, size prefix included (a gateway passes it on as it is).
    Framed(oneshot::Sender<Reply>),
    /// A request that gets no response (a Produce with acks=0).
    Nobody,
}

impl Waiter {
    fn fail(self, reason: AdminError) {
        match self {
            Waiter::Whole(reply) | Waiter::Framed(reply) => {
                let _ = reply.send(Err(reason));
            }
            // Nothing is queued yet while the waiter is registered: there is room.
            Waiter::Chunks(chunks) => {
                let _ = chunks.try_send(Err(reason));
            }
            Waiter::Nobody => {}
        }
    }
}

/// Requests awaiting their response, and why the connection closed once it has.
#[derive(Default)]
struct InFlight {
    waiting: HashMap<i32, Waiter>,
    closed: Option<AdminError>,
}

impl InFlight {
    /// Closes the connection (first reason wins) and fails everything in flight.
    fn close(&mut self, reason: AdminError) {
        let reason = self.closed.get_or_insert(reason).clone();
        for (_, waiter) in self.waiting.drain() {
            waiter.fail(reason.clone());
        }
    }
}

struct Outgoing {
    frame: OutgoingFrame,
    correlation_id: i32,
    reply: Waiter,
}

/// A whole request frame (size prefix, header, body) to send as it is, in up to two parts so
/// that a forwarded request's body is written from the buffer it arrived in, never copied.
#[derive(Debug, Clone)]
pub struct OutgoingFrame {
    /// The size prefix and at least the request header's first 8 bytes (API key, version,
    /// correlation id).
    head: Vec<u8>,
    /// The rest of the frame.
    tail: Bytes,
}

/// Why [`Connection::try_send_frame`] did not queue a frame.
#[derive(Debug)]
pub enum TrySendError {
    /// The writer's queue is full: the frame, to send with [`Connection::send_frame`].
    Full(OutgoingFrame),
    /// The connection has closed (or the frame has no header).
    Failed(AdminError),
}

/// How many bytes of a forwarded request are copied into the frame's head: the size prefix,
/// API key, API version and correlation id (the part the connection rewrites).
const HEAD_LEN: usize = 12;

impl OutgoingFrame {
    /// A frame encoded in one piece (size prefix included).
    pub fn whole(frame: Vec<u8>) -> OutgoingFrame {
        OutgoingFrame {
            head: frame,
            tail: Bytes::new(),
        }
    }

    /// A request frame as a client sent it: `payload` is the frame without its size prefix
    /// (request header first). Only its first 8 bytes are copied; the rest is sent from
    /// `payload`'s own buffer. `None` when `payload` is too short to hold a request header.
    pub fn forwarded(payload: Bytes) -> Option<OutgoingFrame> {
        let len = u32::try_from(payload.len()).ok()?;
        let header = payload.get(..HEAD_LEN - 4)?;
        let mut head = Vec::with_capacity(HEAD_LEN);
        head.extend_from_slice(&len.to_be_bytes());
        head.extend_from_slice(header);
        Some(OutgoingFrame {
            head,
            tail: payload.slice(HEAD_LEN - 4..),
        })
    }

    /// The frame's length, size prefix included.
    pub fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// Whether the frame is empty (never, for a valid frame).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Overwrites the correlation id (bytes 8-11 of the frame); false for a frame too short
    /// to have one.
    fn set_correlation_id(&mut self, id: i32) -> bool {
        match self.head.get_mut(8..HEAD_LEN) {
            Some(field) => {
                field.copy_from_slice(&id.to_be_bytes());
                true
            }
            None => false,
        }
    }
}

/// A response read as it arrives ([`Connection::send_streamed`]): its payload in chunks.
pub struct StreamedResponse {
    chunks: mpsc::Receiver<ChunkReply>,
    version: i16,
    deadline: tokio::time::Instant,
    timeout: Duration,
    what: String,
    addr: String,
    in_flight: Arc<Mutex<InFlight>>,
}

impl std::fmt::Debug for StreamedResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedResponse")
            .field("what", &self.what)
            .finish_non_exhaustive()
    }
}

impl StreamedResponse {
    /// The version of the request this answers.
    pub fn version(&self) -> i16 {
        self.version
    }

    /// The next chunk, or `None` once the frame has been handed out whole. The whole frame
    /// must arrive within the request timeout (counted from sending); a timeout closes the
    /// connection, as [`Connection::send`]'s does.
    pub async fn next_chunk(&mut self) -> Result<Option<Chunk>, AdminError> {
        match tokio::time::timeout_at(self.deadline, self.chunks.recv()).await {
            Ok(Some(Ok(chunk))) => Ok(Some(chunk)),
            Ok(Some(Err(err))) => Err(err),
            Ok(None) => Ok(None),
            Err(_) => {
                lock(&self.in_flight).close(AdminError::network(
                    &self.addr,
                    "connection closed after a request timed out",
                ));
                Err(AdminError::Timeout {
                    what: self.what.clone(),
                    after: self.timeout,
                })
            }
        }
    }

    /// Why the connection closed, for a stream that ended early.
    pub fn closed_reason(&self) -> AdminError {
        lock(&self.in_flight)
            .closed
            .clone()
            .unwrap_or_else(|| AdminError::network(&self.addr, "connection closed"))
    }
}

/// The response to a frame sent with [`Connection::send_frame`], still on its way.
pub struct PendingReply {
    response: oneshot::Receiver<Reply>,
    timeout: Duration,
    addr: String,
    in_flight: Arc<Mutex<InFlight>>,
}

impl std::fmt::Debug for PendingReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingReply")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl PendingReply {
    /// The whole response frame (size prefix, the broker's correlation id, the rest of the
    /// response header and the body: a gateway passes it on without copying), within the
    /// request timeout; a timeout closes the connection, as
    /// [`Connection::send`]'s does.
    pub async fn wait(self) -> Result<Vec<u8>, AdminError> {
        match tokio::time::timeout(self.timeout, self.response).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(lock(&self.in_flight)
                .closed
                .clone()
                .unwrap_or_else(|| AdminError::network(&self.addr, "connection closed"))),
            Err(_) => {
                lock(&self.in_flight).close(AdminError::network(
                    &self.addr,
                    "connection closed after a request timed out",
                ));
                Err(AdminError::Timeout {
                    what: format!("forwarded request to {}", self.addr),
                    after: self.timeout,
                })
            }
        }
    }
}

/// A raw response: its frame payload (response header and body) and the version it answers.
#[derive(Debug)]
pub struct Response {
    payload: Vec<u8>,
    version: i16,
}

impl Response {
    /// The version of the request this answers.
    pub fn version(&self) -> i16 {
        self.version
    }

    /// Decodes the body as `M` (borrowing from this response).
    pub fn decode<'p, M: Message<'p>>(&'p self) -> Result<M, AdminError> {
        decode_broker_response_frame::<M>(&self.payload, self.version)
            .map(|(_, body)| body)
            .map_err(|e| AdminError::decode(format!("{} v{}: {e}", M::NAME, self.version)))
    }

    /// The frame payload after the 4-byte correlation id (the response header's remainder and
    /// the body), for a caller that must peek before choosing how to decode.
    pub fn after_correlation_id(&self) -> &[u8] {
        self.payload.get(4..).unwrap_or_default()
    }
}

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

fn lock(in_flight: &Mutex<InFlight>) -> std::sync::MutexGuard<'_, InFlight> {
    // A panic while holding the lock cannot leave the map inconsistent: keep going.
    in_flight
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        mut frame: OutgoingFrame,
        expects_response: bool,
    ) -> Result<Option<PendingReply>, AdminError> {
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
        let queued = Outgoing {
            frame,
            correlation_id,
            reply: if expects_response {
                Waiter::Framed(reply)
            } else {
                Waiter::Nobody
            },
        };
        if self.outgoing.send(queued).await.is_err() {
            return Err(self.closed_reason());
        }
        Ok(expects_response.then(|| PendingReply {
            response,
            timeout: self.request_timeout,
            addr: self.addr.clone(),
            in_flight: Arc::clone(&self.in_flight),
        }))
    }

    /// [`Connection::send_frame`] without waiting: `Err(Full(frame))` hands the frame back when
    /// the writer's queue is full (the caller then waits with `send_frame`), so a gateway
    /// whose upstream keeps up forwards from the client connection's own task.
    pub fn try_send_frame(
        &self,
        mut frame: OutgoingFrame,
        expects_response: bool,
    ) -> Result<Option<PendingReply>, TrySendError> {
        let correlation_id = self.next_correlation_id.fetch_add(1, Ordering::Relaxed);
        if !frame.set_correlation_id(correlation_id) {
            return Err(TrySendError::Failed(AdminError::decode(
                "a request frame shorter than its header",
            )));
        }
        if let Some(reason) = lock(&self.in_flight).closed.clone() {
            return Err(TrySendError::Failed(reason));
        }
        let (reply, response) = oneshot::channel();
        let queued = Outgoing {
            frame,
            correlation_id,
            reply: if expects_response {
                Waiter::Framed(reply)
            } else {
                Waiter::Nobody
            },
        };
        match self.outgoing.try_send(queued) {
            Ok(()) => Ok(expects_response.then(|| PendingReply {
                response,
                timeout: self.request_timeout,
                addr: self.addr.clone(),
                in_flight: Arc::clone(&self.in_flight),
            })),
            Err(mpsc::error::TrySendError::Full(queued)) => Err(TrySendError::Full(queued.frame)),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                Err(TrySendError::Failed(self.closed_reason()))
            }
        }
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
            let OutgoingFrame { head, tail } = request.frame;
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

async fn read_loop(
    reader: impl AsyncRead + Unpin,
    in_flight: Arc<Mutex<InFlight>>,
    addr: String,
    mut stop: oneshot::Receiver<()>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    loop {
        let frame = tokio::select! {
            frame = read_one(&mut reader, &in_flight, &addr) => frame,
            _ = &mut stop => {
                lock(&in_flight).close(AdminError::network(&addr, "connection closed"));
                return;
            }
        };
        if let Err(err) = frame {
            lock(&in_flight).close(err);
            return;
        }
    }
}

/// Reads one response frame and hands it to its waiter: whole, or in chunks as it arrives.
async fn read_one(
    reader: &mut (impl AsyncRead + Unpin),
    in_flight: &Mutex<InFlight>,
    addr: &str,
) -> Result<(), AdminError> {
    let (len, id) = read_frame_head(reader, addr).await?;
    let waiter = lock(in_flight).waiting.remove(&id);
    match waiter {
        Some(Waiter::Chunks(chunks)) => stream_body(reader, len, id, chunks, addr).await,
        waiter => {
            let framed = matches!(waiter, Some(Waiter::Framed(_)));
            let payload = read_body(reader, len, id, addr, framed).await?;
            match waiter {
                Some(Waiter::Whole(reply) | Waiter::Framed(reply)) => {
                    let _ = reply.send(Ok(payload));
                }
                _ => tracing::debug!(%addr, id, "response for an abandoned request"),
            }
            Ok(())
        }
    }
}

/// The payload length (checked) and correlation id of the next frame.
async fn read_frame_head(
    reader: &mut (impl AsyncRead + Unpin),
    addr: &str,
) -> Result<(usize, i32), AdminError> {
    let mut size = [0u8; 4];
    match reader.read_exact(&mut size).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            return Err(AdminError::network(
                addr,
                "the broker closed the connection",
            ));
        }
        Err(e) => return Err(AdminError::network(addr, e)),
    }
    let size = i32::from_be_bytes(size);
    let len = usize::try_from(size)
        .ok()
        .filter(|len| *len >= 4 && *len <= MAX_RESPONSE_BYTES)
        .ok_or_else(|| AdminError::decode(format!("response frame size {size} from {addr}")))?;
    let mut id = [0u8; 4];
    reader
        .read_exact(&mut id)
        .await
        .map_err(|_| mid_response(addr))?;
    Ok((len, i32::from_be_bytes(id)))
}

fn mid_response(addr: &str) -> AdminError {
    AdminError::network(addr, "the broker closed the connection mid-response")
}

/// The rest of a frame after its correlation id, returned whole with the id in front.
async fn read_body(
    reader: &mut (impl AsyncRead + Unpin),
    len: usize,
    id: i32,
    addr: &str,
    with_size_prefix: bool,
) -> Result<Vec<u8>, AdminError> {
    // The buffer grows with the bytes that arrive (doubling), so a size prefix alone never
    // makes the client allocate more than FIRST_READ_ROOM.
    let mut payload = Vec::with_capacity((len + 4).min(FIRST_READ_ROOM));
    if with_size_prefix {
        payload.extend_from_slice(&(len as u32).to_be_bytes());
    }
    payload.extend_from_slice(&id.to_be_bytes());
    let rest = len - 4;
    // The first FIRST_READ_ROOM bytes as they come; once they have arrived, room for the rest
    // at once, so that a large answer (a megabyte Fetch through a gateway) is not copied by
    // each doubling of the buffer.
    let first = rest.min(FIRST_READ_ROOM);
    let mut read = (&mut *reader)
        .take(first as u64)
        .read_to_end(&mut payload)
        .await
        .map_err(|e| AdminError::network(addr, e))?;
    if read == first && rest > first {
        payload.reserve_exact(rest - first);
        read += (&mut *reader)
            .take((rest - first) as u64)
            .read_to_end(&mut payload)
            .await
            .map_err(|e| AdminError::network(addr, e))?;
    }
    if read < rest {
        return Err(mid_response(addr));
    }
    Ok(payload)
}

/// The rest of a frame after its correlation id, handed to `chunks` as it arrives (the id
/// first). A consumer that went away gets nothing more; the frame is still read to its end.
/// A failure is also sent down `chunks` (if there is room) before it closes the connection.
async fn stream_body(
    reader: &mut (impl AsyncRead + Unpin),
    len: usize,
    id: i32,
    chunks: mpsc::Sender<ChunkReply>,
    addr: &str,
) -> Result<(), AdminError> {
    let mut listening = chunks
        .send(Ok(Chunk {
            frame_len: len,
            bytes: id.to_be_bytes().to_vec(),
        }))
        .await
        .is_ok();
    let mut left = len - 4;
    while left > 0 {
        let mut bytes = Vec::with_capacity(left.min(CHUNK));
        let read = (&mut *reader)
            .take(left.min(CHUNK) as u64)
            .read_buf(&mut bytes)
            .await;
        let err = match read {
            Ok(0) => mid_response(addr),
            Ok(n) => {
                left -= n;
                if listening {
                    let chunk = Chunk {
                        frame_len: len,
                        bytes,
                    };
                    listening = chunks.send(Ok(chunk)).await.is_ok();
                }
                continue;
            }
            Err(e) => AdminError::network(addr, e),
        };
        let _ = chunks.try_send(Err(err.clone()));
        return Err(err);
    }
    Ok(())
}

/// One whole frame (tests).
#[cfg(test)]
async fn read_frame(
    reader: &mut (impl AsyncRead + Unpin),
    addr: &str,
) -> Result<Vec<u8>, AdminError> {
    let (len, id) = read_frame_head(reader, addr).await?;
    read_body(reader, len, id, addr, false).await
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test]
    async fn a_framed_body_keeps_its_size_prefix_and_every_byte() {
        let (mut broker, mut client) = tokio::io::duplex(1 << 16);
        let mut frame = Vec::new();
        let body: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        frame.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        frame.extend_from_slice(&7i32.to_be_bytes());
        frame.extend_from_slice(&body);
        let expected = frame.clone();
        let sender = tokio::spawn(async move { broker.write_all(&frame).await.unwrap() });
        let (len, id) = read_frame_head(&mut client, "b:1").await.unwrap();
        let got = read_body(&mut client, len, id, "b:1", true).await.unwrap();
        assert_eq!(
            got, expected,
            "size prefix, correlation id and body, as sent"
        );
        sender.await.unwrap();
    }

    #[tokio::test]
    async fn frames_arrive_whole_and_a_short_one_is_a_network_error() {
        let (mut broker, mut client) = tokio::io::duplex(1 << 16);
        let body: Vec<u8> = (0..3_000_000u32).map(|i| i as u8).collect();
        let expected = body.clone();
        let sender = tokio::spawn(async move {
            broker
                .write_all(&(body.len() as i32).to_be_bytes())
                .await
                .unwrap();
            broker.write_all(&body).await.unwrap();
            // A frame that declares 1 GiB, sends 10 bytes and ends.
            broker.write_all(&(1i32 << 30).to_be_bytes()).await.unwrap();
            broker.write_all(&[0u8; 10]).await.unwrap();
        });
        assert_eq!(read_frame(&mut client, "b:9092").await.unwrap(), expected);
        sender.await.unwrap();
        let short = read_frame(&mut client, "b:9092").await.unwrap_err();
        assert!(
            short
                .to_string()
                .contains("closed the connection mid-response"),
            "{short}"
        );
    }

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
}
