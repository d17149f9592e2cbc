//! Kafka's `security.protocol` values: how bytes travel between a client and a listener.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Kafka's four security protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum SecurityProtocol {
    /// No TLS, no SASL: on a broker every client is `User:ANONYMOUS`. Kafka's client default.
    #[default]
    Plaintext,
    /// TLS; a client certificate names the principal.
    Ssl,
    /// SASL without TLS.
    SaslPlaintext,
    /// SASL inside TLS.
    SaslSsl,
}

impl SecurityProtocol {
    /// All four.
    pub const ALL: [SecurityProtocol; 4] = [
        SecurityProtocol::Plaintext,
        SecurityProtocol::Ssl,
        SecurityProtocol::SaslPlaintext,
        SecurityProtocol::SaslSsl,
    ];

    /// Kafka's name, e.g. `SASL_PLAINTEXT`.
    pub fn name(self) -> &'static str {
        match self {
            SecurityProtocol::Plaintext => "PLAINTEXT",
            SecurityProtocol::Ssl => "SSL",
            SecurityProtocol::SaslPlaintext => "SASL_PLAINTEXT",
            SecurityProtocol::SaslSsl => "SASL_SSL",
        }
    }

    /// Case-insensitive, as Kafka's `SecurityProtocol.forName`.
    pub fn from_name(name: &str) -> Option<Self> {
        SecurityProtocol::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// True for SASL_PLAINTEXT and SASL_SSL: clients must authenticate first.
    pub fn uses_sasl(self) -> bool {
        matches!(
            self,
            SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl
        )
    }

    /// True for SSL and SASL_SSL.
    pub fn uses_tls(self) -> bool {
        matches!(self, SecurityProtocol::Ssl | SecurityProtocol::SaslSsl)
    }
}

impl fmt::Display for SecurityProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `security.protocol` value that names none of the four; the message is Kafka's
/// `ConfigException` text for it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "Invalid value {0} for configuration security.protocol: String must be one of: \
     PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"
)]
pub struct UnknownSecurityProtocol(pub String);

/// A config value: Kafka's names in any case, surrounding whitespace ignored (Kafka trims
/// config values).
impl FromStr for SecurityProtocol {
    type Err = UnknownSecurityProtocol;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SecurityProtocol::from_name(s.trim()).ok_or_else(|| UnknownSecurityProtocol(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case() {
        for protocol in SecurityProtocol::ALL {
            assert_eq!(protocol.name().parse(), Ok(protocol));
            assert_eq!(
                format!(" {} ", protocol.name().to_lowercase()).parse(),
                Ok(protocol)
            );
            assert_eq!(protocol.to_string(), protocol.name());
        }
        assert_eq!(SecurityProtocol::default(), SecurityProtocol::Plaintext);
    }

    #[test]
    fn unknown_names_get_kafkas_message() {
        let err = "TLS".parse::<SecurityProtocol>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid value TLS for configuration security.protocol: String must be one of: \
             PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"
        );
        assert_eq!(SecurityProtocol::from_name("SASL-SSL"), None);
    }

    #[test]
    fn sasl_and_tls_flags() {
        use SecurityProtocol::*;
        let flags: Vec<_> = SecurityProtocol::ALL
            .iter()
            .map(|p| (p.uses_sasl(), p.uses_tls()))
            .collect();
        assert_eq!(
            flags,
            [(false, false), (false, true), (true, false), (true, true)]
        );
        assert!(SaslSsl.uses_sasl() && SaslSsl.uses_tls() && !Plaintext.uses_tls());
    }
}
