//! `kacl serve`'s configuration: a Kafka `server.properties` file (Kafka's key names, listed
//! in docs/configuration.md) with `--override KEY=VALUE` pairs applied on top, turned into a typed
//! [`ServerConfig`]. Unknown keys become warnings (Kafka configs carry many keys kacl does not
//! use); an invalid value is a [`ConfigError`] naming the key, and the server does not start.
//!
//! Deliberate differences from Kafka, each for a friendlier start: `metadata.log.dir` and
//! `log.dirs` default to `./kacl-data`; a bare `sasl.jaas.config` gives the PLAIN users of
//! every SASL listener that has no `listener.name.<name>.plain.sasl.jaas.config`;
//! `listener.security.protocol.map` keeps the identity entries for protocol names; an empty
//! `broker.rack` means no rack.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

use crate::tls_principal::SslPrincipalMapper;
use kacl_sasl::{PlainUsers, SaslMechanism};

pub mod gateway;
mod limits;
mod listeners;
pub mod metadata_store;
pub mod oauthbearer;
mod sasl;
pub mod scram_bootstrap;
mod source;
mod tls;
pub mod tls_principal;

#[cfg(test)]
mod tests;

pub use kacl_config::tls::{TlsOffer, TlsProtocol, DEFAULT_ENABLED_PROTOCOLS};
pub use kacl_config::{parse_properties, PropertiesError, SecurityProtocol};
pub use listeners::Listener;
pub use metadata_store::{EtcdConfig, EtcdEndpoint, MetadataStoreConfig};
pub use tls::{ClientAuth, KeyStore, TlsConfig, TrustStore};

use source::Source;

/// Where the data lives when neither `metadata.log.dir` nor `log.dirs` is set.
pub const DEFAULT_DATA_DIR: &str = "./kacl-data";
/// `listeners` when not set.
pub const DEFAULT_LISTENERS: &str = "PLAINTEXT://127.0.0.1:9092";
/// The principal of PLAINTEXT clients, made a super user in development mode.
pub const DEVELOPMENT_SUPER_USER: &str = "User:ANONYMOUS";
/// The largest `kacl.store.cache.bytes` accepted: 64 GiB, far past any sensible cache, but a
/// bound that keeps a typo (an extra digit or two) from reserving the machine.
pub const MAX_STORE_CACHE_BYTES: i64 = 64 << 30;

/// `kacl.store.cache.bytes` when unset: 32 MiB, the embedded store's own default
/// (`kacl_store::DEFAULT_CACHE_BYTES`, which says why). Kept here so that the configuration
/// does not depend on the store (and redb) for one number; kacl-server's tests check that the
/// two agree.
pub const DEFAULT_STORE_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Default `kacl.request.max.decoded.bytes`: 64 MiB. Far above any real request (10,000 ACLs
/// decode to about 1 MB; 1M topic names in one Metadata request to 48 MB), far below what a
/// `socket.request.max.bytes` frame of tiny elements would otherwise decode to (~2.4 GB).
pub const DEFAULT_REQUEST_MAX_DECODED_BYTES: usize = 64 << 20;

/// Default `sasl.server.max.receive.size`: Kafka's 512 KiB.
pub const DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE: u32 = 524_288;

/// Why the server refuses to start.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// A key's value is unusable.
    #[error("invalid value for {key}: {reason}")]
    InvalidValue {
        /// The config key.
        key: String,
        /// Why.
        reason: String,
    },
    /// An `--override` argument without `=`.
    #[error("invalid --override `{0}`: expected KEY=VALUE")]
    BadOverride(String),
    /// The properties file does not parse.
    #[error("cannot parse config file {path}: {source}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: PropertiesError,
    },
    /// The properties file cannot be read.
    #[error("cannot read config file {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
}

impl ConfigError {
    pub(crate) fn invalid(key: &str, reason: impl Into<String>) -> ConfigError {
        ConfigError::InvalidValue {
            key: key.to_owned(),
            reason: reason.into(),
        }
    }

