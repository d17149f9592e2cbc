//! The socket server's limits, with Kafka's keys, defaults and rules: frame sizes before and
//! after SASL authentication, the request memory pool, decoded request memory, connection
//! counts (total, per address, per-address overrides), idle time, SASL session lifetime, the
//! delay of a failed authentication, and the sockets' kernel buffer sizes.

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
    pub socket_send_buffer_bytes: Option<u32>,
    pub socket_receive_buffer_bytes: Option<u32>,
}

/// Kafka's `socket.send.buffer.bytes` and `socket.receive.buffer.bytes` default.
const KAFKA_SOCKET_BUFFER_BYTES: i64 = 102_400;

/// `socket.send.buffer.bytes`' default in gateway mode: four times Kafka's. A broker sends a
/// Fetch answer from its page cache in one `sendfile`; a gateway relays it through one more
/// socket, and with 100 KB there it took 100 KB of a 1 MB answer at a time from the upstream,
/// each time waiting for the consumer to drain it. Paired against a direct consumer: 0.85x
/// with 100 KB, 0.95x with 256 KB, 1.02x with 400 KB, at less gateway CPU per MB (0.34 ->
/// 0.24 ms; docs/benchmarks-history.md, "Reused buffers for large request frames").
/// Deliberately not Kafka's default (DIFFERENCES_FROM_KAFKA); an explicit value, -1 included,
/// is taken as given.
const GATEWAY_SOCKET_SEND_BUFFER_BYTES: i64 = 409_600;

impl Limits {
    /// `gateway`: the node runs in gateway mode, which changes the send buffers' default.
    pub(super) fn parse(source: &mut Source, gateway: bool) -> Result<Limits, ConfigError> {
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
            socket_send_buffer_bytes: socket_buffer_bytes(
                source,
                "socket.send.buffer.bytes",
                if gateway {
                    GATEWAY_SOCKET_SEND_BUFFER_BYTES
                } else {
                    KAFKA_SOCKET_BUFFER_BYTES
                },
            )?,
            socket_receive_buffer_bytes: socket_buffer_bytes(
                source,
                "socket.receive.buffer.bytes",
                KAFKA_SOCKET_BUFFER_BYTES,
            )?,
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

/// `socket.send.buffer.bytes` / `socket.receive.buffer.bytes`: Kafka's INT, `default` when
/// unset, -1 for the OS default (`None`). Kafka takes any int but fails on each accepted socket
/// for 0 or below -1 (Java refuses such a buffer size); kacl refuses them at start.
fn socket_buffer_bytes(
    source: &mut Source,
    key: &str,
    default: i64,
) -> Result<Option<u32>, ConfigError> {
    match source.int(key, default, -1, i32::MAX.into())? {
        -1 => Ok(None),
        0 => Err(ConfigError::invalid(
            key,
            "0 is not a buffer size (use -1 for the OS default)",
        )),
        bytes => Ok(Some(bytes as u32)),
    }
}

/// `kacl.request.max.decoded.bytes`: 64 KiB (room for any ordinary request) to 64 GiB.
fn request_max_decoded_bytes(source: &mut Source) -> Result<usize, ConfigError> {
    const KEY: &str = "kacl.request.max.decoded.bytes";
    let default = i64::try_from(DEFAULT_REQUEST_MAX_DECODED_BYTES).unwrap_or(i64::MAX);
    let bytes = source.int(KEY, default, 64 << 10, 64 << 30)?;
    usize::try_from(bytes)
        .map_err(|_| ConfigError::invalid(KEY, format!("{bytes} does not fit this machine")))
}

#[cfg(test)]
mod tests {
    use super::super::ServerConfig;

    fn parse(properties: &str) -> Result<ServerConfig, super::ConfigError> {
        ServerConfig::from_properties(properties, &[])
    }

    #[test]
    fn socket_buffer_sizes_take_kafkas_default_and_minus_one() {
        let defaults = parse("").unwrap();
        assert_eq!(defaults.socket_send_buffer_bytes, Some(102_400));
        assert_eq!(defaults.socket_receive_buffer_bytes, Some(102_400));
        let os = parse("socket.send.buffer.bytes=-1\nsocket.receive.buffer.bytes=65536").unwrap();
        assert_eq!(os.socket_send_buffer_bytes, None);
        assert_eq!(os.socket_receive_buffer_bytes, Some(65_536));
        for bad in ["0", "-2", "lots", "2147483648"] {
            let err = parse(&format!("socket.send.buffer.bytes={bad}")).unwrap_err();
            assert_eq!(err.key(), Some("socket.send.buffer.bytes"), "{bad}");
        }
    }

    #[test]
    fn a_gateway_sends_through_larger_buffers_unless_told_otherwise() {
        let gateway = "kacl.gateway.upstream.bootstrap.servers=127.0.0.1:9092\n";
        let defaults = parse(gateway).unwrap();
        assert_eq!(defaults.socket_send_buffer_bytes, Some(409_600));
        assert_eq!(defaults.socket_receive_buffer_bytes, Some(102_400));
        let given = parse(&format!("{gateway}socket.send.buffer.bytes=102400")).unwrap();
        assert_eq!(given.socket_send_buffer_bytes, Some(102_400));
        let os = parse(&format!("{gateway}socket.send.buffer.bytes=-1")).unwrap();
        assert_eq!(os.socket_send_buffer_bytes, None);
    }
}
