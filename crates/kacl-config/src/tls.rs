//! `ssl.enabled.protocols` and `ssl.cipher.suites`, which Kafka's brokers and clients both
//! read, with Java's names: what a TLS endpoint offers, and the rustls pieces that offer it.
//!
//! kacl speaks TLS 1.2 and 1.3 with the AEAD suites of rustls' ring provider. Listed
//! protocols and suites outside that set (TLSv1, TLSv1.1, CBC or non-ECDHE suites) are ignored
//! with a warning, as current JVMs disable the old protocols too; a list left with nothing
//! kacl can use is an error, and so is a name Java does not know either.

use std::sync::Arc;

use thiserror::Error;

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

    /// The rustls version.
    pub fn rustls_version(self) -> &'static rustls::SupportedProtocolVersion {
        match self {
            TlsProtocol::Tls12 => &rustls::version::TLS12,
            TlsProtocol::Tls13 => &rustls::version::TLS13,
        }
    }
}

/// Kafka's default `ssl.enabled.protocols`.
pub const DEFAULT_ENABLED_PROTOCOLS: [TlsProtocol; 2] = [TlsProtocol::Tls12, TlsProtocol::Tls13];

/// Protocols Java knows that kacl never speaks: listed, they are ignored with a warning.
const OBSOLETE_PROTOCOLS: [&str; 4] = ["SSLv2Hello", "SSLv3", "TLSv1", "TLSv1.1"];

/// The cipher suites kacl can offer, by their IANA names (the ones Java and Kafka use): the
/// TLS 1.3 suites, then the TLS 1.2 ECDHE AEAD suites, in the ring provider's order.
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

/// `ssl.enabled.protocols` key.
pub const ENABLED_PROTOCOLS_KEY: &str = "ssl.enabled.protocols";
/// `ssl.cipher.suites` key.
pub const CIPHER_SUITES_KEY: &str = "ssl.cipher.suites";

/// What a TLS endpoint offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsOffer {
    /// The versions offered: never empty, each served by at least one suite.
    pub protocols: Vec<TlsProtocol>,
    /// The suites offered, each one of [`SUPPORTED_CIPHER_SUITES`]; empty offers them all.
    pub cipher_suites: Vec<&'static str>,
}

impl Default for TlsOffer {
    /// Kafka's defaults: TLS 1.2 and 1.3, every suite.
    fn default() -> Self {
        TlsOffer {
            protocols: DEFAULT_ENABLED_PROTOCOLS.to_vec(),
            cipher_suites: Vec::new(),
        }
    }
}

/// A value of one of the two keys that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{key}: {reason}")]
pub struct TlsOfferError {
    /// [`ENABLED_PROTOCOLS_KEY`] or [`CIPHER_SUITES_KEY`].
    pub key: &'static str,
    /// Why.
    pub reason: String,
}

impl TlsOffer {
    /// Reads the two keys' values (`None`: the key is not set). What is ignored is said in
    /// `warnings`.
    pub fn parse(
        enabled_protocols: Option<&str>,
        cipher_suites: Option<&str>,
        warnings: &mut Vec<String>,
    ) -> Result<TlsOffer, TlsOfferError> {
        let mut protocols = match enabled_protocols {
            None => DEFAULT_ENABLED_PROTOCOLS.to_vec(),
            Some(value) => parse_protocols(value, warnings)?,
        };
        let cipher_suites = match cipher_suites {
            None => Vec::new(),
            Some(value) => parse_suites(value, &mut protocols, warnings)?,
        };
        Ok(TlsOffer {
            protocols,
            cipher_suites,
        })
    }

    /// The ring provider with only the offered suites.
    pub fn crypto_provider(&self) -> Arc<rustls::crypto::CryptoProvider> {
        let mut provider = rustls::crypto::ring::default_provider();
        if !self.cipher_suites.is_empty() {
            provider
                .cipher_suites
                .retain(|suite| self.cipher_suites.contains(&iana_name(suite).as_str()));
        }
        Arc::new(provider)
    }

    /// The offered versions, for rustls' config builders.
    pub fn protocol_versions(&self) -> Vec<&'static rustls::SupportedProtocolVersion> {
        self.protocols.iter().map(|p| p.rustls_version()).collect()
    }
}

/// A Kafka LIST value: comma-separated, each entry trimmed, empty entries dropped.
fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|v| !v.is_empty())
}