    /// The key at fault, when one is.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::InvalidValue { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// Everything `kacl serve` needs to know, typed and checked.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `node.id`: this broker's id in Metadata (default 1).
    pub node_id: i32,
    /// `listeners`: where to accept connections.
    pub listeners: Vec<Listener>,
    /// `advertised.listeners`: what Metadata tells clients (default: `listeners`; see
    /// [`Listener`] for the placeholders the network layer must fill).
    pub advertised_listeners: Vec<Listener>,
    /// `broker.rack`.
    pub broker_rack: Option<String>,
    /// `metadata.log.dir`, else the first of `log.dirs`, else `./kacl-data`.
    pub data_dir: PathBuf,
    /// `super.users`: principals every authorization allows.
    pub super_users: Vec<String>,
    /// `allow.everyone.if.no.acl.found`.
    pub allow_everyone_if_no_acl_found: bool,
    /// `sasl.enabled.mechanisms` (default: PLAIN and both SCRAMs), without duplicates.
    pub sasl_enabled_mechanisms: Vec<SaslMechanism>,
    /// `sasl.jaas.config`: PLAIN users for SASL listeners without a listener-specific line.
    pub plain_users: Option<PlainUsers>,
    /// `listener.name.<name>.plain.sasl.jaas.config`, by upper-case listener name.
    pub listener_plain_users: BTreeMap<String, PlainUsers>,
    /// The `ssl.*` key store, trust store and client auth; `None` without a key store.
    pub tls: Option<TlsConfig>,
    /// The TLS settings of listeners that override some `ssl.*` key with
    /// `listener.name.<name>.ssl.*`, by upper-case listener name (see [`ServerConfig::tls_for`]).
    pub listener_tls: BTreeMap<String, TlsConfig>,
    /// `ssl.principal.mapping.rules` (default `DEFAULT`).
    pub ssl_principal_mapper: SslPrincipalMapper,
    /// `num.partitions`: partitions for CreateTopics with -1.
    pub num_partitions: i32,
    /// `default.replication.factor`: replication factor for CreateTopics with -1.
    pub default_replication_factor: i16,
    /// `socket.request.max.bytes`: the largest request frame accepted.
    pub socket_request_max_bytes: u32,
    /// `sasl.server.max.receive.size`: the largest frame read on a SASL listener before
    /// authentication completes (Kafka's default 512 KiB), in place of
    /// `socket.request.max.bytes`, so that an unauthenticated client cannot make the server
    /// buffer a large frame.
    pub sasl_server_max_receive_size: u32,
    /// `queued.max.request.bytes`: the request bytes all connections together may hold before
    /// they stop reading (kacl-server's request memory pool); `None` (Kafka's default -1, or any value
    /// up to 0) for no bound.
    pub queued_max_request_bytes: Option<u64>,
    /// `max.connections` (Kafka's default: 2147483647).
    pub max_connections: u32,
    /// `max.connections.per.ip` (Kafka's default: 2147483647).
    pub max_connections_per_ip: u32,
    /// `max.connections.per.ip.overrides`: per-address limits in place of
    /// `max.connections.per.ip` (host names resolved at start).
    pub max_connections_per_ip_overrides: HashMap<IpAddr, u32>,
    /// `connections.max.idle.ms` (default 10 minutes); `None` for a negative value, which
    /// Kafka takes as "never close idle connections".
    pub connections_max_idle: Option<Duration>,
    /// `connections.max.reauth.ms` (KIP-368): how long a SASL session lasts before the client
    /// must re-authenticate on the same connection; `None` (Kafka's default 0, or any value
    /// up to 0) for sessions that never expire.
    pub connections_max_reauth: Option<Duration>,
    /// `connection.failed.authentication.delay.ms` (default 100 ms): wait this long before
    /// answering a failed authentication.
    pub failed_authentication_delay: Duration,
    /// `socket.send.buffer.bytes` (default 102400, Kafka's; 409600 in gateway mode): each
    /// connection's SO_SNDBUF; `None` for -1, the OS default (which autotunes up to several MB
    /// per connection).
    pub socket_send_buffer_bytes: Option<u32>,
    /// `socket.receive.buffer.bytes` (default 102400): each connection's SO_RCVBUF; `None` for
    /// -1, the OS default.
    pub socket_receive_buffer_bytes: Option<u32>,
    /// `kacl.acl.max.batch`: most ACL changes in one request (POLICY_VIOLATION above).
    pub acl_max_batch: usize,
    /// `kacl.describe.self.service.enable`.
    pub describe_self_service: bool,
    /// `kacl.metrics.listen`: `host:port` for Prometheus `/metrics`.
    pub metrics_listen: Option<String>,
    /// `kacl.console.listen`: `host:port` of the embedded web console (kacl-console), off
    /// when unset.
    pub console_listen: Option<String>,
    /// `kacl.store.cache.bytes`: the most memory the store's page cache may hold (default
    /// [`DEFAULT_STORE_CACHE_BYTES`], 32 MiB; ACL reads come from the in-memory index, so a
    /// larger cache mostly keeps the start-up scan resident).
    pub store_cache_bytes: usize,
    /// `kacl.request.max.decoded.bytes`: the most element storage (array elements, kept unknown
    /// tagged fields) decoding one request may allocate; a request needing more closes its
    /// connection. Bounds what a frame of tiny elements makes the server allocate.
    pub request_max_decoded_bytes: usize,
    /// `kacl.scram.bootstrap.credentials`: SCRAM credentials created at start, once per store
    /// (see [`crate::scram_bootstrap`]).
    pub scram_bootstrap: Vec<scram_bootstrap::BootstrapCredential>,
    /// `kacl.metadata.store` with its `kacl.etcd.*` keys: the embedded redb store (default) or
    /// etcd shared by several nodes.
    pub metadata_store: MetadataStoreConfig,
    /// Gateway mode (`kacl.gateway.*`, see [`gateway`]): `None` for a standalone node.
    pub gateway: Option<gateway::GatewayConfig>,
    /// OAUTHBEARER's token validation (`sasl.oauthbearer.*`, see [`oauthbearer`]): `None`
    /// without `sasl.oauthbearer.jwks.endpoint.url`.
    pub oauthbearer: Option<oauthbearer::OAuthBearerConfig>,
    /// `kacl.describe.consistent` (default false): DescribeAcls first waits until this node
    /// has applied everything etcd had committed when the request arrived (a linearizable
    /// read across nodes). No effect with the redb store, whose reads are always current.
    pub describe_consistent: bool,
    /// `kacl.acl.snapshot.interval.ms` (default 10000; 0: only at a clean stop): with the
    /// embedded store, how often the server checks whether the ACL snapshot is behind the
    /// store, writing it once the ACLs have not changed for one interval (or have kept
    /// changing for six), so that a restart after a crash also finds a current one.
    pub acl_snapshot_interval: Option<std::time::Duration>,
    /// True when no config file was given: the binary should warn that it runs on
    /// development defaults.
    pub is_development: bool,
    /// Ignored keys and other non-fatal findings, one sentence each, for the start-up log.
    pub warnings: Vec<String>,
    /// Every key the file and the overrides set, with its last value, sorted by key: what
    /// DescribeConfigs reports as STATIC_BROKER_CONFIG (secrets are masked there, not here).
    pub static_properties: BTreeMap<String, String>,
}

