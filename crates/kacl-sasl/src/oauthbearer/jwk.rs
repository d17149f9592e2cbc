//! JSON Web Keys (RFC 7517) as an identity provider publishes them at its JWKS endpoint, and
//! the JWS signature algorithms (RFC 7518) kacl verifies with them.
//!
//! Only public signature keys are kept: RSA (`RS256/384/512`, `PS256/384/512`), EC P-256 and
//! P-384 (`ES256`, `ES384`) and Ed25519 (`EdDSA`). A symmetric (`oct`) key, an encryption key
//! (`use` other than `sig`) or a key of an unknown type is skipped, never an error: providers
//! publish all sorts next to the signing keys. Verification is ring's (already in the build
//! through rustls), and a key only ever verifies the algorithms of its own type, so a token
//! cannot make an RSA key act as an HMAC secret (the classic `HS256` confusion) nor ask for
//! `none`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde_json::Value;
use thiserror::Error;

/// The most keys one JWKS may hold. Real providers publish two to a dozen; the bound keeps a
/// token without `kid` from costing a verification per key of a huge set.
pub const MAX_KEYS: usize = 64;

/// The JWS algorithms kacl verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    Rs512,
    /// RSASSA-PSS with SHA-256.
    Ps256,
    /// RSASSA-PSS with SHA-384.
    Ps384,
    /// RSASSA-PSS with SHA-512.
    Ps512,
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// ECDSA on P-384 with SHA-384.
    Es384,
    /// Ed25519.
    EdDsa,
}

impl Algorithm {
    /// The `alg` name, or `None` for anything kacl does not verify (`none`, `HS256`, ...).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Some(match name {
            "RS256" => Algorithm::Rs256,
            "RS384" => Algorithm::Rs384,
            "RS512" => Algorithm::Rs512,
            "PS256" => Algorithm::Ps256,
            "PS384" => Algorithm::Ps384,
            "PS512" => Algorithm::Ps512,
            "ES256" => Algorithm::Es256,
            "ES384" => Algorithm::Es384,
            "EdDSA" => Algorithm::EdDsa,
            _ => return None,
        })
    }

    /// The `alg` name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Rs256 => "RS256",
            Algorithm::Rs384 => "RS384",
            Algorithm::Rs512 => "RS512",
            Algorithm::Ps256 => "PS256",
            Algorithm::Ps384 => "PS384",
            Algorithm::Ps512 => "PS512",
            Algorithm::Es256 => "ES256",
            Algorithm::Es384 => "ES384",
            Algorithm::EdDsa => "EdDSA",
        }
    }
}

/// The public material of one key.
#[derive(Clone, PartialEq, Eq)]
enum KeyMaterial {
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
    },
    /// An uncompressed point (`04 || x || y`) on the named curve.
    Ec {
        curve: Curve,
        point: Vec<u8>,
    },
    Ed25519 {
        x: Vec<u8>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curve {
    P256,
    P384,
}

/// One public signature key of a set.
#[derive(Clone, PartialEq, Eq)]
pub struct Jwk {
    kid: Option<String>,
    alg: Option<String>,
    material: KeyMaterial,
}

impl std::fmt::Debug for Jwk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.material {
            KeyMaterial::Rsa { n, .. } => format!("RSA-{}", n.len() * 8),
            KeyMaterial::Ec { curve, .. } => format!("EC-{curve:?}"),
            KeyMaterial::Ed25519 { .. } => "Ed25519".to_owned(),
        };
        f.debug_struct("Jwk")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("type", &kind)
            .finish()
    }
}

