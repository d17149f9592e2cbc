//! Starting and stopping the server: open the store, load the ACLs and topics into memory, bind
//! every listener, accept connections, and on shutdown stop accepting, let the requests in
//! flight finish (bounded), and close the store.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use kacl_server_config::ServerConfig;
//! use kacl_server::server::Server;
//!
//! let config = ServerConfig::load(None, &["listeners=PLAINTEXT://127.0.0.1:0".into()])?;
//! let server = Server::start(config).await?;
//! let addr = server.local_addr("PLAINTEXT").expect("bound");
//! // ... talk to `addr` ...
//! server.shutdown().await;
//! # Ok(()) }
//! ```

mod acl_snapshot;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_acl::{AclBinding, AclChanges, AclIndex, SharedAclIndex};
use kacl_store::{MetadataStore, RedbStore, StoreError, StoreOptions};
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use kacl_service::credentials::ScramCredentials;
use kacl_service::metrics::{MeteredStore, Metrics};
use kacl_service::scram_bootstrap::{self, BootstrapCredential};
use kacl_service::{BoundListener, ServerState};

use crate::connection;
use crate::connection_limits::ConnectionLimits;
use crate::metrics_http;
use crate::shutdown::wait_for_shutdown;
use crate::tls::{self, TlsAcceptor};
use kacl_server_config::{Listener, ServerConfig};

/// Reloads the key and trust store files of every TLS listener; cheap to clone.
#[derive(Debug, Clone)]
pub struct TlsReloader(Arc<HashMap<String, TlsAcceptor>>);

impl TlsReloader {
    /// Reads each TLS listener's PEM files again; new handshakes use them, open connections
    /// keep their session. A listener whose files do not load keeps what it had. Returns
    /// each listener with its outcome (none without TLS listeners), and logs them.
    pub fn reload(&self) -> Vec<(String, Result<(), tls::TlsError>)> {
        let mut outcomes: Vec<(String, Result<(), tls::TlsError>)> = self
            .0
            .iter()
            .map(|(listener, acceptor)| (listener.clone(), acceptor.reload()))
            .collect();
        outcomes.sort_by(|a, b| a.0.cmp(&b.0));
        for (listener, outcome) in &outcomes {
            match outcome {
                Ok(()) => tracing::info!(%listener, "reloaded the TLS key and trust stores"),
                Err(err) => tracing::error!(%listener, %err,
                    "cannot reload the TLS key and trust stores; keeping the ones in use"),
            }
        }
        outcomes
    }
}

