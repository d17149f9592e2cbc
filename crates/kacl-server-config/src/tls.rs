//! The `ssl.*` keys, in Kafka's PEM form: where the server's certificate and key are, which
//! CAs it trusts for client certificates, whether it asks for them, and how a certificate's
//! DN becomes a principal. Only reading the files is left to the TLS layer.
//!
//! `ssl.enabled.protocols` and `ssl.cipher.suites` take Kafka's (Java's) names, read as the
//! client reads them ([`kacl_config::tls`]).
//!
//! As in Kafka, a TLS listener can override any of these keys with its own prefixed copy,
//! `listener.name.<listener name in lower case>.<key>` (e.g.
//! `listener.name.internal.ssl.client.auth=none`); the keys it does not override keep their
//! global values. `ssl.principal.mapping.rules` is global only. Also as in Kafka (KIP-684), the
//! global `ssl.client.auth` applies to SSL listeners only: a SASL_SSL listener asks for client
//! certificates only with its own `listener.name.<name>.ssl.client.auth`.
//!
//! Deliberate difference: kacl reads unencrypted PEM only, so `ssl.key.password`,
//! `ssl.keystore.password` and `ssl.truststore.password` are refused with a clear message
//! instead of failing later (Kafka accepts an encrypted PKCS#8 key with `ssl.key.password`).

use std::path::PathBuf;

use kacl_config::TlsOffer;

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

/// The TLS settings shared by SSL and SASL_SSL listeners.
#[derive(Debug, Clone)]
pub struct TlsConfig {
    /// The server's identity.
    pub key_store: KeyStore,
    /// CAs for client certificates; set whenever `client_auth` is not `None`.
    pub trust_store: Option<TrustStore>,
    /// Whether to ask clients for certificates.
    pub client_auth: ClientAuth,
    /// `ssl.enabled.protocols` and `ssl.cipher.suites`.
    pub offer: TlsOffer,
}

/// The parsed `ssl.*` keys: `tls` is `None` when no key store is configured.
pub(crate) struct TlsKeys {
    pub tls: Option<TlsConfig>,
    pub principal_mapper: SslPrincipalMapper,
}

/// The keys a listener may override (the principal mapping rules are global).
const LISTENER_KEYS: [&str; 13] = [
    "ssl.key.password",
    "ssl.keystore.password",
    "ssl.truststore.password",
    "ssl.keystore.type",
    "ssl.truststore.type",
    "ssl.keystore.location",
    "ssl.keystore.certificate.chain",
    "ssl.keystore.key",
    "ssl.truststore.location",
    "ssl.truststore.certificates",
    "ssl.client.auth",
    kacl_config::tls::ENABLED_PROTOCOLS_KEY,
    kacl_config::tls::CIPHER_SUITES_KEY,
];

/// The TLS settings of each TLS listener that differ from the global ones: those that
/// override some key with `listener.name.<name>.ssl.*` (their own keys over the global ones),
/// and SASL_SSL listeners, which take `ssl.client.auth` only from their own key. Other
/// listeners are absent (they use the global settings).
pub(crate) fn parse_listener_tls(
    source: &mut Source,
    listeners: &[super::Listener],
    global: Option<&TlsConfig>,
    warnings: &mut Vec<String>,
) -> Result<std::collections::BTreeMap<String, TlsConfig>, ConfigError> {
    let mut by_listener = std::collections::BTreeMap::new();
    for listener in listeners.iter().filter(|l| l.protocol.uses_tls()) {
        let prefix = format!("listener.name.{}.", listener.name.to_lowercase());
        let overridden: Vec<&str> = LISTENER_KEYS
            .into_iter()
            .filter(|key| source.peek(&format!("{prefix}{key}")).is_some())
            .collect();
        // Kafka's ChannelBuilders: a SASL_SSL listener asks for client certificates only with
        // its own key, never the global one.
        let own_client_auth_only = listener.protocol == super::SecurityProtocol::SaslSsl
            && !overridden.contains(&"ssl.client.auth");
        if own_client_auth_only && global.is_some_and(|g| g.client_auth != ClientAuth::None) {
            warnings.push(
                "Broker configuration 'ssl.client.auth' is applied only to SSL listeners. \
                 Listener-prefixed configuration can be used to enable SSL client \
                 authentication for SASL_SSL listeners."
                    .into(),
            );
        }
        if overridden.is_empty() && !own_client_auth_only {
            continue;
        }
        // The listener's view: its own values where it has them, the global ones elsewhere.
        let pairs: Vec<(String, String)> = LISTENER_KEYS
            .into_iter()
            .filter(|key| !(own_client_auth_only && *key == "ssl.client.auth"))
            .filter_map(|key| {
                let value = match source.take(&format!("{prefix}{key}")) {
                    Some(own) => Some(own.to_owned()),
                    None => source.peek(key).map(str::to_owned),
                };
                value.map(|v| (key.to_owned(), v))
            })
            .collect();
        let mut view = Source::new(pairs);
        let rename = |error: ConfigError| match error {
            ConfigError::InvalidValue { key, reason } if overridden.contains(&key.as_str()) => {
                ConfigError::InvalidValue {
                    key: format!("{prefix}{key}"),
                    reason,
                }
            }
            other => other,
        };
        let keys = parse_tls_keys(&mut view, warnings).map_err(rename)?;
        match keys.tls {
            Some(tls) => {
                by_listener.insert(listener.name.clone(), tls);
            }
            // No key store at all: the listener check says so.
            None if overridden.is_empty() => {}
            None => {
                return Err(ConfigError::invalid(
                    &format!("{prefix}ssl.keystore.location"),
                    format!(
                        "listener {} overrides ssl.* keys but has no key store, neither its \
                         own nor a global one",
                        listener.name
                    ),
                ));
            }
        }
    }
    Ok(by_listener)
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
    let protocols = source
        .take(kacl_config::tls::ENABLED_PROTOCOLS_KEY)
        .map(str::to_owned);
    let suites = source.take(kacl_config::tls::CIPHER_SUITES_KEY);
    let offer = TlsOffer::parse(protocols.as_deref(), suites, warnings)
        .map_err(|e| ConfigError::invalid(e.key, e.reason))?;
    let tls = key_store.map(|key_store| TlsConfig {
        key_store,
        trust_store,
        client_auth,
        offer,
    });
    Ok(TlsKeys {
        tls,
        principal_mapper,
    })
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
