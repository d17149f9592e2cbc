//! The `/metrics` endpoint: a deliberately small HTTP/1.1 server on `kacl.metrics.listen`.
//! It answers `GET /metrics` with the text exposition and closes the connection after each
//! answer; anything else gets 404 or 405. Prometheus needs nothing more, and a hand-written
//! loop keeps a web framework out of the server.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use kacl_service::metrics::Gauges;
use kacl_service::ServerState;

use crate::shutdown::wait_for_shutdown;

/// The content type of Prometheus' text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
/// The longest request head read (request line and headers); more is answered with 431.
const MAX_REQUEST_HEAD: usize = 8192;
/// How long a scraper may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Scrapes answered at once; connections beyond it are closed on accept.
const MAX_CONCURRENT_SCRAPES: usize = 16;

/// Serves `/metrics` on `socket` until shutdown.
pub async fn serve(
    socket: TcpListener,
    state: Arc<ServerState>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut scrapes = JoinSet::new();
    loop {
        tokio::select! {
            _ = wait_for_shutdown(&mut shutdown) => break,
            Some(_) = scrapes.join_next(), if !scrapes.is_empty() => {}
            accepted = socket.accept() => match accepted {
                Ok((stream, _)) if scrapes.len() < MAX_CONCURRENT_SCRAPES => {
                    scrapes.spawn(answer(stream, state.clone()));
                }
                Ok(_) => tracing::warn!("too many concurrent metrics scrapes; closing one"),
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

/// Reads one request and answers it.
async fn answer(mut stream: TcpStream, state: Arc<ServerState>) {
    let head = tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await;
    let response = match head {
        Ok(Ok(Some(head))) => respond(&head, &state),
        Ok(Ok(None)) => plain(431, "Request Header Fields Too Large", ""),
        Ok(Err(_)) | Err(_) => return,
    };
    let _ = stream.write_all(&response).await;
    let _ = stream.shutdown().await;
    // Read what the client still sends until it closes: closing with unread input would make
    // the kernel reset the connection, which can destroy the answer before it is read.
    let mut sink = [0u8; 1024];
    let _ = tokio::time::timeout(READ_TIMEOUT, async {
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
