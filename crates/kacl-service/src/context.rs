//! Who is asking: the per-connection [`Session`] (listener, peer, authentication state), the
//! [`SessionContext`] of the APIs that run on it before a principal exists, and the
//! per-request [`RequestContext`] every other handler receives (declared in
//! [`state`](crate::state), beside the state it borrows).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_protocol::Message;

use crate::outcome::Outcome;
use crate::state::{BoundListener, Link, ServerState};

pub use crate::state::{AuditedSession, RequestContext};
use kacl_sasl::{SaslMechanism, SaslServer};

/// The principal of every client on a PLAINTEXT listener, as in Kafka.
pub const ANONYMOUS: &str = "User:ANONYMOUS";

/// Kafka's floor between two re-authentications of one connection
/// (`KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS`): a SaslHandshake sooner than this after
/// the last one began is answered like any handshake on an authenticated connection.
pub const MIN_REAUTHENTICATION_INTERVAL: Duration = Duration::from_secs(1);

/// Where a connection stands with authentication.
#[derive(Debug)]
pub enum AuthState {
    /// The principal is known (PLAINTEXT: `User:ANONYMOUS`; SASL: after a successful exchange).
    Authenticated {
        /// `Type:name`.
        principal: String,
        /// The SASL mechanism that proved it (`None` without SASL); a re-authentication must
        /// use the same one.
        mechanism: Option<SaslMechanism>,
    },
    /// A SASL listener before SaslHandshake: only ApiVersions and SaslHandshake are served.
    AwaitingHandshake,
    /// A mechanism was chosen; the exchange runs in SaslAuthenticate requests (handshake v1)
    /// or, after handshake v0, in raw size-prefixed tokens with no Kafka header.
    Exchanging {
        /// The mechanism's state machine.
        server: Box<SaslServer>,
        /// True after SaslHandshake v0: the next frames are raw SASL tokens.
        raw_tokens: bool,
        /// Set when this exchange renews an authenticated session (KIP-368).
        renewing: Option<Reauthentication>,
    },
}

/// What a re-authentication (KIP-368) must keep: the principal and mechanism of the session it
/// renews. Kafka fails a re-authentication that changes either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reauthentication {
    /// The principal before.
    pub principal: String,
    /// The mechanism before.
    pub mechanism: SaslMechanism,
}

/// One connection's identity and authentication state.
#[derive(Debug)]
pub struct Session {
    /// The listener the connection came in on.
    pub listener: BoundListener,
    /// The client's address.
    pub peer: SocketAddr,
    /// The client's address as Kafka's authorizer sees it (`InetAddress.getHostAddress()`).
    pub client_host: String,
    /// Authentication progress.
    pub auth: AuthState,
    /// When the authenticated session ends unless the client re-authenticates first
    /// (`connections.max.reauth.ms`; `None`: never).
    pub session_expires: Option<Instant>,
    /// When the last re-authentication began.
    last_reauthentication: Option<Instant>,
    /// In gateway mode, this connection's upstream side (made on its first forwarded request).
    pub link: Option<Box<dyn Link>>,
}

impl Session {
    /// A fresh session: authenticated as `User:ANONYMOUS` on a listener without SASL, else
    /// waiting for SaslHandshake.
    pub fn new(listener: BoundListener, peer: SocketAddr) -> Session {
        let auth = if listener.protocol.uses_sasl() {
            AuthState::AwaitingHandshake
        } else {
            AuthState::Authenticated {
                principal: ANONYMOUS.to_owned(),
                mechanism: None,
            }
        };
        Session {
            client_host: java_host_address(peer.ip()),
            listener,
            peer,
            auth,
            session_expires: None,
            last_reauthentication: None,
            link: None,
        }
    }

    /// The authenticated principal, if any.
    pub fn principal(&self) -> Option<&str> {
        match &self.auth {
            AuthState::Authenticated { principal, .. } => Some(principal),
            _ => None,
        }
    }

    /// True when an authenticated session has outlived its lifetime (Kafka's
    /// `serverAuthenticationSessionExpired`): its next request, unless it starts a
    /// re-authentication, closes the connection. Reads the clock only for a session that has a
    /// lifetime.
    pub fn is_expired(&self) -> bool {
        matches!(self.auth, AuthState::Authenticated { .. })
            && self
                .session_expires
                .is_some_and(|expires| Instant::now() > expires)
    }

