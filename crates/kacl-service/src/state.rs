//! What every connection shares: the configuration, the ACL index and authorizer, the store
//! behind the single ACL writer, the topics the store holds, and the listeners as bound. (What
//! only the I/O shell needs — TLS acceptors, connection limits — stays in the shell.)
//!
//! Reads (authorization, DescribeAcls, Metadata) touch only memory. Writes go through
//! [`AclWriter`](crate::acl_writer::AclWriter), one at a time.

use std::net::SocketAddr;
use std::sync::Arc;

use kacl_acl::{Authorizer, AuthorizerConfig, SharedAclIndex};
use kacl_store::{MetadataStore, TopicRecord};

use crate::acl_writer::AclWriter;
use crate::credentials::ScramCredentials;
use crate::forward::Forwarder;
use crate::metrics::Metrics;
use crate::request_memory::RequestMemoryPool;
use crate::topic_registry::TopicRegistry;
use kacl_server_config::{SecurityProtocol, ServerConfig};

/// One listener as bound: its name and protocol, the local address the OS gave it, and the
/// address Metadata advertises for it (placeholders already filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundListener {
    /// The listener name (`PLAINTEXT`, `INTERNAL`, ...).
    pub name: String,
    /// What the listener speaks.
    pub protocol: SecurityProtocol,
    /// The socket address actually bound (port 0 resolved).
    pub local_addr: SocketAddr,
    /// The host clients are told to connect to.
    pub advertised_host: String,
    /// The port clients are told to connect to.
    pub advertised_port: u16,
    /// In gateway mode, the upstream broker this listener's connections are forwarded to
    /// (one port per upstream broker); `None`: the bootstrap listener, or no gateway.
    pub upstream_node: Option<i32>,
}

/// The server's shared state, behind an `Arc` for every connection.
pub struct ServerState {
    /// The configuration the server was started with.
    pub config: ServerConfig,
    /// The ACLs in memory; the authorizer reads the same set.
    pub acls: SharedAclIndex,
    /// Kafka's StandardAuthorizer rules over `acls`.
    pub authorizer: Authorizer,
    /// The durable store (ACLs, topics, SCRAM credentials).
    pub store: Arc<dyn MetadataStore>,
    /// The one path through which ACL changes reach the store and the index.
    pub acl_writer: AclWriter,
    /// The topics the store holds (loaded at start; topic writes go through it).
    pub topics: TopicRegistry,
    /// The cluster id, generated once by the store.
    pub cluster_id: String,
    /// Every listener as bound, in `listeners` order.
    pub listeners: Vec<BoundListener>,
    /// The SCRAM credentials in memory (logins read them; AlterUserScramCredentials writes
    /// through them to the store).
    pub scram: ScramCredentials,
    /// `queued.max.request.bytes` across all connections (`None`: no bound, Kafka's default).
    pub request_memory: Option<Arc<RequestMemoryPool>>,
    /// What the server counts, for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Permits for encoding large DescribeAcls answers off the connection tasks, one per
    /// core: more at once would only share the cores and hold more answers in memory.
    pub describe_encoders: Arc<tokio::sync::Semaphore>,
    /// In gateway mode, what forwards the data-path APIs to the upstream cluster.
    pub forwarder: Option<Arc<dyn Forwarder>>,
}

impl std::fmt::Debug for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerState")
            .field("cluster_id", &self.cluster_id)
            .field("node_id", &self.config.node_id)
            .field("acls", &self.acls.len())
            .field("listeners", &self.listeners)
            .finish_non_exhaustive()
    }
}

impl ServerState {
    /// Builds the state around an already loaded ACL index and topic list.
    // Each argument is a separately loaded part of the state; a builder would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        config: ServerConfig,
        store: Arc<dyn MetadataStore>,
        acls: SharedAclIndex,
        topics: Vec<TopicRecord>,
        listeners: Vec<BoundListener>,
        scram: ScramCredentials,
        metrics: Arc<Metrics>,
    ) -> ServerState {
        let authorizer = Authorizer::new(
            AuthorizerConfig {
                super_users: config.super_users.clone(),
                allow_everyone_if_no_acl_found: config.allow_everyone_if_no_acl_found,
            },
            acls.clone(),
        );
        let cluster_id = store.cluster_id();
        let request_memory = config
            .queued_max_request_bytes
            .map(|bytes| Arc::new(RequestMemoryPool::new(bytes)));
        if let Some(pool) = &request_memory {
            metrics.set_request_memory(Arc::clone(pool));
        }
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        ServerState {
            describe_encoders: Arc::new(tokio::sync::Semaphore::new(cores)),
            request_memory,
            scram,
            metrics,
            acl_writer: AclWriter::new(store.clone(), acls.clone()),
            topics: TopicRegistry::new(topics),
            config,
            acls,
            authorizer,
            store,
            cluster_id,
            listeners,
            forwarder: None,
        }
    }

    /// Makes this a gateway node: the APIs `forwarder` offers are forwarded, not answered.
    pub fn with_forwarder(mut self, forwarder: Arc<dyn Forwarder>) -> ServerState {
        self.forwarder = Some(forwarder);
        self
    }

    /// This node's broker id.
    pub fn node_id(&self) -> i32 {
        self.config.node_id
    }

    /// The listener a connection came in on, by name.
    pub fn listener(&self, name: &str) -> Option<&BoundListener> {
        self.listeners.iter().find(|l| l.name == name)
    }
}
