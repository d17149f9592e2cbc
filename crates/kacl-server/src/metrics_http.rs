//! The `/metrics` endpoint: a deliberately small HTTP/1.1 server on `kacl.metrics.listen`.
//! It answers `GET /metrics` with the text exposition and closes the connection after each
//! answer; anything else gets 404 or 405. Prometheus needs nothing more, and a hand-written
//! loop keeps a web framework out of the server.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::{AbortHandle, JoinSet};

use kacl_service::metrics::Gauges;
use kacl_service::ServerState;

use crate::shutdown::wait_for_shutdown;

/// The content type of Prometheus' text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
/// The longest request head read (request line and headers); more is answered with 431.
const MAX_REQUEST_HEAD: usize = 8192;
/// How long a scraper may take to send its request (Prometheus sends it at once).
const READ_TIMEOUT: Duration = Duration::from_secs(2);
/// How long writing the answer may take, and waiting for the scraper to close after it.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections served at once (each holds at most an 8 KiB head and one answer).
const MAX_CONCURRENT_SCRAPES: usize = 16;

/// One open connection: when it was accepted, and whether it is only waiting for its client
/// (for its request head, or for its close after the answer), so that it may be dropped.
struct Slot {
    accepted: Instant,
    waiting: Arc<AtomicBool>,
    task: AbortHandle,
}

/// Serves `/metrics` on `socket` until shutdown.
///
/// When every slot is taken, a new connection replaces the oldest one that is only waiting for
/// its client: idle sockets (however many, from whatever address) cannot keep a scraper out,
/// which sends its request as soon as it connects. A new connection is closed only when all 16
/// are rendering or writing an answer.
pub async fn serve(
    socket: TcpListener,
    state: Arc<ServerState>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut scrapes = JoinSet::new();
    let mut slots: Vec<Slot> = Vec::with_capacity(MAX_CONCURRENT_SCRAPES);
    loop {
        tokio::select! {
            _ = wait_for_shutdown(&mut shutdown) => break,
            Some(done) = scrapes.join_next_with_id(), if !scrapes.is_empty() => {
                let id = match &done {
                    Ok((id, ())) => *id,
                    Err(err) => err.id(),
                };
                slots.retain(|slot| slot.task.id() != id);
            }
            accepted = socket.accept() => match accepted {
                Ok((stream, _)) => {
                    if slots.len() >= MAX_CONCURRENT_SCRAPES && !evict_oldest_waiting(&mut slots) {
                        tracing::warn!("too many concurrent metrics scrapes; closing one");
                        continue;
                    }
                    let waiting = Arc::new(AtomicBool::new(true));
                    let task = scrapes.spawn(answer(stream, state.clone(), waiting.clone()));
                    slots.push(Slot { accepted: Instant::now(), waiting, task });
                }
                Err(err) => {
                    tracing::warn!(%err, "metrics accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    // Scrapes hold the state; the server waits for the last reference at shutdown.
    scrapes.abort_all();
    while scrapes.join_next().await.is_some() {}
}

/// Aborts the oldest connection that is only waiting for its client; false if there is none.
fn evict_oldest_waiting(slots: &mut Vec<Slot>) -> bool {
    let oldest = slots
        .iter()
        .enumerate()
        .filter(|(_, slot)| slot.waiting.load(Ordering::Acquire))
        .min_by_key(|(_, slot)| slot.accepted)
        .map(|(at, _)| at);
    match oldest {
        Some(at) => {
            slots.swap_remove(at).task.abort();
            true
        }
        None => false,
    }
}

/// Reads one request and answers it; `waiting` is cleared while the answer is being made and
/// written, when dropping the connection would lose work.
async fn answer(mut stream: TcpStream, state: Arc<ServerState>, waiting: Arc<AtomicBool>) {
    let head = tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await;
    waiting.store(false, Ordering::Release);
    let response = match head {
        Ok(Ok(Some(head))) => respond(&head, &state),
        Ok(Ok(None)) => plain(431, "Request Header Fields Too Large", ""),
        Ok(Err(_)) | Err(_) => return,
    };
    let _ = tokio::time::timeout(WRITE_TIMEOUT, async {
        let _ = stream.write_all(&response).await;
        let _ = stream.shutdown().await;
    })
    .await;
    waiting.store(true, Ordering::Release);
    // Read what the client still sends until it closes: closing with unread input would make
    // the kernel reset the connection, which can destroy the answer before it is read.
    let mut sink = [0u8; 1024];
    let _ = tokio::time::timeout(WRITE_TIMEOUT, async {
        while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
    })
    .await;
}

/// The request head up to the blank line, or `None` if it is longer than the limit.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            return Ok(Some(head));
        }
        if head.len() > MAX_REQUEST_HEAD {
            return Ok(None);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
}

/// The full response to a request head.
fn respond(head: &[u8], state: &ServerState) -> Vec<u8> {
    let line = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    if path != "/metrics" {
        return plain(404, "Not Found", "kacl serves /metrics only\n");
    }
    if method != "GET" {
        return plain(405, "Method Not Allowed", "use GET\n");
    }
    let body = state.metrics.render(Gauges {
        acls: state.acls.len(),
        topics: state.topics.read().len(),
        feed: state.store.feed_stats(),
    });
    response(200, "OK", CONTENT_TYPE, &body)
}

fn plain(status: u16, reason: &str, body: &str) -> Vec<u8> {
    response(status, reason, "text/plain; charset=utf-8", body)
}

fn response(status: u16, reason: &str, content_type: &str, body: &str) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    if status == 405 {
        out.push_str("Allow: GET\r\n");
    }
    out.push_str("\r\n");
    out.push_str(body);
    out.into_bytes()
}
