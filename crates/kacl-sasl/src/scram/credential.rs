//! What a server stores for a SCRAM user (salt, iteration count, StoredKey, ServerKey — never
//! the password) and the hash functions behind both SCRAM variants.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};
use thiserror::Error;

use crate::SaslMechanism;

/// The two SCRAM hashes kacl serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScramMechanism {
    /// SCRAM-SHA-256 (RFC 7677).
    Sha256,
    /// SCRAM-SHA-512.
    Sha512,
}

impl ScramMechanism {
    /// Both, in Kafka's type-code order.
    pub const ALL: [ScramMechanism; 2] = [ScramMechanism::Sha256, ScramMechanism::Sha512];

    /// Kafka's lower bound for both hashes (`ScramMechanism.minIterations`).
    pub const MIN_ITERATIONS: u32 = 4096;

    /// Kafka's upper bound (`ScramControlManager.MAX_ITERATIONS`): what a broker accepts in
    /// AlterUserScramCredentials, and so what kacl accepts anywhere a credential is made.
    pub const MAX_ITERATIONS: u32 = 16384;

    /// The SASL mechanism name, e.g. `SCRAM-SHA-256`.
    pub fn name(self) -> &'static str {
        self.sasl().name()
    }

    /// The same mechanism as a [`SaslMechanism`].
    pub fn sasl(self) -> SaslMechanism {
        match self {
            ScramMechanism::Sha256 => SaslMechanism::ScramSha256,
            ScramMechanism::Sha512 => SaslMechanism::ScramSha512,
        }
    }

    /// The mechanism with this SASL name.
    pub fn from_name(name: &str) -> Option<Self> {
        ScramMechanism::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Kafka's code in Describe/AlterUserScramCredentials: 1 for SHA-256, 2 for SHA-512
    /// (0 is UNKNOWN).
    pub fn type_code(self) -> i8 {
        match self {
            ScramMechanism::Sha256 => 1,
            ScramMechanism::Sha512 => 2,
        }
    }

    /// The mechanism for a Kafka type code.
    pub fn from_type_code(code: i8) -> Option<Self> {
        ScramMechanism::ALL
            .into_iter()
            .find(|m| m.type_code() == code)
    }

    /// Bytes in one hash output (and so in StoredKey, ServerKey, proofs and signatures).
    pub fn hash_len(self) -> usize {
        match self {
            ScramMechanism::Sha256 => 32,
            ScramMechanism::Sha512 => 64,
        }
    }

    /// `H(data)`.
    pub(crate) fn hash(self, data: &[u8]) -> Vec<u8> {
        match self {
            ScramMechanism::Sha256 => Sha256::digest(data).to_vec(),
            ScramMechanism::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    /// `HMAC(key, part1 || part2 || ...)`.
    pub(crate) fn hmac(self, key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
        match self {
            ScramMechanism::Sha256 => hmac_of::<Hmac<Sha256>>(key, parts),
            ScramMechanism::Sha512 => hmac_of::<Hmac<Sha512>>(key, parts),
        }
    }

    /// RFC 5802's `Hi(password, salt, i)`, which is PBKDF2 with this HMAC: the SaltedPassword.
    pub fn salted_password(self, password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
        let mut out = vec![0u8; self.hash_len()];
        match self {
            ScramMechanism::Sha256 => {
                pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, iterations, &mut out)
            }
            ScramMechanism::Sha512 => {
                pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, iterations, &mut out)
            }
        }
        out
    }
}