fn parse_protocols(
    value: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<TlsProtocol>, TlsOfferError> {
    let error = |reason: String| TlsOfferError {
        key: ENABLED_PROTOCOLS_KEY,
        reason,
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
                "{ENABLED_PROTOCOLS_KEY}: {name} is not supported by kacl (TLSv1.2 and TLSv1.3 \
                 only) and is ignored"
            ));
        } else {
            return Err(error(format!(
                "unknown protocol `{name}` (kacl speaks TLSv1.2 and TLSv1.3)"
            )));
        }
    }
    if enabled.is_empty() {
        return Err(error(
            "enables neither TLSv1.2 nor TLSv1.3, the only versions kacl speaks".into(),
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
/// list is refused. An empty list is Kafka's default: every suite.
fn parse_suites(
    value: &str,
    protocols: &mut Vec<TlsProtocol>,
    warnings: &mut Vec<String>,
) -> Result<Vec<&'static str>, TlsOfferError> {
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
            "{CIPHER_SUITES_KEY}: {} not supported by kacl and ignored (supported: {})",
            ignored.join(", "),
            SUPPORTED_CIPHER_SUITES.join(", ")
        ));
    } else if suites.is_empty() {
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
        return Err(TlsOfferError {
            key: CIPHER_SUITES_KEY,
            reason: format!(
                "names no suite kacl supports for {} ({ENABLED_PROTOCOLS_KEY}); supported: {}",
                enabled.join(" or "),
                SUPPORTED_CIPHER_SUITES.join(", ")
            ),
        });
    }
    for protocol in unserved {
        let name = protocol.name();
        warnings.push(format!(
            "{CIPHER_SUITES_KEY} names no {name} suite, so {name} is not offered"
        ));
    }
    *protocols = served;
    Ok(suites)
}

/// A rustls suite's IANA name: rustls spells TLS 1.3 suites `TLS13_...` where IANA (and Java)
/// write `TLS_...`.
fn iana_name(suite: &rustls::SupportedCipherSuite) -> String {
    let name = suite.suite().as_str().unwrap_or_default();
    match name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(
        protocols: Option<&str>,
        suites: Option<&str>,
    ) -> (Result<TlsOffer, TlsOfferError>, Vec<String>) {
        let mut warnings = Vec::new();
        (TlsOffer::parse(protocols, suites, &mut warnings), warnings)
    }

    #[test]
    fn every_supported_suite_name_is_one_ring_suite_and_back() {
        let all = rustls::crypto::ring::default_provider().cipher_suites;
        let names: Vec<String> = all.iter().map(iana_name).collect();
        assert_eq!(
            names, SUPPORTED_CIPHER_SUITES,
            "the list is the ring provider's"
        );
        for name in SUPPORTED_CIPHER_SUITES {
            let offer = TlsOffer {
                cipher_suites: vec![name],
                ..TlsOffer::default()
            };
            let provider = offer.crypto_provider();
            assert_eq!(provider.cipher_suites.len(), 1, "{name}");
            assert_eq!(iana_name(&provider.cipher_suites[0]), name);
        }
        assert_eq!(
            TlsOffer::default().crypto_provider().cipher_suites.len(),
            all.len()
        );
    }

    #[test]
    fn protocols_by_java_name_with_obsolete_ones_ignored() {
        assert_eq!(parse(None, None).0, Ok(TlsOffer::default()));
        let (offer, warnings) = parse(Some("TLSv1.3"), None);
        assert_eq!(offer.unwrap().protocols, [TlsProtocol::Tls13]);
        assert!(warnings.is_empty());
        let (offer, warnings) = parse(Some("TLSv1.1, TLSv1.2"), None);
        assert_eq!(offer.unwrap().protocols, [TlsProtocol::Tls12]);
        assert!(warnings[0].contains("TLSv1.1"), "{warnings:?}");
        for refused in ["TLSv1,TLSv1.1", "", "TLSv1.4"] {
            let error = parse(Some(refused), None).0.unwrap_err();
            assert_eq!(error.key, ENABLED_PROTOCOLS_KEY, "{refused}");
        }
    }

    #[test]
    fn suites_by_iana_name_drop_what_kacl_lacks() {
        let (offer, warnings) = parse(
            None,
            Some(
                "TLS_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_128_CBC_SHA,\
                 TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            ),
        );
        let offer = offer.unwrap();
        assert_eq!(
            offer.cipher_suites,
            [
                "TLS_AES_128_GCM_SHA256",
                "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
            ]
        );
        assert_eq!(offer.protocols, DEFAULT_ENABLED_PROTOCOLS);
        assert!(warnings[0].contains("TLS_RSA_WITH_AES_128_CBC_SHA"));
        // Only TLS 1.2 suites: TLS 1.3 is not offered, with a warning.
        let (offer, warnings) = parse(None, Some("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
        assert_eq!(offer.unwrap().protocols, [TlsProtocol::Tls12]);
        assert!(
            warnings[0].contains("TLSv1.3 is not offered"),
            "{warnings:?}"
        );
        // Nothing usable: refused.
        let none = parse(None, Some("TLS_RSA_WITH_AES_128_CBC_SHA"))
            .0
            .unwrap_err();
        assert_eq!(none.key, CIPHER_SUITES_KEY);
        let mismatch = parse(
            Some("TLSv1.3"),
            Some("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
        )
        .0
        .unwrap_err();
        assert_eq!(mismatch.key, CIPHER_SUITES_KEY);
        // An empty list is Kafka's default.
        assert_eq!(parse(None, Some("")).0, Ok(TlsOffer::default()));
    }
}
