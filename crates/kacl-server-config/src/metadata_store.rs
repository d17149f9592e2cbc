//! `kacl.metadata.store` and the `kacl.etcd.*` keys: which store holds the cluster's metadata
//! (the embedded redb store of one node, or etcd shared by several nodes) and how to reach
//! etcd. Checked here so that a typo in an endpoint or a missing password file stops the
//! server at start with the key named, not at the first write.

use std::path::PathBuf;
use std::time::Duration;

use crate::source::Source;
use crate::ConfigError;

/// Default `kacl.etcd.prefix`.
pub const DEFAULT_ETCD_PREFIX: &str = "/kacl/";
/// Default `kacl.etcd.endpoints`.
pub const DEFAULT_ETCD_ENDPOINTS: &str = "http://127.0.0.1:2379";
/// Default `kacl.etcd.request.timeout.ms`: 10 s.
pub const DEFAULT_ETCD_REQUEST_TIMEOUT_MS: i64 = 10_000;
/// Default `kacl.etcd.lease.ttl.ms`: 10 s (etcd leases have a granularity of one second).
pub const DEFAULT_ETCD_LEASE_TTL_MS: i64 = 10_000;

/// Where the cluster's metadata lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataStoreConfig {
    /// `kacl.metadata.store=redb` (the default): the embedded store in the data directory.
    Redb,
    /// `kacl.metadata.store=etcd`: several nodes share one state through etcd.
    Etcd(EtcdConfig),
}

/// How to reach etcd (`kacl.etcd.*`).
#[derive(Clone, PartialEq, Eq)]
pub struct EtcdConfig {
    /// `kacl.etcd.endpoints`: `http://` or `https://` URLs (host and port, no path), tried in
    /// order until one answers.
    pub endpoints: Vec<EtcdEndpoint>,
    /// `kacl.etcd.prefix`: every key kacl writes lives under it (default `/kacl/`).
    pub prefix: String,
    /// `kacl.etcd.username`.
    pub username: Option<String>,
    /// `kacl.etcd.password`, or the first line of `kacl.etcd.password.file` (read at start).
    pub password: Option<String>,
    /// `kacl.etcd.tls.ca.location`: PEM CA bundle to verify etcd's certificate.
    pub tls_ca: Option<PathBuf>,
    /// `kacl.etcd.tls.certificate.location`: PEM client certificate (mutual TLS).
    pub tls_certificate: Option<PathBuf>,
    /// `kacl.etcd.tls.key.location`: PEM key of the client certificate.
    pub tls_key: Option<PathBuf>,
    /// `kacl.etcd.request.timeout.ms`: how long a write may wait for etcd before it fails
    /// with a retriable error.
    pub request_timeout: Duration,
    /// `kacl.etcd.lease.ttl.ms`: a node that stops renewing its lease for this long is gone.
    pub lease_ttl: Duration,
}

impl std::fmt::Debug for EtcdConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdConfig")
            .field("endpoints", &self.endpoints)
            .field("prefix", &self.prefix)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "[hidden]"))
            .field("tls_ca", &self.tls_ca)
            .field("tls_certificate", &self.tls_certificate)
            .field("tls_key", &self.tls_key)
            .field("request_timeout", &self.request_timeout)
            .field("lease_ttl", &self.lease_ttl)
            .finish_non_exhaustive()
    }
}

/// One etcd client URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdEndpoint {
    /// `https://` (TLS) rather than `http://`.
    pub tls: bool,
    /// Host name or IP address (IPv6 without brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl std::fmt::Display for EtcdEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// Parses one endpoint URL: `http(s)://host:port`, an optional trailing `/`.
pub fn parse_endpoint(text: &str) -> Result<EtcdEndpoint, String> {
    let text = text.trim();
    let (tls, rest) = if let Some(rest) = text.strip_prefix("http://") {
        (false, rest)
    } else if let Some(rest) = text.strip_prefix("https://") {
        (true, rest)
    } else {
        return Err(format!("`{text}` must start with http:// or https://"));
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("`{text}`: unclosed `[`"))?;
        let port = after
            .strip_prefix(':')
            .ok_or_else(|| format!("`{text}` has no port"))?;
        (host, port)
    } else {
        rest.rsplit_once(':')
            .ok_or_else(|| format!("`{text}` has no port"))?
    };
    if host.is_empty() || host.contains(['/', '@', '?', '#', ' ']) {
        return Err(format!("`{text}` has no usable host"));
    }
    let port: u16 = port
        .parse()
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| format!("`{text}`: `{port}` is not a port (1-65535)"))?;
    Ok(EtcdEndpoint {
        tls,
        host: host.to_owned(),
        port,
    })
}

