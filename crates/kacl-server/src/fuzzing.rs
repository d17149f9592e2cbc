//! The whole request path without a network, for the `request_path` fuzz target and for tests:
//! a server state built on any store without binding a socket, and a function that pushes a
//! byte stream through the real connection loop ([`connection::serve_session`]: framing, frame
//! limits, the SASL gate, routing, every handler, the ACL writer) over an in-memory pipe and
//! returns what the server wrote back.
//!
//! Nothing here is a second implementation: the bytes take exactly the path a TCP client's
//! bytes take once the socket is accepted.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use kacl_acl::{AclIndex, SharedAclIndex};
use kacl_store::MetadataStore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;

use kacl_service::context::Session;
use kacl_service::credentials::ScramCredentials;
use kacl_service::metrics::{MeteredStore, Metrics};
use kacl_service::{BoundListener, ServerState};

use crate::connection;
use crate::server::StartError;
use kacl_server_config::ServerConfig;

/// The client address sessions appear to come from.
pub const CLIENT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)), 50_000);

/// How many bytes the in-memory pipe buffers in each direction.
const PIPE_CAPACITY: usize = 64 * 1024;

/// A server state over `store`, as [`Server::start_with_store`](crate::Server::start_with_store)
/// builds it (ACLs, topics and SCRAM credentials loaded from the store), with every configured
/// listener recorded as bound to its configured port but no socket opened. TLS listeners are
/// refused: the pipe carries plaintext only.
pub fn state_for(
    config: ServerConfig,
    store: Arc<dyn MetadataStore>,
) -> Result<Arc<ServerState>, StartError> {
    if config.listeners.iter().any(|l| l.protocol.uses_tls()) {
        return Err(StartError::Task(
            "the in-memory request path has no TLS".into(),
        ));
    }
    let metrics = Arc::new(Metrics::new());
    let store = MeteredStore::wrap(store, metrics.clone());
    let index = AclIndex::from_bindings(store.load_acls().map_err(StartError::Load)?)
        .map_err(|e| StartError::Task(format!("stored ACLs do not index: {e}")))?;
    let topics = store.load_topics().map_err(StartError::Load)?;
    let scram = ScramCredentials::load(store.clone()).map_err(StartError::Load)?;
    let listeners = config
        .listeners
        .iter()
        .map(|l| BoundListener {
            name: l.name.clone(),
            protocol: l.protocol,
            local_addr: SocketAddr::new(Ipv4Addr::LOCALHOST.into(), l.port),
            advertised_host: Ipv4Addr::LOCALHOST.to_string(),
            advertised_port: l.port,
            upstream_node: None,
        })
        .collect();
    let state = Arc::new(ServerState::new(
        config,
        store,
        SharedAclIndex::from_index(index),
        topics,
        listeners,
        scram,
        metrics,
    ));
    // The store's commits reach the state through its feed, as in a started server.
    let quotas = state.store.load_client_quotas().map_err(StartError::Load)?;
    state.quotas.replace(quotas);
    let sink = kacl_service::feed_sink::StateSink::new(&state);
    state.store.start_feed(sink).map_err(StartError::Load)?;
    Ok(state)
}

/// [`state_for`] as a gateway node: the data-path APIs go to `forwarder` (for the fuzzer, an
/// offline [`kacl_gateway::Gateway`], whose every forward fails after planning).
pub fn gateway_state_for(
    config: ServerConfig,
    store: Arc<dyn MetadataStore>,
    forwarder: Arc<dyn kacl_service::forward::Forwarder>,
) -> Result<Arc<ServerState>, StartError> {
    let state = state_for(config, store)?;
    let state = Arc::try_unwrap(state).map_err(|_| StartError::Task("state shared".into()))?;
    Ok(Arc::new(state.with_forwarder(forwarder)))
}

/// Serves `input` as one client connection on the listener named `listener`: the bytes are
/// written, the client half-closes, and everything the server writes until it closes the
/// connection is returned. `None` if there is no such listener.
///
/// Needs a Tokio runtime with time enabled (ACL writes use `spawn_blocking`).
pub async fn serve_bytes(
    state: &Arc<ServerState>,
    listener: &str,
    input: &[u8],
) -> Option<Vec<u8>> {
    let listener = state.listener(listener)?.clone();
    let (client, server) = tokio::io::duplex(PIPE_CAPACITY);
    let (from_server, to_server) = tokio::io::split(client);
    let session = Session::new(listener, CLIENT_ADDR);
    Some(exchange(state, session, server, from_server, to_server, input).await)
}

/// [`serve_bytes`] over a loopback TCP connection instead of the in-memory pipe: what only a
/// plain TCP client's connection does (a gateway's cut-through Produce, spliced answers) takes
/// its real path too. Binds an ephemeral port on 127.0.0.1 for the one connection.
pub async fn serve_bytes_tcp(
    state: &Arc<ServerState>,
    listener: &str,
    input: &[u8],
) -> Option<Vec<u8>> {
    let listener = state.listener(listener)?.clone();
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0").await.ok()?;
    let (client, accepted) = tokio::join!(
        tokio::net::TcpStream::connect(socket.local_addr().ok()?),
        socket.accept()
    );
    let (server, peer) = accepted.ok()?;
    let (from_server, to_server) = client.ok()?.into_split();
    let session = Session::new(listener, peer);
    Some(exchange(state, session, server, from_server, to_server, input).await)
}

/// Serves one connection on `server` while the client's halves write `input` (then
/// half-close) and read everything the server writes until it closes.
async fn exchange<S: connection::ClientStream>(
    state: &Arc<ServerState>,
    session: Session,
    server: S,
    mut from_server: impl tokio::io::AsyncRead + Unpin,
    mut to_server: impl tokio::io::AsyncWrite + Unpin,
    input: &[u8],
) -> Vec<u8> {
    // The shutdown sender lives until the connection ends, so the server never sees it fire.
    let (_shutdown, shutdown) = watch::channel(false);
    let feed = async move {
        // The server may close first (a malformed frame); the rest of the input is moot then.
        let _ = to_server.write_all(input).await;
        let _ = to_server.shutdown().await;
    };
    let collect = async move {
        let mut out = Vec::new();
        let _ = from_server.read_to_end(&mut out).await;
        out
    };
    let serve = connection::serve_session(server, session, state.clone(), shutdown);
    let ((), out, ()) = tokio::join!(feed, collect, serve);
    out
}