impl ServerConfig {
    /// The configuration without a file: `listeners=PLAINTEXT://127.0.0.1:9092`,
    /// `super.users=User:ANONYMOUS`, data in `./kacl-data`, Kafka's defaults elsewhere.
    pub fn development_defaults() -> ServerConfig {
        ServerConfig {
            node_id: 1,
            listeners: vec![Listener {
                name: "PLAINTEXT".to_owned(),
                protocol: SecurityProtocol::Plaintext,
                host: "127.0.0.1".to_owned(),
                port: 9092,
            }],
            advertised_listeners: vec![Listener {
                name: "PLAINTEXT".to_owned(),
                protocol: SecurityProtocol::Plaintext,
                host: "127.0.0.1".to_owned(),
                port: 9092,
            }],
            broker_rack: None,
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            super_users: vec![DEVELOPMENT_SUPER_USER.to_owned()],
            allow_everyone_if_no_acl_found: false,
            sasl_enabled_mechanisms: SaslMechanism::DEFAULT_ENABLED.to_vec(),
            plain_users: None,
            listener_plain_users: BTreeMap::new(),
            tls: None,
            listener_tls: BTreeMap::new(),
            ssl_principal_mapper: SslPrincipalMapper::default(),
            num_partitions: 1,
            default_replication_factor: 1,
            socket_request_max_bytes: 104_857_600,
            queued_max_request_bytes: None,
            connections_max_reauth: None,
            sasl_server_max_receive_size: DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE,
            max_connections: i32::MAX as u32,
            max_connections_per_ip: i32::MAX as u32,
            max_connections_per_ip_overrides: HashMap::new(),
            connections_max_idle: Some(Duration::from_millis(600_000)),
            failed_authentication_delay: Duration::from_millis(100),
            socket_send_buffer_bytes: Some(102_400),
            socket_receive_buffer_bytes: Some(102_400),
            acl_max_batch: 10_000,
            describe_self_service: false,
            metrics_listen: None,
            console_listen: None,
            store_cache_bytes: DEFAULT_STORE_CACHE_BYTES,
            request_max_decoded_bytes: DEFAULT_REQUEST_MAX_DECODED_BYTES,
            scram_bootstrap: Vec::new(),
            metadata_store: MetadataStoreConfig::Redb,
            gateway: None,
            oauthbearer: None,
            describe_consistent: false,
            acl_snapshot_interval: Some(std::time::Duration::from_secs(10)),
            is_development: true,
            warnings: Vec::new(),
            // The development seed counts as set, as `development_with` records it.
            static_properties: BTreeMap::from([
                ("listeners".to_owned(), DEFAULT_LISTENERS.to_owned()),
                ("super.users".to_owned(), DEVELOPMENT_SUPER_USER.to_owned()),
            ]),
        }
    }

