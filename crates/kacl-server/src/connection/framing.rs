//! The framing of one client connection: size-prefixed frames read from the byte stream
//! (bounded by `socket.request.max.bytes`, their memory leased from the server-wide
//! [`RequestMemoryPool`] when `queued.max.request.bytes` is set) and answers written back,
//! each write bounded by `connections.max.idle.ms`, and by [`CLOSE_LINGER`] at shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use kacl_protocol::frame::{frame_payload_len, FrameError, SIZE_PREFIX_LEN};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::watch;

use kacl_service::forward::{CutThrough, FrameRest};
use kacl_service::request_memory::{MemoryLease, RequestMemoryPool};
use kacl_splice::{BodyEnd, BodyEnded, SplicedBody, SplicedFrame};
use tokio::net::TcpStream;

use super::frame_buffers;
use crate::shutdown::wait_for_shutdown;

/// Longest a connection waits for the client to close after a last response.
pub const CLOSE_LINGER: std::time::Duration = std::time::Duration::from_secs(1);

/// The least room made in the read buffer for a frame's body per read.
const MIN_READ_ROOM: usize = 16 * 1024;

/// How much of a large frame must have arrived before it moves into a pooled buffer of its
/// whole size ([`frame_buffers`]): a declared size alone, or a trickle of its bytes, never
/// holds more than 32 times what was sent.
const POOLED_AFTER: usize = 64 * 1024;

/// Why a connection stopped reading.
#[derive(Debug, Error)]
pub enum ConnectionError {
    /// The size prefix was negative or above the limit; closed before reading the body.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The client closed the socket in the middle of a frame.
    #[error("connection reset in the middle of a frame")]
    ResetMidFrame,
    /// No request for `connections.max.idle.ms`.
    #[error("idle for longer than connections.max.idle.ms")]
    Idle,
    /// A response write made no progress for `connections.max.idle.ms`: the client does not
    /// read its answers.
    #[error("the client read nothing of its responses for connections.max.idle.ms")]
    WriteStalled,
    /// The server is shutting down and a response write made no progress for [`CLOSE_LINGER`].
    #[error("server shutting down; the client does not read its response")]
    StalledAtShutdown,
    /// The rest of a request relayed to the upstream as it arrived failed or did not end as
    /// its first part said.
    #[error("the rest of a relayed request failed or ended otherwise than announced")]
    RelayFailed,
    /// The socket failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// A client connection's byte stream. Plain TCP's can take a [`SplicedFrame`]'s body straight
/// from its pipe; any other has it read out of the pipe and written.
pub trait ClientStream: AsyncRead + AsyncWrite + Unpin + Send {
    /// The socket to splice into, if the stream is plain TCP.
    fn tcp(&self) -> Option<&TcpStream> {
        None
    }
}

impl ClientStream for TcpStream {
    fn tcp(&self) -> Option<&TcpStream> {
        Some(self)
    }
}

impl ClientStream for tokio_rustls::server::TlsStream<TcpStream> {}

impl ClientStream for tokio::io::DuplexStream {}

/// How much of a spliced body is read at a time for a stream that cannot be spliced into.
const UNSPLICED_PIECE: usize = 64 * 1024;

/// A byte stream with a read buffer that yields whole frames.
#[derive(Debug)]
pub struct Connection<S> {
    stream: S,
    buffer: BytesMut,
    max_frame: usize,
    /// Where frames lease their bytes from; `None` reads without a bound.
    memory: Option<Arc<RequestMemoryPool>>,
    /// Whether the client is authenticated: its next frames lease from `memory` and a large
    /// one is read into a pooled buffer (before SASL authentication frames have their own
    /// bound).
    charge_memory: bool,
    /// The lease of the frame being read, kept across cancelled reads.
    lease: Option<MemoryLease>,
    /// A large frame being read into a pooled buffer: its length and its body so far, kept
    /// across cancelled reads.
    large: Option<(usize, Vec<u8>)>,
    /// The frames handed over once their first part is here, and the state of that (plain
    /// TCP in gateway mode only; see [`HeadFirst`]).
    head_first: Option<HeadFirst>,
}

/// Cut-through reading: a frame of [`CutThrough`]'s API and size is yielded as soon as its
/// first part has arrived ([`Frame::rest`]), and its rest is either relayed from the socket by
/// whoever takes it ([`FrameRest::relay`]), read past (the request was answered without it),
/// or read whole after all ([`Connection::read_rest`]).
#[derive(Debug)]
struct HeadFirst {
    policy: CutThrough,
    /// The client's socket, registered a second time for the relay's own readiness (made on
    /// the first relay: an idle connection costs no second descriptor).
    source: Option<Arc<TcpStream>>,
    /// How long the client may send nothing in the middle of a relayed rest.
    stall: Duration,
    /// Bytes of the frame last yielded that are still in the socket, until settled.
    unsettled: usize,
    /// A relay taken of a rest: nothing is read until it has ended.
    relaying: Option<BodyEnded>,
    /// Bytes of a rest nobody took, to read past before the next frame.
    skip: usize,
    /// The frame being read was offered and declined: it is read whole.
    whole: bool,
}

/// A request frame, with the memory lease it holds until it is dropped: whole, or (cut-through
/// reading) its first part.
#[derive(Debug)]
pub struct Frame {
    /// The frame without its size prefix (its first part when `rest` is not 0).
    pub payload: Bytes,
    /// The bytes leased for it from `queued.max.request.bytes`, if the pool is on.
    pub lease: Option<MemoryLease>,
    /// Bytes of the frame still in the socket: 0 for a whole frame. Otherwise, before the next
    /// read, the connection must be told what became of them: relayed
    /// ([`FrameRest::relay`], then [`Connection::settle_rest`]), answered without
    /// ([`Connection::settle_rest`]), or to be read after all ([`Connection::read_rest`]).
    pub rest: usize,
}

impl<S: ClientStream> Connection<S> {
    /// Sets the largest frame read next, and whether its bytes are leased from the memory
    /// pool (not before authentication, whose frames have their own bound).
    pub(super) fn set_limits(&mut self, max_frame: usize, charge_memory: bool) {
        self.max_frame = max_frame;
        self.charge_memory = charge_memory;
    }