/// Reads `kacl.metadata.store` and, for etcd, every `kacl.etcd.*` key. `kacl.etcd.*` keys
/// with the redb store are reported as warnings (they have no effect).
pub(crate) fn parse(
    source: &mut Source,
    warnings: &mut Vec<String>,
) -> Result<MetadataStoreConfig, ConfigError> {
    const KEY: &str = "kacl.metadata.store";
    let kind = source.take(KEY).map(str::trim).unwrap_or("redb");
    if kind.eq_ignore_ascii_case("redb") {
        for key in source.keys_with_prefix("kacl.etcd.") {
            source.take(&key);
            warnings.push(format!(
                "`{key}` has no effect with kacl.metadata.store=redb"
            ));
        }
        return Ok(MetadataStoreConfig::Redb);
    }
    if !kind.eq_ignore_ascii_case("etcd") {
        return Err(ConfigError::invalid(
            KEY,
            format!("`{kind}` is neither redb nor etcd"),
        ));
    }
    let endpoints_text = source
        .take("kacl.etcd.endpoints")
        .unwrap_or(DEFAULT_ETCD_ENDPOINTS)
        .to_owned();
    let endpoints = endpoints_text
        .split(',')
        .filter(|e| !e.trim().is_empty())
        .map(parse_endpoint)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ConfigError::invalid("kacl.etcd.endpoints", e))?;
    if endpoints.is_empty() {
        return Err(ConfigError::invalid(
            "kacl.etcd.endpoints",
            "at least one endpoint is needed",
        ));
    }
    let prefix = source
        .take("kacl.etcd.prefix")
        .unwrap_or(DEFAULT_ETCD_PREFIX)
        .trim()
        .to_owned();
    if prefix.is_empty() {
        return Err(ConfigError::invalid(
            "kacl.etcd.prefix",
            "must not be empty (every kacl key lives under it)",
        ));
    }
    let username = source
        .take("kacl.etcd.username")
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(str::to_owned);
    let inline = source.take("kacl.etcd.password").map(str::to_owned);
    let file = source.take("kacl.etcd.password.file").map(str::to_owned);
    let password = match (inline, file) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::invalid(
                "kacl.etcd.password.file",
                "set either kacl.etcd.password or kacl.etcd.password.file, not both",
            ))
        }
        (Some(p), None) => Some(p),
        (None, Some(path)) => Some(read_password_file(&path)?),
        (None, None) => None,
    };
    if password.is_some() != username.is_some() {
        return Err(ConfigError::invalid(
            "kacl.etcd.username",
            "kacl.etcd.username and a password go together",
        ));
    }
    let path = |source: &mut Source, key: &str| {
        source
            .take(key)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    };
    let tls_ca = path(source, "kacl.etcd.tls.ca.location");
    let tls_certificate = path(source, "kacl.etcd.tls.certificate.location");
    let tls_key = path(source, "kacl.etcd.tls.key.location");
    if tls_certificate.is_some() != tls_key.is_some() {
        return Err(ConfigError::invalid(
            "kacl.etcd.tls.key.location",
            "kacl.etcd.tls.certificate.location and kacl.etcd.tls.key.location go together",
        ));
    }
    let any_tls = endpoints.iter().any(|e| e.tls);
    if any_tls && endpoints.iter().any(|e| !e.tls) {
        // One etcd cluster is either TLS or not; a mixed list is a typo that would send
        // credentials in the clear to some members.
        return Err(ConfigError::invalid(
            "kacl.etcd.endpoints",
            format!("`{endpoints_text}` mixes http:// and https:// (use one scheme for all)"),
        ));
    }
    if any_tls && tls_ca.is_none() {
        return Err(ConfigError::invalid(
            "kacl.etcd.tls.ca.location",
            "https:// endpoints need the PEM CA that signs etcd's certificate",
        ));
    }
    if (tls_ca.is_some() || tls_certificate.is_some()) && !any_tls {
        warnings
            .push("kacl.etcd.tls.* is set but no kacl.etcd.endpoints URL is https://".to_owned());
    }
    let request_timeout = Duration::from_millis(source.int(
        "kacl.etcd.request.timeout.ms",
        DEFAULT_ETCD_REQUEST_TIMEOUT_MS,
        100,
        600_000,
    )? as u64);
    let lease_ttl = Duration::from_millis(source.int(
        "kacl.etcd.lease.ttl.ms",
        DEFAULT_ETCD_LEASE_TTL_MS,
        2_000,
        600_000,
    )? as u64);
    Ok(MetadataStoreConfig::Etcd(EtcdConfig {
        endpoints,
        prefix,
        username,
        password,
        tls_ca,
        tls_certificate,
        tls_key,
        request_timeout,
        lease_ttl,
    }))
}

