//! [`Admin`]: the client handle. It owns the connections (one per broker, opened lazily at the
//! broker's advertised address), the cluster metadata that says which broker is the
//! controller, and the retry loop every call runs in.
//!
//! Routing follows Kafka's AdminClient: reads (DescribeAcls, Metadata, DescribeCluster,
//! DescribeUserScramCredentials) go to any broker, writes (Create/DeleteAcls, topic and SCRAM
//! changes) to the controller named in Metadata. Only the first write needs Metadata, so a
//! `kacl acls --list` costs a connection, ApiVersions and one DescribeAcls.

mod acls;
mod cluster;
mod configs;
mod dedupe;
mod quotas;
mod topics;
mod users;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::config::AdminConfig;
use crate::error::AdminError;
use crate::net::{self, BrokerConnection};

pub use acls::{
    CreateAclsOptions, DeleteAclsOptions, DescribeAclsOptions, DescribeAclsResult,
    DescribeAclsStream, FilterResults,
};
pub use cluster::{BrokerNode, ClusterDescription, DescribeClusterOptions};
pub use configs::{
    AlterConfigOp, AlterConfigOpType, AlterConfigsOptions, ConfigEntry, ConfigResource,
    ConfigResourceType, ConfigSource, ConfigSynonym, ConfigType, DescribeConfigsOptions,
};
pub use quotas::{
    ClientQuotaEntry, QuotaAlteration, QuotaEntityPart, QuotaEntityParts, QuotaMatch, QuotaOptions,
};
pub use topics::{
    NewPartitions, NewTopic, PartitionInfo, TopicDescription, TopicListing, TopicOptions,
};
pub use users::{
    ScramCredentialInfo, UserScramCredentialAlteration, UserScramCredentialsDescription,
    UserScramOptions,
};

/// An async admin client for one Kafka cluster (kacl or Kafka). Cheap to clone; clones share
/// connections.
#[derive(Clone)]
pub struct Admin {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("bootstrap_servers", &self.inner.config.bootstrap_servers)
            .finish_non_exhaustive()
    }
}

struct Inner {
    config: AdminConfig,
    state: Mutex<ClusterState>,
}

/// Where a request must go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Any live broker (Kafka's `LeastLoadedNodeProvider`).
    AnyBroker,
    /// The controller from Metadata (Kafka's `ControllerNodeProvider`).
    Controller,
    /// One broker by node id (broker-scoped configs: Kafka's `ConstantNodeIdProvider`).
    Node(i32),
}

/// A broker from Metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KnownBroker {
    pub id: i32,
    pub addr: String,
}

#[derive(Default)]
struct ClusterState {
    /// The connection made at bootstrap (or the last one made to any broker).
    any: Option<(String, Arc<BrokerConnection>)>,
    /// Brokers and controller from the last Metadata, if fetched.
    brokers: Option<Vec<KnownBroker>>,
    controller_id: Option<i32>,
    /// Connections by node id.
    nodes: HashMap<i32, Arc<BrokerConnection>>,
}

fn live(conn: &Arc<BrokerConnection>) -> bool {
    conn.usable()
}

impl Admin {
    /// Connects to the first reachable bootstrap server (trying each in turn), negotiates API
    /// versions and authenticates. Fails with the last server's error if none works.
    pub async fn connect(config: AdminConfig) -> Result<Admin, AdminError> {
        if config.bootstrap_servers.is_empty() {
            return Err(AdminError::Config(
                "No resolvable bootstrap urls given in bootstrap.servers".into(),
            ));
        }
        for server in &config.bootstrap_servers {
            if !server.contains(':') {
                return Err(AdminError::Config(format!(
                    "Invalid url in bootstrap.servers: {server}"
                )));
            }
        }
        if config.security_protocol.uses_sasl() && config.sasl.is_none() {
            return Err(AdminError::Config(format!(
                "security.protocol={} needs SASL credentials",
                config.security_protocol
            )));
        }
        let admin = Admin {
            inner: Arc::new(Inner {
                config,
                state: Mutex::new(ClusterState::default()),
            }),
        };
        admin.connection(Target::AnyBroker).await?;
        Ok(admin)
    }

    /// The configuration this client runs with.
    pub fn config(&self) -> &AdminConfig {
        &self.inner.config
    }

    /// A live connection for `target`, opening one if needed.
    pub(crate) async fn connection(
        &self,
        target: Target,
    ) -> Result<Arc<BrokerConnection>, AdminError> {
        let mut state = self.inner.state.lock().await;
        if let Target::Node(id) = target {
            return self.node_by_id(&mut state, id).await;
        }
        if target == Target::Controller {
            if state.brokers.is_none() {
                let any = self.any_connection(&mut state).await?;
                let (brokers, controller) = cluster::fetch_brokers(&any).await?;
                state.brokers = Some(brokers);
                state.controller_id = controller;
            }
            let controller = state
                .controller_id
                .and_then(|id| state.brokers.iter().flatten().find(|b| b.id == id).cloned());
            if let Some(broker) = controller {
                return self.node_connection(&mut state, &broker).await;
            }
            // No controller known (Kafka would wait for one); any broker forwards writes.
        }
        self.any_connection(&mut state).await
    }

    /// The connection to broker `id`, from Metadata (fetched again if `id` is not known yet).
    async fn node_by_id(
        &self,
        state: &mut ClusterState,
        id: i32,
    ) -> Result<Arc<BrokerConnection>, AdminError> {
        if !state.brokers.iter().flatten().any(|b| b.id == id) {
            let any = self.any_connection(state).await?;
            let (brokers, controller) = cluster::fetch_brokers(&any).await?;
            state.brokers = Some(brokers);
            state.controller_id = controller;
        }
        let Some(broker) = state.brokers.iter().flatten().find(|b| b.id == id).cloned() else {
            return Err(AdminError::server(
                kacl_protocol::ErrorCode::BrokerNotAvailable,
                Some(&format!("Broker {id} is not in the cluster metadata")),
            ));
        };
        self.node_connection(state, &broker).await
    }

