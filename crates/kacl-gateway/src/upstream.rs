//! The gateway's side towards the upstream cluster: its service identity's client config
//! (Kafka client properties under `kacl.gateway.upstream.`), the upstream's ApiVersions, and
//! the upstream brokers' addresses, which only this module ever sees.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use kacl_client::net::{self, ApiVersionsTable, BrokerConnection};
use kacl_client::{AdminConfig, AdminError};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataResponse};
use kacl_protocol::{ApiKey, VersionRange};
use kacl_server_config::gateway::GatewayConfig;
use parking_lot::RwLock;
use thiserror::Error;

/// How long a forwarded request may wait for the upstream when the upstream properties do not
/// say (`request.timeout.ms`): longer than any request a Kafka broker may legitimately hold
/// (a JoinGroup waits up to the group's rebalance timeout, 300 s by default), because the
/// client's own request timeout is what bounds its wait, and a timeout here closes the
/// upstream connection.
const DEFAULT_UPSTREAM_REQUEST_TIMEOUT: Duration = Duration::from_secs(330);

/// Why the gateway could not start.
#[derive(Debug, Error)]
pub enum GatewayError {
    /// The upstream properties are unusable.
    #[error("kacl.gateway.upstream: {0}")]
    Config(String),
    /// No bootstrap server answered, or the service identity was refused.
    #[error(
        "cannot connect to the upstream cluster {bootstrap} ({protocol}{mechanism}): {reason}"
    )]
    Connect {
        /// The bootstrap servers tried.
        bootstrap: String,
        /// `security.protocol`.
        protocol: String,
        /// `, sasl.mechanism=...` when SASL is used.
        mechanism: String,
        /// The last failure.
        reason: String,
    },
}

/// The upstream cluster as the gateway knows it.
#[derive(Debug)]
pub(crate) struct Upstream {
    config: AdminConfig,
    versions: ApiVersionsTable,
    /// Upstream broker id → `host:port`, from the Metadata answers the gateway has seen.
    brokers: RwLock<HashMap<i32, String>>,
}

impl Upstream {
    /// Opens a first connection (which authenticates) and asks for the upstream's brokers.
    pub(crate) async fn connect(gateway: &GatewayConfig) -> Result<Upstream, GatewayError> {
        let bootstrap = gateway.upstream_bootstrap.join(",");
        let (mut config, notes) =
            AdminConfig::from_properties(&bootstrap, &gateway.upstream_properties)
                .map_err(|e| GatewayError::Config(e.to_string()))?;
        for key in notes.unused {
            tracing::warn!(key = %kacl_logsafe::safe(&key),
                "kacl.gateway.upstream: unknown client property is ignored");
        }
        if gateway
            .upstream_properties
            .get("request.timeout.ms")
            .is_none()
        {
            config.request_timeout = DEFAULT_UPSTREAM_REQUEST_TIMEOUT;
        }
        if gateway.upstream_properties.get("client.id").is_none() {
            config.client_id = "kacl-gateway".to_owned();
        }
        let failure = |reason: String| GatewayError::Connect {
            bootstrap: bootstrap.clone(),
            protocol: config.security_protocol.to_string(),
            mechanism: config
                .sasl
                .as_ref()
                .map(|s| format!(", sasl.mechanism={}", s.mechanism))
                .unwrap_or_default(),
            reason,
        };
        let mut last = String::from("no bootstrap server");
        for server in &config.bootstrap_servers {
            match net::open(server, &config).await {
                Ok(conn) => {
                    let brokers = list_brokers(&conn)
                        .await
                        .map_err(|e| failure(e.to_string()))?;
                    tracing::info!(upstream = %server, brokers = brokers.len(),
                        "connected to the upstream cluster");
                    return Ok(Upstream {
                        versions: conn.versions.clone(),
                        brokers: RwLock::new(brokers),
                        config,
                    });
                }
                Err(err) => last = format!("{server}: {err}"),
            }
        }
        Err(failure(last))
    }

