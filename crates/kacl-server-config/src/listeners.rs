//! `listeners`, `advertised.listeners` and `listener.security.protocol.map`: where kacl
//! listens, what Metadata tells clients, and which security protocol each listener speaks.

use std::collections::BTreeMap;
use std::fmt;

pub(crate) use kacl_config::SecurityProtocol;

/// One `NAME://host:port` entry.
///
/// In `listeners`, an empty host means every interface. In `advertised.listeners` taken by
/// default from `listeners`, an empty or wildcard host and port 0 are placeholders: the
/// network layer must put the bound port and a reachable host name in their place before
/// telling clients (Kafka advertises the machine's canonical host name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    /// The listener name, upper-cased as Kafka normalises it (`PLAINTEXT`, `INTERNAL`).
    pub name: String,
    /// What the listener speaks.
    pub protocol: SecurityProtocol,
    /// Host name or IP, without IPv6 brackets; empty for all interfaces.
    pub host: String,
    /// Port; 0 asks the OS for a free one (tests).
    pub port: u16,
}

impl Listener {
    /// What to bind: `0.0.0.0:port` for an empty host, `[v6]:port` for IPv6.
    pub fn bind_address(&self) -> String {
        if self.host.is_empty() {
            format!("0.0.0.0:{}", self.port)
        } else {
            host_port(&self.host, self.port)
        }
    }
}

fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// `NAME://host:port`, as written in the config.
impl fmt::Display for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.is_empty() {
            write!(f, "{}://:{}", self.name, self.port)
        } else {
            write!(f, "{}://{}", self.name, host_port(&self.host, self.port))
        }
    }
}

/// Listener names mapped to protocols. Kafka's default maps each protocol name to itself;
/// kacl keeps those identity entries even when a map is configured (Kafka drops them), so
/// `listeners=PLAINTEXT://...` works next to a map that only names custom listeners.
pub(crate) fn parse_protocol_map(
    value: Option<&str>,
) -> Result<BTreeMap<String, SecurityProtocol>, String> {
    let mut map: BTreeMap<String, SecurityProtocol> = SecurityProtocol::ALL
        .into_iter()
        .map(|p| (p.name().to_owned(), p))
        .collect();
    let mut seen = Vec::new();
    for entry in split_list(value.unwrap_or_default()) {
        let (name, protocol) = entry
            .split_once(':')
            .ok_or_else(|| format!("`{entry}` is not NAME:PROTOCOL"))?;
        let name = listener_name(name.trim())?;
        let protocol = SecurityProtocol::from_name(protocol.trim())
            .ok_or_else(|| format!("unknown security protocol `{}`", protocol.trim()))?;
        if seen.contains(&name) {
            return Err(format!("listener name {name} is mapped twice"));
        }
        seen.push(name.clone());
        map.insert(name, protocol);
    }
    Ok(map)
}

/// Kafka's CSV lists: split on commas, trim, drop empty entries.
pub(crate) fn split_list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn listener_name(name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("a listener name is empty".to_owned());
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return Err(format!(
            "listener name `{name}` has characters other than letters, digits, `_`, `-` and `.`"
        ));
    }
    Ok(name.to_ascii_uppercase())
}

/// Parses one `NAME://host:port`.
fn parse_listener(
    entry: &str,
    protocols: &BTreeMap<String, SecurityProtocol>,
) -> Result<Listener, String> {
    let (name, address) = entry
        .split_once("://")
        .ok_or_else(|| format!("`{entry}` is not NAME://host:port"))?;
    let name = listener_name(name)?;
    let protocol = *protocols.get(&name).ok_or_else(|| {
        format!("no security protocol for listener {name}: name a protocol or map it in listener.security.protocol.map")
    })?;
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| format!("`{entry}` has no port"))?;
    let host = match host.strip_prefix('[') {
        Some(inner) => inner
            .strip_suffix(']')
            .filter(|h| h.contains(':'))
            .ok_or_else(|| format!("`{entry}` has a malformed [IPv6] host"))?,
        None if host.contains(':') => {
            return Err(format!(
                "`{entry}`: an IPv6 host must be in brackets, as [::1]"
            ));
        }
        None => host,
    };
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '%' | '.' | '_' | ':'))
    {
        return Err(format!("`{entry}` has an invalid host `{host}`"));
    }
    let port = port
        .parse::<u16>()
        .map_err(|_| format!("`{entry}` has an invalid port `{port}` (0 to 65535)"))?;
    Ok(Listener {
        name,
        protocol,
        host: host.to_owned(),
        port,
    })
}

/// Parses `listeners`: at least one, names unique, and no two on the same host and port.
pub(crate) fn parse_listeners(
    value: &str,
    protocols: &BTreeMap<String, SecurityProtocol>,
) -> Result<Vec<Listener>, String> {
    let listeners = split_list(value)
        .map(|entry| parse_listener(entry, protocols))
        .collect::<Result<Vec<_>, _>>()?;
    if listeners.is_empty() {
        return Err("at least one listener is required".to_owned());
    }
    for (i, a) in listeners.iter().enumerate() {
        for b in listeners.iter().skip(i + 1) {
            if a.name == b.name {
                return Err(format!(
                    "each listener must have a different name; {} appears twice",
                    a.name
                ));
            }
            if a.port != 0 && a.port == b.port && a.host == b.host {
                return Err(format!(
                    "each listener must have a different port; {a} and {b} share one"
                ));
            }
        }
    }
    Ok(listeners)
}

