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

mod accept;
mod acl_snapshot;
mod broker_ports;
mod load;
mod oauthbearer;
mod start_error;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_gateway::Gateway;
use kacl_server_config::{MetadataStoreConfig, ServerConfig};
use kacl_service::metrics::{MeteredStore, Metrics};
use kacl_service::{BoundListener, ServerState};
use kacl_store::{MetadataStore, StoreError};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use self::accept::SHUTDOWN_GRACE;
use self::accept::{accept_loop, advertise, tls_acceptors, Shell};
use self::broker_ports::{bind_broker_ports, serve_joined_brokers};
use self::load::{bootstrap_scram, load, load_scram};
pub use self::start_error::StartError;
use crate::connection_limits::ConnectionLimits;
use crate::metrics_http;
use crate::shutdown::wait_for_shutdown;
use crate::store_open::StoreLocation;
use crate::tls::{self, TlsAcceptor};

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

/// The kacl server.
#[derive(Debug)]
pub struct Server;

/// A started server: its bound listeners, and the means to stop it.
#[derive(Debug)]
pub struct RunningServer {
    state: Arc<ServerState>,
    tls: Arc<HashMap<String, TlsAcceptor>>,
    shutdown: Arc<watch::Sender<bool>>,
    accept_loops: Vec<JoinHandle<()>>,
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
    /// Opens the configured store (the data directory, its page cache bounded by
    /// `kacl.store.cache.bytes`, or etcd) and starts serving.
    pub async fn start(config: ServerConfig) -> Result<RunningServer, StartError> {
        let location =
            StoreLocation::configured(&config).map_err(|e| StartError::Task(e.to_string()))?;
        let dir = location.describe();
        // In cluster mode the node's own directory records the cluster it joined: a node
        // pointed at another kacl cluster's prefix (or another etcd) is refused naming both
        // ids, checked before the open (which would create a cluster on an empty prefix).
        let claim = match (&config.metadata_store, &location) {
            (MetadataStoreConfig::Etcd(etcd), StoreLocation::Etcd(options)) => Some((
                config.data_dir.clone(),
                config.node_id,
                format!("{dir} prefix {}", etcd.prefix),
                options.clone(),
            )),
            _ => None,
        };
        let refused = |source| StartError::Store {
            dir: config.data_dir.display().to_string(),
            source,
        };
        if let Some((data_dir, node_id, source, options)) = claim.clone() {
            tokio::task::spawn_blocking(move || {
                let client = kacl_store_etcd::EtcdClient::new(options.client.clone());
                let stored =
                    kacl_store_etcd::stored_cluster_id(&client, &options.prefix).map_err(|e| {
                        StoreError::Unavailable {
                            detail: e.to_string(),
                        }
                    })?;
                kacl_store::claim_node_dir(&data_dir, stored.as_deref(), node_id, &source)
            })
            .await
            .map_err(|e| StartError::Task(e.to_string()))?
            .map_err(refused)?;
        }
        let opened = tokio::task::spawn_blocking(move || location.open())
            .await
            .map_err(|e| StartError::Task(e.to_string()))?;
        let store = opened.map_err(|source| StartError::Store { dir, source })?;
        if let Some((data_dir, node_id, source, _)) = claim {
            let cluster_id = store.cluster_id();
            tokio::task::spawn_blocking(move || {
                kacl_store::claim_node_dir(&data_dir, Some(&cluster_id), node_id, &source)
            })
            .await
            .map_err(|e| StartError::Task(e.to_string()))?
            .map_err(refused)?;
        }
        Server::start_with_store(config, store).await
    }

    /// Starts serving on an already opened store (tests use [`kacl_store::MemoryStore`]).
    pub async fn start_with_store(
        config: ServerConfig,
        store: Arc<dyn MetadataStore>,
    ) -> Result<RunningServer, StartError> {
        Server::start_on(config, store).await
    }

