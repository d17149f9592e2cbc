//! SaslAuthenticate (36), v0-2, and the raw tokens that follow SaslHandshake v0: feed each
//! client token to the mechanism's state machine (`kacl_sasl`) and send back its answer.
//!
//! On success the connection's principal becomes `User:<name>` and the reply carries the
//! mechanism's final bytes (empty for PLAIN, which kafka-python requires) and the session
//! lifetime: `connections.max.reauth.ms`, or 0 when it is off (KIP-368). A re-authentication
//! must keep the mechanism and the principal: Kafka closes the connection without an answer
//! for a changed mechanism, and answers SASL_AUTHENTICATION_FAILED `Cannot change principals
//! during re-authentication from User.alice: User.bob` for a changed principal. On failure: SASL_AUTHENTICATION_FAILED with Kafka's
//! client message, sent after `connection.failed.authentication.delay.ms`, then the connection
//! closes; the log gets one line with the precise reason, never a password. After handshake v0
//! a failure simply closes the connection, as Kafka does (the raw protocol has no error frame).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use kacl_logsafe::safe;
use kacl_protocol::messages::sasl_authenticate::{
    SaslAuthenticateRequest, SaslAuthenticateResponse,
};
use kacl_protocol::ErrorCode;

use super::SessionHandler;
use crate::context::{AuthState, Reauthentication, Session, SessionContext};
use crate::credentials::ScramCredentials;
use crate::outcome::Outcome;
use crate::state::ServerState;
use kacl_sasl::oauthbearer::{TokenError, ValidToken};
use kacl_sasl::{AuthFailure, CredentialLookup, PlainUsers, SaslMechanism, SaslStep};
use kacl_sasl::{ScramCredential, ScramMechanism, TokenValidator};

/// The credentials a listener authenticates against: its PLAIN users and the SCRAM
/// credentials (held in memory, so a login never waits for the disk).
struct ListenerCredentials<'a> {
    plain: Option<&'a PlainUsers>,
    scram: &'a ScramCredentials,
    oauthbearer: Option<&'a dyn TokenValidator>,
}

impl CredentialLookup for ListenerCredentials<'_> {
    fn plain_password_matches(&self, username: &str, password: &str) -> bool {
        self.plain
            .is_some_and(|users| users.verify(username, password))
    }

    fn scram_credential(
        &self,
        mechanism: ScramMechanism,
        username: &str,
    ) -> Option<ScramCredential> {
        self.scram.get(username, mechanism)
    }

    fn stand_in_iterations(&self, mechanism: ScramMechanism) -> u32 {
        self.scram.typical_iterations(mechanism)
    }

    fn stand_in_secret(&self) -> Option<[u8; 32]> {
        self.scram.stand_in_secret()
    }

    fn oauthbearer_validate(&self, token: &str) -> Result<ValidToken, TokenError> {
        match self.oauthbearer {
            Some(validator) => validator.validate(token),
            None => Err(TokenError::NotConfigured),
        }
    }
}

