//! The `ssl.*` keys, in Kafka's PEM form: where the server's certificate and key are, which
//! CAs it trusts for client certificates, whether it asks for them, and how a certificate's
//! DN becomes a principal. Only reading the files is left to the TLS layer.
//!
//! `ssl.enabled.protocols` and `ssl.cipher.suites` take Kafka's (Java's) names. kacl speaks
//! TLS 1.2 and 1.3 with the AEAD suites of rustls; TLSv1, TLSv1.1 and suites outside that set
//! are ignored with a warning (current JVMs disable the old protocols too), and a list left
//! with nothing kacl can use is refused.
//!
//! Deliberate difference: kacl reads unencrypted PEM only, so `ssl.key.password`,
//! `ssl.keystore.password` and `ssl.truststore.password` are refused with a clear message
//! instead of failing later (Kafka accepts an encrypted PKCS#8 key with `ssl.key.password`).

use std::path::PathBuf;

use super::source::Source;
use super::ConfigError;
use crate::tls_principal::{SslPrincipalMapper, DEFAULT_RULES};

/// Where the server's certificate chain and private key come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyStore {
    /// `ssl.keystore.location`: one PEM file with the private key and the certificate chain.
    File(PathBuf),
    /// `ssl.keystore.certificate.chain` and `ssl.keystore.key`: the PEM text itself, as Kafka
    /// takes it in these two keys.
    Inline {
        /// PEM certificates, the server's first.
        certificate_chain: String,
        /// PEM PKCS#8 (or PKCS#1 / SEC1) private key.
        private_key: String,
    },
}

/// Which CAs sign acceptable client certificates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustStore {
    /// `ssl.truststore.location`: a PEM file of CA certificates.
    File(PathBuf),
    /// `ssl.truststore.certificates`: the PEM text itself.
    Inline(String),
}

/// `ssl.client.auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientAuth {
    /// No client certificate is asked for.
    #[default]
    None,
    /// Asked for; a client without one is `User:ANONYMOUS`.
    Requested,
    /// Required; the handshake fails without one.
    Required,
}

/// A TLS version `ssl.enabled.protocols` can enable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsProtocol {
    /// `TLSv1.2`.
    Tls12,
    /// `TLSv1.3`.
    Tls13,
}

impl TlsProtocol {
    /// Java's name, as `ssl.enabled.protocols` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            TlsProtocol::Tls12 => "TLSv1.2",
            TlsProtocol::Tls13 => "TLSv1.3",
        }
    }
}

/// Kafka's default `ssl.enabled.protocols`.
pub const DEFAULT_ENABLED_PROTOCOLS: [TlsProtocol; 2] = [TlsProtocol::Tls12, TlsProtocol::Tls13];

/// Protocols Java knows that kacl never speaks: listed, they are ignored with a warning.
const OBSOLETE_PROTOCOLS: [&str; 4] = ["SSLv2Hello", "SSLv3", "TLSv1", "TLSv1.1"];

/// The cipher suites kacl can offer, by their IANA names (the ones Java and Kafka use): the
/// TLS 1.3 suites, then the TLS 1.2 ECDHE AEAD suites.
pub const SUPPORTED_CIPHER_SUITES: [&str; 9] = [
    "TLS_AES_256_GCM_SHA384",
    "TLS_AES_128_GCM_SHA256",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
];

/// The TLS settings shared by SSL and SASL_SSL listeners.
#[derive(Debug, Clone)]
pub struct TlsConfig {
    /// The server's identity.
    pub key_store: KeyStore,
    /// CAs for client certificates; set whenever `client_auth` is not `None`.
    pub trust_store: Option<TrustStore>,
    /// Whether to ask clients for certificates.
    pub client_auth: ClientAuth,
    /// `ssl.enabled.protocols`: never empty.
    pub enabled_protocols: Vec<TlsProtocol>,
    /// `ssl.cipher.suites`, each one of [`SUPPORTED_CIPHER_SUITES`]; empty offers them all.
    pub cipher_suites: Vec<&'static str>,
}

/// The parsed `ssl.*` keys: `tls` is `None` when no key store is configured.
pub(crate) struct TlsKeys {
    pub tls: Option<TlsConfig>,
    pub principal_mapper: SslPrincipalMapper,
}

