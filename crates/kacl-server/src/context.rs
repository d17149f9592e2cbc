//! Who is asking: the per-connection [`Session`] (listener, peer, authentication state) and the
//! per-request [`RequestContext`] a handler receives.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use kacl_protocol::codec::ExactWriter;
use kacl_protocol::frame::{encode_response_frame, encode_response_frame_with_array};
use kacl_protocol::wire::Cx;
use kacl_protocol::{ApiKey, EncodeError, Message};

use crate::audit;
use crate::metrics::ResponseErrors;
use crate::router::Outcome;
use crate::sasl::{SaslMechanism, SaslServer};
use crate::state::{BoundListener, ServerState};

/// The principal of every client on a PLAINTEXT listener, as in Kafka.
pub const ANONYMOUS: &str = "User:ANONYMOUS";

/// Where a connection stands with authentication.
#[derive(Debug)]
pub enum AuthState {
    /// The principal is known (PLAINTEXT: `User:ANONYMOUS`; SASL: after a successful exchange).
    Authenticated {
        /// `Type:name`.
        principal: String,
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
    },
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
            }
        };
        Session {
            client_host: java_host_address(peer.ip()),
            listener,
            peer,
            auth,
        }
    }

    /// The authenticated principal, if any.
    pub fn principal(&self) -> Option<&str> {
        match &self.auth {
            AuthState::Authenticated { principal } => Some(principal),
            _ => None,
        }
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

/// What a handler knows about the request it serves.
#[derive(Debug, Clone, Copy)]
pub struct RequestContext<'a> {
    /// Shared server state.
    pub state: &'a Arc<ServerState>,
    /// The authenticated principal (`Type:name`).
    pub principal: &'a str,
    /// The client's host as the authorizer sees it.
    pub client_host: &'a str,
    /// The listener the request came in on.
    pub listener: &'a BoundListener,
    /// The API.
    pub api: ApiKey,
    /// The request version.
    pub version: i16,
    /// The correlation id to echo.
    pub correlation_id: i32,
}

impl RequestContext<'_> {
    /// Encodes `body` as the response to this request. An encoding failure (a response this
    /// version cannot express) closes the connection rather than sending garbage.
    pub fn respond<'m, M: Message<'m> + ResponseErrors>(&self, body: &M) -> Outcome {
        self.state.metrics.count_errors(self.api, body);
        let mut out = Vec::new();
        let encoded = encode_response_frame(&mut out, self.correlation_id, self.version, body);
        self.respond_encoded(out, encoded)
    }

    /// Like [`RequestContext::respond`] for a body whose last array is written element by
    /// element (see [`encode_response_frame_with_array`]): `shell` is the body with that array
    /// empty, `count` its length, `body_len` the exact size of the elements.
    pub fn respond_with_array<'m, M: Message<'m> + ResponseErrors>(
        &self,
        shell: &M,
        count: usize,
        body_len: usize,
        write_elements: impl FnOnce(&mut ExactWriter<'_>, Cx) -> Result<(), EncodeError>,
    ) -> Outcome {
        self.state.metrics.count_errors(self.api, shell);
        let mut out = Vec::new();
        let encoded = encode_response_frame_with_array(
            &mut out,
            self.correlation_id,
            self.version,
            shell,
            count,
            body_len,
            write_elements,
        );
        self.respond_encoded(out, encoded)
    }

    /// The encoded frame, or closing the connection if encoding failed.
    fn respond_encoded(&self, out: Vec<u8>, encoded: Result<(), EncodeError>) -> Outcome {
        // A body that did not fill the size computed for it is a bug in a size computation,
        // never the client's doing: debug builds (tests, the fuzzer) stop on it; release
        // builds close the connection like any other encoding failure.
        debug_assert!(
            !matches!(encoded, Err(EncodeError::SizeMismatch { .. })),
            "{encoded:?}"
        );
        match encoded {
            Ok(()) => Outcome::Respond(out),
            Err(err) => Outcome::Close {
                reason: format!(
                    "cannot encode the {} v{} response: {err}",
                    self.api, self.version
                ),
            },
        }
    }

    /// Who is asking, for the audit log.
    pub fn requester(&self) -> audit::Requester<'_> {
        audit::Requester {
            principal: self.principal,
            host: self.client_host,
            api: self.api,
        }
    }

    /// True if the principal may perform `operation` on the LITERAL resource
    /// `(resource_type, name)`. The decision goes to the audit log (`kacl::authorizer`):
    /// denied at info, allowed at debug. Use this for every check that decides whether a
    /// request (or one entry of it) is served.
    pub fn authorize(
        &self,
        operation: kacl_acl::AclOperation,
        resource_type: kacl_acl::ResourceType,
        name: &str,
    ) -> bool {
        let result = self.state.authorizer.authorize(
            self.principal,
            self.client_host,
            operation,
            resource_type,
            name,
        );
        self.state.metrics.authorization(result);
        audit::decision(
            self.requester(),
            operation,
            resource_type,
            name,
            result,
            audit::AuditPolicy::ENFORCED,
        );
        result == kacl_acl::AuthorizationResult::Allowed
    }

    /// True if the principal may perform `operation` on the cluster resource (audited).
    pub fn cluster_allows(&self, operation: kacl_acl::AclOperation) -> bool {
        self.authorize(
            operation,
            kacl_acl::ResourceType::Cluster,
            kacl_acl::CLUSTER_NAME,
        )
    }

    /// Kafka's text for a denied cluster operation. Kafka embeds its internal request
    /// description here; clients match the code, not the text.
    pub fn cluster_denied_message(&self) -> String {
        format!(
            "Principal {} is not authorized to perform this {} request on the cluster",
            self.principal, self.api
        )
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