impl fmt::Display for ScramMechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn hmac_of<M: Mac + hmac::digest::KeyInit>(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    // HMAC takes keys of every length (long keys are hashed), so this cannot fail; were it to,
    // the empty output matches no stored key or signature, so authentication fails closed.
    let Ok(mut mac) = <M as hmac::digest::KeyInit>::new_from_slice(key) else {
        return Vec::new();
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

/// A credential that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CredentialError {
    /// Below [`ScramMechanism::MIN_ITERATIONS`] (Kafka's wording).
    #[error("Iterations {iterations} is less than the minimum {minimum} for {mechanism}")]
    TooFewIterations {
        /// The requested count.
        iterations: u32,
        /// The minimum.
        minimum: u32,
        /// The mechanism.
        mechanism: ScramMechanism,
    },
    /// A salt must not be empty.
    #[error("the SCRAM salt must not be empty")]
    EmptySalt,
}

/// What the server keeps for one user and one SCRAM hash.
#[derive(Clone, PartialEq, Eq)]
pub struct ScramCredential {
    /// The random salt.
    pub salt: Vec<u8>,
    /// PBKDF2 iterations (at least 4096).
    pub iterations: u32,
    /// `H(HMAC(SaltedPassword, "Client Key"))`: checks the client's proof.
    pub stored_key: Vec<u8>,
    /// `HMAC(SaltedPassword, "Server Key")`: signs the server's final message.
    pub server_key: Vec<u8>,
}

impl ScramCredential {
    /// Iterations kacl uses when none are asked for (Kafka's tools default to 4096 too).
    pub const DEFAULT_ITERATIONS: u32 = 4096;
    /// Bytes of salt [`ScramCredential::generate`] draws.
    pub const SALT_LEN: usize = 32;

    /// The credential for a password, salt and iteration count.
    pub fn from_password(
        mechanism: ScramMechanism,
        password: &str,
        salt: &[u8],
        iterations: u32,
    ) -> Result<Self, CredentialError> {
        check_iterations(mechanism, iterations)?;
        if salt.is_empty() {
            return Err(CredentialError::EmptySalt);
        }
        let salted = mechanism.salted_password(password.as_bytes(), salt, iterations);
        Ok(Self::from_salted_password(
            mechanism,
            &salted,
            salt.to_vec(),
            iterations,
        ))
    }

    /// The credential from an already salted password, as AlterUserScramCredentials sends it
    /// (the client salts; the password never reaches the server). Callers check the iteration
    /// range themselves, with the error code of their API.
    pub fn from_salted_password(
        mechanism: ScramMechanism,
        salted_password: &[u8],
        salt: Vec<u8>,
        iterations: u32,
    ) -> Self {
        let client_key = mechanism.hmac(salted_password, &[b"Client Key"]);
        ScramCredential {
            salt,
            iterations,
            stored_key: mechanism.hash(&client_key),
            server_key: mechanism.hmac(salted_password, &[b"Server Key"]),
        }
    }

    /// A credential with a fresh random salt.
    pub fn generate(
        mechanism: ScramMechanism,
        password: &str,
        iterations: u32,
    ) -> Result<Self, CredentialError> {
        let salt: [u8; Self::SALT_LEN] = rand::random();
        Self::from_password(mechanism, password, &salt, iterations)
    }
}

/// Shows the salt length and iterations only.
impl fmt::Debug for ScramCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramCredential")
            .field("salt_len", &self.salt.len())
            .field("iterations", &self.iterations)
            .finish_non_exhaustive()
    }
}

pub(crate) fn check_iterations(
    mechanism: ScramMechanism,
    iterations: u32,
) -> Result<(), CredentialError> {
    if iterations < ScramMechanism::MIN_ITERATIONS {
        return Err(CredentialError::TooFewIterations {
            iterations,
            minimum: ScramMechanism::MIN_ITERATIONS,
            mechanism,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;

    use super::*;

    #[test]
    fn rfc7677_salted_password_gives_known_keys() {
        // RFC 7677 section 3: user "user", password "pencil".
        let salt = STANDARD.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let a =
            ScramCredential::from_password(ScramMechanism::Sha256, "pencil", &salt, 4096).unwrap();
        let b = ScramCredential::from_salted_password(
            ScramMechanism::Sha256,
            &ScramMechanism::Sha256.salted_password(b"pencil", &salt, 4096),
            salt.clone(),
            4096,
        );
        assert_eq!(a, b);
        assert_eq!(a.stored_key.len(), 32);
        assert_eq!(a.server_key.len(), 32);
        assert_ne!(a.stored_key, a.server_key);
    }

    #[test]
    fn sha512_keys_are_64_bytes() {
        let c = ScramCredential::generate(ScramMechanism::Sha512, "pw", 4096).unwrap();
        assert_eq!(c.stored_key.len(), 64);
        assert_eq!(c.server_key.len(), 64);
        assert_eq!(c.salt.len(), ScramCredential::SALT_LEN);
        let d = ScramCredential::generate(ScramMechanism::Sha512, "pw", 4096).unwrap();
        assert_ne!(c.salt, d.salt, "salts are random");
    }

    #[test]
    fn too_few_iterations_and_empty_salt_are_refused() {
        let err = ScramCredential::from_password(ScramMechanism::Sha256, "pw", b"s", 4095);
        assert_eq!(
            err.unwrap_err().to_string(),
            "Iterations 4095 is less than the minimum 4096 for SCRAM-SHA-256"
        );
        assert_eq!(
            ScramCredential::from_password(ScramMechanism::Sha256, "pw", b"", 4096),
            Err(CredentialError::EmptySalt)
        );
    }

    #[test]
    fn names_and_codes() {
        for m in ScramMechanism::ALL {
            assert_eq!(ScramMechanism::from_name(m.name()), Some(m));
            assert_eq!(ScramMechanism::from_type_code(m.type_code()), Some(m));
        }
        assert_eq!(ScramMechanism::from_type_code(0), None);
        assert_eq!(ScramMechanism::from_name("PLAIN"), None);
        assert_eq!(ScramMechanism::Sha512.to_string(), "SCRAM-SHA-512");
    }

    #[test]
    fn debug_hides_keys() {
        let c =
            ScramCredential::from_password(ScramMechanism::Sha256, "pw", b"salt", 4096).unwrap();
        let shown = format!("{c:?}");
        assert!(shown.contains("iterations: 4096"));
        assert!(!shown.contains("stored_key"));
    }
}
