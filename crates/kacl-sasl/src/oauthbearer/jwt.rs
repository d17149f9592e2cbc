//! Validating a JWT access token (RFC 7519) as Kafka's `BrokerJwtValidator` does, over a
//! [`JwkSet`]: a signed JWS in compact form, `alg` never `none`, `exp` and `iat` required,
//! `nbf` honoured, `aud` and `iss` checked when configured, within the allowed clock skew;
//! the principal is the configured subject claim, the scopes the configured scope claim.
//!
//! Everything here is pure: the caller passes the keys and the time, so each rule is tested
//! by itself, and an unknown `kid` comes back as [`TokenError::UnknownKey`] for the caller to
//! refresh its keys (as Kafka's `RefreshingHttpsJwks` expedites a refresh and fails the token
//! at hand).

use std::collections::BTreeSet;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{Map, Value};
use thiserror::Error;

use super::jwk::{Algorithm, JwkSet};

/// The longest token kacl reads, in bytes. Kafka bounds a token only by the SASL frame
/// (`sasl.server.max.receive.size`, 512 KiB); real access tokens, even with many groups, stay
/// far below 16 KiB. A deliberate difference, in DIFFERENCES_FROM_KAFKA.
pub const MAX_TOKEN_BYTES: usize = 64 * 1024;

/// The longest `kid` kacl looks up (Kafka's `MISSING_KEY_ID_MAX_KEY_LENGTH`): a longer one is
/// taken for a malformed token and never triggers a refresh.
pub const MAX_KID_CHARS: usize = 1000;

/// What the broker expects of a token: Kafka's `sasl.oauthbearer.*` validation keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRules {
    /// `sasl.oauthbearer.expected.audience`: the token's `aud` must name one of these. Empty:
    /// a token that has an `aud` claim is refused, as jose4j's default audience check does.
    pub expected_audiences: Vec<String>,
    /// `sasl.oauthbearer.expected.issuer`: the token's `iss` must be this.
    pub expected_issuer: Option<String>,
    /// `sasl.oauthbearer.clock.skew.seconds` (30).
    pub clock_skew: Duration,
    /// `sasl.oauthbearer.sub.claim.name` (`sub`): the claim that names the principal.
    pub sub_claim: String,
    /// `sasl.oauthbearer.scope.claim.name` (`scope`).
    pub scope_claim: String,
}

impl Default for TokenRules {
    fn default() -> Self {
        TokenRules {
            expected_audiences: Vec::new(),
            expected_issuer: None,
            clock_skew: Duration::from_secs(30),
            sub_claim: "sub".to_owned(),
            scope_claim: "scope".to_owned(),
        }
    }
}

/// A token that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidToken {
    /// The value of the subject claim: the principal is `User:<this>`.
    pub principal_name: String,
    /// The scopes of the scope claim.
    pub scopes: BTreeSet<String>,
    /// `exp`, in milliseconds since the epoch.
    pub expires_at_ms: i64,
    /// `iat`, in milliseconds since the epoch.
    pub issued_at_ms: i64,
}

