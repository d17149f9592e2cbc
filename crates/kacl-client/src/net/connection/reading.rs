//! The reader's side of a connection: response frames read off the stream (their size checked
//! before anything is allocated for them) and handed to their waiters, whole, in chunks, or
//! (a large forwarded answer over plain TCP) with the body spliced into a pipe.

use std::sync::{Arc, Mutex};

use kacl_splice::{BodyEnd, SplicedFrame};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};

use super::in_flight::{
    lock, Chunk, ChunkReply, ForwardedAnswer, ForwardedReply, InFlight, Waiter,
};
use crate::error::AdminError;

/// The smallest forwarded body spliced rather than read: below it the pipe's set-up (two file
/// descriptors, their registration) costs more than the copies it saves.
pub const SPLICE_MIN_BODY: usize = 128 * 1024;

/// How much of a spliced answer's body is read into its head (at least): enough for the
/// caller to patch the fields at the start of the body (a Fetch answer's `throttle_time_ms`).
const SPLICED_HEAD: usize = 64;

/// Largest response frame accepted. Kafka's DescribeAcls has no pagination, so a listing of a
/// million ACLs is one frame of some 100 MB; anything past this bound is taken as garbage.
pub const MAX_RESPONSE_BYTES: usize = 1 << 30;

/// The reader's buffer: small answers (a Produce's, a heartbeat's) are read several at a time;
/// a large body is read past it straight into its own buffer. Small also because what it holds
/// of a spliced answer's body is copied into the answer's head: 16 KiB rather than 64 KiB took
/// three quarters of those copies off each megabyte Fetch answer a gateway splices.
const READ_BUFFER: usize = 16 * 1024;

/// The first room made for a response body; more is made as its bytes arrive.
const FIRST_READ_ROOM: usize = 64 * 1024;

/// Most bytes one chunk of a streamed response carries.
const CHUNK: usize = 256 * 1024;

/// The socket under a plain TCP connection's reader (its own registration of the same socket),
/// which spliced answers are relayed from, and how long it may stall mid-answer (the request
/// timeout, which bounds a whole answer that is read instead).
pub(super) struct SpliceSource {
    pub(super) socket: Arc<TcpStream>,
    pub(super) stall: std::time::Duration,
}

/// Reads response frames until the connection fails or `stop` fires.
pub(super) async fn read_loop(
    reader: impl AsyncRead + Unpin,
    splice_source: Option<SpliceSource>,
    in_flight: Arc<Mutex<InFlight>>,
    addr: String,
    mut stop: oneshot::Receiver<()>,
) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, reader);
    loop {
        let frame = tokio::select! {
            frame = read_one(&mut reader, splice_source.as_ref(), &in_flight, &addr) => frame,
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

/// Reads one response frame and hands it to its waiter: whole, in chunks as it arrives, or
/// spliced.
async fn read_one<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    splice_source: Option<&SpliceSource>,
    in_flight: &Mutex<InFlight>,
    addr: &str,
) -> Result<(), AdminError> {
    let (len, id) = read_frame_head(reader, addr).await?;
    let waiter = lock(in_flight).waiting.remove(&id);
    let spliceable = |splice: bool| splice && len - 4 >= SPLICE_MIN_BODY;
    match (waiter, splice_source) {
        (Some(Waiter::Chunks(chunks)), _) => stream_body(reader, len, id, chunks, addr).await,
        (Some(Waiter::Framed { reply, splice }), Some(source)) if spliceable(splice) => {
            splice_body(reader, source, len, id, reply, addr).await
        }
        (Some(Waiter::Framed { reply, .. }), _) => {
            let payload = read_body(reader, len, id, addr, true).await?;
            let _ = reply.send(Ok(ForwardedAnswer::Whole(payload)));
            Ok(())
        }
        (waiter, _) => {
            let payload = read_body(reader, len, id, addr, false).await?;
            match waiter {
                Some(Waiter::Whole(reply)) => {
                    let _ = reply.send(Ok(payload));
                }
                _ => tracing::debug!(%addr, id, "response for an abandoned request"),
            }
            Ok(())
        }
    }
}

/// The rest of a frame after its correlation id, handed over at once as a [`SplicedFrame`]:
/// its head (the size prefix, the id, the body's first [`SPLICED_HEAD`] bytes and whatever
/// else is already buffered), and the body, which its taker relays from the socket. Nothing
/// more is read until the body is done with; a waiter that went away, or a body abandoned
/// half-way (its client connection closed), leaves the rest to be read past, so the
/// connection stays in step. Without a pipe to be had the frame is read whole.
async fn splice_body<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    source: &SpliceSource,
    len: usize,
    id: i32,
    reply: oneshot::Sender<ForwardedReply>,
    addr: &str,
) -> Result<(), AdminError> {
    let rest = len - 4;
    let first = rest.min(SPLICED_HEAD);
    let mut head = Vec::with_capacity(8 + first + reader.buffer().len());
    head.extend_from_slice(&(len as u32).to_be_bytes());
    head.extend_from_slice(&id.to_be_bytes());
    append_exactly(reader, first, &mut head, addr).await?;
    let buffered = reader.buffer();
    let taken = buffered.len().min(rest - first);
    head.extend_from_slice(buffered.get(..taken).unwrap_or_default());
    reader.consume(taken);
    let body_len = rest - first - taken;
    let relay = (body_len > 0)
        .then(|| kacl_splice::relay(source.socket.clone(), body_len, source.stall))
        .flatten();
    let Some((body, ended)) = relay else {
        // Nothing left to splice, or no pipe to be had: the rest is read into the head.
        append_exactly(reader, body_len, &mut head, addr).await?;
        let _ = reply.send(Ok(ForwardedAnswer::Whole(head)));
        return Ok(());
    };
    // A waiter that went away drops the body with the refused send: it ends abandoned.
    let _ = reply.send(Ok(ForwardedAnswer::Spliced(SplicedFrame { head, body })));
    match ended.wait().await {
        BodyEnd::Relayed => Ok(()),
        BodyEnd::Abandoned { left_in_source } => discard(reader, left_in_source, addr).await,
        BodyEnd::SourceFailed => Err(mid_response(addr)),
    }
}

/// Appends the frame's next `len` bytes to `out`.
async fn append_exactly(
    reader: &mut (impl AsyncRead + Unpin),
    len: usize,
    out: &mut Vec<u8>,
    addr: &str,
) -> Result<(), AdminError> {
    let read = (&mut *reader)
        .take(len as u64)
        .read_to_end(out)
        .await
        .map_err(|e| AdminError::network(addr, e))?;
    if read < len {
        return Err(mid_response(addr));
    }
    Ok(())
}

/// Reads `len` bytes of a frame nobody wants any more.
async fn discard(
    reader: &mut (impl AsyncRead + Unpin),
    len: usize,
    addr: &str,
) -> Result<(), AdminError> {
    let copied = tokio::io::copy(&mut (&mut *reader).take(len as u64), &mut tokio::io::sink())
        .await
        .map_err(|e| AdminError::network(addr, e))?;
    if copied < len as u64 {
        return Err(mid_response(addr));
    }
    Ok(())
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
}
