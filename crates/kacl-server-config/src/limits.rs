//! The socket server's limits, with Kafka's keys, defaults and rules: frame sizes before and
//! after SASL authentication, the request memory pool, decoded request memory, connection
//! counts (total, per address, per-address overrides), idle time, SASL session lifetime and the
//! delay of a failed authentication.

use std::collections::HashMap;
use std::net::{IpAddr, ToSocketAddrs};
use std::time::Duration;

use super::source::Source;
use super::{ConfigError, DEFAULT_REQUEST_MAX_DECODED_BYTES, DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE};

/// The parsed limit keys; see the fields of [`ServerConfig`](super::ServerConfig) of the same
/// names.
pub(super) struct Limits {
    pub socket_request_max_bytes: u32,
    pub sasl_server_max_receive_size: u32,
    pub queued_max_request_bytes: Option<u64>,
    pub request_max_decoded_bytes: usize,
    pub max_connections: u32,
    pub max_connections_per_ip: u32,
    pub max_connections_per_ip_overrides: HashMap<IpAddr, u32>,
    pub connections_max_idle: Option<Duration>,
    pub connections_max_reauth: Option<Duration>,
    pub failed_authentication_delay: Duration,
}

impl Limits {
    pub(super) fn parse(source: &mut Source) -> Result<Limits, ConfigError> {
        let socket_request_max_bytes =
            source.int("socket.request.max.bytes", 104_857_600, 1, i32::MAX.into())? as u32;
        let max_connections_per_ip = source.int(
            "max.connections.per.ip",
            i32::MAX.into(),
            0,
            i32::MAX.into(),
        )? as u32;
        let max_connections_per_ip_overrides = per_ip_overrides(source.take(PER_IP_OVERRIDES_KEY))?;
        if max_connections_per_ip == 0 && max_connections_per_ip_overrides.is_empty() {
            // KafkaConfig's rule and message.
            return Err(ConfigError::invalid(
                "max.connections.per.ip",
                "max.connections.per.ip can be set to zero only if \
                 max.connections.per.ip.overrides property is set.",
            ));
        }
        let idle_ms = source.int("connections.max.idle.ms", 600_000, i64::MIN, i64::MAX)?;
        // Kafka's LONG has no validator; 0 or less turns re-authentication off.
        let reauth_ms = source.int("connections.max.reauth.ms", 0, i64::MIN, i64::MAX)?;
        let delay_ms = source.int(
            "connection.failed.authentication.delay.ms",
            100,
            0,
            i32::MAX.into(),
        )?;
        Ok(Limits {
            socket_request_max_bytes,
            sasl_server_max_receive_size: sasl_server_max_receive_size(source)?,
            queued_max_request_bytes: queued_max_request_bytes(source, socket_request_max_bytes)?,
            request_max_decoded_bytes: request_max_decoded_bytes(source)?,
            max_connections: source.int("max.connections", i32::MAX.into(), 0, i32::MAX.into())?
                as u32,
            max_connections_per_ip,
            max_connections_per_ip_overrides,
            connections_max_idle: u64::try_from(idle_ms).ok().map(Duration::from_millis),
            connections_max_reauth: u64::try_from(reauth_ms)
                .ok()
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
            failed_authentication_delay: Duration::from_millis(delay_ms.unsigned_abs()),
        })
    }
}

const PER_IP_OVERRIDES_KEY: &str = "max.connections.per.ip.overrides";

/// `max.connections.per.ip.overrides`: `host:count` pairs, comma-separated (Kafka's
/// `hostName:100,127.0.0.1:200`); the count follows the last `:`, so IPv6 addresses work
/// (brackets optional). A host name is resolved once, at start, to its first address, as
/// Kafka's `InetAddress.getByName` does.
fn per_ip_overrides(value: Option<&str>) -> Result<HashMap<IpAddr, u32>, ConfigError> {
    let invalid = |reason: String| ConfigError::invalid(PER_IP_OVERRIDES_KEY, reason);
    let mut overrides = HashMap::new();
    let entries = value.unwrap_or("").split(',').map(str::trim);
    for entry in entries.filter(|e| !e.is_empty()) {
        let Some((host, count)) = entry.rsplit_once(':') else {
            return Err(invalid(format!("`{entry}` is not host:count")));
        };
        let host = host.trim().trim_start_matches('[').trim_end_matches(']');
        let count: u32 = count
            .trim()
            .parse()
            .ok()
            .filter(|n| i32::try_from(*n).is_ok())
            .ok_or_else(|| invalid(format!("`{entry}`: the count is not 0 to 2147483647")))?;
        let address = match host.parse::<IpAddr>() {
            Ok(ip) => ip,
            Err(_) => (host, 0)
                .to_socket_addrs()
                .ok()
                .and_then(|mut found| found.next())
                .map(|addr| addr.ip())
                .ok_or_else(|| invalid(format!("cannot resolve host `{host}`")))?,
        };
        overrides.insert(address, count);
    }
    Ok(overrides)
}

/// `sasl.server.max.receive.size`: Kafka's INT, where -1 is NetworkReceive's "unlimited" (any
/// frame size an int can declare). Kafka takes any other value too, but 0 or below -1 makes
/// every SASL frame too large, so no login could succeed: kacl refuses them at start.
fn sasl_server_max_receive_size(source: &mut Source) -> Result<u32, ConfigError> {
    const KEY: &str = "sasl.server.max.receive.size";
    let size = source.int(
        KEY,
        DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE.into(),
        -1,
        i32::MAX.into(),
    )?;
    match size {
        -1 => Ok(i32::MAX as u32),
        0 => Err(ConfigError::invalid(
            KEY,
            "0 would refuse every SASL frame (use -1 for no limit)",
        )),
        size => Ok(size as u32),
    }
}

/// `queued.max.request.bytes`: Kafka's LONG, -1 by default; a positive value must be at least
/// `socket.request.max.bytes` (KafkaConfig's rule and message), so that any accepted frame fits.
fn queued_max_request_bytes(
    source: &mut Source,
    socket_request_max_bytes: u32,
) -> Result<Option<u64>, ConfigError> {
    const KEY: &str = "queued.max.request.bytes";
    let bytes = source.int(KEY, -1, i64::MIN, i64::MAX)?;
    let Ok(bytes) = u64::try_from(bytes) else {
        return Ok(None);
    };
    if bytes == 0 {
        return Ok(None);
    }
    if bytes < u64::from(socket_request_max_bytes) {
        return Err(ConfigError::invalid(
            KEY,
            "queued.max.request.bytes must be larger or equal to socket.request.max.bytes",
        ));
    }
    Ok(Some(bytes))
}

/// `kacl.request.max.decoded.bytes`: 64 KiB (room for any ordinary request) to 64 GiB.
fn request_max_decoded_bytes(source: &mut Source) -> Result<usize, ConfigError> {
    const KEY: &str = "kacl.request.max.decoded.bytes";
    let default = i64::try_from(DEFAULT_REQUEST_MAX_DECODED_BYTES).unwrap_or(i64::MAX);
    let bytes = source.int(KEY, default, 64 << 10, 64 << 30)?;
    usize::try_from(bytes)
        .map_err(|_| ConfigError::invalid(KEY, format!("{bytes} does not fit this machine")))
}
