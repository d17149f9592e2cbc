//! Gateway mode (`kacl.gateway.*`): the node authorizes every data-path request with its own
//! ACLs and forwards what is allowed to an upstream Kafka cluster. Present when
//! `kacl.gateway.upstream.bootstrap.servers` is set.
//!
//! The upstream connection takes Kafka client properties under `kacl.gateway.upstream.`
//! (`security.protocol`, `sasl.mechanism`, `sasl.jaas.config`, `ssl.truststore.location`, ...);
//! they are kept as given here and read by the gateway with the admin client's parser, which
//! names any key it does not use. `kacl.gateway.upstream.sasl.jaas.config.file` reads the JAAS
//! line from a file, so the service identity's password need not sit in server.properties.

use kacl_config::Properties;

use super::source::Source;
use super::ConfigError;

/// The key that turns gateway mode on.
pub const UPSTREAM_BOOTSTRAP_KEY: &str = "kacl.gateway.upstream.bootstrap.servers";
/// The prefix of the upstream connection's Kafka client properties.
pub const UPSTREAM_PREFIX: &str = "kacl.gateway.upstream.";
const JAAS_FILE_KEY: &str = "kacl.gateway.upstream.sasl.jaas.config.file";

/// How a gateway node reaches its upstream cluster and exposes the upstream's brokers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayConfig {
    /// `kacl.gateway.upstream.bootstrap.servers`: `host:port` pairs, tried in order.
    pub upstream_bootstrap: Vec<String>,
    /// The other `kacl.gateway.upstream.*` keys, without the prefix, as Kafka client
    /// properties (a `sasl.jaas.config.file` already read into `sasl.jaas.config`).
    pub upstream_properties: Properties,
    /// `kacl.gateway.broker.port.base`: upstream broker N is reached through the gateway port
    /// `base + N` on every client listener's host; `None` (the default) takes the listener's
    /// own port + 1 as the base, and a listener bound to port 0 gets an OS-chosen port per
    /// broker (tests).
    pub broker_port_base: Option<u16>,
    /// `kacl.gateway.listener`: the listener whose host and security protocol the per-broker
    /// ports use (default: the first listener).
    pub listener: Option<String>,
    /// `kacl.gateway.splice.enable`: large Fetch answers are relayed from the upstream's socket
    /// to a plain TCP client's through a kernel pipe (Linux `splice(2)`), never copied
    /// through the gateway's memory (default true; elsewhere than Linux it is a no-op).
    pub splice: bool,
}

/// Reads the gateway keys; `None` unless the bootstrap key is set.
pub(crate) fn parse(source: &mut Source) -> Result<Option<GatewayConfig>, ConfigError> {
    let Some(bootstrap) = source.take(UPSTREAM_BOOTSTRAP_KEY) else {
        // The other gateway keys mean nothing without an upstream: a forgotten bootstrap key
        // must not silently start a standalone node.
        if let Some(key) = source.keys_with_prefix("kacl.gateway.").first() {
            return Err(ConfigError::invalid(
                key,
                format!("gateway keys need {UPSTREAM_BOOTSTRAP_KEY}"),
            ));
        }
        return Ok(None);
    };
    let upstream_bootstrap: Vec<String> = bootstrap
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    if upstream_bootstrap.is_empty() {
        return Err(ConfigError::invalid(
            UPSTREAM_BOOTSTRAP_KEY,
            "no host:port given",
        ));
    }
    for server in &upstream_bootstrap {
        let port_ok = server
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if !port_ok {
            return Err(ConfigError::invalid(
                UPSTREAM_BOOTSTRAP_KEY,
                format!("`{server}` is not host:port"),
            ));
        }
    }
    let broker_port_base = match source.take("kacl.gateway.broker.port.base") {
        None => None,
        Some(raw) => Some(raw.trim().parse::<u16>().map_err(|_| {
            ConfigError::invalid(
                "kacl.gateway.broker.port.base",
                "not a port number (0-65535)",
            )
        })?),
    };
    let listener = source
        .take("kacl.gateway.listener")
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    let splice = source.bool("kacl.gateway.splice.enable", true)?;
    let mut upstream_properties = Properties::default();
    for key in source.keys_with_prefix(UPSTREAM_PREFIX) {
        let value = source.take(&key).unwrap_or_default().to_owned();
        if key == JAAS_FILE_KEY {
            let text = std::fs::read_to_string(value.trim()).map_err(|e| {
                ConfigError::invalid(
                    JAAS_FILE_KEY,
                    format!("cannot read `{}`: {e}", value.trim()),
                )
            })?;
            upstream_properties.set("sasl.jaas.config".to_owned(), text.trim().to_owned());
            continue;
        }
        let client_key = key.trim_start_matches(UPSTREAM_PREFIX).to_owned();
        if client_key == "bootstrap.servers" {
            continue;
        }
        upstream_properties.set(client_key, value);
    }
    Ok(Some(GatewayConfig {
        upstream_bootstrap,
        upstream_properties,
        broker_port_base,
        listener,
        splice,
    }))
}
