//! HTTP/2 to etcd, plain (h2c with prior knowledge, as etcd's own clients speak it) or TLS
//! with ALPN `h2`, through the `h2` crate; the gRPC framing on top is in `grpc`.
//!
//! The connections run on one small private tokio runtime shared by every client of the
//! process: kacl's store and membership code is blocking (it runs on its own threads and in
//! `spawn_blocking`), so [`block`] hands a future to that runtime and waits on a std channel,
//! which works from any thread, inside a caller's runtime or not, and never panics there as
//! `Runtime::block_on` would. The runtime is never dropped, for the same reason.

use std::future::Future;
use std::io;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use h2::client::SendRequest;
use h2::{RecvStream, SendStream};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::grpc::{self, Deframer, GrpcError, MAX_MESSAGE};
use crate::tls::EtcdTls;

/// What the client advertises: large windows, so that a page of 50,000 pairs or a watch
/// message of a 10,000-ACL transaction streams without a window update per 64 KiB.
const STREAM_WINDOW: u32 = 8 << 20;
const CONNECTION_WINDOW: u32 = 32 << 20;
const MAX_FRAME: u32 = 1 << 20;

fn runtime() -> Result<&'static tokio::runtime::Runtime, String> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("kacl-etcd-io")
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the etcd I/O runtime: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Runs `future` on the etcd runtime and waits for it, at most `timeout`.
pub(crate) fn block<T: Send + 'static>(
    future: impl Future<Output = T> + Send + 'static,
    timeout: Duration,
) -> Result<T, String> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime()?.spawn(async move {
        let _ = tx.send(tokio::time::timeout(timeout, future).await);
    });
    match rx.recv_timeout(timeout + Duration::from_secs(1)) {
        Ok(Ok(value)) => Ok(value),
        _ => Err(format!("no answer within {} ms", timeout.as_millis())),
    }
}

/// Spawns a task on the etcd runtime.
pub(crate) fn spawn(
    future: impl Future<Output = ()> + Send + 'static,
) -> Result<tokio::task::JoinHandle<()>, String> {
    Ok(runtime()?.spawn(future))
}

/// One HTTP/2 connection to one endpoint; clones share it (requests are multiplexed).
#[derive(Clone)]
pub(crate) struct Conn {
    send: SendRequest<Bytes>,
    base: Arc<str>,
    /// HTTP/2 PING, to tell a member that stopped answering (frozen, cut off: the kernel
    /// still accepts its connections and buffers requests) from one that is only slow.
    ping: Arc<tokio::sync::Mutex<h2::PingPong>>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").field("base", &self.base).finish()
    }
}

/// A connect failure: `handshake` when TLS refused the peer (its certificate, or not TLS at
/// all), which no retry mends.
pub(crate) struct ConnectError {
    pub(crate) error: io::Error,
    pub(crate) handshake: bool,
}

impl From<io::Error> for ConnectError {
    fn from(error: io::Error) -> ConnectError {
        ConnectError {
            error,
            handshake: false,
        }
    }
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.handshake {
            write!(f, "TLS handshake failed: {}", self.error)
        } else {
            self.error.fmt(f)
        }
    }
}

/// How a call failed.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The request cannot have reached etcd (a dead connection, a refused stream).
    NotSent(String),
    /// It was sent, and then the member stopped answering even HTTP/2 PINGs: it may have
    /// reached etcd (the outcome is unknown), but this member will not answer it.
    Unresponsive(String),
    /// It may have reached etcd; the outcome is unknown.
    Lost(String),
    /// etcd answered: a status, or an answer that breaks gRPC.
    Grpc(GrpcError),
}