    /// Wraps a stream; frames larger than `max_frame` bytes are refused.
    pub fn new(stream: S, max_frame: usize) -> Connection<S> {
        Connection {
            stream,
            buffer: BytesMut::with_capacity(4096),
            max_frame,
            memory: None,
            charge_memory: true,
            lease: None,
            large: None,
            head_first: None,
        }
    }

    /// Hands over frames of `policy`'s API and size once their first part is here (see
    /// [`Frame::rest`]); a client sending nothing for `stall` in the middle of a relayed rest
    /// fails it. Only for a plain TCP stream.
    pub fn set_cut_through(&mut self, policy: CutThrough, stall: Duration) {
        if self.stream.tcp().is_some() {
            self.head_first = Some(HeadFirst {
                policy,
                source: None,
                stall,
                unsettled: 0,
                relaying: None,
                skip: 0,
                whole: false,
            });
        }
    }

    /// Settles the rest of the frame last yielded with [`Frame::rest`] once its request is
    /// handled: relayed if it was taken, else read past before the next frame.
    pub fn settle_rest(&mut self) {
        if let Some(head_first) = &mut self.head_first {
            head_first.skip += std::mem::take(&mut head_first.unsettled);
        }
    }

    /// Puts back the first part of the frame last yielded with [`Frame::rest`] (and its
    /// lease): the next [`Connection::read_frame`] reads the rest and yields the frame whole.
    pub fn read_rest(&mut self, first: Bytes, lease: Option<MemoryLease>) {
        let Some(head_first) = &mut self.head_first else {
            return;
        };
        let len = first.len() + std::mem::take(&mut head_first.unsettled);
        head_first.whole = true;
        // Nothing is buffered past the first part (the frame was incomplete).
        let mut buffer = BytesMut::with_capacity(SIZE_PREFIX_LEN + first.len() + MIN_READ_ROOM);
        buffer.extend_from_slice(&(len as u32).to_be_bytes());
        buffer.extend_from_slice(&first);
        buffer.extend_from_slice(&self.buffer);
        self.buffer = buffer;
        self.lease = lease;
    }