    /// The `kacl serve` entry point: the file's keys (or, without a file, the development
    /// defaults) with each `KEY=VALUE` override applied in order on top.
    pub fn load(
        config_file: Option<&Path>,
        overrides: &[String],
    ) -> Result<ServerConfig, ConfigError> {
        let overrides = overrides
            .iter()
            .map(|arg| parse_override(arg))
            .collect::<Result<Vec<_>, _>>()?;
        match config_file {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
                    path: path.to_owned(),
                    reason: e.to_string(),
                })?;
                let entries = parse_properties(&text).map_err(|source| ConfigError::Syntax {
                    path: path.to_owned(),
                    source,
                })?;
                ServerConfig::from_pairs(entries.into_iter().chain(overrides), false)
            }
            None => ServerConfig::development_with(&overrides),
        }
    }

    /// A config from properties text plus overrides (not development mode).
    pub fn from_properties(
        text: &str,
        overrides: &[(String, String)],
    ) -> Result<ServerConfig, ConfigError> {
        let entries = parse_properties(text).map_err(|source| ConfigError::Syntax {
            path: PathBuf::from("<text>"),
            source,
        })?;
        ServerConfig::from_pairs(entries.into_iter().chain(overrides.iter().cloned()), false)
    }

    /// The development defaults with overrides on top (still flagged as development).
    pub fn development_with(overrides: &[(String, String)]) -> Result<ServerConfig, ConfigError> {
        let seed = [
            ("listeners", DEFAULT_LISTENERS),
            ("super.users", DEVELOPMENT_SUPER_USER),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        ServerConfig::from_pairs(seed.into_iter().chain(overrides.iter().cloned()), true)
    }

    /// The PLAIN users of a listener: its own JAAS line, else `sasl.jaas.config`.
    pub fn plain_users_for(&self, listener_name: &str) -> Option<&PlainUsers> {
        self.listener_plain_users
            .get(&listener_name.to_ascii_uppercase())
            .or(self.plain_users.as_ref())
    }

    /// The listener with this name.
    pub fn listener(&self, name: &str) -> Option<&Listener> {
        self.listeners
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name))
    }

    /// The advertised address of a listener, if advertised.
    pub fn advertised_listener(&self, name: &str) -> Option<&Listener> {
        self.advertised_listeners
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name))
    }

    /// The TLS settings of listener `name`: its own overrides, else the global ones.
    pub fn tls_for(&self, name: &str) -> Option<&TlsConfig> {
        self.listener_tls.get(name).or(self.tls.as_ref())
    }

    /// True if `mechanism` is enabled.
    pub fn mechanism_enabled(&self, mechanism: SaslMechanism) -> bool {
        self.sasl_enabled_mechanisms.contains(&mechanism)
    }

    fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
        is_development: bool,
    ) -> Result<ServerConfig, ConfigError> {
        let pairs: Vec<(String, String)> = pairs.into_iter().collect();
        let static_properties: BTreeMap<String, String> = pairs.iter().cloned().collect();
        let mut source = Source::new(pairs);
        let mut warnings = Vec::new();

        let node_id = source.int("node.id", 1, 0, i32::MAX.into())? as i32;

        let protocols =
            listeners::parse_protocol_map(source.take("listener.security.protocol.map"))
                .map_err(|e| ConfigError::invalid("listener.security.protocol.map", e))?;
        let listener_list = source
            .take("listeners")
            .unwrap_or(DEFAULT_LISTENERS)
            .to_owned();
        let listeners = listeners::parse_listeners(&listener_list, &protocols)
            .map_err(|e| ConfigError::invalid("listeners", e))?;
        let advertised_listeners = match source.take("advertised.listeners") {
            Some(value) => listeners::parse_advertised(value, &protocols, &listeners)
                .map_err(|e| ConfigError::invalid("advertised.listeners", e))?,
            None => listeners.clone(),
        };

        let broker_rack = source
            .take("broker.rack")
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_owned);
        let data_dir = data_dir(&mut source)?;
        let super_users = super_users(source.take("super.users"))?;
        let allow_everyone_if_no_acl_found =
            source.bool("allow.everyone.if.no.acl.found", false)?;

        let sasl::SaslKeys {
            sasl_enabled_mechanisms,
            plain_users,
            listener_plain_users,
        } = sasl::parse_sasl_keys(&mut source, &listeners, &mut warnings)?;

        let tls::TlsKeys {
            tls,
            principal_mapper,
        } = tls::parse_tls_keys(&mut source, &mut warnings)?;
        let listener_tls =
            tls::parse_listener_tls(&mut source, &listeners, tls.as_ref(), &mut warnings)?;

        let num_partitions = source.int("num.partitions", 1, 1, i32::MAX.into())? as i32;
        let default_replication_factor =
            source.int("default.replication.factor", 1, 1, i16::MAX.into())? as i16;
        let gateway_mode = source.peek(gateway::UPSTREAM_BOOTSTRAP_KEY).is_some();
        let limits::Limits {
            socket_request_max_bytes,
            sasl_server_max_receive_size,
            queued_max_request_bytes,
            request_max_decoded_bytes,
            max_connections,
            max_connections_per_ip,
            max_connections_per_ip_overrides,
            connections_max_idle,
            connections_max_reauth,
            failed_authentication_delay,
            socket_send_buffer_bytes,
            socket_receive_buffer_bytes,
        } = limits::Limits::parse(&mut source, gateway_mode)?;
        let acl_max_batch = source.int("kacl.acl.max.batch", 10_000, 1, i32::MAX.into())? as usize;
        let describe_self_service = source.bool("kacl.describe.self.service.enable", false)?;
        let metrics_listen = host_port("kacl.metrics.listen", source.take("kacl.metrics.listen"))?;
        let console_listen = host_port("kacl.console.listen", source.take("kacl.console.listen"))?;
        let store_cache_bytes = store_cache_bytes(&mut source)?;
        let scram_bootstrap = match source.take(scram_bootstrap::BOOTSTRAP_KEY) {
            Some(value) => scram_bootstrap::parse(value)
                .map_err(|e| ConfigError::invalid(scram_bootstrap::BOOTSTRAP_KEY, e))?,
            None => Vec::new(),
        };

        let metadata_store = metadata_store::parse(&mut source, &mut warnings)?;
        let gateway = gateway::parse(&mut source)?;
        let oauthbearer = oauthbearer::parse(&mut source, &sasl_enabled_mechanisms, &mut warnings)?;
        let describe_consistent = source.bool("kacl.describe.consistent", false)?;
        let acl_snapshot_interval =
            match source.int("kacl.acl.snapshot.interval.ms", 10_000, 0, i32::MAX.into())? {
                0 => None,
                ms => Some(std::time::Duration::from_millis(ms as u64)),
            };

        let config = ServerConfig {
            node_id,
            listeners,
            advertised_listeners,
            broker_rack,
            data_dir,
            super_users,
            allow_everyone_if_no_acl_found,
            sasl_enabled_mechanisms,
            plain_users,
            listener_plain_users,
            tls,
            listener_tls,
            ssl_principal_mapper: principal_mapper,
            num_partitions,
            default_replication_factor,
            socket_request_max_bytes,
            queued_max_request_bytes,
            sasl_server_max_receive_size,
            max_connections,
            max_connections_per_ip,
            max_connections_per_ip_overrides,
            connections_max_idle,
            connections_max_reauth,
            failed_authentication_delay,
            socket_send_buffer_bytes,
            socket_receive_buffer_bytes,
            acl_max_batch,
            describe_self_service,
            metrics_listen,
            console_listen,
            store_cache_bytes,
            request_max_decoded_bytes,
            scram_bootstrap,
            metadata_store,
            gateway,
            oauthbearer,
            describe_consistent,
            acl_snapshot_interval,
            is_development,
            warnings: Vec::new(),
            static_properties,
        };
        check_listener_needs(&config, &mut warnings)?;
        warnings.extend(
            source
                .unused()
                .map(|key| format!("unknown configuration key `{key}` is ignored")),
        );
        // A listener inheriting a global value repeats its warning: say each once.
        let mut seen = std::collections::BTreeSet::new();
        warnings.retain(|w| seen.insert(w.clone()));
        Ok(ServerConfig { warnings, ..config })
    }
}

