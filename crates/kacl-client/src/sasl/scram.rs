//! The client half of SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka's
//! `ScramSaslClient` speaks it, and the salted-password computation that
//! `alterUserScramCredentials` performs on the client so that a password never travels.
//!
//! kacl-server has its own SCRAM client for its tests; the client crate does not depend on the
//! server, so this is a small independent implementation (the lead may merge the two).

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};

use crate::error::AdminError;

/// Kafka's lowest accepted iteration count (`ScramMechanism.minIterations`).
pub const MIN_ITERATIONS: u32 = 4096;
/// Kafka's highest accepted iteration count (KIP-554).
pub const MAX_ITERATIONS: u32 = 16384;

/// The hash of a SCRAM mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScramHash {
    /// SCRAM-SHA-256.
    Sha256,
    /// SCRAM-SHA-512.
    Sha512,
}

impl ScramHash {
    /// The mechanism's name.
    pub fn mechanism_name(self) -> &'static str {
        match self {
            ScramHash::Sha256 => "SCRAM-SHA-256",
            ScramHash::Sha512 => "SCRAM-SHA-512",
        }
    }

    /// The mechanism's code in Describe/AlterUserScramCredentials (1 and 2).
    pub fn type_code(self) -> i8 {
        match self {
            ScramHash::Sha256 => 1,
            ScramHash::Sha512 => 2,
        }
    }

    /// The hash for a wire code (0 is Kafka's UNKNOWN).
    pub fn from_type_code(code: i8) -> Option<ScramHash> {
        match code {
            1 => Some(ScramHash::Sha256),
            2 => Some(ScramHash::Sha512),
            _ => None,
        }
    }

    /// The hash for a mechanism name, exact as Kafka compares it.
    pub fn from_mechanism_name(name: &str) -> Option<ScramHash> {
        match name {
            "SCRAM-SHA-256" => Some(ScramHash::Sha256),
            "SCRAM-SHA-512" => Some(ScramHash::Sha512),
            _ => None,
        }
    }

    fn hmac(self, key: &[u8], data: &[u8]) -> Result<Vec<u8>, AdminError> {
        let bad_key = |_| AdminError::Authentication("HMAC key rejected".into());
        Ok(match self {
            ScramHash::Sha256 => {
                let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(bad_key)?;
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
            ScramHash::Sha512 => {
                let mut mac = Hmac::<Sha512>::new_from_slice(key).map_err(bad_key)?;
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
        })
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            ScramHash::Sha256 => Sha256::digest(data).to_vec(),
            ScramHash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    /// RFC 5802's `Hi(password, salt, iterations)`: PBKDF2 with HMAC of this hash.
    pub fn salted_password(self, password: &str, salt: &[u8], iterations: u32) -> Vec<u8> {
        match self {
            ScramHash::Sha256 => {
                let mut out = vec![0u8; 32];
                pbkdf2::pbkdf2_hmac::<Sha256>(password.as_bytes(), salt, iterations, &mut out);
                out
            }
            ScramHash::Sha512 => {
                let mut out = vec![0u8; 64];
                pbkdf2::pbkdf2_hmac::<Sha512>(password.as_bytes(), salt, iterations, &mut out);
                out
            }
        }
    }
}

/// A fresh salt as Kafka's `ScramFormatter.secureRandomBytes` makes it: the base-36 text of a
/// random 130-bit number. (Any random bytes would do; this keeps salts looking like Kafka's.)
pub fn random_salt() -> Vec<u8> {
    let mut value: u128 = rand::random();
    let high_bits: u8 = rand::random::<u8>() & 0b11;
    let mut digits = Vec::new();
    // 130 bits = 2 high bits then 128 low bits; convert via repeated division on (high, low).
    let mut high = u128::from(high_bits);
    loop {
        // (high * 2^128 + value) / 36, keeping the remainder.
        let rem_high = high % 36;
        high /= 36;
        let (q, r) = div_with_carry(value, rem_high);
        value = q;
        let digit = u8::try_from(r).unwrap_or(0);
        digits.push(if digit < 10 {
            b'0' + digit
        } else {
            b'a' + digit - 10
        });
        if high == 0 && value == 0 {
            break;
        }
    }
    digits.reverse();
    digits
}

/// Divides `carry * 2^128 + value` by 36 where `carry < 36`: the quotient (which fits in 128
/// bits) and the remainder.
fn div_with_carry(value: u128, carry: u128) -> (u128, u128) {
    // Split value into two 64-bit halves and do schoolbook division base 2^64.
    let hi = (carry << 64) | (value >> 64);
    let q_hi = hi / 36;
    let r_hi = hi % 36;
    let lo = (r_hi << 64) | (value & u128::from(u64::MAX));
    let q_lo = lo / 36;
    let r = lo % 36;
    ((q_hi << 64) | q_lo, r)
}

/// Escapes a user name for a SCRAM message (`=` → `=3D`, `,` → `=2C`).
fn sasl_name(name: &str) -> String {
    name.replace('=', "=3D").replace(',', "=2C")
}

/// One client-side SCRAM exchange: [`client_first`](Self::client_first), then
/// [`client_final`](Self::client_final) with the server's first message, then
/// [`verify_server_final`](Self::verify_server_final).
pub struct ScramClient {
    hash: ScramHash,
    password: String,
    client_first_bare: String,
    client_nonce: String,
    expected_server_signature: Option<Vec<u8>>,
}

impl std::fmt::Debug for ScramClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScramClient")
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}

const GS2_HEADER: &str = "n,,";

impl ScramClient {
    /// An exchange for `username` with a random nonce.
    pub fn new(hash: ScramHash, username: &str, password: &str) -> Self {
        let nonce = BASE64.encode(rand::random::<[u8; 24]>());
        Self::with_nonce(hash, username, password, &nonce)
    }

    /// An exchange with a chosen nonce (for tests against known vectors).
    pub fn with_nonce(hash: ScramHash, username: &str, password: &str, nonce: &str) -> Self {
        ScramClient {
            hash,
            password: password.to_owned(),
            client_first_bare: format!("n={},r={nonce}", sasl_name(username)),
            client_nonce: nonce.to_owned(),
            expected_server_signature: None,
        }
    }

    /// The client-first-message.
    pub fn client_first(&self) -> Vec<u8> {
        format!("{GS2_HEADER}{}", self.client_first_bare).into_bytes()
    }

    /// Answers the server-first-message with the client-final-message (carrying the proof).
    pub fn client_final(&mut self, server_first: &[u8]) -> Result<Vec<u8>, AdminError> {
        let fail = |m: &str| AdminError::Authentication(format!("SCRAM: {m}"));
        let server_first = std::str::from_utf8(server_first)
            .map_err(|_| fail("server-first-message is not UTF-8"))?;
        if let Some(error) = server_first.strip_prefix("e=") {
            return Err(fail(&format!("the server refused: {error}")));
        }
        let mut nonce = None;
        let mut salt = None;
        let mut iterations = None;
        for attribute in server_first.split(',') {
            match attribute.split_once('=') {
                Some(("r", v)) => nonce = Some(v),
                Some(("s", v)) => salt = Some(v),
                Some(("i", v)) => iterations = Some(v),
                _ => {}
            }
        }
        let nonce = nonce.ok_or_else(|| fail("server-first-message has no nonce"))?;
        if !nonce.starts_with(&self.client_nonce) || nonce.len() == self.client_nonce.len() {
            return Err(fail("the server nonce does not extend the client nonce"));
        }
        let salt = BASE64
            .decode(salt.ok_or_else(|| fail("server-first-message has no salt"))?)
            .map_err(|_| fail("the salt is not base64"))?;
        let iterations: u32 = iterations
            .and_then(|i| i.parse().ok())
            .ok_or_else(|| fail("server-first-message has no valid iteration count"))?;
        if iterations < MIN_ITERATIONS {
            return Err(fail(&format!(
                "Requested iterations {iterations} is less than the minimum {MIN_ITERATIONS} \
                 for {}",
                self.hash.mechanism_name()
            )));
        }
        let without_proof = format!("c={},r={nonce}", BASE64.encode(GS2_HEADER));
        let auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let salted = self.hash.salted_password(&self.password, &salt, iterations);
        let client_key = self.hash.hmac(&salted, b"Client Key")?;
        let stored_key = self.hash.digest(&client_key);
        let signature = self.hash.hmac(&stored_key, auth_message.as_bytes())?;
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&signature)
            .map(|(k, s)| k ^ s)
            .collect();
        let server_key = self.hash.hmac(&salted, b"Server Key")?;
        self.expected_server_signature =
            Some(self.hash.hmac(&server_key, auth_message.as_bytes())?);
        Ok(format!("{without_proof},p={}", BASE64.encode(proof)).into_bytes())
    }

    /// Checks the server-final-message's signature: proof that the server knew the password.
    pub fn verify_server_final(&self, server_final: &[u8]) -> Result<(), AdminError> {
        let fail = |m: &str| AdminError::Authentication(format!("SCRAM: {m}"));
        let text = std::str::from_utf8(server_final)
            .map_err(|_| fail("server-final-message is not UTF-8"))?;
        if let Some(error) = text.strip_prefix("e=") {
            return Err(fail(&format!("the server refused: {error}")));
        }
        let signature = text
            .split(',')
            .find_map(|a| a.strip_prefix("v="))
            .ok_or_else(|| fail("server-final-message has no signature"))?;
        let signature = BASE64
            .decode(signature)
            .map_err(|_| fail("the server signature is not base64"))?;
        match &self.expected_server_signature {
            Some(expected) if *expected == signature => Ok(()),
            Some(_) => Err(fail("invalid server signature")),
            None => Err(fail("server-final-message before client-final-message")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677 section 3: the SCRAM-SHA-256 example exchange.
    #[test]
    fn rfc7677_sha256_vector() {
        let mut client =
            ScramClient::with_nonce(ScramHash::Sha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
        assert_eq!(client.client_first(), b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
                             s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        let client_final = client.client_final(server_first).unwrap();
        assert_eq!(
            String::from_utf8(client_final).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
             p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        client
            .verify_server_final(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap();
        let err = client.verify_server_final(b"v=AAAA").unwrap_err();
        assert!(err.to_string().contains("invalid server signature"));
    }

    #[test]
    fn weak_or_foreign_server_messages_are_refused() {
        let mut client = ScramClient::with_nonce(ScramHash::Sha512, "a,b=c", "pw", "abc");
        assert_eq!(client.client_first(), b"n,,n=a=2Cb=3Dc,r=abc");
        let err = client.client_final(b"r=abcdef,s=AAAA,i=1000").unwrap_err();
        assert!(
            err.to_string().contains("less than the minimum 4096"),
            "{err}"
        );
        let err = client.client_final(b"r=xyz123,s=AAAA,i=4096").unwrap_err();
        assert!(err.to_string().contains("nonce"), "{err}");
        let err = client.client_final(b"e=unknown-user").unwrap_err();
        assert!(err.to_string().contains("unknown-user"), "{err}");
    }

    #[test]
    fn salts_look_like_kafkas_base36_numbers() {
        for _ in 0..50 {
            let salt = random_salt();
            assert!(!salt.is_empty() && salt.len() <= 26, "{salt:?}");
            assert!(salt
                .iter()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()));
        }
        assert_ne!(random_salt(), random_salt());
        assert_eq!(div_with_carry(36 * 5 + 7, 0), (5, 7));
        // 2^128 = 36q + 4 (2^128 is 0 mod 4 and 4 mod 9).
        let (q, r) = div_with_carry(0, 1);
        assert_eq!(r, 4);
        assert_eq!(q.wrapping_mul(36).wrapping_add(4), 0);
    }
}
