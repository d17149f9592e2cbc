//! The server side of one SCRAM exchange: client-first → server-first → client-final →
//! server-final.
//!
//! An unknown user gets a server-first-message all the same, with a salt derived from the
//! name under a per-process secret (so asking twice shows the same salt, as for a real user)
//! and the default iteration count, and fails only on the proof, like a wrong password. This
//! is a deliberate difference from Kafka, whose `ScramSaslServer` fails an unknown user at the
//! first message and so lets a stranger tell users that exist from users that do not.
//!
//! Other choices: unknown optional extensions are ignored (RFC 5802 and Kafka); Kafka's
//! `tokenauth=true` (delegation tokens) is refused, since kacl has no delegation tokens; the
//! `c=` channel-binding value is checked against the gs2 header (Kafka does not check it).

use std::sync::OnceLock;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::credential::{ScramCredential, ScramMechanism};
use super::messages::{ClientFinal, ClientFirst, ServerFinal, ServerFirst};
use crate::constant_time::bytes_eq;
use crate::plain::AUTHZID_MISMATCH;
use crate::{AuthFailure, CredentialLookup, SaslStep};

/// Random bytes in the server's part of the nonce.
const SERVER_NONCE_BYTES: usize = 24;

/// The server side of one SCRAM exchange.
#[derive(Debug)]
pub struct ScramServer {
    mechanism: ScramMechanism,
    state: State,
    /// Replaces the random server nonce, for the RFC test vectors.
    fixed_server_nonce: Option<String>,
}

#[derive(Debug)]
enum State {
    AwaitingClientFirst,
    AwaitingClientFinal(Box<Pending>),
    Complete,
    Failed,
}

/// What the final step needs from the first.
#[derive(Debug)]
struct Pending {
    gs2_header: String,
    client_first_bare: String,
    server_first: String,
    /// The combined nonce of the server-first-message.
    nonce: String,
    /// The client's part, from the client-first-message.
    client_nonce: String,
    username: String,
    credential: ScramCredential,
    /// False when `credential` is the stand-in for an unknown user.
    known_user: bool,
}

impl ScramServer {
    /// A fresh exchange.
    pub fn new(mechanism: ScramMechanism) -> ScramServer {
        ScramServer {
            mechanism,
            state: State::AwaitingClientFirst,
            fixed_server_nonce: None,
        }
    }

    #[cfg(test)]
    pub(crate) fn with_server_nonce(mechanism: ScramMechanism, nonce: &str) -> ScramServer {
        ScramServer {
            fixed_server_nonce: Some(nonce.to_owned()),
            ..ScramServer::new(mechanism)
        }
    }

    /// The hash of this exchange.
    pub fn mechanism(&self) -> ScramMechanism {
        self.mechanism
    }

    /// True once the client is authenticated.
    pub fn is_complete(&self) -> bool {
        matches!(self.state, State::Complete)
    }

    /// Feeds the next client message.
    pub fn step(
        &mut self,
        token: &[u8],
        credentials: &dyn CredentialLookup,
    ) -> Result<SaslStep, AuthFailure> {
        // Any error leaves the exchange failed for good.
        match std::mem::replace(&mut self.state, State::Failed) {
            State::AwaitingClientFirst => {
                let (challenge, pending) = self.client_first(token, credentials)?;
                self.state = State::AwaitingClientFinal(Box::new(pending));
                Ok(SaslStep::Continue(challenge))
            }
            State::AwaitingClientFinal(pending) => {
                let step = self.client_final(token, &pending)?;
                self.state = State::Complete;
                Ok(step)
            }
            State::Complete | State::Failed => {
                Err(self.fail("unexpected SCRAM token after the exchange ended"))
            }
        }
    }

    fn fail(&self, reason: impl Into<String>) -> AuthFailure {
        AuthFailure::generic(self.mechanism.sasl(), reason)
    }

    /// A failure on the final step, with the RFC's `e=` value.
    fn fail_final(&self, reason: impl Into<String>, server_error: &str) -> AuthFailure {
        AuthFailure {
            server_final: Some(
                ServerFinal::Error(server_error.to_owned())
                    .format()
                    .into_bytes(),
            ),
            ..self.fail(reason)
        }
    }