fn read_password_file(path: &str) -> Result<String, ConfigError> {
    let text = std::fs::read_to_string(path.trim()).map_err(|e| {
        ConfigError::invalid(
            "kacl.etcd.password.file",
            format!("cannot read {}: {e}", path.trim()),
        )
    })?;
    let line = text.lines().next().unwrap_or("").trim_end_matches('\r');
    if line.is_empty() {
        return Err(ConfigError::invalid(
            "kacl.etcd.password.file",
            format!("{} is empty", path.trim()),
        ));
    }
    Ok(line.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_pairs(
        pairs: &[(&str, &str)],
    ) -> Result<(MetadataStoreConfig, Vec<String>), ConfigError> {
        let mut source = Source::new(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let mut warnings = Vec::new();
        parse(&mut source, &mut warnings).map(|c| (c, warnings))
    }

    #[test]
    fn redb_is_the_default_and_etcd_keys_then_warn() {
        let (config, warnings) = parse_pairs(&[("kacl.etcd.prefix", "/x/")]).unwrap();
        assert_eq!(config, MetadataStoreConfig::Redb);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }

    #[test]
    fn etcd_keys_are_parsed_and_checked() {
        let (config, _) = parse_pairs(&[
            ("kacl.metadata.store", "etcd"),
            (
                "kacl.etcd.endpoints",
                "https://127.0.0.1:2379, https://[::1]:2380/",
            ),
            ("kacl.etcd.tls.ca.location", "/etc/kacl/etcd-ca.pem"),
            ("kacl.etcd.request.timeout.ms", "2500"),
        ])
        .unwrap();
        let MetadataStoreConfig::Etcd(etcd) = config else {
            panic!("etcd expected");
        };
        assert_eq!(etcd.endpoints.len(), 2);
        assert_eq!(etcd.endpoints[1].to_string(), "https://[::1]:2380");
        assert_eq!(etcd.prefix, "/kacl/");
        assert_eq!(etcd.request_timeout, Duration::from_millis(2500));
        assert_eq!(etcd.lease_ttl, Duration::from_secs(10));

        for (key, value) in [
            ("kacl.metadata.store", "zookeeper"),
            ("kacl.etcd.endpoints", "127.0.0.1:2379"),
            ("kacl.etcd.endpoints", "http://127.0.0.1"),
            ("kacl.etcd.endpoints", "http://127.0.0.1:0"),
            ("kacl.etcd.endpoints", " , "),
            ("kacl.etcd.prefix", " "),
            ("kacl.etcd.request.timeout.ms", "5"),
            ("kacl.etcd.lease.ttl.ms", "999"),
            ("kacl.etcd.username", "root"),
            ("kacl.etcd.password.file", "/nonexistent/kacl-etcd-password"),
            ("kacl.etcd.tls.certificate.location", "/c.pem"),
            ("kacl.etcd.endpoints", "https://127.0.0.1:2379"),
        ] {
            let mut pairs = vec![("kacl.metadata.store", "etcd")];
            pairs.retain(|(k, _)| *k != key);
            pairs.push((key, value));
            let err = parse_pairs(&pairs).expect_err(&format!("{key}={value} must be refused"));
            assert!(err.key().is_some(), "{err}");
        }
        let mixed = parse_pairs(&[
            ("kacl.metadata.store", "etcd"),
            (
                "kacl.etcd.endpoints",
                "https://127.0.0.1:2379,http://127.0.0.1:2380",
            ),
            ("kacl.etcd.tls.ca.location", "/ca.pem"),
        ])
        .expect_err("mixed schemes are refused");
        assert!(
            mixed.to_string().contains("mixes http:// and https://"),
            "{mixed}"
        );
    }

    #[test]
    fn the_password_file_gives_the_first_line_and_debug_hides_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret\nignored\n").unwrap();
        let (config, _) = parse_pairs(&[
            ("kacl.metadata.store", "etcd"),
            ("kacl.etcd.username", "kacl"),
            ("kacl.etcd.password.file", file.to_str().unwrap()),
        ])
        .unwrap();
        let MetadataStoreConfig::Etcd(etcd) = config else {
            panic!("etcd expected");
        };
        assert_eq!(etcd.password.as_deref(), Some("s3cret"));
        assert!(!format!("{etcd:?}").contains("s3cret"));
    }
}
