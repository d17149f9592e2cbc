//! The client side of one SCRAM exchange, for kacl's admin client and CLI: it produces the
//! client-first and client-final messages and checks the server's signature, so a client
//! knows it spoke to a server that holds the credential. Messages follow Kafka's
//! `ScramSaslClient`.

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use thiserror::Error;

use super::credential::ScramMechanism;
use super::messages::{encode_saslname, ClientFinal, MessageError, ServerFinal, ServerFirst};
use crate::constant_time::bytes_eq;

/// Random bytes in the client's nonce.
const CLIENT_NONCE_BYTES: usize = 24;

/// Why a client exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScramClientError {
    /// The server's message does not follow the grammar, or is not UTF-8.
    #[error("Invalid SCRAM server message: {0}")]
    Malformed(String),
    /// The server's nonce does not extend ours.
    #[error("Invalid server nonce: does not start with client nonce")]
    NonceMismatch,
    /// The server asks for fewer iterations than SCRAM allows.
    #[error(
        "Requested iterations {iterations} is less than the minimum {minimum} for {mechanism}"
    )]
    TooFewIterations {
        /// What the server sent.
        iterations: u32,
        /// The minimum.
        minimum: u32,
        /// The mechanism.
        mechanism: ScramMechanism,
    },
    /// The server refused the proof (`e=...`).
    #[error("Sasl authentication using {mechanism} failed with error: {error}")]
    ServerError {
        /// The mechanism.
        mechanism: ScramMechanism,
        /// The server's error value.
        error: String,
    },
    /// The server's signature is wrong: it does not know our credential.
    #[error("Invalid server signature in server final message")]
    BadServerSignature,
    /// A method was called out of turn.
    #[error("unexpected SCRAM client step: {0}")]
    OutOfOrder(&'static str),
}

impl From<MessageError> for ScramClientError {
    fn from(e: MessageError) -> Self {
        ScramClientError::Malformed(e.to_string())
    }
}

/// One client exchange: `client_first`, `handle_server_first`, `handle_server_final`.
pub struct ScramClient {
    mechanism: ScramMechanism,
    username: String,
    password: String,
    client_nonce: String,
    state: State,
}

enum State {
    Start,
    AwaitingServerFirst { client_first_bare: String },
    AwaitingServerFinal { expected_signature: Vec<u8> },
    Complete,
    Failed,
}

impl ScramClient {
    /// An exchange for one user and password.
    pub fn new(mechanism: ScramMechanism, username: &str, password: &str) -> Self {
        let nonce: [u8; CLIENT_NONCE_BYTES] = rand::random();
        Self::with_client_nonce(mechanism, username, password, &STANDARD.encode(nonce))
    }

    pub(crate) fn with_client_nonce(
        mechanism: ScramMechanism,
        username: &str,
        password: &str,
        client_nonce: &str,
    ) -> Self {
        ScramClient {
            mechanism,
            username: username.to_owned(),
            password: password.to_owned(),
            client_nonce: client_nonce.to_owned(),
            state: State::Start,
        }
    }

    /// The mechanism of this exchange.
    pub fn mechanism(&self) -> ScramMechanism {
        self.mechanism
    }

    /// True once the server's signature was verified.
    pub fn is_complete(&self) -> bool {
        matches!(self.state, State::Complete)
    }

    /// The first message: `n,,n=<user>,r=<nonce>`.
    pub fn client_first(&mut self) -> Result<Vec<u8>, ScramClientError> {
        let State::Start = self.state else {
            self.state = State::Failed;
            return Err(ScramClientError::OutOfOrder("client_first called twice"));
        };
        let bare = format!(
            "n={},r={}",
            encode_saslname(&self.username),
            self.client_nonce
        );
        let message = format!("{GS2_HEADER}{bare}").into_bytes();
        self.state = State::AwaitingServerFirst {
            client_first_bare: bare,
        };
        Ok(message)
    }

    /// Reads the server-first-message and returns the client-final-message.
    pub fn handle_server_first(&mut self, message: &[u8]) -> Result<Vec<u8>, ScramClientError> {
        let State::AwaitingServerFirst { client_first_bare } =
            std::mem::replace(&mut self.state, State::Failed)
        else {
            return Err(ScramClientError::OutOfOrder(
                "server-first not expected now",
            ));
        };
        let text = std::str::from_utf8(message)
            .map_err(|_| ScramClientError::Malformed("not valid UTF-8".into()))?;
        let server_first = ServerFirst::parse(text)?;
        if !server_first.nonce.starts_with(&self.client_nonce) {
            return Err(ScramClientError::NonceMismatch);
        }
        if server_first.iterations < ScramMechanism::MIN_ITERATIONS {
            return Err(ScramClientError::TooFewIterations {
                iterations: server_first.iterations,
                minimum: ScramMechanism::MIN_ITERATIONS,
                mechanism: self.mechanism,
            });
        }
        let m = self.mechanism;
        let salted = m.salted_password(
            self.password.as_bytes(),
            &server_first.salt,
            server_first.iterations,
        );
        let without_proof = ClientFinal::format_without_proof(GS2_HEADER, &server_first.nonce);
        let auth_message = [
            client_first_bare.as_bytes(),
            b",",
            text.as_bytes(),
            b",",
            without_proof.as_bytes(),
        ];
        let client_key = m.hmac(&salted, &[b"Client Key"]);
        let client_signature = m.hmac(&m.hash(&client_key), &auth_message);
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&client_signature)
            .map(|(k, s)| k ^ s)
            .collect();
        let server_key = m.hmac(&salted, &[b"Server Key"]);
        self.state = State::AwaitingServerFinal {
            expected_signature: m.hmac(&server_key, &auth_message),
        };
        Ok(format!("{without_proof},p={}", STANDARD.encode(proof)).into_bytes())
    }

    /// Reads the server-final-message; `Ok` means the server proved it knows the credential.
    pub fn handle_server_final(&mut self, message: &[u8]) -> Result<(), ScramClientError> {
        let State::AwaitingServerFinal { expected_signature } =
            std::mem::replace(&mut self.state, State::Failed)
        else {
            return Err(ScramClientError::OutOfOrder(
                "server-final not expected now",
            ));
        };
        let text = std::str::from_utf8(message)
            .map_err(|_| ScramClientError::Malformed("not valid UTF-8".into()))?;
        match ServerFinal::parse(text)? {
            ServerFinal::Error(error) => Err(ScramClientError::ServerError {
                mechanism: self.mechanism,
                error,
            }),
            ServerFinal::Verifier(signature) => {
                if !bytes_eq(&signature, &expected_signature) {
                    return Err(ScramClientError::BadServerSignature);
                }
                self.state = State::Complete;
                Ok(())
            }
        }
    }
}

/// No channel binding, no authzid (as Kafka's client and librdkafka send).
const GS2_HEADER: &str = "n,,";

/// Hides the password.
impl fmt::Debug for ScramClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramClient")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}