/// Why a token was refused. The text is for the server log only: the client is told
/// `{"status":"invalid_token"}`, as Kafka tells it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TokenError {
    /// Not three base64url parts with JSON header and claims.
    #[error("malformed token: {0}")]
    Malformed(String),
    /// Longer than [`MAX_TOKEN_BYTES`].
    #[error("token of {0} bytes, more than the {MAX_TOKEN_BYTES} kacl reads")]
    TooLarge(usize),
    /// `alg` is `none`, an HMAC or anything kacl does not verify.
    #[error("algorithm `{0}` is not accepted")]
    Algorithm(String),
    /// No key of the set has this `kid`: the caller should refresh its keys.
    #[error("no key with kid `{0}` in the JWKS")]
    UnknownKey(String),
    /// No key of the set fits the token's algorithm (or the token has no `kid` and no key
    /// verified it).
    #[error("no key of the JWKS verifies an {alg} token{}", kid.as_ref().map(|k| format!(" with kid `{k}`")).unwrap_or_default())]
    NoSuitableKey {
        /// The token's algorithm.
        alg: &'static str,
        /// The token's `kid`.
        kid: Option<String>,
    },
    /// The signature does not verify.
    #[error("the signature does not verify")]
    BadSignature,
    /// A required claim is missing or not of its type.
    #[error("{0}")]
    Claim(String),
    /// `exp` is past (with the skew).
    #[error("the token expired at {exp} (now {now}, allowed clock skew {skew} s)")]
    Expired {
        /// `exp`, seconds.
        exp: i64,
        /// The time of the check, seconds.
        now: i64,
        /// The skew, seconds.
        skew: u64,
    },
    /// `nbf` is ahead (with the skew).
    #[error("the token is not valid before {nbf} (now {now}, allowed clock skew {skew} s)")]
    NotYetValid {
        /// `nbf`, seconds.
        nbf: i64,
        /// The time of the check, seconds.
        now: i64,
        /// The skew, seconds.
        skew: u64,
    },
    /// `aud` names none of the expected audiences.
    #[error("audience {found:?} is not one of the expected {expected:?}")]
    Audience {
        /// The token's audiences.
        found: Vec<String>,
        /// The expected ones.
        expected: Vec<String>,
    },
    /// `iss` is not the expected issuer.
    #[error("issuer {found:?} is not the expected `{expected}`")]
    Issuer {
        /// The token's issuer.
        found: Option<String>,
        /// The expected one.
        expected: String,
    },
    /// The broker has no validator for OAUTHBEARER.
    #[error("OAUTHBEARER is not configured on this listener")]
    NotConfigured,
    /// The keys could not be had (the JWKS endpoint failed and no keys are cached).
    #[error("no verification keys: {0}")]
    KeysUnavailable(String),
}

fn decode_part(part: &str, what: &str) -> Result<Vec<u8>, TokenError> {
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| TokenError::Malformed(format!("the {what} is not base64url")))
}

fn json_object(bytes: &[u8], what: &str) -> Result<Map<String, Value>, TokenError> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(TokenError::Malformed(format!(
            "the {what} is not a JSON object"
        ))),
    }
}

/// A claim that must be a NumericDate (seconds, possibly fractional), in milliseconds.
fn numeric_date(claims: &Map<String, Value>, name: &str) -> Result<Option<i64>, TokenError> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            let seconds = n
                .as_f64()
                .filter(|s| s.is_finite() && s.abs() < 1e15)
                .ok_or_else(|| TokenError::Claim(format!("the '{name}' claim is out of range")))?;
            // Milliseconds as Kafka keeps them (NumericDate.getValueInMillis).
            Ok(Some((seconds * 1000.0) as i64))
        }
        Some(_) => Err(TokenError::Claim(format!(
            "the '{name}' claim is not a NumericDate"
        ))),
    }
}

fn required_date(claims: &Map<String, Value>, name: &str) -> Result<i64, TokenError> {
    match numeric_date(claims, name)? {
        Some(ms) if ms >= 0 => Ok(ms),
        Some(_) => Err(TokenError::Claim(format!(
            "the '{name}' claim value must be non-negative"
        ))),
        None => Err(TokenError::Claim(format!("the '{name}' claim is required"))),
    }
}

/// A claim read as a list of strings (a string alone is a list of one).
fn string_list(value: &Value, name: &str) -> Result<Vec<String>, TokenError> {
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| {
                    TokenError::Claim(format!("the '{name}' claim holds a non-string value"))
                })
            })
            .collect(),
        _ => Err(TokenError::Claim(format!(
            "the '{name}' claim is neither a string nor an array of strings"
        ))),
    }
}