/// Splits `KEY=VALUE` at the first `=`; the key is trimmed, the value kept as given.
pub fn parse_override(arg: &str) -> Result<(String, String), ConfigError> {
    match arg.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_owned(), value.to_owned()))
        }
        _ => Err(ConfigError::BadOverride(arg.to_owned())),
    }
}

fn data_dir(source: &mut Source) -> Result<PathBuf, ConfigError> {
    let log_dirs = source.take("log.dirs").map(str::to_owned);
    if let Some(dir) = source.take("metadata.log.dir") {
        let dir = dir.trim();
        if dir.is_empty() {
            return Err(ConfigError::invalid(
                "metadata.log.dir",
                "must not be empty",
            ));
        }
        return Ok(PathBuf::from(dir));
    }
    match log_dirs {
        None => Ok(PathBuf::from(DEFAULT_DATA_DIR)),
        Some(list) => listeners::split_list(&list)
            .next()
            .map(PathBuf::from)
            .ok_or_else(|| ConfigError::invalid("log.dirs", "must name at least one directory")),
    }
}

/// `super.users`: `;`-separated, trimmed, empty entries skipped (as Kafka's authorizer);
/// each must be `Type:name`.
fn super_users(value: Option<&str>) -> Result<Vec<String>, ConfigError> {
    let mut users: Vec<String> = Vec::new();
    for entry in value.unwrap_or_default().split(';').map(str::trim) {
        if entry.is_empty() {
            continue;
        }
        match entry.split_once(':') {
            Some((kind, name)) if !kind.is_empty() && !name.is_empty() => {}
            _ => {
                return Err(ConfigError::invalid(
                    "super.users",
                    format!("`{entry}` is not a principal of the form Type:name (e.g. User:admin)"),
                ));
            }
        }
        if !users.iter().any(|u| u == entry) {
            users.push(entry.to_owned());
        }
    }
    Ok(users)
}