/// How long shutdown waits for requests in flight before dropping their connections.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Why the server did not start.
#[derive(Debug, Error)]
pub enum StartError {
    /// The store could not be opened (locked by another server, unreadable, newer format).
    #[error("cannot open the data directory {dir}: {source}")]
    Store {
        /// The data directory.
        dir: String,
        /// The store's reason.
        source: StoreError,
    },
    /// The ACLs or topics could not be read back.
    #[error("cannot load the stored metadata: {0}")]
    Load(StoreError),
    /// A listener could not be bound.
    #[error("cannot bind listener {listener} to {address}: {source}")]
    Bind {
        /// The listener as configured.
        listener: String,
        /// The address tried.
        address: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The TLS key store or trust store cannot be used.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// The bootstrap SCRAM credentials cannot be created.
    #[error(transparent)]
    Bootstrap(#[from] scram_bootstrap::BootstrapError),
    /// A start-up task panicked.
    #[error("start-up task failed: {0}")]
    Task(String),
}

impl StartError {
    /// True when the data directory itself was refused (missing, damaged, or another
    /// cluster's or node's): `kacl serve` exits with [`kacl_store::EXIT_DATA_DIR_REFUSED`].
    pub fn refuses_data_dir(&self) -> bool {
        match self {
            StartError::Store { source, .. } | StartError::Load(source) => {
                source.refuses_data_dir()
            }
            _ => false,
        }
    }
}

/// The kacl server.
#[derive(Debug)]
pub struct Server;

/// What only the shell's accept loops need beside the request path's state.
#[derive(Debug)]
struct Shell {
    /// `max.connections` and `max.connections.per.ip`, across all listeners.
    limits: ConnectionLimits,
    /// The TLS acceptor of each SSL and SASL_SSL listener, by listener name.
    tls: Arc<HashMap<String, TlsAcceptor>>,
}

/// A started server: its bound listeners, and the means to stop it.
#[derive(Debug)]
pub struct RunningServer {
    state: Arc<ServerState>,
    tls: Arc<HashMap<String, TlsAcceptor>>,
    shutdown: Arc<watch::Sender<bool>>,
    accept_loops: Vec<JoinHandle<()>>,
    /// The redb store, when the server opened it: the ACL snapshot is written beside it at a
    /// clean stop.
    snapshot_store: Option<Arc<RedbStore>>,
}

/// Asks a running server to shut down; cheap to clone (a signal handler keeps one).
#[derive(Debug, Clone)]
pub struct ShutdownHandle(Arc<watch::Sender<bool>>);

impl ShutdownHandle {
    /// Stop accepting and let connections finish their request in flight.
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

impl Server {
    /// Opens the redb store in the configured data directory (its page cache bounded by
    /// `kacl.store.cache.bytes`) and starts serving.
    pub async fn start(config: ServerConfig) -> Result<RunningServer, StartError> {
        if let kacl_server_config::MetadataStoreConfig::Etcd(etcd) = &config.metadata_store {
            let options = etcd_options(etcd, config.acl_max_batch)
                .map_err(|e| StartError::Task(e.to_string()))?;
            let endpoints = etcd
                .endpoints
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let opened =
                tokio::task::spawn_blocking(move || kacl_store_etcd::EtcdStore::open(options))
                    .await
                    .map_err(|e| StartError::Task(e.to_string()))?;
            let store = opened.map_err(|source| StartError::Store {
                dir: format!("etcd {endpoints}"),
                source,
            })?;
            return Server::start_with_store(config, Arc::new(store)).await;
        }
        let (dir, options) = (config.data_dir.clone(), store_options(&config));
        let opened =
            tokio::task::spawn_blocking(move || RedbStore::open_with_options(&dir, options))
                .await
                .map_err(|e| StartError::Task(e.to_string()))?;
        let store = opened.map_err(|source| StartError::Store {
            dir: config.data_dir.display().to_string(),
            source,
        })?;
        tracing::debug!(
            cache_bytes = store.options().cache_bytes,
            "opened the store"
        );
        let store = Arc::new(store);
        Server::start_on(config, store.clone(), Some(store)).await
    }

    /// Starts serving on an already opened store (tests use [`kacl_store::MemoryStore`]).
    pub async fn start_with_store(
        config: ServerConfig,
        store: Arc<dyn MetadataStore>,
    ) -> Result<RunningServer, StartError> {
        Server::start_on(config, store, None).await
    }

    async fn start_on(
        config: ServerConfig,
        store: Arc<dyn MetadataStore>,
        snapshot_store: Option<Arc<RedbStore>>,
    ) -> Result<RunningServer, StartError> {
        let tls = tls_acceptors(&config)?;
        let metrics = Arc::new(Metrics::new());
        let store = MeteredStore::wrap(store, metrics.clone());
        let loader = store.clone();
        let snapshot = snapshot_store.clone();
        let (acls, topics, snapshot_version) =
            tokio::task::spawn_blocking(move || load(loader.as_ref(), snapshot.as_deref()))
                .await
                .map_err(|e| StartError::Task(e.to_string()))??;
        let scram = load_scram(store.clone(), config.scram_bootstrap.clone()).await?;

        let mut sockets = Vec::new();
        let mut bound = Vec::new();
        for listener in &config.listeners {
            let address = listener.bind_address();
            let socket = TcpListener::bind(&address)
                .await
                .map_err(|source| StartError::Bind {
                    listener: listener.to_string(),
                    address: address.clone(),
                    source,
                })?;
            let local_addr = socket.local_addr().map_err(|source| StartError::Bind {
                listener: listener.to_string(),
                address,
                source,
            })?;
            bound.push(advertise(&config, listener, local_addr));
            sockets.push(socket);
        }
        let metrics_socket = match &config.metrics_listen {
            Some(address) => {
                Some(
                    TcpListener::bind(address)
                        .await
                        .map_err(|source| StartError::Bind {
                            listener: "kacl.metrics.listen".into(),
                            address: address.clone(),
                            source,
                        })?,
                )
            }
            None => None,
        };

        let state = Arc::new(ServerState::new(
            config,
            store,
            acls,
            topics,
            bound.clone(),
            scram,
            metrics,
        ));
        join_cluster(&state).await?;
        let shell = Arc::new(Shell {
            limits: ConnectionLimits::new(
                state.config.max_connections,
                state.config.max_connections_per_ip,
                state.config.max_connections_per_ip_overrides.clone(),
            ),
            tls: Arc::new(tls),
        });
        let (shutdown, _) = watch::channel(false);
        let shutdown = Arc::new(shutdown);
        let mut accept_loops: Vec<JoinHandle<()>> = sockets
            .into_iter()
            .zip(bound)
            .map(|(socket, listener)| {
                tracing::info!(listener = %listener.name, protocol = %listener.protocol,
                    address = %listener.local_addr,
                    advertised = %format!("{}:{}", listener.advertised_host, listener.advertised_port),
                    "listening");
                tokio::spawn(accept_loop(
                    socket,
                    listener,
                    state.clone(),
                    shell.clone(),
                    shutdown.subscribe(),
                ))
            })
            .collect();
        if let (Some(store), Some(interval)) = (&snapshot_store, state.config.acl_snapshot_interval)
        {
            accept_loops.push(tokio::spawn(acl_snapshot::keep_fresh(
                store.clone(),
                state.clone(),
                interval,
                snapshot_version,
                shutdown.subscribe(),
            )));
        }
        if let Some(socket) = metrics_socket {
            if let Ok(addr) = socket.local_addr() {
                tracing::info!(address = %addr, "serving /metrics");
                state.metrics.set_listen_addr(addr);
            }
            let serve = metrics_http::serve(socket, state.clone(), shutdown.subscribe());
            accept_loops.push(tokio::spawn(serve));
        }
        Ok(RunningServer {
            state,
            tls: shell.tls.clone(),
            shutdown,
            accept_loops,
            snapshot_store,
        })
    }
}

impl RunningServer {
    /// Every listener as bound, in `listeners` order.
    pub fn listeners(&self) -> &[BoundListener] {
        &self.state.listeners
    }

    /// The bound address of the listener with this name (case-insensitive).
    pub fn local_addr(&self, listener: &str) -> Option<SocketAddr> {
        self.state
            .listeners
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(listener))
            .map(|l| l.local_addr)
    }

    /// The shared state (cluster id, ACL index, store), for embedding and tests.
    pub fn state(&self) -> &Arc<ServerState> {
        &self.state
    }

    /// The address `/metrics` is served on (`kacl.metrics.listen`, port 0 resolved).
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.state.metrics.listen_addr()
    }

    /// A handle that stops the server from elsewhere (a signal handler).
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// A handle that reloads the TLS listeners' key and trust store files (certificate
    /// rotation; `kacl serve` does it on SIGHUP).
    pub fn tls_reloader(&self) -> TlsReloader {
        TlsReloader(self.tls.clone())
    }

    /// Runs until a [`ShutdownHandle`] fires, then shuts down gracefully.
    pub async fn wait(self) {
        let mut signal = self.shutdown.subscribe();
        wait_for_shutdown(&mut signal).await;
        self.shutdown().await;
    }

    /// Stops accepting, lets each connection finish the request it is serving (at most
    /// [`SHUTDOWN_GRACE`]), then closes the store. When this returns the data directory is
    /// unlocked (unless a store write is still running past the grace period).
    pub async fn shutdown(self) {
        self.shutdown.send_replace(true);
        for accept_loop in self.accept_loops {
            let _ = accept_loop.await;
        }
        // Store writes run on blocking threads holding the state; let them finish.
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        while Arc::strong_count(&self.state) > 1 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let (state, snapshot_store) = (self.state, self.snapshot_store);
        tokio::task::spawn_blocking(move || {
            // Only when nothing else holds the state: no ACL commit can be running.
            if let Some(store) = snapshot_store.filter(|_| Arc::strong_count(&state) == 1) {
                acl_snapshot::save(&store, &state.acls);
            }
            drop(state)
        })
        .await
        .ok();
        tracing::info!("server stopped");
    }
}

/// With a shared store (etcd): starts its change feed into the state, then registers this
/// node (its advertised listeners and rack) under a lease, before any client is served. A
/// live node holding the same `node.id` stops the start here, naming both.
async fn join_cluster(state: &Arc<ServerState>) -> Result<(), StartError> {
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || {
        let sink = kacl_service::feed_sink::StateSink::new(&state);
        state.store.start_feed(sink).map_err(StartError::Load)?;
        if let Some(cluster) = state.store.cluster() {
            let node = kacl_store::NodeInfo {
                node_id: state.node_id(),
                rack: state.config.broker_rack.clone(),
                listeners: state
                    .listeners
                    .iter()
                    .map(|l| (l.name.clone(), l.advertised_host.clone(), l.advertised_port))
                    .collect(),
            };
            cluster.register(node).map_err(StartError::Load)?;
            tracing::info!(
                node_id = state.node_id(),
                live_nodes = cluster.live_nodes().len(),
                controller = ?cluster.controller_id(),
                "joined the cluster through etcd"
            );
        }
        Ok(())
    })
    .await
    .map_err(|e| StartError::Task(e.to_string()))?
}