    /// An upstream that cannot be reached, serving every API at `versions`: for the fuzzer and
    /// tests of the planning step, where every forwarded request fails at the upstream.
    pub(crate) fn offline(versions: ApiVersionsTable, brokers: &[i32]) -> Upstream {
        let mut config = AdminConfig::new(Vec::<String>::new());
        config.connect_timeout = Duration::from_millis(1);
        Upstream {
            config,
            versions,
            brokers: RwLock::new(
                brokers
                    .iter()
                    .map(|id| (*id, format!("offline-broker-{id}.invalid:9")))
                    .collect(),
            ),
        }
    }

    /// The upstream's range for `api`, if it serves it.
    pub(crate) fn versions(&self, api: ApiKey) -> Option<VersionRange> {
        self.versions.broker_range(api)
    }

    pub(crate) fn node_ids(&self) -> Vec<i32> {
        let mut ids: Vec<i32> = self.brokers.read().keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    pub(crate) fn address(&self, node: i32) -> Option<String> {
        self.brokers.read().get(&node).cloned()
    }

    /// Every upstream `host:port` the gateway knows: its brokers and its bootstrap servers.
    pub(crate) fn addresses(&self) -> Vec<String> {
        let mut all: Vec<String> = self.brokers.read().values().cloned().collect();
        all.extend(self.config.bootstrap_servers.iter().cloned());
        all
    }

    /// Records the brokers a passing Metadata or DescribeCluster answer names, and returns the
    /// ids among them the gateway had not seen before (brokers that joined after it started).
    pub(crate) fn learn_brokers<'b>(
        &self,
        brokers: impl IntoIterator<Item = (i32, &'b str, i32)>,
    ) -> Vec<i32> {
        let fresh: Vec<(i32, String)> = brokers
            .into_iter()
            .map(|(id, host, port)| (id, format!("{host}:{port}")))
            .collect();
        let known = self.brokers.read();
        if fresh.iter().all(|(id, addr)| known.get(id) == Some(addr)) {
            return Vec::new();
        }
        drop(known);
        let mut brokers = self.brokers.write();
        let joined = fresh
            .iter()
            .filter(|(id, _)| !brokers.contains_key(id))
            .map(|(id, _)| *id)
            .collect();
        brokers.extend(fresh);
        joined
    }

    /// A new authenticated connection to upstream broker `node`, or to the first bootstrap
    /// server that answers when `node` is `None`.
    pub(crate) async fn open(
        &self,
        node: Option<i32>,
    ) -> Result<Arc<BrokerConnection>, AdminError> {
        let addresses = match node {
            Some(node) => vec![self.address(node).ok_or_else(|| AdminError::Network {
                addr: format!("upstream node {node}"),
                message: "not an upstream broker the gateway knows".to_owned(),
            })?],
            None => self.config.bootstrap_servers.clone(),
        };
        let mut last = None;
        for addr in &addresses {
            match net::open(addr, &self.config).await {
                Ok(conn) => return Ok(conn),
                Err(err) => last = Some(err),
            }
        }
        Err(last.unwrap_or_else(|| AdminError::Network {
            addr: "upstream".to_owned(),
            message: "no bootstrap server".to_owned(),
        }))
    }
}

/// The upstream's brokers, by a Metadata request for no topics.
async fn list_brokers(conn: &BrokerConnection) -> Result<HashMap<i32, String>, AdminError> {
    let version = conn
        .versions
        .pick(ApiKey::Metadata, ApiKey::Metadata.versions())?;
    let request = MetadataRequest {
        topics: Some(Vec::new()),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let response = conn.conn.send(version, &request).await?;
    let body: MetadataResponse<'_> = response.decode()?;
    Ok(body
        .brokers
        .iter()
        .map(|b| (b.node_id, format!("{}:{}", b.host, b.port)))
        .collect())
}
