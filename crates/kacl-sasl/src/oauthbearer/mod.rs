//! SASL/OAUTHBEARER (RFC 7628) as Kafka serves it (KIP-255, KIP-768): the client sends one
//! initial response carrying a bearer token, the broker validates the token (a JWT signed by
//! the identity provider, verified against its JWKS) and the principal is `User:<subject>`.
//!
//! The exchange, as Kafka's `OAuthBearerSaslServer` runs it:
//! - a valid token: empty server bytes, complete;
//! - a token the validator refuses: the server sends `{"status":"invalid_token"}` (RFC 7628
//!   3.2.2's error), the client answers with a single `0x01`, and the exchange fails with that
//!   JSON as the client-visible message (SASL_AUTHENTICATION_FAILED);
//! - a malformed initial response: the generic failure at once.
//!
//! The validation itself ([`jwt::validate`] over a [`jwk::JwkSet`]) is pure; fetching and
//! refreshing the keys is I/O and lives with whoever implements [`TokenValidator`]
//! (kacl-oidc's JWKS validator in the server).

pub mod jwk;
pub mod jwt;

use super::{AuthFailure, CredentialLookup, SaslMechanism, SaslStep};
pub use jwk::{Algorithm, Jwk, JwkSet, JwksError};
pub use jwt::{TokenError, TokenRules, ValidToken};

/// RFC 7628's kvsep.
const SEPARATOR: u8 = 0x01;

/// Kafka's client-visible answer for a token its validator refused.
pub const INVALID_TOKEN_JSON: &str = r#"{"status":"invalid_token"}"#;

/// Validates a bearer token. The server's implementation checks a JWT against the identity
/// provider's keys; a test can implement it over a fixed [`JwkSet`].
pub trait TokenValidator: Send + Sync {
    /// The token's principal, or why it is refused.
    fn validate(&self, token: &str) -> Result<ValidToken, TokenError>;
}

/// A client's initial response, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitialResponse<'a> {
    /// The GS2 authzid (`a=`), empty when absent (as given: `=2C` and `=3D` are kept).
    pub authorization_id: &'a str,
    /// The bearer token.
    pub token: &'a str,
    /// The SASL extensions (KIP-342), in the order sent, `auth` excluded.
    pub extensions: Vec<(&'a str, &'a str)>,
}

/// Why an initial response was refused (server log only; the client gets the generic text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid OAUTHBEARER client first message{0}")]
pub struct InvalidInitialResponse(String);

fn invalid(detail: &str) -> InvalidInitialResponse {
    InvalidInitialResponse(if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    })
}

fn is_saslname(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'=' => {
                if !matches!(&bytes[i..], [b'=', b'2', b'C', ..] | [b'=', b'3', b'D', ..]) {
                    return false;
                }
                i += 3;
            }
            b',' | 0 | 0x80.. => return false,
            _ => i += 1,
        }
    }
    !bytes.is_empty()
}

