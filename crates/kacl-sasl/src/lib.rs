//! SASL mechanisms for kacl, as pure state machines: PLAIN, SCRAM-SHA-256/512 and
//! OAUTHBEARER servers and clients, SCRAM credential derivation, JWT validation over a JWKS,
//! and Kafka's JAAS option syntax.
//!
//! The server's connection feeds each client token to [`SaslServer::step`] and sends back
//! what it returns; the admin client drives [`ScramClient`] or sends [`plain::client_token`]
//! the same way. No I/O happens here, so every mechanism can be tested byte for byte and
//! fuzzed, and the server and the client share one implementation of each message.
//!
//! - [`plain`]: SASL/PLAIN (RFC 4616) against users from a Kafka JAAS line, and its token.
//! - [`scram`]: SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677), server and client,
//!   and the stored credential.
//! - [`oauthbearer`]: SASL/OAUTHBEARER (RFC 7628, KIP-255/768): the initial response, JWT
//!   validation against a JWKS, and the exchange with Kafka's `invalid_token` error.
//! - [`jaas`]: Kafka's `sasl.jaas.config` syntax.
//!
//! Failures carry two texts, as Kafka's `SaslServerAuthenticator` does: a message safe for the
//! client (usually the generic "invalid credentials" one, so that nothing tells a stranger
//! whether a user exists) and a precise reason for the server log. Neither ever holds a
//! password or a proof.
#![forbid(unsafe_code)]

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub mod jaas;
pub mod oauthbearer;
pub mod plain;
pub mod scram;

mod constant_time;

pub use oauthbearer::{OAuthBearerServer, TokenValidator};
pub use plain::{PlainServer, PlainUsers};
pub use scram::{ScramClient, ScramCredential, ScramMechanism, ScramServer};

/// The mechanisms kacl serves, with Kafka's (case-sensitive) names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SaslMechanism {
    /// `PLAIN`: user and password in the clear (use over TLS).
    Plain,
    /// `SCRAM-SHA-256`.
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
    /// `OAUTHBEARER`: a bearer token (a JWT from an identity provider).
    OAuthBearer,
}

impl SaslMechanism {
    /// Every mechanism kacl serves.
    pub const ALL: [SaslMechanism; 4] = [
        SaslMechanism::Plain,
        SaslMechanism::ScramSha256,
        SaslMechanism::ScramSha512,
        SaslMechanism::OAuthBearer,
    ];

    /// The mechanisms enabled when `sasl.enabled.mechanisms` is not set, in the order kacl
    /// lists them: those that need nothing but users. OAUTHBEARER needs an identity
    /// provider's JWKS endpoint, so it is enabled by name only.
    pub const DEFAULT_ENABLED: [SaslMechanism; 3] = [
        SaslMechanism::Plain,
        SaslMechanism::ScramSha256,
        SaslMechanism::ScramSha512,
    ];

    /// The name on the wire and in `sasl.enabled.mechanisms`.
    pub fn name(self) -> &'static str {
        match self {
            SaslMechanism::Plain => "PLAIN",
            SaslMechanism::ScramSha256 => "SCRAM-SHA-256",
            SaslMechanism::ScramSha512 => "SCRAM-SHA-512",
            SaslMechanism::OAuthBearer => "OAUTHBEARER",
        }
    }

    /// The SCRAM variant, if this is one.
    pub fn scram(self) -> Option<ScramMechanism> {
        match self {
            SaslMechanism::Plain | SaslMechanism::OAuthBearer => None,
            SaslMechanism::ScramSha256 => Some(ScramMechanism::Sha256),
            SaslMechanism::ScramSha512 => Some(ScramMechanism::Sha512),
        }
    }
}

impl fmt::Display for SaslMechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A mechanism name kacl does not serve (GSSAPI, or a misspelling).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "unsupported SASL mechanism `{0}` (kacl serves PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and \
     OAUTHBEARER)"
)]
pub struct UnsupportedMechanism(pub String);

/// Exact, case-sensitive names, as Kafka's SaslHandshake compares them.
impl FromStr for SaslMechanism {
    type Err = UnsupportedMechanism;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        SaslMechanism::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| UnsupportedMechanism(name.to_owned()))
    }
}

