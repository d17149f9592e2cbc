//! SaslHandshake (17), v0-1: the client picks a mechanism. v1 is followed by SaslAuthenticate
//! requests; v0 by raw size-prefixed SASL tokens with no Kafka header (KIP-152 kept both).
//!
//! Kafka's rules: a mechanism not in `sasl.enabled.mechanisms` gets UNSUPPORTED_SASL_MECHANISM
//! with the enabled list, then the connection closes (after
//! `connection.failed.authentication.delay.ms`); a handshake on a connection that is already
//! authenticated (or on a listener without SASL) gets ILLEGAL_SASL_STATE and the connection
//! stays open; a second handshake during an exchange closes the connection.
//!
//! With `connections.max.reauth.ms` set, a handshake on a SASL-authenticated connection begins
//! a re-authentication instead (KIP-368), at most one per second
//! ([`MIN_REAUTHENTICATION_INTERVAL`](crate::context::MIN_REAUTHENTICATION_INTERVAL)); the
//! exchange that follows must prove the same principal with the same mechanism.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::sasl_handshake::{SaslHandshakeRequest, SaslHandshakeResponse};
use kacl_protocol::{ApiKey, ErrorCode};

use super::{decode, respond_to};
use crate::context::{AuthState, Session};
use crate::outcome::Outcome;
use crate::state::ServerState;
use kacl_sasl::{SaslMechanism, SaslServer};

/// Answers one SaslHandshake request.
pub fn handle(
    state: &Arc<ServerState>,
    session: &mut Session,
    frame: &RequestFrame<'_>,
) -> Outcome {
    let request: SaslHandshakeRequest<'_> = match decode(ApiKey::SaslHandshake, frame) {
        Ok(request) => request,
        Err(outcome) => return outcome,
    };
    let correlation_id = frame.header.correlation_id;
    let version = frame.version();
    let enabled: Vec<Cow<'static, str>> = state
        .config
        .sasl_enabled_mechanisms
        .iter()
        .map(|m| Cow::Borrowed(m.name()))
        .collect();
    let renewing = match &session.auth {
        AuthState::Authenticated { .. } => match session.begin_reauthentication(Instant::now()) {
            Some(renewing) => Some(renewing),
            None => {
                return respond_to(
                    correlation_id,
                    version,
                    &SaslHandshakeResponse {
                        error_code: ErrorCode::IllegalSaslState.code(),
                        ..Default::default()
                    },
                )
            }
        },
        AuthState::Exchanging { .. } => {
            return Outcome::close("SaslHandshake during a SASL exchange (IllegalSaslState)");
        }
        AuthState::AwaitingHandshake => None,
    };
    let chosen = request
        .mechanism
        .parse::<SaslMechanism>()
        .ok()
        .filter(|m| state.config.mechanism_enabled(*m));
    let Some(mechanism) = chosen else {
        let response = SaslHandshakeResponse {
            error_code: ErrorCode::UnsupportedSaslMechanism.code(),
            mechanisms: enabled,
            unknown_tagged_fields: Default::default(),
        };
        let reason = format!("unsupported SASL mechanism `{}`", request.mechanism);
        return match respond_to(correlation_id, version, &response) {
            Outcome::Respond(response) => Outcome::RespondThenClose {
                response,
                delay: state.config.failed_authentication_delay,
                reason,
            },
            other => other,
        };
    };
    session.auth = AuthState::Exchanging {
        server: Box::new(SaslServer::new(mechanism)),
        raw_tokens: version == 0,
        renewing,
    };
    respond_to(
        correlation_id,
        version,
        &SaslHandshakeResponse {
            error_code: 0,
            mechanisms: enabled,
            unknown_tagged_fields: Default::default(),
        },
    )
}