    /// Waits for a relayed rest to end and reads past a rest nobody took; an error when a
    /// relay failed (the stream is no longer at a frame boundary).
    async fn finish_rest(&mut self) -> Result<(), ConnectionError> {
        let Some(head_first) = &mut self.head_first else {
            return Ok(());
        };
        if let Some(relaying) = &mut head_first.relaying {
            let ended = relaying.ended().await;
            head_first.relaying = None;
            match ended {
                BodyEnd::Relayed => {}
                BodyEnd::Abandoned { left_in_source } => head_first.skip += left_in_source,
                BodyEnd::SourceFailed => return Err(ConnectionError::RelayFailed),
            }
        }
        let mut sink = [0u8; 8192];
        while head_first.skip > 0 {
            let want = head_first.skip.min(sink.len());
            match self.stream.read(&mut sink[..want]).await? {
                0 => return Err(ConnectionError::ResetMidFrame),
                read => head_first.skip -= read,
            }
        }
        Ok(())
    }

    /// Whether the frame of `len` bytes at the start of the buffer, of which `arrived` are
    /// here, is to be yielded now with its rest in the socket.
    fn yields_first_part(&self, len: usize, arrived: usize) -> bool {
        let Some(head_first) = &self.head_first else {
            return false;
        };
        let policy = &head_first.policy;
        let api = self
            .buffer
            .get(SIZE_PREFIX_LEN..SIZE_PREFIX_LEN + 2)
            .map(|key| i16::from_be_bytes([key[0], key[1]]));
        self.charge_memory
            && !head_first.whole
            && len >= policy.min_frame
            && arrived >= policy.first_part
            && arrived < len
            && api == Some(policy.api.key())
    }

    /// Makes the frames read from now on lease their bytes from `pool` (`None`: no bound).
    pub fn set_memory_pool(&mut self, pool: Option<Arc<RequestMemoryPool>>) {
        self.memory = pool;
    }

    /// The next frame, or `None` when the client closed the connection between frames.
    /// Cancel-safe: bytes already read stay in the buffer, and a lease already granted stays
    /// with the connection.
    pub async fn read_frame(&mut self) -> Result<Option<Frame>, ConnectionError> {
        self.finish_rest().await?;
        loop {
            if let Some((len, body)) = &mut self.large {
                let missing = *len - body.len();
                if missing == 0 {
                    let (_, body) = self.large.take().expect("a large frame");
                    return Ok(Some(self.frame(frame_buffers::freeze(body), 0)));
                }
                // Never past the frame's end: the next frame starts in `buffer` again.
                let mut stream = (&mut self.stream).take(missing as u64);
                if stream.read_buf(body).await? == 0 {
                    return Err(ConnectionError::ResetMidFrame);
                }
                continue;
            }
            let complete = frame_payload_len(&self.buffer, self.max_frame)?;
            if let Some(prefix) = self.buffer.first_chunk::<SIZE_PREFIX_LEN>() {
                // The size is known and accepted (a negative or oversized one failed above).
                let len = usize::try_from(i32::from_be_bytes(*prefix)).unwrap_or(0);
                if let (None, true, Some(pool)) = (&self.lease, self.charge_memory, &self.memory) {
                    self.lease = Some(pool.lease(len).await);
                }
                if complete.is_some() {
                    let mut payload = self.buffer.split_to(SIZE_PREFIX_LEN + len);
                    payload.advance(SIZE_PREFIX_LEN);
                    return Ok(Some(self.frame(payload.freeze(), 0)));
                }
                let arrived = self.buffer.len() - SIZE_PREFIX_LEN;
                // Cut-through: the first part goes now, the rest stays in the socket (`buffer`
                // holds nothing past it: the frame is incomplete).
                if self.yields_first_part(len, arrived) {
                    let mut first = self.buffer.split();
                    first.advance(SIZE_PREFIX_LEN);
                    let rest = len - arrived;
                    if let Some(head_first) = &mut self.head_first {
                        head_first.unsettled = rest;
                    }
                    return Ok(Some(self.frame(first.freeze(), rest)));
                }
                // An authenticated client's large frame moves into a pooled buffer once enough
                // of it is here (`buffer` holds nothing past it: the frame is incomplete).
                if self.charge_memory && arrived >= POOLED_AFTER {
                    if let Some(mut body) = frame_buffers::take(len) {
                        body.extend_from_slice(&self.buffer[SIZE_PREFIX_LEN..]);
                        self.buffer.clear();
                        self.large = Some((len, body));
                        continue;
                    }
                }
                // Room for what is still missing, but never more than three times what has
                // already arrived (at least MIN_READ_ROOM): a declared size alone, without its
                // bytes, never makes the server allocate it. The buffer quadruples as the body
                // comes in, so growing it copies about a third of a large frame (doubling
                // copied all of it once more, a fifth of a gateway's CPU on megabyte Produce
                // requests). A frame whose bytes the memory pool has already granted gets all
                // its room at once.
                let missing = (SIZE_PREFIX_LEN + len).saturating_sub(self.buffer.len());
                let room = match self.lease {
                    Some(_) => missing,
                    None => missing.min((self.buffer.len() * 3).max(MIN_READ_ROOM)),
                };
                self.buffer.reserve(room);
            }
            if self.stream.read_buf(&mut self.buffer).await? == 0 {
                return if self.buffer.is_empty() {
                    Ok(None)
                } else {
                    Err(ConnectionError::ResetMidFrame)
                };
            }
        }
    }