/// Where mechanisms look users up: the PLAIN users of the listener and the SCRAM credentials
/// of the store. Both default to "nobody", so an implementor provides only what it has.
pub trait CredentialLookup {
    /// True if `password` is this PLAIN user's password. Implementations must compare in
    /// constant time (see [`PlainUsers`]).
    fn plain_password_matches(&self, username: &str, password: &str) -> bool {
        let _ = (username, password);
        false
    }

    /// The stored SCRAM credential of a user for one hash, if any. A store that cannot be read
    /// should log and answer `None`: the exchange then fails like one for an unknown user.
    fn scram_credential(
        &self,
        mechanism: ScramMechanism,
        username: &str,
    ) -> Option<ScramCredential> {
        let _ = (mechanism, username);
        None
    }

    /// The iteration count the stand-in credential of an unknown user shows for `mechanism`:
    /// the count most stored credentials have, so that the answer does not tell unknown users
    /// from real ones (see `scram::stand_in`). The default is Kafka's 4096.
    fn stand_in_iterations(&self, mechanism: ScramMechanism) -> u32 {
        let _ = mechanism;
        ScramCredential::DEFAULT_ITERATIONS
    }

    /// The secret the stand-in credentials of unknown users are derived from, kept with the
    /// stored credentials so that an unknown user's salt is the same after a restart and on
    /// every node (a salt that changes tells an unknown user from a real one). `None`, the
    /// default: a secret drawn once per process.
    fn stand_in_secret(&self) -> Option<[u8; 32]> {
        None
    }

    /// Validates an OAUTHBEARER bearer token. The default: OAUTHBEARER is not configured.
    fn oauthbearer_validate(
        &self,
        token: &str,
    ) -> Result<oauthbearer::ValidToken, oauthbearer::TokenError> {
        let _ = token;
        Err(oauthbearer::TokenError::NotConfigured)
    }
}

/// What to do after a client token was accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaslStep {
    /// Send these bytes as the challenge and wait for the client's next token.
    Continue(Vec<u8>),
    /// The client is authenticated. Send `reply` as the last auth bytes (empty for PLAIN,
    /// which clients such as kafka-python require; `v=<signature>` for SCRAM).
    Complete {
        /// The authenticated user name (SCRAM's name is already unescaped).
        username: String,
        /// The principal the authorizer sees: `User:<username>`.
        principal: String,
        /// The final server bytes.
        reply: Vec<u8>,
        /// When the credential itself expires (an OAUTHBEARER token's `exp`, milliseconds
        /// since the epoch): the session may not outlive it (KIP-368). `None` for passwords.
        credential_expires_at_ms: Option<i64>,
    },
    /// The mechanism refused the credential and answers with an error challenge
    /// (OAUTHBEARER's `{"status":"invalid_token"}`); the client acknowledges it and the
    /// exchange then fails. `log_reason` is the precise reason, for the server log only.
    Refused {
        /// The bytes to send.
        challenge: Vec<u8>,
        /// Why, for the log.
        log_reason: String,
    },
}

impl SaslStep {
    fn complete(username: String, reply: Vec<u8>) -> SaslStep {
        SaslStep::Complete {
            principal: format!("User:{username}"),
            username,
            reply,
            credential_expires_at_ms: None,
        }
    }
}

/// A failed exchange. The connection answers SASL_AUTHENTICATION_FAILED with
/// `client_message`, logs `log_reason`, and closes (after
/// `connection.failed.authentication.delay.ms`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{client_message} ({log_reason})")]
pub struct AuthFailure {
    /// What the client may be told (Kafka's wording).
    pub client_message: String,
    /// The precise reason, for the server log only.
    pub log_reason: String,
    /// An RFC 5802 `e=...` server-final-message for a SCRAM failure on the final step.
    /// Kafka never sends one (it answers with the error code alone); it is here for a
    /// connection that wants to follow the RFC literally.
    pub server_final: Option<Vec<u8>>,
}

impl AuthFailure {
    /// Kafka's message for a mechanism failure whose details must stay on the server.
    pub fn generic(mechanism: SaslMechanism, log_reason: impl Into<String>) -> AuthFailure {
        AuthFailure {
            client_message: generic_failure_message(mechanism),
            log_reason: log_reason.into(),
            server_final: None,
        }
    }