impl Jwk {
    /// The key id, if the provider gave one.
    pub fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// True if this key may verify `alg`: its type fits the algorithm, and an `alg` the
    /// provider pinned on the key is that one.
    pub fn accepts(&self, alg: Algorithm) -> bool {
        if self
            .alg
            .as_deref()
            .is_some_and(|pinned| pinned != alg.name())
        {
            return false;
        }
        matches!(
            (&self.material, alg),
            (
                KeyMaterial::Rsa { .. },
                Algorithm::Rs256
                    | Algorithm::Rs384
                    | Algorithm::Rs512
                    | Algorithm::Ps256
                    | Algorithm::Ps384
                    | Algorithm::Ps512
            ) | (
                KeyMaterial::Ec {
                    curve: Curve::P256,
                    ..
                },
                Algorithm::Es256
            ) | (
                KeyMaterial::Ec {
                    curve: Curve::P384,
                    ..
                },
                Algorithm::Es384
            ) | (KeyMaterial::Ed25519 { .. }, Algorithm::EdDsa)
        )
    }

    /// True if `signature` is this key's signature of `message` under `alg` (false for an
    /// algorithm the key does not accept).
    pub fn verify(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        if !self.accepts(alg) {
            return false;
        }
        match &self.material {
            KeyMaterial::Rsa { n, e } => {
                let params: &signature::RsaParameters = match alg {
                    Algorithm::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Algorithm::Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Algorithm::Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Algorithm::Ps512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return false,
                };
                RsaPublicKeyComponents { n, e }
                    .verify(params, message, signature)
                    .is_ok()
            }
            KeyMaterial::Ec { curve, point } => {
                let algorithm = match curve {
                    Curve::P256 => &signature::ECDSA_P256_SHA256_FIXED,
                    Curve::P384 => &signature::ECDSA_P384_SHA384_FIXED,
                };
                UnparsedPublicKey::new(algorithm, point)
                    .verify(message, signature)
                    .is_ok()
            }
            KeyMaterial::Ed25519 { x } => UnparsedPublicKey::new(&signature::ED25519, x)
                .verify(message, signature)
                .is_ok(),
        }
    }
}

/// Why a JWKS document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JwksError {
    /// Not a JSON object with a `keys` array.
    #[error("the JWKS is not a JSON object with a `keys` array: {0}")]
    Malformed(String),
    /// More keys than [`MAX_KEYS`].
    #[error("the JWKS holds {0} keys, more than the {MAX_KEYS} kacl accepts")]
    TooManyKeys(usize),
}

/// The signature keys of one JWKS document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JwkSet {
    keys: Vec<Jwk>,
    /// Keys of the document that were skipped (symmetric, encryption, unknown or broken).
    skipped: usize,
}

impl JwkSet {
    /// Reads a JWKS document (`{"keys": [...]}`), keeping the public signature keys.
    pub fn parse(document: &[u8]) -> Result<JwkSet, JwksError> {
        let value: Value =
            serde_json::from_slice(document).map_err(|e| JwksError::Malformed(e.to_string()))?;
        let Some(keys) = value.get("keys").and_then(Value::as_array) else {
            return Err(JwksError::Malformed("no `keys` array".into()));
        };
        if keys.len() > MAX_KEYS {
            return Err(JwksError::TooManyKeys(keys.len()));
        }
        let mut set = JwkSet::default();
        for key in keys {
            match parse_key(key) {
                Some(jwk) => set.keys.push(jwk),
                None => set.skipped += 1,
            }
        }
        Ok(set)
    }

    /// The usable keys.
    pub fn keys(&self) -> &[Jwk] {
        &self.keys
    }

    /// How many keys of the document were not signature keys kacl can use.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The keys that may verify a token with this `kid` (any key when the token has none) and
    /// this algorithm.
    pub fn candidates<'a>(
        &'a self,
        kid: Option<&'a str>,
        alg: Algorithm,
    ) -> impl Iterator<Item = &'a Jwk> + 'a {
        self.keys
            .iter()
            .filter(move |k| kid.is_none() || k.kid.as_deref() == kid)
            .filter(move |k| k.accepts(alg))
    }

    /// True if some key has this `kid`, whatever its type.
    pub fn has_kid(&self, kid: &str) -> bool {
        self.keys.iter().any(|k| k.kid.as_deref() == Some(kid))
    }
}

fn b64(value: Option<&Value>) -> Option<Vec<u8>> {
    let text = value?.as_str()?;
    URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok()
}