    async fn start_on(
        config: ServerConfig,
        store: Arc<dyn MetadataStore>,
    ) -> Result<RunningServer, StartError> {
        let tls = tls_acceptors(&config)?;
        let metrics = Arc::new(Metrics::new());
        let store = MeteredStore::wrap(store, metrics.clone());
        let loader = store.clone();
        let (acls, topics, snapshot_version) =
            tokio::task::spawn_blocking(move || load(loader.as_ref()))
                .await
                .map_err(|e| StartError::Task(e.to_string()))??;
        let scram = load_scram(store.clone()).await?;

        // Gateway mode: the upstream first, so that a node that cannot reach it (or whose
        // service identity it refuses) never starts listening.
        let gateway = match &config.gateway {
            Some(gateway) => Some(Gateway::connect(gateway).await?),
            None => None,
        };
        // OAUTHBEARER: the identity provider's keys before the first login can arrive.
        let oauthbearer = oauthbearer::start(config.oauthbearer.as_ref()).await?;
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
        let broker_ports = match &gateway {
            Some(gateway) => {
                Some(bind_broker_ports(&config, gateway, &mut sockets, &mut bound).await?)
            }
            None => None,
        };
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

        let mut state =
            ServerState::new(config, store, acls, topics, bound.clone(), scram, metrics);
        if let Some(gateway) = &gateway {
            state = state.with_forwarder(Arc::new(gateway.clone()));
        }
        if let Some(validator) = oauthbearer {
            state = state.with_oauthbearer(validator);
        }
        let state = Arc::new(state);
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
        if let (Some(gateway), Some(ports)) = (gateway, broker_ports) {
            if let Some(joined) = gateway.joined_brokers() {
                accept_loops.push(tokio::spawn(serve_joined_brokers(
                    joined,
                    ports,
                    gateway,
                    state.clone(),
                    shell.clone(),
                    shutdown.clone(),
                )));
            }
        }
        if let (Some(_), Some(interval)) = (
            state.store.acl_snapshots(),
            state.config.acl_snapshot_interval,
        ) {
            accept_loops.push(tokio::spawn(acl_snapshot::keep_fresh(
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
        let state = self.state;
        tokio::task::spawn_blocking(move || {
            // Only when nothing else holds the state: no ACL commit can be running. (The ACL
            // snapshot is written beside a store that keeps one.)
            if Arc::strong_count(&state) == 1 {
                if let Some(store) = state.store.acl_snapshots() {
                    acl_snapshot::save(store, &state.acls);
                }
            }
            drop(state)
        })
        .await
        .ok();
        tracing::info!("server stopped");
    }
}

/// Starts the store's change feed into the state (every store's commits reach memory through
/// it), applies `kacl.scram.bootstrap.credentials` through it, then, with a shared store
/// (etcd), registers this node (its advertised listeners and rack) under a lease, before any
/// client is served. A live node holding the same `node.id` stops the start here, naming both.
async fn join_cluster(state: &Arc<ServerState>) -> Result<(), StartError> {
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || {
        // The quotas as of the listing the feed continues from (nothing is served yet).
        let quotas = state.store.load_client_quotas().map_err(StartError::Load)?;
        state.quotas.replace(quotas);
        let sink = kacl_service::feed_sink::StateSink::new(&state);
        state.store.start_feed(sink).map_err(StartError::Load)?;
        bootstrap_scram(&state)?;
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

#[cfg(test)]
mod tests {
    use kacl_store::{RedbStore, StoreOptions};

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
        let StoreLocation::Dir { dir, options } = StoreLocation::configured(&config)? else {
            panic!("a data directory is configured");
        };
        let store = RedbStore::open_with_options(&dir, options)?;
        assert_eq!(store.options().cache_bytes, 1 << 20);
        drop(store);

        let defaults = ServerConfig::from_properties("", &[])?;
        let StoreLocation::Dir { options, .. } = StoreLocation::configured(&defaults)? else {
            panic!("a data directory is configured");
        };
        assert_eq!(
            options.cache_bytes,
            StoreOptions::default().cache_bytes,
            "no key: the store's own default"
        );
        assert_eq!(options.node_id, Some(1));
        Ok(())
    }
}
