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

use kacl_protocol::frame::{decode_response_frame, encode_request_frame};
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

/// A byte stream to a broker: TCP, or TLS over TCP.
pub trait BrokerStream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> BrokerStream for T {}

type Reply = Result<Vec<u8>, AdminError>;

/// Requests awaiting their response, and why the connection closed once it has.
#[derive(Default)]
struct InFlight {
    waiting: HashMap<i32, oneshot::Sender<Reply>>,
    closed: Option<AdminError>,
}

impl InFlight {
    /// Closes the connection (first reason wins) and fails everything in flight.
    fn close(&mut self, reason: AdminError) {
        let reason = self.closed.get_or_insert(reason).clone();
        for (_, waiter) in self.waiting.drain() {
            let _ = waiter.send(Err(reason.clone()));
        }
    }
}

struct Outgoing {
    frame: Vec<u8>,
    correlation_id: i32,
    reply: oneshot::Sender<Reply>,
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
        decode_response_frame::<M>(&self.payload, self.version)
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
            frame,
            correlation_id,
            reply,
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
                let _ = request.reply.send(Err(reason));
                continue;
            }
            // Registered before the bytes leave, so the reader always finds its waiter.
            state.waiting.insert(request.correlation_id, request.reply);
        }
        let written = async {
            writer.write_all(&request.frame).await?;
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
            frame = read_frame(&mut reader, &addr) => frame,
            _ = &mut stop => {
                lock(&in_flight).close(AdminError::network(&addr, "connection closed"));
                return;
            }
        };
        match frame {
            Ok(payload) => {
                let Some(id) = payload.first_chunk::<4>().map(|b| i32::from_be_bytes(*b)) else {
                    lock(&in_flight).close(AdminError::decode("response frame without header"));
                    return;
                };
                let waiter = lock(&in_flight).waiting.remove(&id);
                match waiter {
                    Some(waiter) => {
                        let _ = waiter.send(Ok(payload));
                    }
                    None => tracing::debug!(%addr, id, "response for an abandoned request"),
                }
            }
            Err(err) => {
                lock(&in_flight).close(err);
                return;
            }
        }
    }
}

async fn read_frame(
    reader: &mut (impl AsyncRead + Unpin),
    addr: &str,
) -> Result<Vec<u8>, AdminError> {
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
    // The buffer grows with the bytes that arrive (doubling), so a size prefix alone never
    // makes the client allocate more than FIRST_READ_ROOM.
    let mut payload = Vec::with_capacity(len.min(FIRST_READ_ROOM));
    let read = (&mut *reader)
        .take(len as u64)
        .read_to_end(&mut payload)
        .await
        .map_err(|e| AdminError::network(addr, e))?;
    if read < len {
        return Err(AdminError::network(
            addr,
            "the broker closed the connection mid-response",
        ));
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

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
}