    /// True when a SaslHandshake now would begin a re-authentication (Kafka's
    /// `maybeBeginServerReauthentication`): the session came from SASL, has a lifetime, and
    /// the last re-authentication began at least [`MIN_REAUTHENTICATION_INTERVAL`] ago.
    pub fn may_reauthenticate(&self, now: Instant) -> bool {
        matches!(
            self.auth,
            AuthState::Authenticated {
                mechanism: Some(_),
                ..
            }
        ) && self.session_expires.is_some()
            && self
                .last_reauthentication
                .is_none_or(|last| now.duration_since(last) >= MIN_REAUTHENTICATION_INTERVAL)
    }

    /// Starts a re-authentication if [`Session::may_reauthenticate`]: what it must keep.
    pub fn begin_reauthentication(&mut self, now: Instant) -> Option<Reauthentication> {
        if !self.may_reauthenticate(now) {
            return None;
        }
        let AuthState::Authenticated {
            principal,
            mechanism: Some(mechanism),
        } = &self.auth
        else {
            return None;
        };
        self.last_reauthentication = Some(now);
        Some(Reauthentication {
            principal: principal.clone(),
            mechanism: *mechanism,
        })
    }

    /// True after SaslHandshake v0, while the exchange is not finished: the next frame is a
    /// raw SASL token, not a Kafka request.
    pub fn expects_raw_token(&self) -> bool {
        matches!(
            self.auth,
            AuthState::Exchanging {
                raw_tokens: true,
                ..
            }
        )
    }

    /// The mechanism being negotiated, if an exchange is running.
    pub fn mechanism(&self) -> Option<SaslMechanism> {
        match &self.auth {
            AuthState::Exchanging { server, .. } => Some(server.mechanism()),
            _ => None,
        }
    }
}

/// Java's `InetAddress.getHostAddress()`: dotted IPv4 (an IPv4-mapped IPv6 address is IPv4, as
/// Java converts it), and IPv6 as eight uncompressed hex groups without leading zeros
/// (`0:0:0:0:0:0:0:1`). ACL hosts are compared to this string.
pub fn java_host_address(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => v6
            .segments()
            .iter()
            .map(|s| format!("{s:x}"))
            .collect::<Vec<_>>()
            .join(":"),
    }
}

/// What a [`SessionHandler`](crate::handlers::SessionHandler) (ApiVersions, SaslHandshake,
/// SaslAuthenticate) knows about the request it serves: the connection's session, which the
/// SASL exchange moves on, rather than a principal, which may not exist yet.
#[derive(Debug)]
pub struct SessionContext<'a> {
    /// Shared server state.
    pub state: &'a Arc<ServerState>,
    /// The connection's identity and authentication state.
    pub session: &'a mut Session,
    /// The request version.
    pub version: i16,
    /// The correlation id to echo.
    pub correlation_id: i32,
}

impl SessionContext<'_> {
    /// `body` as the answer to a failed authentication: written after
    /// `connection.failed.authentication.delay.ms`, then the connection closes (`reason` is
    /// for its log). A body this version cannot encode closes at once.
    pub fn respond_then_close<'m, M: Message<'m>>(&self, body: &M, reason: String) -> Outcome {
        match Outcome::response(self.correlation_id, self.version, body) {
            Outcome::Respond(response) => Outcome::RespondThenClose {
                response,
                delay: self.state.config.failed_authentication_delay,
                reason,
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_addresses_are_javas() {
        assert_eq!(java_host_address("127.0.0.1".parse().unwrap()), "127.0.0.1");
        assert_eq!(java_host_address("::1".parse().unwrap()), "0:0:0:0:0:0:0:1");
        assert_eq!(
            java_host_address("fe80::1:ab".parse().unwrap()),
            "fe80:0:0:0:0:0:1:ab"
        );
        assert_eq!(
            java_host_address("::ffff:10.0.0.1".parse().unwrap()),
            "10.0.0.1"
        );
    }
}