const PASSWORD_KEYS: [&str; 3] = [
    "ssl.key.password",
    "ssl.keystore.password",
    "ssl.truststore.password",
];

pub(crate) fn parse_tls_keys(
    source: &mut Source,
    warnings: &mut Vec<String>,
) -> Result<TlsKeys, ConfigError> {
    for key in PASSWORD_KEYS {
        if source.take(key).is_some() {
            return Err(ConfigError::invalid(
                key,
                "kacl reads unencrypted PEM keys only; remove the password and decrypt the key \
                 (e.g. `openssl pkcs8 -topk8 -nocrypt`)",
            ));
        }
    }
    for key in ["ssl.keystore.type", "ssl.truststore.type"] {
        if let Some(kind) = source.take(key) {
            if !kind.trim().eq_ignore_ascii_case("PEM") {
                return Err(ConfigError::invalid(
                    key,
                    format!("`{}` is not supported; kacl reads PEM only", kind.trim()),
                ));
            }
        }
    }
    let key_store = key_store(source)?;
    let trust_store = trust_store(source)?;
    let client_auth = match source.take("ssl.client.auth").map(str::trim) {
        None => ClientAuth::None,
        Some(v) if v.eq_ignore_ascii_case("none") => ClientAuth::None,
        Some(v) if v.eq_ignore_ascii_case("requested") => ClientAuth::Requested,
        Some(v) if v.eq_ignore_ascii_case("required") => ClientAuth::Required,
        Some(v) => {
            return Err(ConfigError::invalid(
                "ssl.client.auth",
                format!("`{v}` is not one of none, requested, required"),
            ));
        }
    };
    if client_auth != ClientAuth::None && trust_store.is_none() {
        return Err(ConfigError::invalid(
            "ssl.client.auth",
            "client certificates need ssl.truststore.location (or ssl.truststore.certificates)",
        ));
    }
    let rules = source.take("ssl.principal.mapping.rules");
    let principal_mapper = SslPrincipalMapper::from_rules(rules.unwrap_or(DEFAULT_RULES))
        .map_err(|e| ConfigError::invalid("ssl.principal.mapping.rules", e.to_string()))?;
    let mut enabled_protocols = enabled_protocols(source, warnings)?;
    let cipher_suites = cipher_suites(source, &mut enabled_protocols, warnings)?;
    let tls = key_store.map(|key_store| TlsConfig {
        key_store,
        trust_store,
        client_auth,
        enabled_protocols,
        cipher_suites,
    });
    Ok(TlsKeys {
        tls,
        principal_mapper,
    })
}

/// A Kafka LIST value: comma-separated, each entry trimmed, empty entries dropped.
fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|v| !v.is_empty())
}

fn enabled_protocols(
    source: &mut Source,
    warnings: &mut Vec<String>,
) -> Result<Vec<TlsProtocol>, ConfigError> {
    const KEY: &str = "ssl.enabled.protocols";
    let Some(value) = source.take(KEY) else {
        return Ok(DEFAULT_ENABLED_PROTOCOLS.to_vec());
    };
    let mut enabled = Vec::new();
    for name in list(value) {
        if let Some(protocol) = DEFAULT_ENABLED_PROTOCOLS
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
        {
            if !enabled.contains(&protocol) {
                enabled.push(protocol);
            }
        } else if OBSOLETE_PROTOCOLS
            .iter()
            .any(|old| old.eq_ignore_ascii_case(name))
        {
            warnings.push(format!(
                "{KEY}: {name} is not supported by kacl (TLSv1.2 and TLSv1.3 only) and is ignored"
            ));
        } else {
            return Err(ConfigError::invalid(
                KEY,
                format!("unknown protocol `{name}` (kacl speaks TLSv1.2 and TLSv1.3)"),
            ));
        }
    }
    if enabled.is_empty() {
        return Err(ConfigError::invalid(
            KEY,
            "enables neither TLSv1.2 nor TLSv1.3, the only versions kacl speaks",
        ));
    }
    Ok(enabled)
}

/// Whether a supported suite (by IANA name) belongs to TLS 1.3; the others are TLS 1.2's.
fn is_tls13_suite(name: &str) -> bool {
    !name.contains("_WITH_")
}