/// Parses `advertised.listeners`: names must be among `listeners`, and the wildcard
/// addresses cannot be advertised (Kafka refuses them too).
pub(crate) fn parse_advertised(
    value: &str,
    protocols: &BTreeMap<String, SecurityProtocol>,
    listeners: &[Listener],
) -> Result<Vec<Listener>, String> {
    let advertised = split_list(value)
        .map(|entry| parse_listener(entry, protocols))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, a) in advertised.iter().enumerate() {
        if !listeners.iter().any(|l| l.name == a.name) {
            return Err(format!("{} is not one of the listeners", a.name));
        }
        if advertised.iter().skip(i + 1).any(|b| b.name == a.name) {
            return Err(format!("{} is advertised twice", a.name));
        }
        if a.host == "0.0.0.0" || a.host == "::" {
            return Err(format!(
                "{a} uses the non-routable meta-address {}; use a routable address",
                a.host
            ));
        }
    }
    Ok(advertised)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_map() -> BTreeMap<String, SecurityProtocol> {
        parse_protocol_map(None).unwrap()
    }

    #[test]
    fn parses_hosts_ports_and_protocols() {
        let listeners = parse_listeners(
            "PLAINTEXT://127.0.0.1:9092, sasl_plaintext://:9093,SSL://[::1]:0,SASL_SSL://kafka-1.example:9095",
            &default_map(),
        )
        .unwrap();
        let shown: Vec<String> = listeners.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "PLAINTEXT://127.0.0.1:9092",
                "SASL_PLAINTEXT://:9093",
                "SSL://[::1]:0",
                "SASL_SSL://kafka-1.example:9095"
            ]
        );
        assert_eq!(listeners[1].protocol, SecurityProtocol::SaslPlaintext);
        assert_eq!(listeners[1].bind_address(), "0.0.0.0:9093");
        assert_eq!(listeners[2].host, "::1");
        assert_eq!(listeners[2].bind_address(), "[::1]:0");
        assert!(listeners[3].protocol.uses_sasl() && listeners[3].protocol.uses_tls());
    }

    #[test]
    fn custom_names_need_the_map() {
        let err = parse_listeners("INTERNAL://:9092", &default_map()).unwrap_err();
        assert!(
            err.contains("no security protocol for listener INTERNAL"),
            "{err}"
        );
        let map = parse_protocol_map(Some("internal:sasl_plaintext, EXTERNAL:SSL")).unwrap();
        let listeners = parse_listeners("INTERNAL://:9092,PLAINTEXT://:9093", &map).unwrap();
        assert_eq!(listeners[0].protocol, SecurityProtocol::SaslPlaintext);
        assert_eq!(listeners[1].protocol, SecurityProtocol::Plaintext);
        // The map may also re-map a protocol's own name.
        let map = parse_protocol_map(Some("PLAINTEXT:SASL_PLAINTEXT")).unwrap();
        assert_eq!(
            parse_listeners("PLAINTEXT://:1", &map).unwrap()[0].protocol,
            SecurityProtocol::SaslPlaintext
        );
    }

    #[test]
    fn bad_maps() {
        for bad in ["INTERNAL", "INTERNAL:TLS", ":SSL", "A:SSL,a:PLAINTEXT"] {
            assert!(parse_protocol_map(Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn bad_listeners() {
        for bad in [
            "",
            " , ",
            "PLAINTEXT",
            "PLAINTEXT://host",
            "PLAINTEXT://host:port",
            "PLAINTEXT://host:65536",
            "PLAINTEXT://host:-1",
            "PLAINTEXT://::1:9092",
            "PLAINTEXT://[::1:9092",
            "PLAINTEXT://[host]:9092",
            "PLAINTEXT://ho st:9092",
            "://host:9092",
            "PLAIN TEXT://host:9092",
            "PLAINTEXT://:9092,PLAINTEXT://:9093",
            "PLAINTEXT://:9092,SSL://:9092",
        ] {
            assert!(
                parse_listeners(bad, &default_map()).is_err(),
                "{bad:?} accepted"
            );
        }
        // Port 0 may repeat: each gets its own ephemeral port.
        assert!(parse_listeners("PLAINTEXT://:0,SSL://:0", &default_map()).is_ok());
    }

    #[test]
    fn advertised_must_name_listeners_and_be_routable() {
        let map = default_map();
        let listeners = parse_listeners("PLAINTEXT://:9092,SSL://:9093", &map).unwrap();
        let advertised = parse_advertised("PLAINTEXT://broker1:19092", &map, &listeners).unwrap();
        assert_eq!(advertised[0].host, "broker1");
        assert_eq!(advertised[0].port, 19092);
        for bad in [
            "SASL_SSL://broker1:9094",
            "PLAINTEXT://0.0.0.0:9092",
            "PLAINTEXT://[::]:9092",
            "PLAINTEXT://a:1,PLAINTEXT://b:2",
        ] {
            assert!(parse_advertised(bad, &map, &listeners).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn protocol_names() {
        for p in SecurityProtocol::ALL {
            assert_eq!(
                SecurityProtocol::from_name(&p.name().to_lowercase()),
                Some(p)
            );
        }
        assert_eq!(SecurityProtocol::from_name("TLS"), None);
    }
}