/// Parses `n,[a=<authzid>],^A<key>=<value>^A...^A^A` with Kafka's grammar
/// (`OAuthBearerClientInitialResponse`): keys `[A-Za-z]+`, values of `[\x21-\x7E \t\r\n]+`,
/// `auth` required and `Bearer <token>` (scheme case-insensitive, token `[-_.a-zA-Z0-9]+`).
pub fn parse_initial_response(bytes: &[u8]) -> Result<InitialResponse<'_>, InvalidInitialResponse> {
    let text = std::str::from_utf8(bytes).map_err(|_| invalid("not UTF-8"))?;
    let rest = text.strip_prefix("n,").ok_or_else(|| invalid(""))?;
    let comma = rest.find(',').ok_or_else(|| invalid(""))?;
    let (authzid_part, rest) = (&rest[..comma], &rest[comma + 1..]);
    let authorization_id = match authzid_part {
        "" => "",
        part => match part.strip_prefix("a=") {
            Some(name) if is_saslname(name) => name,
            _ => return Err(invalid("")),
        },
    };
    let sep = SEPARATOR as char;
    let body = rest
        .strip_prefix(sep)
        .and_then(|r| r.strip_suffix(sep))
        .ok_or_else(|| invalid(""))?;
    let mut auth = None;
    let mut extensions: Vec<(&str, &str)> = Vec::new();
    if !body.is_empty() {
        let pairs = body.strip_suffix(sep).ok_or_else(|| invalid(""))?;
        for pair in pairs.split(sep) {
            let (key, value) = pair.split_once('=').ok_or_else(|| invalid(""))?;
            let key_ok = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphabetic());
            let value_ok = !value.is_empty()
                && value
                    .bytes()
                    .all(|b| matches!(b, 0x21..=0x7e | b' ' | b'\t' | b'\r' | b'\n'));
            if !key_ok || !value_ok {
                return Err(invalid(""));
            }
            if key == "auth" {
                auth = Some(value);
            } else if let Some(slot) = extensions.iter_mut().find(|(k, _)| *k == key) {
                // Kafka reads the pairs into a map: the last value of a key wins.
                slot.1 = value;
            } else {
                extensions.push((key, value));
            }
        }
    }
    let auth = auth.ok_or_else(|| invalid("'auth' not specified"))?;
    let (scheme, token) = auth
        .split_once(' ')
        .map(|(s, t)| (s, t.trim_start_matches(' ')))
        .ok_or_else(|| invalid("invalid 'auth' format"))?;
    let scheme_ok = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let token_ok = !token.is_empty()
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !scheme_ok || !token_ok {
        return Err(invalid("invalid 'auth' format"));
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(invalid("invalid scheme"));
    }
    Ok(InitialResponse {
        authorization_id,
        token,
        extensions,
    })
}

/// The client's initial response for `token` (no authzid, no extensions), as Kafka's
/// `OAuthBearerClientInitialResponse.toBytes` writes it.
pub fn client_token(token: &str) -> Vec<u8> {
    format!("n,,\u{1}auth=Bearer {token}\u{1}\u{1}").into_bytes()
}

/// The server side of one OAUTHBEARER exchange.
#[derive(Debug, Default)]
pub struct OAuthBearerServer {
    state: State,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Initial,
    /// The token was refused and the error JSON sent; the client's `0x01` ends it.
    Refused,
    Complete,
    Failed,
}

impl OAuthBearerServer {
    /// A fresh exchange.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once the client is authenticated.
    pub fn is_complete(&self) -> bool {
        self.state == State::Complete
    }

    /// Feeds one client token.
    pub fn step(
        &mut self,
        bytes: &[u8],
        credentials: &dyn CredentialLookup,
    ) -> Result<SaslStep, AuthFailure> {
        let generic = |reason: String| AuthFailure::generic(SaslMechanism::OAuthBearer, reason);
        match self.state {
            State::Complete | State::Failed => {
                self.state = State::Failed;
                return Err(generic("OAUTHBEARER token after the exchange ended".into()));
            }
            State::Refused if bytes == [SEPARATOR] => {
                self.state = State::Failed;
                return Err(AuthFailure {
                    client_message: INVALID_TOKEN_JSON.to_owned(),
                    log_reason: "the client acknowledged the invalid_token error".to_owned(),
                    server_final: None,
                });
            }
            // Kafka's server forgets an earlier error and reads anything else as a new
            // initial response.
            State::Refused | State::Initial => {}
        }
        let response = match parse_initial_response(bytes) {
            Ok(response) => response,
            Err(e) => {
                self.state = State::Failed;
                return Err(generic(e.to_string()));
            }
        };
        match credentials.oauthbearer_validate(response.token) {
            Ok(valid) => {
                let name = valid.principal_name;
                if !response.authorization_id.is_empty() && response.authorization_id != name {
                    self.state = State::Failed;
                    let message = format!(
                        "Authentication failed: Client requested an authorization id ({}) that \
                         is different from the token's principal name ({name})",
                        response.authorization_id
                    );
                    return Err(AuthFailure::visible(&message));
                }
                self.state = State::Complete;
                Ok(SaslStep::Complete {
                    principal: format!("User:{name}"),
                    username: name,
                    reply: Vec::new(),
                    credential_expires_at_ms: Some(valid.expires_at_ms),
                })
            }
            Err(error) => {
                self.state = State::Refused;
                Ok(SaslStep::Refused {
                    challenge: INVALID_TOKEN_JSON.as_bytes().to_vec(),
                    log_reason: format!("invalid token: {error}"),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests;