    /// A failure whose message Kafka does show the client.
    fn visible(message: &str) -> AuthFailure {
        AuthFailure {
            client_message: message.to_owned(),
            log_reason: message.to_owned(),
            server_final: None,
        }
    }
}

/// `Authentication failed during authentication due to invalid credentials with SASL
/// mechanism <NAME>`: what Kafka tells a client whose token its mechanism refused without a
/// client-facing reason.
pub fn generic_failure_message(mechanism: SaslMechanism) -> String {
    format!(
        "Authentication failed during authentication due to invalid credentials with SASL \
         mechanism {mechanism}"
    )
}

/// One authentication exchange on one connection, whatever the mechanism.
#[derive(Debug)]
pub struct SaslServer {
    inner: Exchange,
}

#[derive(Debug)]
enum Exchange {
    Plain(PlainServer),
    Scram(ScramServer),
    OAuthBearer(OAuthBearerServer),
}

impl SaslServer {
    /// A fresh exchange for the mechanism the client chose in SaslHandshake.
    pub fn new(mechanism: SaslMechanism) -> SaslServer {
        let inner = match (mechanism, mechanism.scram()) {
            (SaslMechanism::OAuthBearer, _) => Exchange::OAuthBearer(OAuthBearerServer::new()),
            (_, None) => Exchange::Plain(PlainServer::new()),
            (_, Some(scram)) => Exchange::Scram(ScramServer::new(scram)),
        };
        SaslServer { inner }
    }

    /// The mechanism of this exchange.
    pub fn mechanism(&self) -> SaslMechanism {
        match &self.inner {
            Exchange::Plain(_) => SaslMechanism::Plain,
            Exchange::Scram(s) => s.mechanism().sasl(),
            Exchange::OAuthBearer(_) => SaslMechanism::OAuthBearer,
        }
    }

    /// Feeds one client token. After `Complete` or an error, any further token is an error.
    pub fn step(
        &mut self,
        token: &[u8],
        credentials: &dyn CredentialLookup,
    ) -> Result<SaslStep, AuthFailure> {
        match &mut self.inner {
            Exchange::Plain(s) => s.step(token, credentials),
            Exchange::Scram(s) => s.step(token, credentials),
            Exchange::OAuthBearer(s) => s.step(token, credentials),
        }
    }

    /// True once the client is authenticated.
    pub fn is_complete(&self) -> bool {
        match &self.inner {
            Exchange::Plain(s) => s.is_complete(),
            Exchange::Scram(s) => s.is_complete(),
            Exchange::OAuthBearer(s) => s.is_complete(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mechanism_names_are_exact() {
        for m in SaslMechanism::ALL {
            assert_eq!(m.name().parse::<SaslMechanism>(), Ok(m));
        }
        assert!("plain".parse::<SaslMechanism>().is_err());
        assert!("GSSAPI".parse::<SaslMechanism>().is_err());
        assert_eq!(SaslMechanism::ScramSha512.to_string(), "SCRAM-SHA-512");
    }

    #[test]
    fn generic_message_is_kafkas() {
        assert_eq!(
            generic_failure_message(SaslMechanism::ScramSha256),
            "Authentication failed during authentication due to invalid credentials with SASL \
             mechanism SCRAM-SHA-256"
        );
    }

    #[test]
    fn dispatches_to_the_mechanism() {
        struct Alice;
        impl CredentialLookup for Alice {
            fn plain_password_matches(&self, u: &str, p: &str) -> bool {
                u == "alice" && p == "secret"
            }
        }
        let mut server = SaslServer::new(SaslMechanism::Plain);
        assert_eq!(server.mechanism(), SaslMechanism::Plain);
        let step = server.step(b"\0alice\0secret", &Alice).unwrap();
        assert_eq!(
            step,
            SaslStep::Complete {
                username: "alice".into(),
                principal: "User:alice".into(),
                reply: Vec::new(),
                credential_expires_at_ms: None,
            }
        );
        assert!(server.is_complete());

        let mut server = SaslServer::new(SaslMechanism::ScramSha512);
        assert_eq!(server.mechanism(), SaslMechanism::ScramSha512);
        assert!(!server.is_complete());
        let failure = server.step(b"garbage", &Alice).unwrap_err();
        assert_eq!(
            failure.client_message,
            generic_failure_message(SaslMechanism::ScramSha512)
        );
    }
}