/// Validates `token` against `rules` with `keys`, at `now_ms` (milliseconds since the epoch).
pub fn validate(
    token: &str,
    rules: &TokenRules,
    keys: &JwkSet,
    now_ms: i64,
) -> Result<ValidToken, TokenError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::TooLarge(token.len()));
    }
    let mut parts = token.split('.');
    let (Some(header_b64), Some(claims_b64), Some(signature_b64), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Malformed(
            "a JWS in compact form has three parts".into(),
        ));
    };
    let header = json_object(&decode_part(header_b64, "header")?, "header")?;
    let alg_name = header
        .get("alg")
        .and_then(Value::as_str)
        .ok_or_else(|| TokenError::Malformed("the header has no `alg`".into()))?;
    let alg = Algorithm::from_name(alg_name)
        .ok_or_else(|| TokenError::Algorithm(alg_name.chars().take(32).collect()))?;
    if header.contains_key("crit") {
        // RFC 7515 4.1.11: extensions the recipient does not understand must fail.
        return Err(TokenError::Malformed(
            "the header lists critical extensions".into(),
        ));
    }
    let kid = match header.get("kid") {
        None => None,
        Some(Value::String(kid)) if kid.chars().count() <= MAX_KID_CHARS => Some(kid.as_str()),
        Some(Value::String(_)) => {
            return Err(TokenError::Malformed(format!(
                "the `kid` is longer than {MAX_KID_CHARS} characters"
            )))
        }
        Some(_) => return Err(TokenError::Malformed("the `kid` is not a string".into())),
    };
    let signature = decode_part(signature_b64, "signature")?;
    let signed = &token.as_bytes()[..header_b64.len() + 1 + claims_b64.len()];
    let mut candidates = keys.candidates(kid, alg).peekable();
    if candidates.peek().is_none() {
        return Err(match kid {
            Some(kid) if !keys.has_kid(kid) => TokenError::UnknownKey(kid.to_owned()),
            _ => TokenError::NoSuitableKey {
                alg: alg.name(),
                kid: kid.map(str::to_owned),
            },
        });
    }
    if !candidates.any(|key| key.verify(alg, signed, &signature)) {
        return Err(TokenError::BadSignature);
    }
    // Only a verified token's claims are read.
    let claims = json_object(&decode_part(claims_b64, "claims")?, "claims")?;
    check_claims(&claims, rules, now_ms)
}

fn check_claims(
    claims: &Map<String, Value>,
    rules: &TokenRules,
    now_ms: i64,
) -> Result<ValidToken, TokenError> {
    let skew_ms = i64::try_from(rules.clock_skew.as_millis()).unwrap_or(i64::MAX);
    let skew = rules.clock_skew.as_secs();
    let expires_at_ms = required_date(claims, "exp")?;
    if now_ms >= expires_at_ms.saturating_add(skew_ms) {
        return Err(TokenError::Expired {
            exp: expires_at_ms / 1000,
            now: now_ms / 1000,
            skew,
        });
    }
    if let Some(nbf) = numeric_date(claims, "nbf")? {
        if now_ms.saturating_add(skew_ms) < nbf {
            return Err(TokenError::NotYetValid {
                nbf: nbf / 1000,
                now: now_ms / 1000,
                skew,
            });
        }
    }
    let issued_at_ms = required_date(claims, "iat")?;
    if let Some(expected) = &rules.expected_issuer {
        let found = claims.get("iss").and_then(Value::as_str);
        if found != Some(expected.as_str()) {
            return Err(TokenError::Issuer {
                found: found.map(str::to_owned),
                expected: expected.clone(),
            });
        }
    }
    if let Some(aud) = claims.get("aud") {
        let found = string_list(aud, "aud")?;
        if !found.iter().any(|a| rules.expected_audiences.contains(a)) {
            return Err(TokenError::Audience {
                found,
                expected: rules.expected_audiences.clone(),
            });
        }
    } else if !rules.expected_audiences.is_empty() {
        return Err(TokenError::Audience {
            found: Vec::new(),
            expected: rules.expected_audiences.clone(),
        });
    }
    let principal_name = match claims.get(&rules.sub_claim) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::String(_)) => {
            return Err(TokenError::Claim(format!(
                "the '{}' claim value must not be empty",
                rules.sub_claim
            )))
        }
        Some(_) => {
            return Err(TokenError::Claim(format!(
                "the '{}' claim is not a string",
                rules.sub_claim
            )))
        }
        None => {
            return Err(TokenError::Claim(format!(
                "the '{}' claim is required",
                rules.sub_claim
            )))
        }
    };
    let scopes = match claims.get(&rules.scope_claim) {
        None | Some(Value::Null) => BTreeSet::new(),
        // OAuth's `scope` is one space-separated string (RFC 8693 4.2); Kafka keeps a string
        // claim as a single scope, and so does kacl.
        Some(value) => string_list(value, &rules.scope_claim)?
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
    };
    Ok(ValidToken {
        principal_name,
        scopes,
        expires_at_ms,
        issued_at_ms,
    })
}