fn parse_key(key: &Value) -> Option<Jwk> {
    let text = |name: &str| key.get(name).and_then(Value::as_str);
    if text("use").is_some_and(|u| u != "sig") {
        return None;
    }
    if let Some(ops) = key.get("key_ops").and_then(Value::as_array) {
        if !ops.iter().any(|op| op.as_str() == Some("verify")) {
            return None;
        }
    }
    let material = match text("kty")? {
        "RSA" => {
            let n = strip_leading_zeros(b64(key.get("n"))?);
            let e = strip_leading_zeros(b64(key.get("e"))?);
            // ring verifies 2048..=8192-bit moduli only; smaller keys are refused here too.
            if n.len() < 256 || n.len() > 1024 || e.is_empty() {
                return None;
            }
            KeyMaterial::Rsa { n, e }
        }
        "EC" => {
            let (curve, size) = match text("crv")? {
                "P-256" => (Curve::P256, 32),
                "P-384" => (Curve::P384, 48),
                _ => return None,
            };
            let (x, y) = (b64(key.get("x"))?, b64(key.get("y"))?);
            if x.len() != size || y.len() != size {
                return None;
            }
            let mut point = Vec::with_capacity(1 + 2 * size);
            point.push(4);
            point.extend_from_slice(&x);
            point.extend_from_slice(&y);
            KeyMaterial::Ec { curve, point }
        }
        "OKP" if text("crv")? == "Ed25519" => {
            let x = b64(key.get("x"))?;
            if x.len() != 32 {
                return None;
            }
            KeyMaterial::Ed25519 { x }
        }
        _ => return None,
    };
    let alg = text("alg").map(str::to_owned);
    if alg
        .as_deref()
        .is_some_and(|a| Algorithm::from_name(a).is_none())
    {
        return None;
    }
    Some(Jwk {
        kid: text("kid").map(str::to_owned),
        alg,
        material,
    })
}

fn strip_leading_zeros(mut bytes: Vec<u8>) -> Vec<u8> {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    bytes.drain(..zeros);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_what_it_cannot_use() {
        let doc = br#"{"keys":[
            {"kty":"oct","k":"c2VjcmV0","kid":"hmac"},
            {"kty":"EC","crv":"P-256","use":"enc","kid":"enc",
             "x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
            {"kty":"EC","crv":"P-256","kid":"short","x":"AAAA","y":"AAAA"},
            {"kty":"RSA","kid":"small","n":"AQAB","e":"AQAB"},
            {"kty":"EC","crv":"P-256","kid":"ok","alg":"ES256",
             "x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
        ]}"#;
        let set = JwkSet::parse(doc).unwrap();
        assert_eq!(set.keys().len(), 1);
        assert_eq!(set.skipped(), 4);
        assert!(set.has_kid("ok"));
        assert!(!set.has_kid("hmac"));
        assert_eq!(set.candidates(Some("ok"), Algorithm::Es256).count(), 1);
        assert_eq!(set.candidates(Some("ok"), Algorithm::Rs256).count(), 0);
        assert_eq!(set.candidates(None, Algorithm::Es256).count(), 1);
    }

    #[test]
    fn refuses_what_is_not_a_jwks() {
        assert!(JwkSet::parse(b"[]").is_err());
        assert!(JwkSet::parse(b"{\"keys\":{}}").is_err());
        assert!(JwkSet::parse(b"not json").is_err());
        let many = format!(
            "{{\"keys\":[{}]}}",
            vec!["{\"kty\":\"oct\"}"; MAX_KEYS + 1].join(",")
        );
        assert_eq!(
            JwkSet::parse(many.as_bytes()),
            Err(JwksError::TooManyKeys(MAX_KEYS + 1))
        );
    }

    #[test]
    fn algorithm_names() {
        for name in ["RS256", "PS512", "ES256", "ES384", "EdDSA"] {
            assert_eq!(Algorithm::from_name(name).unwrap().name(), name);
        }
        for refused in ["none", "None", "HS256", "HS512", "", "es256"] {
            assert_eq!(Algorithm::from_name(refused), None, "{refused}");
        }
    }
}