/// How `kacl.etcd.*` becomes the etcd store's options.
fn etcd_options(
    etcd: &kacl_server_config::EtcdConfig,
    max_batch: usize,
) -> Result<kacl_store_etcd::EtcdOptions, kacl_store_etcd::TlsFileError> {
    kacl_store_etcd::EtcdOptions::from_config(etcd, max_batch)
}

/// How the configured store is opened.
fn store_options(config: &ServerConfig) -> StoreOptions {
    StoreOptions {
        cache_bytes: config.store_cache_bytes,
        node_id: Some(config.node_id),
    }
}

/// A TLS acceptor for each TLS listener, from its own settings or the global ones (the config
/// checked that each has a key store).
fn tls_acceptors(config: &ServerConfig) -> Result<HashMap<String, TlsAcceptor>, StartError> {
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

/// Loads the SCRAM credentials into memory and applies `kacl.scram.bootstrap.credentials`
/// to a store that holds none.
async fn load_scram(
    store: Arc<dyn MetadataStore>,
    bootstrap: Vec<BootstrapCredential>,
) -> Result<ScramCredentials, StartError> {
    tokio::task::spawn_blocking(move || {
        let scram = ScramCredentials::load(store).map_err(StartError::Load)?;
        scram_bootstrap::apply(&scram, &bootstrap)?;
        tracing::info!(users = scram.user_count(), "loaded SCRAM credentials");
        Ok(scram)
    })
    .await
    .map_err(|e| StartError::Task(e.to_string()))?
}

/// ACLs handed from the store thread to the indexing thread at a time at start.
///
/// Small on purpose: the chunks in flight (up to four: one being read, two queued, one being
/// indexed) are allocated by the reading thread and freed by the indexing one, and glibc keeps
/// that memory in the reader's arena afterwards. At 65,536 a chunk this left ~58 MB of freed
/// memory resident after a 2M-ACL start; at 8,192 it is ~8 MB, and the start is no slower
/// (BENCHMARKS.md, "Whole server").
const LOAD_CHUNK_LEN: usize = 8_192;

/// What a start loads: the index, the topics, and the ACL version of the snapshot the index
/// came from (`None`: it was read from the store).
type Loaded = (
    SharedAclIndex,
    Vec<kacl_store::TopicRecord>,
    Option<kacl_store::snapshot::AclVersion>,
);

/// Loads every ACL into a fresh index (from the ACL snapshot beside a redb store when it is
/// current), and every topic.
fn load(
    store: &dyn MetadataStore,
    snapshot_store: Option<&RedbStore>,
) -> Result<Loaded, StartError> {
    let started = Instant::now();
    if let Some((index, version)) = snapshot_store.and_then(acl_snapshot::load) {
        let topics = store.load_topics().map_err(StartError::Load)?;
        tracing::info!(
            acls = index.len(),
            topics = topics.len(),
            total_ms = started.elapsed().as_millis() as u64,
            "loaded metadata"
        );
        return Ok((SharedAclIndex::from_index(index), topics, Some(version)));
    }
    if let Some(redb) = snapshot_store {
        let index = load_redb(redb, started)?;
        let topics = store.load_topics().map_err(StartError::Load)?;
        tracing::info!(
            acls = index.len(),
            topics = topics.len(),
            total_ms = started.elapsed().as_millis() as u64,
            "loaded metadata"
        );
        return Ok((SharedAclIndex::from_index(index), topics, None));
    }
    // The store is read on a second thread in key order while this one indexes what has
    // arrived, so reading and indexing overlap and the whole set is never held twice.
    let mut index = AclIndex::new();
    let mut count = 0;
    let (read, indexed) = std::thread::scope(|scope| {
        let (chunks_tx, chunks_rx) = std::sync::mpsc::sync_channel::<Vec<AclBinding>>(2);
        let reader = scope.spawn(move || {
            let result = store.load_acls_chunked(LOAD_CHUNK_LEN, &mut |chunk| {
                // A closed channel means indexing failed; its error is the one reported.
                let _ = chunks_tx.send(chunk);
                Ok(())
            });
            (result, started.elapsed())
        });
        let mut indexed = Ok(());
        for adds in chunks_rx {
            count += adds.len();
            if let Err(e) = index.apply(&AclChanges {
                adds,
                removes: Vec::new(),
            }) {
                indexed = Err(StartError::Task(format!("stored ACLs do not index: {e}")));
                break;
            }
        }
        let (read, read_time) = reader
            .join()
            .map_err(|_| StartError::Task("the ACL load thread panicked".to_owned()))?;
        read.map_err(StartError::Load)?;
        Ok::<_, StartError>((read_time, indexed))
    })?;
    indexed?;
    let topics = store.load_topics().map_err(StartError::Load)?;
    tracing::info!(
        acls = count,
        topics = topics.len(),
        read_ms = read.as_millis() as u64,
        total_ms = started.elapsed().as_millis() as u64,
        "loaded metadata"
    );
    Ok((SharedAclIndex::from_index(index), topics, None))
}

/// The ACLs of a redb store into a fresh index: the store's keys are read and checked on a
/// second thread, in chunks, while this one decodes them without allocating and builds the
/// index a pattern at a time (the store's key order keeps each pattern's ACLs together).
fn load_redb(store: &RedbStore, started: Instant) -> Result<AclIndex, StartError> {
    let mut builder = kacl_acl::AclIndexBuilder::new();
    let (read, indexed) = std::thread::scope(|scope| {
        let (chunks_tx, chunks_rx) = std::sync::mpsc::sync_channel::<kacl_store::AclKeyChunk>(2);
        let reader = scope.spawn(move || {
            let result = store.load_acl_keys_chunked(LOAD_CHUNK_LEN, &mut |chunk| {
                // A closed channel means indexing failed; its error is the one reported.
                let _ = chunks_tx.send(chunk);
                Ok(())
            });
            (result, started.elapsed())
        });
        let mut indexed = Ok(());
        'chunks: for chunk in chunks_rx {
            for acl in chunk.acls() {
                let pushed = acl.map_err(StartError::Load).and_then(|acl| {
                    builder
                        .push(acl)
                        .map_err(|e| StartError::Task(format!("stored ACLs do not index: {e}")))
                });
                if let Err(e) = pushed {
                    indexed = Err(e);
                    break 'chunks;
                }
            }
        }
        let (read, read_time) = reader
            .join()
            .map_err(|_| StartError::Task("the ACL load thread panicked".to_owned()))?;
        read.map_err(StartError::Load)?;
        Ok::<_, StartError>((read_time, indexed))
    })?;
    indexed?;
    tracing::debug!(read_ms = read.as_millis() as u64, "read the stored ACLs");
    Ok(builder.finish())
}

/// The address Metadata advertises for a listener: its `advertised.listeners` entry, with an
/// empty or wildcard host replaced by the bound address (or, for a wildcard bind, this
/// machine's host name) and port 0 replaced by the bound port.
fn advertise(config: &ServerConfig, listener: &Listener, local_addr: SocketAddr) -> BoundListener {
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
async fn accept_loop(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_is_opened_with_the_configured_cache() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let config = ServerConfig::from_properties(
            "kacl.store.cache.bytes=1048576",
            &[(
                "metadata.log.dir".to_owned(),
                dir.path().display().to_string(),
            )],
        )?;
        let store = RedbStore::open_with_options(&config.data_dir, store_options(&config))?;
        assert_eq!(store.options().cache_bytes, 1 << 20);
        drop(store);

        let defaults = ServerConfig::from_properties("", &[])?;
        assert_eq!(
            store_options(&defaults).cache_bytes,
            StoreOptions::default().cache_bytes,
            "no key: the store's own default"
        );
        assert_eq!(store_options(&defaults).node_id, Some(1));
        Ok(())
    }
}