/// KIP-368's session lifetime: `connections.max.reauth.ms`, and never past the credential's
/// own expiry (an OAUTHBEARER token's `exp`), as Kafka's
/// `calcCompletionTimesAndReturnSessionLifetimeMs` computes it. `None`: no expiry.
fn session_lifetime(
    max_reauth: Option<std::time::Duration>,
    credential_expires_at_ms: Option<i64>,
    now_ms: i64,
) -> Option<std::time::Duration> {
    let credential = credential_expires_at_ms
        .map(|exp| std::time::Duration::from_millis(exp.saturating_sub(now_ms).max(0) as u64));
    match (max_reauth, credential) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What one token did to the exchange.
enum TokenResult {
    /// Send these bytes; the exchange continues (lifetime 0) or is complete.
    Reply {
        bytes: Vec<u8>,
        /// SaslAuthenticate v1+'s `session_lifetime_ms`.
        session_lifetime_ms: i64,
    },
    /// The exchange failed: answer with the failure, then close.
    Failed(AuthFailure),
    /// The exchange failed in a way Kafka does not answer: close only.
    FailedSilently,
}

/// Why the connection closes after a failed exchange. The precise reason (with the client's
/// name) is logged once, by [`step`], not again in the connection's close line.
const FAILED_AUTHENTICATION: &str = "failed authentication";

/// Feeds one token to the running exchange and updates the session.
fn step(state: &ServerState, session: &mut Session, token: &[u8]) -> Option<TokenResult> {
    let credentials = ListenerCredentials {
        plain: state.config.plain_users_for(&session.listener.name),
        scram: &state.scram,
        oauthbearer: state.oauthbearer.as_deref(),
    };
    let AuthState::Exchanging {
        server, renewing, ..
    } = &mut session.auth
    else {
        return None;
    };
    let mechanism = server.mechanism();
    let renewing = renewing.clone();
    let (peer, listener) = (session.peer, &session.listener.name);
    let what = if renewing.is_some() {
        "re-authentication"
    } else {
        "authentication"
    };
    if let Some(before) = renewing.as_ref().filter(|r| r.mechanism != mechanism) {
        // Kafka's REAUTH_BAD_MECHANISM: the handshake was answered, the first token closes.
        let failure = changed_mechanism(before.mechanism, mechanism);
        tracing::warn!(%peer, %listener, %mechanism, reason = %safe(&failure.log_reason),
            "failed re-authentication");
        return Some(TokenResult::FailedSilently);
    }
    let result = match server.step(token, &credentials) {
        Ok(SaslStep::Continue(challenge)) => Ok(TokenResult::Reply {
            bytes: challenge,
            session_lifetime_ms: 0,
        }),
        Ok(SaslStep::Refused {
            challenge,
            log_reason,
        }) => {
            // Kafka's validator logs the refusal at once; the client's acknowledgement then
            // ends the exchange with SASL_AUTHENTICATION_FAILED.
            tracing::warn!(%peer, %listener, %mechanism, reason = %safe(&log_reason),
                "refused {what} token");
            Ok(TokenResult::Reply {
                bytes: challenge,
                session_lifetime_ms: 0,
            })
        }
        Ok(SaslStep::Complete {
            principal,
            reply,
            credential_expires_at_ms,
            ..
        }) => match renewing.as_ref().filter(|r| r.principal != principal) {
            Some(before) => Err(changed_principal(before, &principal)),
            None => {
                let done = if renewing.is_some() {
                    state.metrics.reauthenticated();
                    "re-authenticated"
                } else {
                    "authenticated"
                };
                tracing::info!(%peer, %listener, %mechanism, principal = %safe(&principal),
                    "{done}");
                let now_ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
                let lifetime = session_lifetime(
                    state.config.connections_max_reauth,
                    credential_expires_at_ms,
                    now_ms,
                );
                session.auth = AuthState::Authenticated {
                    principal,
                    mechanism: Some(mechanism),
                };
                session.session_expires = lifetime.map(|lifetime| Instant::now() + lifetime);
                Ok(TokenResult::Reply {
                    bytes: reply,
                    session_lifetime_ms: lifetime
                        .map_or(0, |l| i64::try_from(l.as_millis()).unwrap_or(i64::MAX)),
                })
            }
        },
        Err(failure) if renewing.is_some() => Err(during_reauthentication(failure, mechanism)),
        Err(failure) => Err(failure),
    };
    Some(result.unwrap_or_else(|failure| {
        tracing::warn!(%peer, %listener, %mechanism, reason = %safe(&failure.log_reason),
            "failed {what}");
        TokenResult::Failed(failure)
    }))
}

/// Kafka's message for a re-authentication that asks for another mechanism.
fn changed_mechanism(before: SaslMechanism, now: SaslMechanism) -> AuthFailure {
    let message = format!(
        "SASL mechanism '{now}' requested by client is not supported for re-authentication of \
         mechanism '{before}'"
    );
    AuthFailure {
        client_message: message.clone(),
        log_reason: message,
        server_final: None,
    }
}

/// Kafka's message for a re-authentication that proves another principal (`Type.name`, as
/// `ReauthInfo.ensurePrincipalUnchanged` prints a `KafkaPrincipal`).
fn changed_principal(before: &Reauthentication, now: &str) -> AuthFailure {
    let dotted = |principal: &str| principal.replacen(':', ".", 1);
    let message = format!(
        "Cannot change principals during re-authentication from {}: {}",
        dotted(&before.principal),
        dotted(now)
    );
    AuthFailure {
        client_message: message.clone(),
        log_reason: message,
        server_final: None,
    }
}

/// A refused token during re-authentication: Kafka's generic message says so.
fn during_reauthentication(mut failure: AuthFailure, mechanism: SaslMechanism) -> AuthFailure {
    if failure.client_message == kacl_sasl::generic_failure_message(mechanism) {
        failure.client_message =
            failure
                .client_message
                .replacen("during authentication", "during re-authentication", 1);
    }
    failure
}

/// SaslAuthenticate: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct SaslAuthenticate;

impl SessionHandler for SaslAuthenticate {
    type Request<'r> = SaslAuthenticateRequest<'r>;
    type Response<'r> = SaslAuthenticateResponse<'r>;

    /// Answers one SaslAuthenticate request.
    async fn handle<'r>(
        ctx: SessionContext<'r>,
        request: SaslAuthenticateRequest<'r>,
    ) -> Result<SaslAuthenticateResponse<'r>, Outcome> {
        let answer = |code: ErrorCode, message: Option<String>, bytes: Vec<u8>, lifetime_ms| {
            SaslAuthenticateResponse {
                error_code: code.code(),
                error_message: message.map(Cow::Owned),
                auth_bytes: Cow::Owned(bytes),
                session_lifetime_ms: lifetime_ms,
                unknown_tagged_fields: Default::default(),
            }
        };
        match &ctx.session.auth {
            AuthState::Authenticated { .. } => {
                // Kafka's KafkaApis answer: re-authentication (KIP-368) is not offered.
                return Ok(answer(
                    ErrorCode::IllegalSaslState,
                    Some(
                        "SaslAuthenticate request received after successful authentication".into(),
                    ),
                    Vec::new(),
                    0,
                ));
            }
            AuthState::AwaitingHandshake => {
                return Err(Outcome::close(
                    "SaslAuthenticate before SaslHandshake (IllegalSaslState)",
                ));
            }
            AuthState::Exchanging {
                raw_tokens: true, ..
            } => {
                return Err(Outcome::close(
                    "SaslAuthenticate after SaslHandshake v0 (IllegalSaslState)",
                ));
            }
            AuthState::Exchanging { .. } => {}
        }
        match step(ctx.state, ctx.session, &request.auth_bytes) {
            Some(TokenResult::Reply {
                bytes,
                session_lifetime_ms,
            }) => Ok(answer(ErrorCode::None, None, bytes, session_lifetime_ms)),
            Some(TokenResult::FailedSilently) => Err(Outcome::RespondThenClose {
                response: Vec::new(),
                delay: ctx.state.config.failed_authentication_delay,
                reason: FAILED_AUTHENTICATION.to_owned(),
            }),
            Some(TokenResult::Failed(failure)) => {
                let refusal = answer(
                    ErrorCode::SaslAuthenticationFailed,
                    Some(failure.client_message),
                    Vec::new(),
                    0,
                );
                Err(ctx.respond_then_close(&refusal, FAILED_AUTHENTICATION.to_owned()))
            }
            None => Err(Outcome::close("no SASL exchange is running")),
        }
    }
}

