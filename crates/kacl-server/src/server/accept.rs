//! The shell around the request path: each listener's TLS acceptor and advertised address,
//! and its accept loop (connection limits, socket options, one task per connection, the
//! bounded drain at shutdown).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kacl_server_config::{Listener, ServerConfig};
use kacl_service::{BoundListener, ServerState};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::start_error::StartError;
use crate::connection;
use crate::connection_limits::ConnectionLimits;
use crate::shutdown::wait_for_shutdown;
use crate::tls::{self, TlsAcceptor};

/// How long shutdown waits for requests in flight before dropping their connections.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What only the shell's accept loops need beside the request path's state.
#[derive(Debug)]
pub(super) struct Shell {
    /// `max.connections` and `max.connections.per.ip`, across all listeners.
    pub(super) limits: ConnectionLimits,
    /// The TLS acceptor of each SSL and SASL_SSL listener, by listener name.
    pub(super) tls: Arc<HashMap<String, TlsAcceptor>>,
}

/// A TLS acceptor for each TLS listener, from its own settings or the global ones (the config
/// checked that each has a key store).
pub(super) fn tls_acceptors(
    config: &ServerConfig,
) -> Result<HashMap<String, TlsAcceptor>, StartError> {
    let mut acceptors = HashMap::new();
    for listener in config.listeners.iter().filter(|l| l.protocol.uses_tls()) {
        let tls = config.tls_for(&listener.name).ok_or_else(|| {
            StartError::Task(format!(
                "TLS listener {} without ssl.keystore settings",
                listener.name
            ))
        })?;
        acceptors.insert(listener.name.clone(), TlsAcceptor::from_config(tls)?);
    }
    Ok(acceptors)
}

/// The address Metadata advertises for a listener: its `advertised.listeners` entry, with an
/// empty or wildcard host replaced by the bound address (or, for a wildcard bind, this
/// machine's host name) and port 0 replaced by the bound port.
pub(super) fn advertise(
    config: &ServerConfig,
    listener: &Listener,
    local_addr: SocketAddr,
) -> BoundListener {
    let advertised = config.advertised_listener(&listener.name);
    let host = advertised
        .map(|a| a.host.clone())
        .filter(|h| !is_wildcard_host(h))
        .unwrap_or_else(|| {
            if local_addr.ip().is_unspecified() {
                system_host_name()
            } else {
                local_addr.ip().to_string()
            }
        });
    let port = advertised
        .map(|a| a.port)
        .filter(|p| *p != 0)
        .unwrap_or(local_addr.port());
    BoundListener {
        name: listener.name.clone(),
        protocol: listener.protocol,
        local_addr,
        advertised_host: host,
        advertised_port: port,
        upstream_node: None,
    }
}

fn is_wildcard_host(host: &str) -> bool {
    host.is_empty() || host == "0.0.0.0" || host == "::" || host == "[::]"
}

/// This machine's host name, as Kafka advertises a wildcard listener; `localhost` if unknown.
fn system_host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// Accepts connections on one listener until shutdown, then drains them.
pub(super) async fn accept_loop(
    socket: TcpListener,
    listener: BoundListener,
    state: Arc<ServerState>,
    shell: Arc<Shell>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = wait_for_shutdown(&mut shutdown) => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = socket.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(err) => {
                        // Out of file descriptors and the like: do not spin.
                        tracing::warn!(listener = %listener.name, %err, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // Over max.connections or max.connections.per.ip: dropping the stream closes
                // it before a byte is read.
                let slot = match shell.limits.admit(peer.ip()) {
                    Ok(slot) => slot,
                    Err(refusal) => {
                        state.metrics.connection_refused();
                        tracing::warn!(%peer, listener = %listener.name, %refusal,
                            "connection refused");
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                connection::apply_buffer_sizes(&stream, &state.config);
                let counted = state.metrics.connection_opened();
                let (listener, state, shell, shutdown) =
                    (listener.clone(), state.clone(), shell.clone(), shutdown.clone());
                connections.spawn(async move {
                    match shell.tls.get(&listener.name) {
                        Some(acceptor) => {
                            if let Some((stream, session)) =
                                tls::accept(acceptor, stream, peer, listener, &state).await
                            {
                                connection::serve_session(stream, session, state, shutdown).await;
                            }
                        }
                        None => connection::serve(stream, peer, listener, state, shutdown).await,
                    }
                    drop((slot, counted));
                });
            }
        }
    }
    drop(socket);
    let drained = tokio::time::timeout(SHUTDOWN_GRACE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(listener = %listener.name, "connections still busy after the grace period; dropping them");
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
}