impl Conn {
    /// Connects (TLS when `tls` is set), runs the HTTP/2 handshake and checks that the member
    /// answers a PING within `probe` (a frozen process's kernel completes the TCP handshake
    /// and takes the request, which then never gets an answer); the connection is driven by a
    /// task on the etcd runtime until every clone is dropped or it fails.
    pub(crate) async fn connect(
        host: String,
        port: u16,
        tls: Option<EtcdTls>,
        probe: Duration,
    ) -> Result<Conn, ConnectError> {
        let conn = Conn::connect_only(host, port, tls).await?;
        if !conn.alive(probe).await {
            return Err(ConnectError::from(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "connected, but no answer to an HTTP/2 PING within {} ms",
                    probe.as_millis()
                ),
            )));
        }
        Ok(conn)
    }

    async fn connect_only(
        host: String,
        port: u16,
        tls: Option<EtcdTls>,
    ) -> Result<Conn, ConnectError> {
        let tcp = TcpStream::connect((host.as_str(), port)).await?;
        tcp.set_nodelay(true)?;
        let authority = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        match tls {
            None => Conn::handshake(tcp, format!("http://{authority}")).await,
            Some(tls) => {
                let name = rustls::pki_types::ServerName::try_from(host.clone()).map_err(|_| {
                    ConnectError {
                        error: io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!("`{host}` is not a valid TLS server name"),
                        ),
                        handshake: true,
                    }
                })?;
                let stream = tokio_rustls::TlsConnector::from(tls.config())
                    .connect(name, tcp)
                    .await
                    .map_err(|error| {
                        let handshake = matches!(
                            error.kind(),
                            io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
                        );
                        ConnectError { error, handshake }
                    })?;
                Conn::handshake(stream, format!("https://{authority}")).await
            }
        }
    }

    async fn handshake<T>(io: T, base: String) -> Result<Conn, ConnectError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (send, mut connection) = h2::client::Builder::new()
            .initial_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .max_frame_size(MAX_FRAME)
            .enable_push(false)
            .handshake(io)
            .await
            .map_err(|e| io::Error::other(format!("HTTP/2 handshake: {e}")))?;
        let ping = connection
            .ping_pong()
            .ok_or_else(|| io::Error::other("HTTP/2: no PING handle"))?;
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(%err, "etcd HTTP/2 connection ended");
            }
        });
        Ok(Conn {
            send,
            base: base.into(),
            ping: Arc::new(tokio::sync::Mutex::new(ping)),
        })
    }

    /// True when the member answers an HTTP/2 PING within `within` (its process runs and
    /// reads this connection). One PING at a time per connection; a caller that finds one in
    /// flight waits for its turn within the same bound.
    pub(crate) async fn alive(&self, within: Duration) -> bool {
        let ping = async {
            let mut ping = self.ping.lock().await;
            ping.ping(h2::Ping::opaque()).await.is_ok()
        };
        tokio::time::timeout(within, ping).await.unwrap_or(false)
    }

    /// Runs `call` (a request on this connection) to its end, unless the member stops
    /// answering: after each `probe` without an answer, a PING must come back within `probe`,
    /// else the call ends as [`CallError::Unresponsive`]. A member that is merely slow (a
    /// large transaction, a slow disk) answers PINGs and keeps its call.
    pub(crate) async fn watched<T>(
        &self,
        call: impl Future<Output = Result<T, CallError>>,
        probe: Duration,
    ) -> Result<T, CallError> {
        tokio::pin!(call);
        loop {
            tokio::select! {
                result = &mut call => return result,
                () = tokio::time::sleep(probe) => {}
            }
            let alive = self.alive(probe);
            tokio::pin!(alive);
            tokio::select! {
                result = &mut call => return result,
                alive = &mut alive => {
                    if !alive {
                        return Err(CallError::Unresponsive(format!(
                            "{} stopped answering: no answer to an HTTP/2 PING within {} ms \
                             (the outcome is unknown)",
                            self.base,
                            probe.as_millis()
                        )));
                    }
                }
            }
        }
    }

    /// True for clones of one connection.
    pub(crate) fn same(&self, other: &Conn) -> bool {
        Arc::ptr_eq(&self.base, &other.base)
    }

    /// Opens a gRPC call: headers, then `first` (one framed message), ending the request
    /// side when `end`. Returns once etcd answered with headers of a call that goes on.
    async fn open(
        &self,
        path: &str,
        token: Option<&str>,
        first: Bytes,
        end: bool,
    ) -> Result<(SendStream<Bytes>, RecvStream), CallError> {
        let mut builder = http::Request::builder()
            .method("POST")
            .uri(format!("{}{path}", self.base))
            .header("content-type", "application/grpc")
            .header("te", "trailers");
        if let Some(token) = token {
            builder = builder.header("token", token);
        }
        let request = builder.body(()).map_err(|_| {
            CallError::Grpc(GrpcError::Protocol(
                "etcd's auth token is not a valid header value".to_owned(),
            ))
        })?;
        let mut send = self
            .send
            .clone()
            .ready()
            .await
            .map_err(|e| CallError::NotSent(format!("connection: {e}")))?;
        let (response, mut stream) = send
            .send_request(request, false)
            .map_err(|e| CallError::NotSent(format!("send: {e}")))?;
        stream
            .send_data(first, end)
            .map_err(|e| CallError::NotSent(format!("send: {e}")))?;
        let response = response.await.map_err(|e| {
            if e.reason() == Some(h2::Reason::REFUSED_STREAM) {
                CallError::NotSent(format!("etcd refused the stream: {e}"))
            } else {
                CallError::Lost(format!("no answer (the outcome is unknown): {e}"))
            }
        })?;
        let (head, body) = response.into_parts();
        // A trailers-only answer: the status is in the headers.
        if let Some((code, message)) = grpc::status(&head.headers).map_err(CallError::Grpc)? {
            return Err(CallError::Grpc(match code {
                0 => GrpcError::Protocol("etcd ended the call without an answer".to_owned()),
                _ => GrpcError::Status { code, message },
            }));
        }
        if head.status != http::StatusCode::OK {
            return Err(CallError::Grpc(GrpcError::Status {
                code: grpc::http_status_code(head.status.as_u16()),
                message: format!("HTTP {}", head.status),
            }));
        }
        let grpc_type = head
            .headers
            .get("content-type")
            .is_some_and(|t| t.as_bytes().starts_with(b"application/grpc"));
        if !grpc_type {
            return Err(CallError::Grpc(GrpcError::Protocol(
                "etcd answered without content-type application/grpc".to_owned(),
            )));
        }
        Ok((stream, body))
    }

    /// One unary call (also a bidi call of one request and one answer, as a lease
    /// keep-alive): the answer's protobuf bytes.
    pub(crate) async fn unary(
        self,
        path: &'static str,
        token: Option<String>,
        body: Bytes,
    ) -> Result<Bytes, CallError> {
        let (_send, body) = self.open(path, token.as_deref(), body, true).await?;
        let mut answer = None;
        read_messages(body, |message| {
            if answer.is_some() {
                return Err(GrpcError::Protocol(
                    "etcd sent two answers to one request".to_owned(),
                ));
            }
            answer = Some(message);
            Ok(())
        })
        .await?;
        answer.ok_or_else(|| {
            CallError::Grpc(GrpcError::Protocol(
                "etcd ended the call without an answer".to_owned(),
            ))
        })
    }

    /// Opens a streaming call with its first message; the request side stays open.
    pub(crate) async fn stream(
        self,
        path: &'static str,
        token: Option<String>,
        first: Bytes,
    ) -> Result<(SendStream<Bytes>, RecvStream), CallError> {
        self.open(path, token.as_deref(), first, false).await
    }
}

/// Reads framed messages from `body` until the stream ends, handing each to `on_message`,
/// then checks the trailers' status. Flow-control capacity is given back as data is read.
pub(crate) async fn read_messages(
    mut body: RecvStream,
    mut on_message: impl FnMut(Bytes) -> Result<(), GrpcError>,
) -> Result<(), CallError> {
    let mut deframer = Deframer::new(MAX_MESSAGE);
    while let Some(data) = body.data().await {
        let data = data.map_err(|e| CallError::Lost(format!("etcd's answer broke off: {e}")))?;
        let _ = body.flow_control().release_capacity(data.len());
        deframer.push(&data);
        while let Some(message) = deframer.next_message().map_err(CallError::Grpc)? {
            on_message(message).map_err(CallError::Grpc)?;
        }
    }
    deframer.finish().map_err(CallError::Grpc)?;
    let trailers = body
        .trailers()
        .await
        .map_err(|e| CallError::Lost(format!("etcd's answer broke off: {e}")))?;
    grpc::outcome(trailers.as_ref()).map_err(CallError::Grpc)
}