/// Answers one raw SASL token (after SaslHandshake v0): the reply goes back size-prefixed,
/// with no Kafka header; a failure closes the connection after the configured delay.
pub fn handle_raw_token(state: &Arc<ServerState>, session: &mut Session, token: &[u8]) -> Outcome {
    match step(state, session, token) {
        Some(TokenResult::Reply { bytes, .. }) => {
            let Ok(len) = i32::try_from(bytes.len()) else {
                return Outcome::close("SASL reply too large");
            };
            let mut out = Vec::with_capacity(4 + bytes.len());
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(&bytes);
            Outcome::Respond(out)
        }
        Some(TokenResult::Failed(_) | TokenResult::FailedSilently) => Outcome::RespondThenClose {
            response: Vec::new(),
            delay: state.config.failed_authentication_delay,
            reason: FAILED_AUTHENTICATION.to_owned(),
        },
        None => Outcome::close("raw SASL token outside an exchange"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_never_outlives_the_token() {
        use std::time::Duration;
        let hour = Some(Duration::from_secs(3600));
        assert_eq!(session_lifetime(None, None, 0), None);
        assert_eq!(session_lifetime(hour, None, 0), hour);
        assert_eq!(
            session_lifetime(None, Some(60_000), 1_000),
            Some(Duration::from_secs(59))
        );
        assert_eq!(
            session_lifetime(hour, Some(60_000), 0),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            session_lifetime(Some(Duration::from_secs(10)), Some(60_000), 0),
            Some(Duration::from_secs(10))
        );
        assert_eq!(session_lifetime(None, Some(5), 10), Some(Duration::ZERO));
    }

    #[test]
    fn renewal_failures_carry_kafkas_texts() {
        assert_eq!(
            changed_mechanism(SaslMechanism::Plain, SaslMechanism::ScramSha256).client_message,
            "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for \
             re-authentication of mechanism 'PLAIN'"
        );
        let before = Reauthentication {
            principal: "User:alice".into(),
            mechanism: SaslMechanism::Plain,
        };
        assert_eq!(
            changed_principal(&before, "User:bob").client_message,
            "Cannot change principals during re-authentication from User.alice: User.bob"
        );
        let generic = AuthFailure::generic(SaslMechanism::Plain, "wrong password");
        assert_eq!(
            during_reauthentication(generic, SaslMechanism::Plain).client_message,
            "Authentication failed during re-authentication due to invalid credentials with \
             SASL mechanism PLAIN"
        );
    }
}