    /// A frame to hand out, with the lease it holds; the next frame is offered again.
    fn frame(&mut self, payload: Bytes, rest: usize) -> Frame {
        if let Some(head_first) = &mut self.head_first {
            head_first.whole = false;
        }
        Frame {
            payload,
            lease: self.lease.take(),
            rest,
        }
    }

    /// Whether a whole frame is already buffered and can be taken without waiting: its
    /// memory lease (if the pool is on) is granted now or it is not ready.
    pub fn frame_ready(&mut self) -> bool {
        let rest_pending = self
            .head_first
            .as_ref()
            .is_some_and(|h| h.relaying.is_some() || h.skip > 0 || h.unsettled > 0);
        if self.large.is_some() || rest_pending {
            return false;
        }
        let Ok(Some(len)) = frame_payload_len(&self.buffer, self.max_frame) else {
            return false;
        };
        if let (None, true, Some(pool)) = (&self.lease, self.charge_memory, &self.memory) {
            self.lease = pool.try_lease(len);
            return self.lease.is_some();
        }
        true
    }

    /// Ends the connection after a last response (a failed authentication) so that the client
    /// reads that response before it sees the connection end: wait for the client to close
    /// (it does on reading the error; anything else it sends is discarded), at most
    /// [`CLOSE_LINGER`], then close. A close right behind the response made kafka-python
    /// 3.0 report "socket disconnected" instead of SASL_AUTHENTICATION_FAILED when both
    /// arrived together.
    pub async fn close_after_response(&mut self) {
        let mut sink = [0u8; 512];
        let _ = tokio::time::timeout(CLOSE_LINGER, async {
            while matches!(self.stream.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
        // A TLS close_notify is a write too: a client that does not read must not hold it.
        let _ = tokio::time::timeout(CLOSE_LINGER, self.stream.shutdown()).await;
    }

    /// Writes bytes (a whole response frame) and flushes them, failing once a write makes no
    /// progress for `stall` (`None`: never), or for [`CLOSE_LINGER`] once `shutdown` is set.
    pub async fn write_response(
        &mut self,
        mut bytes: &[u8],
        stall: Option<Duration>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(), ConnectionError> {
        while !bytes.is_empty() {
            let written = progress(self.stream.write(bytes), stall, shutdown).await?;
            if written == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::WriteZero).into());
            }
            bytes = bytes.get(written..).unwrap_or_default();
        }
        progress(self.stream.flush(), stall, shutdown).await
    }

    /// Writes a response frame whose body comes through a pipe: its head, then the body,
    /// spliced into a plain TCP socket (or read out and written for any other stream), and
    /// returns how many bytes were spliced. Each step is bounded as
    /// [`Connection::write_response`]'s writes are; a body that stops coming (the upstream
    /// stalled) counts as no progress too.
    pub async fn write_spliced(
        &mut self,
        frame: SplicedFrame,
        stall: Option<Duration>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<usize, ConnectionError> {
        let SplicedFrame { head, mut body } = frame;
        self.write_response(&head, stall, shutdown).await?;
        if let Some(socket) = self.stream.tcp() {
            let spliced = body.remaining();
            while body.remaining() > 0 {
                progress(body.splice_some_into(socket), stall, shutdown).await?;
            }
            return Ok(spliced);
        }
        let mut piece = vec![0u8; body.remaining().min(UNSPLICED_PIECE)];
        while body.remaining() > 0 {
            let read = progress(body.read_some(&mut piece), stall, shutdown).await?;
            let bytes = piece.get(..read).unwrap_or_default();
            self.write_response(bytes, stall, shutdown).await?;
        }
        Ok(0)
    }
}

impl<S: ClientStream> FrameRest for Connection<S> {
    fn len(&self) -> usize {
        self.head_first.as_ref().map_or(0, |h| h.unsettled)
    }

    fn relay(&mut self) -> Option<SplicedBody> {
        let head_first = self.head_first.as_mut()?;
        if head_first.unsettled == 0 || head_first.relaying.is_some() {
            return None;
        }
        if head_first.source.is_none() {
            head_first.source = self
                .stream
                .tcp()
                .and_then(second_registration)
                .map(Arc::new);
        }
        let source = head_first.source.clone()?;
        let (body, ended) = kacl_splice::relay(source, head_first.unsettled, head_first.stall)?;
        head_first.unsettled = 0;
        head_first.relaying = Some(ended);
        Some(body)
    }
}

/// The same socket through a duplicated descriptor, registered with the runtime on its own so
/// that a relay waits on its own readiness; `None` when out of descriptors.
fn second_registration(socket: &TcpStream) -> Option<TcpStream> {
    use std::os::fd::AsFd;
    let fd = socket.as_fd().try_clone_to_owned().ok()?;
    TcpStream::from_std(std::net::TcpStream::from(fd)).ok()
}

/// Runs one write step, failing when it makes no progress for `stall`, or for [`CLOSE_LINGER`]
/// once `shutdown` is set (also when it is set while the step waits).
async fn progress<T>(
    step: impl Future<Output = std::io::Result<T>>,
    stall: Option<Duration>,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<T, ConnectionError> {
    tokio::pin!(step);
    if !*shutdown.borrow() {
        let stalled = async {
            match stall {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        // Biased: the step is polled first, so a write that completes at once (the common
        // case) returns before the timer is ever registered.
        tokio::select! {
            biased;
            done = &mut step => return Ok(done?),
            _ = stalled => return Err(ConnectionError::WriteStalled),
            _ = wait_for_shutdown(shutdown) => {}
        }
    }
    let linger = stall.map_or(CLOSE_LINGER, |limit| limit.min(CLOSE_LINGER));
    match tokio::time::timeout(linger, step).await {
        Ok(done) => Ok(done?),
        Err(_) => Err(ConnectionError::StalledAtShutdown),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn a_declared_size_alone_allocates_nothing_large() {
        let (server_side, mut client) = tokio::io::duplex(1 << 20);
        let mut connection = Connection::new(server_side, 104_857_600);
        client
            .write_all(&100_000_000i32.to_be_bytes())
            .await
            .unwrap();
        client.write_all(&[7u8; 10]).await.unwrap();
        let waited =
            tokio::time::timeout(Duration::from_millis(100), connection.read_frame()).await;
        assert!(waited.is_err(), "the body is still missing");
        assert!(
            connection.buffer.capacity() < 1 << 20,
            "a 100 MB declaration made the buffer {} bytes",
            connection.buffer.capacity()
        );

        // As the body arrives the buffer grows with it, and the frame comes out whole.
        let body = vec![7u8; 3_000_000];
        let (server_side, mut client) = tokio::io::duplex(1 << 16);
        let mut connection = Connection::new(server_side, 104_857_600);
        let sender = tokio::spawn(async move {
            client
                .write_all(&(body.len() as i32).to_be_bytes())
                .await
                .unwrap();
            client.write_all(&body).await.unwrap();
            client
        });
        let frame = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(frame.payload.len(), 3_000_000);
        assert!(frame.payload.iter().all(|b| *b == 7));
        drop(sender.await.unwrap());
    }

    /// Two frames of `len` bytes (each byte its frame's number) and a small third, written in
    /// pieces of `piece` bytes.
    async fn send_frames(mut client: tokio::io::DuplexStream, len: usize, piece: usize) {
        let mut bytes = Vec::new();
        for (n, size) in [(1u8, len), (2, len), (3, 10)] {
            bytes.extend_from_slice(&(size as i32).to_be_bytes());
            bytes.extend(std::iter::repeat_n(n, size));
        }
        for chunk in bytes.chunks(piece) {
            client.write_all(chunk).await.unwrap();
        }
        // Kept open until the reader is done.
        std::future::pending::<()>().await;
    }

    #[tokio::test]
    async fn a_large_frame_is_read_into_a_reused_buffer_and_the_next_frame_follows() {
        // 400,000 bytes: the 512 KiB class, which no other test uses.
        let len = 400_000;
        let (server_side, client) = tokio::io::duplex(1 << 16);
        let sender = tokio::spawn(send_frames(client, len, 50_000));
        let mut connection = Connection::new(server_side, 104_857_600);
        let first = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(first.payload.len(), len);
        assert!(first.payload.iter().all(|b| *b == 1));
        let at = first.payload.as_ptr();
        drop(first);
        let second = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(second.payload.len(), len);
        assert!(second.payload.iter().all(|b| *b == 2));
        assert_eq!(
            second.payload.as_ptr(),
            at,
            "the first frame's buffer, read into again"
        );
        let third = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(&third.payload[..], &[3u8; 10]);
        sender.abort();
    }

    #[tokio::test]
    async fn a_large_frame_before_authentication_or_cut_short_is_not_pooled_wrongly() {
        // Before authentication: the buffer grows as before.
        let (server_side, client) = tokio::io::duplex(1 << 16);
        let sender = tokio::spawn(send_frames(client, 300_000, 40_000));
        let mut connection = Connection::new(server_side, 104_857_600);
        connection.set_limits(104_857_600, false);
        let frame = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(frame.payload.len(), 300_000);
        assert!(connection.large.is_none());
        sender.abort();

        // The client goes away in the middle of a pooled frame: reset mid-frame.
        let (server_side, mut client) = tokio::io::duplex(1 << 20);
        let mut connection = Connection::new(server_side, 104_857_600);
        client.write_all(&300_000i32.to_be_bytes()).await.unwrap();
        client.write_all(&[9u8; 100_000]).await.unwrap();
        let waited =
            tokio::time::timeout(Duration::from_millis(100), connection.read_frame()).await;
        assert!(waited.is_err(), "the body is still missing");
        assert!(connection.large.is_some(), "moved into a pooled buffer");
        assert!(!connection.frame_ready());
        drop(client);
        assert!(matches!(
            connection.read_frame().await,
            Err(ConnectionError::ResetMidFrame)
        ));
    }

    /// A connected pair of loopback sockets.
    async fn socket_pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (connected, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
        (connected.unwrap(), accepted.unwrap().0)
    }

    /// A frame of `len` bytes (without its size prefix) for API `api`, each body byte a
    /// function of its position so that a misplaced byte shows.
    fn frame_of(api: i16, len: usize) -> Vec<u8> {
        let mut frame = (len as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&api.to_be_bytes());
        frame.extend((2..len).map(|i| (i * 13 % 251) as u8));
        frame
    }

    const PRODUCE_FIRST: CutThrough = CutThrough {
        api: kacl_protocol::ApiKey::Produce,
        min_frame: 128 * 1024,
        first_part: 1024,
    };

    /// A connection reading cut-through Produce frames from a client that sends a 300 KB
    /// Produce, then a 300 KB frame of another API, then a small Produce, then waits.
    async fn cut_through_connection() -> (Connection<TcpStream>, Vec<Vec<u8>>) {
        let (mut client, server_side) = socket_pair().await;
        let frames = vec![frame_of(0, 300_000), frame_of(3, 300_000), frame_of(0, 500)];
        let sent = frames.clone();
        tokio::spawn(async move {
            for frame in &sent {
                client.write_all(frame).await.unwrap();
            }
            tokio::time::sleep(Duration::from_secs(20)).await;
        });
        let mut connection = Connection::new(server_side, 104_857_600);
        connection.set_cut_through(PRODUCE_FIRST, Duration::from_secs(10));
        (connection, frames)
    }

    /// The frames after the first come whole and intact.
    async fn the_others_follow(connection: &mut Connection<TcpStream>, frames: &[Vec<u8>]) {
        for expected in &frames[1..] {
            let frame = connection.read_frame().await.unwrap().expect("a frame");
            assert_eq!(frame.rest, 0, "only a large Produce is cut through");
            assert!(frame.payload[..] == expected[4..]);
        }
    }

    #[tokio::test]
    async fn a_large_produce_comes_at_its_first_part_and_whole_when_declined() {
        let (mut connection, frames) = cut_through_connection().await;
        let first = connection.read_frame().await.unwrap().expect("a frame");
        assert!(first.rest > 0 && first.payload.len() >= 1024);
        assert_eq!(first.payload.len() + first.rest, 300_000);
        assert!(first.payload[..] == frames[0][4..4 + first.payload.len()]);
        assert!(!connection.frame_ready(), "its rest is unsettled");
        connection.read_rest(first.payload, first.lease);
        let whole = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(whole.rest, 0, "declined once, read whole");
        assert!(whole.payload[..] == frames[0][4..]);
        the_others_follow(&mut connection, &frames).await;
    }

    #[tokio::test]
    async fn a_relayed_rest_goes_out_through_the_pipe_and_the_next_frame_follows() {
        let (mut connection, frames) = cut_through_connection().await;
        let first = connection.read_frame().await.unwrap().expect("a frame");
        let rest = first.rest;
        let mut body = FrameRest::relay(&mut connection).expect("a pipe");
        assert_eq!((body.remaining(), FrameRest::len(&connection)), (rest, 0));
        connection.settle_rest();
        let (out, mut upstream) = socket_pair().await;
        let relayed = tokio::spawn(async move {
            while body.splice_some_into(&out).await.unwrap() > 0 {}
            drop(body);
            out
        });
        let mut got = vec![0u8; rest];
        upstream.read_exact(&mut got).await.unwrap();
        assert!(got[..] == frames[0][4 + first.payload.len()..]);
        drop(relayed.await.unwrap());
        the_others_follow(&mut connection, &frames).await;
    }

    #[tokio::test]
    async fn a_rest_nobody_took_or_dropped_untouched_is_read_past() {
        // Answered without its rest (a refusal): settled, never relayed.
        let (mut connection, frames) = cut_through_connection().await;
        let first = connection.read_frame().await.unwrap().expect("a frame");
        assert!(first.rest > 0);
        connection.settle_rest();
        the_others_follow(&mut connection, &frames).await;

        // Taken, then dropped before anything was relayed (refused after the relay was made).
        let (mut connection, frames) = cut_through_connection().await;
        connection.read_frame().await.unwrap().expect("a frame");
        let body = FrameRest::relay(&mut connection).expect("a pipe");
        connection.settle_rest();
        drop(body);
        the_others_follow(&mut connection, &frames).await;
    }

    #[tokio::test]
    async fn a_relayed_rest_that_fails_ends_the_connection() {
        let (mut connection, _) = cut_through_connection().await;
        connection.read_frame().await.unwrap().expect("a frame");
        let body = FrameRest::relay(&mut connection).expect("a pipe");
        connection.settle_rest();
        body.fail();
        assert!(matches!(
            connection.read_frame().await,
            Err(ConnectionError::RelayFailed)
        ));
    }
}
