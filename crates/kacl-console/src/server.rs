//! The console's HTTP/1.1 server loop (hyper, the routes as one axum `Router`), built for
//! hostile clients:
//!
//! - a request head (the first, or the next on a kept-alive connection) not complete within
//!   [`HEAD_TIMEOUT`] closes the connection; a TLS handshake has the same bound;
//! - connections are bounded ([`Limits::max_connections`], below the file-descriptor limit,
//!   which is raised to its hard limit and reported at start), and so are those that have not
//!   yet sent a complete first request head ([`Limits::max_half_open`]): past that bound the
//!   oldest of them is closed to make room, so hundreds of clients that connect and hang on
//!   cannot keep a fresh visitor out;
//! - a request body (a form) must arrive within [`BODY_TIMEOUT`] (`pages::guard`).
//!
//! Every request carries its peer address (`ConnectInfo<SocketAddr>`) for the login throttle.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify, Semaphore};

/// A request head must be complete this long after the connection is ready for it.
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// A form body must be complete this long after its head.
pub(crate) const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections at most, whatever the file-descriptor limit allows.
const MAX_CONNECTIONS: usize = 1024;

/// File descriptors kept for everything but browsers' connections: the sessions' admin
/// connections to the cluster, the metrics sampler, the process's own files.
const FD_RESERVE: u64 = 64;

/// How long connections get to finish when the console stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The bounds of one server (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Open browser connections at most.
    pub(crate) max_connections: usize,
    /// Connections that have not yet sent a complete first request head, at most.
    pub(crate) max_half_open: usize,
}

impl Limits {
    /// The bounds for a process allowed `fd_limit` open files: half of what is left after
    /// [`FD_RESERVE`] (the other half is for the sessions' connections to the cluster), at most
    /// 1,024, at least 16; half of them may be half-open.
    pub(crate) fn for_fd_limit(fd_limit: u64) -> Limits {
        let usable = fd_limit.saturating_sub(FD_RESERVE) / 2;
        let max_connections = usize::try_from(usable)
            .unwrap_or(usize::MAX)
            .clamp(16, MAX_CONNECTIONS);
        Limits {
            max_connections,
            max_half_open: max_connections / 2,
        }
    }

    /// Raises the soft file-descriptor limit to the hard one, says what it is (a log line),
    /// and returns the bounds it allows.
    pub(crate) fn from_process() -> Limits {
        let limit = raise_fd_limit();
        let limits = Limits::for_fd_limit(limit.unwrap_or(1024));
        match limit {
            Some(n) => tracing::info!(
                fd_limit = n,
                max_connections = limits.max_connections,
                max_half_open = limits.max_half_open,
                "console connection limits"
            ),
            None => tracing::warn!(
                max_connections = limits.max_connections,
                "console: the file-descriptor limit could not be read; assuming 1024"
            ),
        }
        limits
    }
}

/// The soft `RLIMIT_NOFILE`, raised to the hard limit first where it is lower.
fn raise_fd_limit() -> Option<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return Some(hard);
    }
    Some(soft)
}

/// The connections still waiting for their first request head, oldest first; each can be
/// told to close.
#[derive(Default)]
struct HalfOpen {
    waiting: Mutex<BTreeMap<u64, Arc<Notify>>>,
}

impl HalfOpen {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Notify>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers connection `id`, first closing the oldest ones while `max` are waiting.
    fn admit(&self, id: u64, max: usize) -> Arc<Notify> {
        let close = Arc::new(Notify::new());
        let mut waiting = self.lock();
        while waiting.len() >= max.max(1) {
            match waiting.pop_first() {
                Some((_, oldest)) => oldest.notify_one(),
                None => break,
            }
        }
        waiting.insert(id, close.clone());
        close
    }

    /// Connection `id` sent a head (or ended).
    fn done(&self, id: u64) {
        self.lock().remove(&id);
    }
}

/// Serves `router` on `listener` (over TLS with `tls`) until `shutdown` completes.
pub(crate) async fn serve(
    listener: TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let half_open = Arc::new(HalfOpen::default());
    let next_id = AtomicU64::new(0);
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (tcp, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(error = %e, "console accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let id = next_id.fetch_add(1, Ordering::Relaxed);
        // Room among the half-open first (the oldest goes), then a connection slot: with every
        // slot taken by connections that did send a head, accepting waits for one to end.
        let close = half_open.admit(id, limits.max_half_open);
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => match permit {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (router, half_open, mut stopping) =
            (router.clone(), half_open.clone(), stopping.clone());
        let tls = tls.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let connection = async {
                match tls {
                    None => connection(tcp, peer, id, router, &half_open, &mut stopping).await,
                    Some(acceptor) => {
                        let handshake = tokio::time::timeout(HEAD_TIMEOUT, acceptor.accept(tcp));
                        if let Ok(Ok(tls)) = handshake.await {
                            connection(tls, peer, id, router, &half_open, &mut stopping).await;
                        }
                    }
                }
            };
            tokio::select! {
                () = connection => {}
                () = close.notified() => {}
            }
            half_open.done(id);
        });
    }
    let _ = stop.send(true);
    // Connections finish what they are answering (bounded), as axum's graceful shutdown does.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, slots.acquire_many(all)).await;
    Ok(())
}

/// One connection: HTTP/1.1 with the head timeout, each request marked with its peer and
/// the connection taken off the half-open list at its first head.
async fn connection<I>(
    io: I,
    peer: SocketAddr,
    id: u64,
    router: Router,
    half_open: &Arc<HalfOpen>,
    stopping: &mut watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let inner = TowerToHyperService::new(router);
    let marks = half_open.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        marks.done(id);
        request.extensions_mut().insert(ConnectInfo(peer));
        hyper::service::Service::call(&inner, request)
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopping.wait_for(|stop| *stop) => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_stay_below_the_fd_limit() {
        assert_eq!(
            Limits::for_fd_limit(1 << 20),
            Limits {
                max_connections: 1024,
                max_half_open: 512
            }
        );
        let small = Limits::for_fd_limit(300);
        assert_eq!(small.max_connections, 118);
        assert!(small.max_connections * 2 + 64 <= 300);
        assert_eq!(Limits::for_fd_limit(0).max_connections, 16);
    }

    #[test]
    fn the_oldest_half_open_connection_makes_room() {
        let h = HalfOpen::default();
        let first = h.admit(1, 2);
        let _second = h.admit(2, 2);
        h.done(2);
        let _third = h.admit(3, 2);
        assert_eq!(h.lock().len(), 2);
        let _fourth = h.admit(4, 2);
        // 1 was the oldest waiting: told to close (a permit is stored for it).
        let notified = first.notified();
        tokio::pin!(notified);
        assert!(futures_ready(notified.as_mut()));
        assert_eq!(h.lock().keys().copied().collect::<Vec<_>>(), vec![3, 4]);
    }

    fn futures_ready<F: Future>(f: std::pin::Pin<&mut F>) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        f.poll(&mut cx).is_ready()
    }
}
