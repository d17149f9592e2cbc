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
use std::time::Instant;

use kacl_protocol::messages::sasl_handshake::{SaslHandshakeRequest, SaslHandshakeResponse};
use kacl_protocol::ErrorCode;

use super::SessionHandler;
use crate::context::{AuthState, SessionContext};
use crate::outcome::Outcome;
use kacl_sasl::{SaslMechanism, SaslServer};

/// SaslHandshake: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct SaslHandshake;

impl SessionHandler for SaslHandshake {
    type Request<'r> = SaslHandshakeRequest<'r>;
    type Response<'r> = SaslHandshakeResponse<'r>;

    /// Answers one SaslHandshake request.
    async fn handle<'r>(
        ctx: SessionContext<'r>,
        request: SaslHandshakeRequest<'r>,
    ) -> Result<SaslHandshakeResponse<'r>, Outcome> {
        let state = ctx.state;
        let enabled: Vec<Cow<'static, str>> = state
            .config
            .sasl_enabled_mechanisms
            .iter()
            .map(|m| Cow::Borrowed(m.name()))
            .collect();
        let renewing = match &ctx.session.auth {
            AuthState::Authenticated { .. } => {
                match ctx.session.begin_reauthentication(Instant::now()) {
                    Some(renewing) => Some(renewing),
                    None => {
                        return Ok(SaslHandshakeResponse {
                            error_code: ErrorCode::IllegalSaslState.code(),
                            ..Default::default()
                        })
                    }
                }
            }
            AuthState::Exchanging { .. } => {
                return Err(Outcome::close(
                    "SaslHandshake during a SASL exchange (IllegalSaslState)",
                ));
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
            return Err(ctx.respond_then_close(&response, reason));
        };
        ctx.session.auth = AuthState::Exchanging {
            server: Box::new(SaslServer::new(mechanism)),
            raw_tokens: ctx.version == 0,
            renewing,
        };
        Ok(SaslHandshakeResponse {
            error_code: 0,
            mechanisms: enabled,
            unknown_tagged_fields: Default::default(),
        })
    }
}
