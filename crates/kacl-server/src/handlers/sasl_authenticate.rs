//! SaslAuthenticate (36), v0-2, and the raw tokens that follow SaslHandshake v0: feed each
//! client token to the mechanism's state machine (`crate::sasl`) and send back its answer.
//!
//! On success the connection's principal becomes `User:<name>` and the reply carries the
//! mechanism's final bytes (empty for PLAIN, which kafka-python requires); the session
//! lifetime is 0 (no re-authentication). On failure: SASL_AUTHENTICATION_FAILED with Kafka's
//! client message, sent after `connection.failed.authentication.delay.ms`, then the connection
//! closes; the log gets one line with the precise reason, never a password. After handshake v0
//! a failure simply closes the connection, as Kafka does (the raw protocol has no error frame).

use std::borrow::Cow;
use std::sync::Arc;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::sasl_authenticate::{
    SaslAuthenticateRequest, SaslAuthenticateResponse,
};
use kacl_protocol::{ApiKey, ErrorCode};

use super::{decode, respond_to};
use crate::context::{AuthState, Session};
use crate::credentials::ScramCredentials;
use crate::router::Outcome;
use crate::sasl::{AuthFailure, CredentialLookup, PlainUsers, SaslStep};
use crate::sasl::{ScramCredential, ScramMechanism};
use crate::state::ServerState;

/// The credentials a listener authenticates against: its PLAIN users and the SCRAM
/// credentials (held in memory, so a login never waits for the disk).
struct ListenerCredentials<'a> {
    plain: Option<&'a PlainUsers>,
    scram: &'a ScramCredentials,
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
}

/// What one token did to the exchange.
enum TokenResult {
    /// Send these bytes; the exchange continues or is complete.
    Reply(Vec<u8>),
    /// The exchange failed.
    Failed(AuthFailure),
}

/// Feeds one token to the running exchange and updates the session.
fn step(state: &ServerState, session: &mut Session, token: &[u8]) -> Option<TokenResult> {
    let credentials = ListenerCredentials {
        plain: state.config.plain_users_for(&session.listener.name),
        scram: &state.scram,
    };
    let AuthState::Exchanging { server, .. } = &mut session.auth else {
        return None;
    };
    let mechanism = server.mechanism();
    Some(match server.step(token, &credentials) {
        Ok(SaslStep::Continue(challenge)) => TokenResult::Reply(challenge),
        Ok(SaslStep::Complete {
            principal, reply, ..
        }) => {
            tracing::info!(peer = %session.peer, listener = %session.listener.name,
                %mechanism, %principal, "authenticated");
            session.auth = AuthState::Authenticated { principal };
            TokenResult::Reply(reply)
        }
        Err(failure) => {
            tracing::warn!(peer = %session.peer, listener = %session.listener.name,
                %mechanism, reason = %failure.log_reason, "failed authentication");
            TokenResult::Failed(failure)
        }
    })
}

/// Answers one SaslAuthenticate request.
pub fn handle(
    state: &Arc<ServerState>,
    session: &mut Session,
    frame: &RequestFrame<'_>,
) -> Outcome {
    let request: SaslAuthenticateRequest<'_> = match decode(ApiKey::SaslAuthenticate, frame) {
        Ok(request) => request,
        Err(outcome) => return outcome,
    };
    let correlation_id = frame.header.correlation_id;
    let version = frame.version();
    let respond = |code: ErrorCode, message: Option<String>, bytes: Vec<u8>| {
        respond_to(
            correlation_id,
            version,
            &SaslAuthenticateResponse {
                error_code: code.code(),
                error_message: message.map(Cow::Owned),
                auth_bytes: Cow::Owned(bytes),
                session_lifetime_ms: 0,
                unknown_tagged_fields: Default::default(),
            },
        )
    };
    match &session.auth {
        AuthState::Authenticated { .. } => {
            // Kafka's KafkaApis answer: re-authentication (KIP-368) is not offered.
            return respond(
                ErrorCode::IllegalSaslState,
                Some("SaslAuthenticate request received after successful authentication".into()),
                Vec::new(),
            );
        }
        AuthState::AwaitingHandshake => {
            return Outcome::close("SaslAuthenticate before SaslHandshake (IllegalSaslState)");
        }
        AuthState::Exchanging {
            raw_tokens: true, ..
        } => {
            return Outcome::close("SaslAuthenticate after SaslHandshake v0 (IllegalSaslState)");
        }
        AuthState::Exchanging { .. } => {}
    }
    match step(state, session, &request.auth_bytes) {
        Some(TokenResult::Reply(bytes)) => respond(ErrorCode::None, None, bytes),
        Some(TokenResult::Failed(failure)) => {
            let reason = format!("failed authentication: {}", failure.log_reason);
            match respond(
                ErrorCode::SaslAuthenticationFailed,
                Some(failure.client_message),
                Vec::new(),
            ) {
                Outcome::Respond(response) => Outcome::RespondThenClose {
                    response,
                    delay: state.config.failed_authentication_delay,
                    reason,
                },
                other => other,
            }
        }
        None => Outcome::close("no SASL exchange is running"),
    }
}

/// Answers one raw SASL token (after SaslHandshake v0): the reply goes back size-prefixed,
/// with no Kafka header; a failure closes the connection after the configured delay.
pub fn handle_raw_token(state: &Arc<ServerState>, session: &mut Session, token: &[u8]) -> Outcome {
    match step(state, session, token) {
        Some(TokenResult::Reply(bytes)) => {
            let Ok(len) = i32::try_from(bytes.len()) else {
                return Outcome::close("SASL reply too large");
            };
            let mut out = Vec::with_capacity(4 + bytes.len());
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(&bytes);
            Outcome::Respond(out)
        }
        Some(TokenResult::Failed(failure)) => Outcome::RespondThenClose {
            response: Vec::new(),
            delay: state.config.failed_authentication_delay,
            reason: format!("failed authentication: {}", failure.log_reason),
        },
        None => Outcome::close("raw SASL token outside an exchange"),
    }
}
