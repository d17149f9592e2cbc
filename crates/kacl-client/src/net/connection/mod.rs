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
use frames::RelayedRest;
pub use frames::{OutgoingFrame, TrySendError};
use in_flight::{lock, InFlight, Waiter};
pub use in_flight::{Chunk, ForwardedAnswer};
use reading::{read_loop, SpliceSource};
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
    /// ([`OutgoingFrame::with_spliced_answer`]), and into which the rest of a cut-through request
    /// is spliced ([`OutgoingFrame::cut_through`]). The socket is registered twice with the
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
            .map(|socket| SpliceSource {
                socket: Arc::new(socket),
                stall: request_timeout,
            });
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
        splice_source: Option<SpliceSource>,
        write_half: impl AsyncWrite + Unpin + Send + 'static,
        addr: &str,
        client_id: &str,
        request_timeout: Duration,
    ) -> Connection {
        let (outgoing, queue) = mpsc::channel(WRITE_QUEUE);
        let in_flight = Arc::new(Mutex::new(InFlight::default()));
        let (stop_reader, reader_stopped) = oneshot::channel::<()>();
        let splice_into = splice_source.as_ref().map(|source| source.socket.clone());
        tokio::spawn(write_loop(
            write_half,
            splice_into,
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
    splice_into: Option<Arc<tokio::net::TcpStream>>,
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
            let OutgoingFrame {
                head, tail, rest, ..
            } = request.frame;
            if tail.is_empty() {
                writer.write_all(&head).await?;
            } else {
                // Vectored where the stream supports it: one system call for both parts.
                writer
                    .write_all_buf(&mut Buf::chain(head.as_slice(), tail))
                    .await?;
            }
            if let Some(rest) = rest {
                writer.flush().await?;
                write_rest(&mut writer, splice_into.as_deref(), *rest).await?;
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

/// How much of a relayed request's rest is read at a time for a stream that cannot be
/// spliced into (TLS to the upstream).
const UNSPLICED_PIECE: usize = 64 * 1024;

/// Relays a cut-through request's rest from the client's socket: spliced into the upstream
/// socket (plain TCP) or read and written (TLS), then its held-back last bytes read, checked and
/// written. A rest that fails or ends otherwise than expected is an error, which closes the
/// connection with the frame incomplete.
async fn write_rest(
    writer: &mut (impl AsyncWrite + Unpin),
    splice_into: Option<&tokio::net::TcpStream>,
    rest: RelayedRest,
) -> std::io::Result<()> {
    let RelayedRest {
        mut body,
        expected_end,
    } = rest;
    let held = expected_end.len();
    match splice_into {
        Some(socket) => while body.splice_some_into(socket).await? > 0 {},
        None => {
            let mut piece = vec![0u8; (body.remaining() - held).clamp(1, UNSPLICED_PIECE)];
            while body.remaining() > held {
                let want = (body.remaining() - held).min(piece.len());
                let read = body.read_some(&mut piece[..want]).await?;
                writer.write_all(&piece[..read]).await?;
            }
        }
    }
    let mut end = vec![0u8; held];
    let mut filled = 0;
    while filled < held {
        match body.read_some(&mut end[filled..]).await? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            read => filled += read,
        }
    }
    if end != expected_end {
        body.fail();
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a forwarded request did not end as its first part said it would",
        ));
    }
    writer.write_all(&end).await
}

#[cfg(test)]
mod tests;