/// `kacl.store.cache.bytes`: 0 to [`MAX_STORE_CACHE_BYTES`] (and what this machine can address).
fn store_cache_bytes(source: &mut Source) -> Result<usize, ConfigError> {
    const KEY: &str = "kacl.store.cache.bytes";
    let default = i64::try_from(DEFAULT_STORE_CACHE_BYTES).unwrap_or(i64::MAX);
    let bytes = source.int(KEY, default, 0, MAX_STORE_CACHE_BYTES)?;
    usize::try_from(bytes)
        .map_err(|_| ConfigError::invalid(KEY, format!("{bytes} does not fit this machine")))
}

/// A `host:port` key (`kacl.metrics.listen`, `kacl.console.listen`); empty means unset.
fn host_port(key: &'static str, value: Option<&str>) -> Result<Option<String>, ConfigError> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let valid = value
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if !valid {
        return Err(ConfigError::invalid(
            key,
            format!("`{value}` is not host:port (e.g. 127.0.0.1:9404)"),
        ));
    }
    Ok(Some(value.to_owned()))
}

/// What the listeners require of the rest: TLS material for SSL listeners, a mechanism for
/// SASL ones; a warning when PLAIN has nobody to let in.
fn check_listener_needs(
    config: &ServerConfig,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let tls_listeners: Vec<&Listener> = config
        .listeners
        .iter()
        .filter(|l| l.protocol.uses_tls())
        .collect();
    if !tls_listeners.is_empty() {
        if let Some(l) = tls_listeners
            .iter()
            .find(|l| config.tls_for(&l.name).is_none())
        {
            return Err(ConfigError::invalid(
                "ssl.keystore.location",
                format!(
                    "listener {l} uses {} but no key store is configured (ssl.keystore.location, \
                     or ssl.keystore.certificate.chain with ssl.keystore.key)",
                    l.protocol
                ),
            ));
        }
    } else if config.tls.is_some() {
        warnings.push("ssl.* key store is configured but no listener uses SSL or SASL_SSL".into());
    }
    let sasl_listeners: Vec<&Listener> = config
        .listeners
        .iter()
        .filter(|l| l.protocol.uses_sasl())
        .collect();
    if !sasl_listeners.is_empty() && config.sasl_enabled_mechanisms.is_empty() {
        return Err(ConfigError::invalid(
            "sasl.enabled.mechanisms",
            "SASL listeners need at least one mechanism",
        ));
    }
    if config.mechanism_enabled(SaslMechanism::Plain) {
        for l in sasl_listeners {
            if config
                .plain_users_for(&l.name)
                .is_none_or(PlainUsers::is_empty)
            {
                warnings.push(format!(
                    "PLAIN is enabled on listener {} but it has no PLAIN users \
                     (listener.name.{}.plain.sasl.jaas.config or sasl.jaas.config)",
                    l.name,
                    l.name.to_ascii_lowercase()
                ));
            }
        }
    }
    Ok(())
}