    async fn any_connection(
        &self,
        state: &mut ClusterState,
    ) -> Result<Arc<BrokerConnection>, AdminError> {
        if let Some((_, conn)) = state.any.as_ref().filter(|(_, c)| live(c)) {
            return Ok(Arc::clone(conn));
        }
        if let Some(conn) = state.nodes.values().find(|c| live(c)) {
            return Ok(Arc::clone(conn));
        }
        // Known brokers first (the cluster may have moved), then the bootstrap list.
        let mut candidates: Vec<String> = state
            .brokers
            .iter()
            .flatten()
            .map(|b| b.addr.clone())
            .collect();
        candidates.extend(self.inner.config.bootstrap_servers.iter().cloned());
        let mut last_error = None;
        for addr in candidates {
            match net::open(&addr, &self.inner.config).await {
                Ok(conn) => {
                    state.any = Some((addr, Arc::clone(&conn)));
                    return Ok(conn);
                }
                // Authentication and version failures will not improve on another broker.
                Err(err @ AdminError::Server { .. })
                | Err(err @ AdminError::Authentication(_))
                | Err(err @ AdminError::UnsupportedVersion { .. })
                | Err(err @ AdminError::Config(_)) => return Err(err),
                Err(err) => {
                    tracing::debug!(
                        addr = %kacl_logsafe::safe(&addr.to_string()),
                        err = %kacl_logsafe::safe(&err.to_string()),
                        "bootstrap server unreachable"
                    );
                    last_error = Some(err);
                }
            }
        }
        Err(last_error.unwrap_or_else(|| AdminError::Config("no bootstrap servers".into())))
    }

    async fn node_connection(
        &self,
        state: &mut ClusterState,
        broker: &KnownBroker,
    ) -> Result<Arc<BrokerConnection>, AdminError> {
        if let Some(conn) = state.nodes.get(&broker.id).filter(|c| live(c)) {
            return Ok(Arc::clone(conn));
        }
        // The bootstrap connection may already be this broker: reuse it.
        let conn = match state.any.as_ref() {
            Some((addr, conn)) if *addr == broker.addr && live(conn) => Arc::clone(conn),
            _ => net::open(&broker.addr, &self.inner.config).await?,
        };
        state.nodes.insert(broker.id, Arc::clone(&conn));
        Ok(conn)
    }

    /// Forgets metadata and dead connections after a failure that suggests the cluster changed.
    async fn invalidate(&self, error: &AdminError) {
        let mut state = self.inner.state.lock().await;
        state.nodes.retain(|_, c| live(c));
        if state.any.as_ref().is_some_and(|(_, c)| !live(c)) {
            state.any = None;
        }
        let stale_metadata = matches!(
            error.code(),
            Some(kacl_protocol::ErrorCode::NotController)
                | Some(kacl_protocol::ErrorCode::NetworkException)
        );
        if stale_metadata {
            state.brokers = None;
            state.controller_id = None;
        }
    }

    /// Runs one call: picks a connection for `target`, runs `attempt` on it, and retries
    /// retriable failures with exponential backoff until `retries` is spent or the call's
    /// deadline (`timeout`, else `default.api.timeout.ms`) passes.
    pub(crate) async fn call<T, F, Fut>(
        &self,
        name: &str,
        timeout: Option<Duration>,
        target: Target,
        mut attempt: F,
    ) -> Result<T, AdminError>
    where
        F: FnMut(Arc<BrokerConnection>) -> Fut,
        Fut: Future<Output = Result<T, AdminError>>,
    {
        let config = &self.inner.config;
        let limit = timeout.unwrap_or(config.default_api_timeout);
        let deadline = Instant::now() + limit;
        let timed_out = || AdminError::Timeout {
            what: format!("{name} call"),
            after: limit,
        };
        let mut backoff = config.retry_backoff;
        let mut tries = 0u32;
        loop {
            let outcome = tokio::time::timeout_at(deadline, async {
                let conn = self.connection(target).await?;
                attempt(conn).await
            })
            .await;
            let error = match outcome {
                Err(_) => return Err(timed_out()),
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(error)) => error,
            };
            if !error.is_retriable() || tries >= config.retries {
                return Err(error);
            }
            tries += 1;
            log_retry(name, &error, tries);
            self.invalidate(&error).await;
            if Instant::now() + backoff >= deadline {
                return Err(error);
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(config.retry_backoff_max);
        }
    }
}

/// The retry line. The error holds the broker's message (and an address the user gave):
/// text the other side chose, escaped so that it cannot forge or break log lines.
fn log_retry(name: &str, error: &AdminError, tries: u32) {
    tracing::debug!(
        name = %kacl_logsafe::safe(name),
        error = %kacl_logsafe::safe(&error.to_string()),
        tries,
        "retrying"
    );
}

#[cfg(test)]
mod log_tests {
    use std::sync::{Arc, Mutex};

    use kacl_protocol::ErrorCode;

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_retry_line_escapes_the_brokers_message() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let error = AdminError::Server {
            code: ErrorCode::NotController,
            message: "no\nINFO kacl: forged line\u{1b}[2J".to_owned(),
        };
        tracing::subscriber::with_default(subscriber, || log_retry("describeAcls", &error, 1));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(
            text.contains(r"no\nINFO kacl: forged line\u{1b}[2J"),
            "{text}"
        );
    }
}