/// The listed suites kacl supports. An enabled protocol none of them serves is dropped with a
/// warning (with Java such a protocol can never be negotiated either); if that leaves none, the
/// list is refused.
fn cipher_suites(
    source: &mut Source,
    protocols: &mut Vec<TlsProtocol>,
    warnings: &mut Vec<String>,
) -> Result<Vec<&'static str>, ConfigError> {
    const KEY: &str = "ssl.cipher.suites";
    let Some(value) = source.take(KEY) else {
        return Ok(Vec::new());
    };
    let mut suites: Vec<&'static str> = Vec::new();
    let mut ignored = Vec::new();
    for name in list(value) {
        match SUPPORTED_CIPHER_SUITES
            .iter()
            .find(|s| s.eq_ignore_ascii_case(name))
        {
            Some(suite) if !suites.contains(suite) => suites.push(suite),
            Some(_) => {}
            None => ignored.push(name),
        }
    }
    if !ignored.is_empty() {
        warnings.push(format!(
            "{KEY}: {} not supported by kacl and ignored (supported: {})",
            ignored.join(", "),
            SUPPORTED_CIPHER_SUITES.join(", ")
        ));
    }
    if ignored.is_empty() && suites.is_empty() {
        // `ssl.cipher.suites=` (empty): Kafka's default, every suite.
        return Ok(suites);
    }
    let serves = |protocol: TlsProtocol| {
        suites
            .iter()
            .any(|s| is_tls13_suite(s) == (protocol == TlsProtocol::Tls13))
    };
    let (served, unserved): (Vec<TlsProtocol>, Vec<TlsProtocol>) =
        protocols.iter().partition(|p| serves(**p));
    if served.is_empty() {
        let enabled: Vec<&str> = protocols.iter().map(|p| p.name()).collect();
        return Err(ConfigError::invalid(
            KEY,
            format!(
                "names no suite kacl supports for {} (ssl.enabled.protocols); supported: {}",
                enabled.join(" or "),
                SUPPORTED_CIPHER_SUITES.join(", ")
            ),
        ));
    }
    for protocol in unserved {
        warnings.push(format!(
            "{KEY} names no {} suite, so {} is not offered",
            protocol.name(),
            protocol.name()
        ));
    }
    *protocols = served;
    Ok(suites)
}

fn non_empty(source: &mut Source, key: &str) -> Result<Option<String>, ConfigError> {
    match source.take(key).map(str::trim) {
        None => Ok(None),
        Some("") => Err(ConfigError::invalid(key, "must not be empty")),
        Some(v) => Ok(Some(v.to_owned())),
    }
}

fn key_store(source: &mut Source) -> Result<Option<KeyStore>, ConfigError> {
    let location = non_empty(source, "ssl.keystore.location")?;
    let chain = non_empty(source, "ssl.keystore.certificate.chain")?;
    let key = non_empty(source, "ssl.keystore.key")?;
    match (location, chain, key) {
        (None, None, None) => Ok(None),
        (Some(path), None, None) => Ok(Some(KeyStore::File(PathBuf::from(path)))),
        (None, Some(certificate_chain), Some(private_key)) => Ok(Some(KeyStore::Inline {
            certificate_chain,
            private_key,
        })),
        (Some(_), _, _) => Err(ConfigError::invalid(
            "ssl.keystore.location",
            "give either a key store file or ssl.keystore.certificate.chain with \
             ssl.keystore.key, not both",
        )),
        (None, Some(_), None) => Err(ConfigError::invalid(
            "ssl.keystore.certificate.chain",
            "needs ssl.keystore.key",
        )),
        (None, None, Some(_)) => Err(ConfigError::invalid(
            "ssl.keystore.key",
            "needs ssl.keystore.certificate.chain",
        )),
    }
}

fn trust_store(source: &mut Source) -> Result<Option<TrustStore>, ConfigError> {
    let location = non_empty(source, "ssl.truststore.location")?;
    let certificates = non_empty(source, "ssl.truststore.certificates")?;
    match (location, certificates) {
        (None, None) => Ok(None),
        (Some(path), None) => Ok(Some(TrustStore::File(PathBuf::from(path)))),
        (None, Some(pem)) => Ok(Some(TrustStore::Inline(pem))),
        (Some(_), Some(_)) => Err(ConfigError::invalid(
            "ssl.truststore.location",
            "give either a trust store file or ssl.truststore.certificates, not both",
        )),
    }
}