    fn client_first(
        &self,
        token: &[u8],
        credentials: &dyn CredentialLookup,
    ) -> Result<(Vec<u8>, Pending), AuthFailure> {
        let text = std::str::from_utf8(token)
            .map_err(|_| self.fail("Invalid SCRAM client first message: not valid UTF-8"))?;
        let first = ClientFirst::parse(text)
            .map_err(|e| self.fail(format!("Invalid SCRAM client first message: {e}")))?;
        if first
            .authzid
            .as_deref()
            .is_some_and(|a| a != first.username)
        {
            return Err(AuthFailure {
                log_reason: format!("{AUTHZID_MISMATCH} (user `{}`)", first.username),
                client_message: AUTHZID_MISMATCH.to_owned(),
                server_final: None,
            });
        }
        if first
            .extension("tokenauth")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        {
            return Err(self.fail(format!(
                "delegation token authentication (tokenauth) is not supported (user `{}`)",
                first.username
            )));
        }
        let (credential, known_user) =
            match credentials.scram_credential(self.mechanism, &first.username) {
                Some(c) if c.iterations < ScramMechanism::MIN_ITERATIONS => {
                    return Err(self.fail(format!(
                        "Iterations {} is less than the minimum {} for {} (user `{}`)",
                        c.iterations,
                        ScramMechanism::MIN_ITERATIONS,
                        self.mechanism,
                        first.username
                    )));
                }
                Some(c) => (c, true),
                None => {
                    let iterations = credentials.stand_in_iterations(self.mechanism);
                    let stand_in = match credentials.stand_in_secret() {
                        Some(secret) => super::stand_in::stand_in_credential(
                            &secret,
                            self.mechanism,
                            &first.username,
                            iterations,
                        ),
                        None => stand_in_credential(self.mechanism, &first.username, iterations),
                    };
                    (stand_in, false)
                }
            };
        let server_nonce = self.fixed_server_nonce.clone().unwrap_or_else(random_nonce);
        let server_first = ServerFirst {
            nonce: format!("{}{}", first.client_nonce, server_nonce),
            salt: credential.salt.clone(),
            iterations: credential.iterations,
        };
        let server_first_text = server_first.format();
        let pending = Pending {
            gs2_header: first.gs2_header,
            client_first_bare: first.bare,
            server_first: server_first_text.clone(),
            nonce: server_first.nonce,
            client_nonce: first.client_nonce,
            username: first.username,
            credential,
            known_user,
        };
        Ok((server_first_text.into_bytes(), pending))
    }

    fn client_final(&self, token: &[u8], pending: &Pending) -> Result<SaslStep, AuthFailure> {
        let user = &pending.username;
        let text = std::str::from_utf8(token).map_err(|_| {
            self.fail_final(
                format!("Invalid SCRAM client final message: not valid UTF-8 (user `{user}`)"),
                "invalid-encoding",
            )
        })?;
        let last = ClientFinal::parse(text).map_err(|e| {
            self.fail_final(
                format!("Invalid SCRAM client final message: {e} (user `{user}`)"),
                "invalid-encoding",
            )
        })?;
        if last.channel_binding != pending.gs2_header.as_bytes() {
            return Err(self.fail_final(
                format!("channel binding does not repeat the gs2 header (user `{user}`)"),
                "channel-bindings-dont-match",
            ));
        }
        if !final_nonce_accepted(&last.nonce, &pending.nonce, &pending.client_nonce) {
            return Err(self.fail_final(
                format!("Invalid client nonce in the final client message (user `{user}`)"),
                "other-error",
            ));
        }
        let auth_message = [
            pending.client_first_bare.as_bytes(),
            b",",
            pending.server_first.as_bytes(),
            b",",
            last.without_proof.as_bytes(),
        ];
        let credential = &pending.credential;
        let client_signature = self.mechanism.hmac(&credential.stored_key, &auth_message);
        let proof_matches = last.proof.len() == client_signature.len() && {
            let client_key: Vec<u8> = last
                .proof
                .iter()
                .zip(&client_signature)
                .map(|(p, s)| p ^ s)
                .collect();
            bytes_eq(&self.mechanism.hash(&client_key), &credential.stored_key)
        };
        if !(proof_matches && pending.known_user) {
            return Err(self.fail_final(
                format!("Invalid client credentials (user `{user}`)"),
                "invalid-proof",
            ));
        }
        let server_signature = self.mechanism.hmac(&credential.server_key, &auth_message);
        let reply = ServerFinal::Verifier(server_signature)
            .format()
            .into_bytes();
        Ok(SaslStep::complete(pending.username.clone(), reply))
    }
}

/// RFC 5802 wants the client-final nonce to equal the combined one. librdkafka before 2.6.1
/// (librdkafka PR #4895) sends its own nonce once more in front, `r=<cnonce><cnonce snonce>`,
/// and signs what it sent, so that shape is accepted too; the proof is then checked over the
/// auth message built from the client's own bytes, as always.
///
/// Deliberate difference from Kafka: Kafka 3.8.1 to 3.9 accept any final nonce that ends with
/// the combined one (`endsWith`), Kafka 4 only an equal one. kacl accepts exactly the two
/// shapes real clients send, so a nonce with some other prefix is still refused as a wrong
/// nonce.
fn final_nonce_accepted(final_nonce: &str, combined: &str, client_nonce: &str) -> bool {
    final_nonce == combined
        || final_nonce
            .strip_suffix(combined)
            .is_some_and(|prefix| prefix == client_nonce)
}

fn random_nonce() -> String {
    let bytes: [u8; SERVER_NONCE_BYTES] = rand::random();
    STANDARD.encode(bytes)
}

/// The same made-up credential every time for a given unknown name (within one process, under
/// a secret drawn at start: for lookups that keep no secret of their own), shaped like a real one: a Kafka-shaped salt and `iterations`
/// (what most real credentials have). No password produces its keys.
fn stand_in_credential(
    mechanism: ScramMechanism,
    username: &str,
    iterations: u32,
) -> ScramCredential {
    static SECRET: OnceLock<[u8; 32]> = OnceLock::new();
    let secret = SECRET.get_or_init(rand::random);
    super::stand_in::stand_in_credential(secret, mechanism, username, iterations)
}
