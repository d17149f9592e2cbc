//! The validator and the exchange against tokens signed here with ring: RS256 with a fixed
//! 2048-bit test key, ES256 and EdDSA with keys generated per test.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use serde_json::{json, Value};

use super::jwt::{validate, MAX_TOKEN_BYTES};
use super::*;
use crate::SaslServer;

const NOW_MS: i64 = 1_800_000_000_000;
const NOW: i64 = NOW_MS / 1000;

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A signing key and its public JWK.
enum Signer {
    Rsa(RsaKeyPair),
    Ec(EcdsaKeyPair),
    Ed(Ed25519KeyPair),
}

struct TestKey {
    kid: String,
    signer: Signer,
}

impl TestKey {
    fn rsa(kid: &str) -> TestKey {
        let pair = RsaKeyPair::from_pkcs8(include_bytes!("test_rsa_2048.pk8")).unwrap();
        TestKey {
            kid: kid.into(),
            signer: Signer::Rsa(pair),
        }
    }

    fn ec(kid: &str) -> TestKey {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
        TestKey {
            kid: kid.into(),
            signer: Signer::Ec(pair),
        }
    }

    fn ed(kid: &str) -> TestKey {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        TestKey {
            kid: kid.into(),
            signer: Signer::Ed(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap()),
        }
    }

    fn alg(&self) -> &'static str {
        match self.signer {
            Signer::Rsa(_) => "RS256",
            Signer::Ec(_) => "ES256",
            Signer::Ed(_) => "EdDSA",
        }
    }

    fn jwk(&self) -> Value {
        match &self.signer {
            Signer::Rsa(pair) => {
                let public = ring::rsa::PublicKeyComponents::<Vec<u8>>::from(pair.public());
                json!({"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
                    "n": b64(&public.n), "e": b64(&public.e)})
            }
            Signer::Ec(pair) => {
                let point = pair.public_key().as_ref();
                json!({"kty": "EC", "crv": "P-256", "kid": self.kid,
                    "x": b64(&point[1..33]), "y": b64(&point[33..65])})
            }
            Signer::Ed(pair) => json!({"kty": "OKP", "crv": "Ed25519", "kid": self.kid,
                "x": b64(pair.public_key().as_ref())}),
        }
    }

    fn sign_with_header(&self, header: &Value, claims: &Value) -> String {
        let signing_input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let rng = SystemRandom::new();
        let signature = match &self.signer {
            Signer::Rsa(pair) => {
                let mut sig = vec![0; pair.public().modulus_len()];
                pair.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    signing_input.as_bytes(),
                    &mut sig,
                )
                .unwrap();
                sig
            }
            Signer::Ec(pair) => pair
                .sign(&rng, signing_input.as_bytes())
                .unwrap()
                .as_ref()
                .to_vec(),
            Signer::Ed(pair) => pair.sign(signing_input.as_bytes()).as_ref().to_vec(),
        };
        format!("{signing_input}.{}", b64(&signature))
    }

    fn sign(&self, claims: &Value) -> String {
        let header = json!({"alg": self.alg(), "typ": "JWT", "kid": self.kid});
        self.sign_with_header(&header, claims)
    }
}

fn jwks(keys: &[&TestKey]) -> JwkSet {
    let doc = json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()});
    JwkSet::parse(doc.to_string().as_bytes()).unwrap()
}

fn claims() -> Value {
    json!({"sub": "alice", "iss": "https://idp.test", "aud": "kafka",
        "iat": NOW - 10, "exp": NOW + 300, "scope": "kafka"})
}

fn rules() -> TokenRules {
    TokenRules {
        expected_audiences: vec!["kafka".into()],
        expected_issuer: Some("https://idp.test".into()),
        ..TokenRules::default()
    }
}

fn with(mut claims: Value, key: &str, value: Value) -> Value {
    claims[key] = value;
    claims
}

fn without(mut claims: Value, key: &str) -> Value {
    claims.as_object_mut().unwrap().remove(key);
    claims
}

#[test]
fn valid_tokens_of_each_algorithm() {
    for key in [TestKey::rsa("r1"), TestKey::ec("e1"), TestKey::ed("d1")] {
        let set = jwks(&[&key]);
        let token = key.sign(&claims());
        let valid = validate(&token, &rules(), &set, NOW_MS).unwrap_or_else(|e| {
            panic!("{}: {e}", key.alg());
        });
        assert_eq!(valid.principal_name, "alice");
        assert_eq!(valid.expires_at_ms, (NOW + 300) * 1000);
        assert_eq!(valid.issued_at_ms, (NOW - 10) * 1000);
        assert_eq!(valid.scopes.into_iter().collect::<Vec<_>>(), ["kafka"]);
    }
}

#[test]
fn expiry_and_not_before_with_the_clock_skew() {
    let key = TestKey::ec("k");
    let set = jwks(&[&key]);
    let check = |claims: Value| validate(&key.sign(&claims), &rules(), &set, NOW_MS);
    // Expired 31 s ago: past the 30 s skew. Expired 29 s ago: within it.
    assert!(matches!(
        check(with(claims(), "exp", json!(NOW - 31))),
        Err(TokenError::Expired { skew: 30, .. })
    ));
    assert!(check(with(claims(), "exp", json!(NOW - 29))).is_ok());
    assert!(matches!(
        check(with(claims(), "nbf", json!(NOW + 31))),
        Err(TokenError::NotYetValid { .. })
    ));
    assert!(check(with(claims(), "nbf", json!(NOW + 29))).is_ok());
    let strict = TokenRules {
        clock_skew: std::time::Duration::ZERO,
        ..rules()
    };
    let token = key.sign(&with(claims(), "exp", json!(NOW)));
    assert!(matches!(
        validate(&token, &strict, &set, NOW_MS),
        Err(TokenError::Expired { .. })
    ));
    // Fractional NumericDates are dates too.
    assert!(check(with(claims(), "exp", json!(NOW as f64 + 0.5))).is_ok());
}

#[test]
fn required_claims() {
    let key = TestKey::ec("k");
    let set = jwks(&[&key]);
    let check = |claims: Value| validate(&key.sign(&claims), &rules(), &set, NOW_MS);
    for claim in ["exp", "iat", "sub"] {
        let err = check(without(claims(), claim)).unwrap_err();
        assert!(
            matches!(&err, TokenError::Claim(m) if m.contains(claim)),
            "{claim}: {err}"
        );
    }
    assert!(check(with(claims(), "sub", json!("  "))).is_err());
    assert!(check(with(claims(), "sub", json!(7))).is_err());
    assert!(check(with(claims(), "exp", json!("soon"))).is_err());
    assert!(check(with(claims(), "exp", json!(-1))).is_err());
    assert!(check(with(claims(), "scope", json!(["a", 1]))).is_err());
}

#[test]
fn audience_and_issuer() {
    let key = TestKey::ec("k");
    let set = jwks(&[&key]);
    let check =
        |claims: Value, rules: &TokenRules| validate(&key.sign(&claims), rules, &set, NOW_MS);
    assert!(matches!(
        check(with(claims(), "aud", json!("other")), &rules()),
        Err(TokenError::Audience { .. })
    ));
    assert!(check(with(claims(), "aud", json!(["other", "kafka"])), &rules()).is_ok());
    assert!(matches!(
        check(without(claims(), "aud"), &rules()),
        Err(TokenError::Audience { .. })
    ));
    // No expected audience: a token that names one is refused (jose4j's default check).
    let open = TokenRules {
        expected_audiences: Vec::new(),
        ..rules()
    };
    assert!(check(claims(), &open).is_err());
    assert!(check(without(claims(), "aud"), &open).is_ok());
    assert!(matches!(
        check(with(claims(), "iss", json!("https://evil.test")), &rules()),
        Err(TokenError::Issuer { .. })
    ));
    assert!(matches!(
        check(without(claims(), "iss"), &rules()),
        Err(TokenError::Issuer { found: None, .. })
    ));
}

#[test]
fn the_principal_claim_is_configurable() {
    let key = TestKey::ec("k");
    let set = jwks(&[&key]);
    let rules = TokenRules {
        sub_claim: "preferred_username".into(),
        scope_claim: "scp".into(),
        ..rules()
    };
    let claims = with(
        with(claims(), "preferred_username", json!("bob")),
        "scp",
        json!(["read", "write"]),
    );
    let valid = validate(&key.sign(&claims), &rules, &set, NOW_MS).unwrap();
    assert_eq!(valid.principal_name, "bob");
    assert_eq!(valid.scopes.len(), 2);
}

#[test]
fn unknown_kid_then_rotation() {
    let old = TestKey::ec("2024");
    let new = TestKey::ec("2025");
    let token = new.sign(&claims());
    let before = jwks(&[&old]);
    assert_eq!(
        validate(&token, &rules(), &before, NOW_MS),
        Err(TokenError::UnknownKey("2025".into()))
    );
    let after = jwks(&[&old, &new]);
    assert!(validate(&token, &rules(), &after, NOW_MS).is_ok());
    // The old key still verifies its own tokens during the overlap.
    assert!(validate(&old.sign(&claims()), &rules(), &after, NOW_MS).is_ok());
}

#[test]
fn a_signature_by_another_key_under_a_known_kid_fails() {
    let real = TestKey::ec("k");
    let forger = TestKey::ec("k");
    let set = jwks(&[&real]);
    assert_eq!(
        validate(&forger.sign(&claims()), &rules(), &set, NOW_MS),
        Err(TokenError::BadSignature)
    );
    // A token changed after signing fails too.
    let token = real.sign(&claims());
    let parts: Vec<&str> = token.split('.').collect();
    let forged_claims = b64(with(claims(), "sub", json!("admin")).to_string().as_bytes());
    let forged = format!("{}.{forged_claims}.{}", parts[0], parts[2]);
    assert_eq!(
        validate(&forged, &rules(), &set, NOW_MS),
        Err(TokenError::BadSignature)
    );
}

#[test]
fn algorithm_confusion_is_refused() {
    let rsa = TestKey::rsa("r");
    let set = jwks(&[&rsa]);
    let claims_b64 = b64(claims().to_string().as_bytes());
    // alg none, with and without a signature.
    for alg in ["none", "None", "NONE"] {
        let header = b64(json!({"alg": alg, "kid": "r"}).to_string().as_bytes());
        for token in [
            format!("{header}.{claims_b64}."),
            format!("{header}.{claims_b64}.AAAA"),
        ] {
            assert!(
                matches!(
                    validate(&token, &rules(), &set, NOW_MS),
                    Err(TokenError::Algorithm(_))
                ),
                "{alg}"
            );
        }
    }
    // HS256 with the RSA public key's modulus as the HMAC secret: the classic confusion.
    let header = b64(json!({"alg": "HS256", "kid": "r"}).to_string().as_bytes());
    let input = format!("{header}.{claims_b64}");
    let secret = rsa.jwk()["n"].as_str().unwrap().to_owned();
    let tag = ring::hmac::sign(
        &ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes()),
        input.as_bytes(),
    );
    let token = format!("{input}.{}", b64(tag.as_ref()));
    assert!(matches!(
        validate(&token, &rules(), &set, NOW_MS),
        Err(TokenError::Algorithm(_))
    ));
    // An RSA key never verifies an ES256 token, even with its kid.
    let ec = TestKey::ec("r");
    assert!(matches!(
        validate(&ec.sign(&claims()), &rules(), &set, NOW_MS),
        Err(TokenError::NoSuitableKey { .. })
    ));
    // A key pinned to RS256 does not verify PS256 under its kid.
    let header = json!({"alg": "PS256", "kid": "r"});
    assert!(validate(
        &rsa.sign_with_header(&header, &claims()),
        &rules(),
        &set,
        NOW_MS
    )
    .is_err());
    // Critical header extensions are refused.
    let header = json!({"alg": "RS256", "kid": "r", "crit": ["exp"]});
    assert!(matches!(
        validate(
            &rsa.sign_with_header(&header, &claims()),
            &rules(),
            &set,
            NOW_MS
        ),
        Err(TokenError::Malformed(_))
    ));
}

#[test]
fn hostile_shapes_are_bounded() {
    let key = TestKey::ec("k");
    let set = jwks(&[&key]);
    let huge = format!("{}.{}.{}", "a".repeat(MAX_TOKEN_BYTES), "b", "c");
    assert!(matches!(
        validate(&huge, &rules(), &set, NOW_MS),
        Err(TokenError::TooLarge(_))
    ));
    let long_kid = json!({"alg": "ES256", "kid": "k".repeat(1001)});
    assert!(matches!(
        validate(
            &key.sign_with_header(&long_kid, &claims()),
            &rules(),
            &set,
            NOW_MS
        ),
        Err(TokenError::Malformed(_))
    ));
    for token in [
        "",
        ".",
        "..",
        "a.b",
        "a.b.c.d",
        "!!.!!.!!",
        "e30.e30.",
        "W10.e30.AA",
    ] {
        assert!(validate(token, &rules(), &set, NOW_MS).is_err(), "{token}");
    }
    // A token without kid is tried against the keys of its algorithm.
    let header = json!({"alg": "ES256"});
    assert!(validate(
        &key.sign_with_header(&header, &claims()),
        &rules(),
        &set,
        NOW_MS
    )
    .is_ok());
}

#[test]
fn initial_responses_as_kafka_reads_them() {
    let parsed = parse_initial_response(b"n,,\x01auth=Bearer abc.def-_.ghi\x01\x01").unwrap();
    assert_eq!(parsed.token, "abc.def-_.ghi");
    assert_eq!(parsed.authorization_id, "");
    let parsed = parse_initial_response(
        b"n,a=alice,\x01host=kafka\x01auth=bearer   tok\x01traceId=x y\x01\x01",
    )
    .unwrap();
    assert_eq!(parsed.authorization_id, "alice");
    assert_eq!(parsed.token, "tok");
    assert_eq!(parsed.extensions, [("host", "kafka"), ("traceId", "x y")]);
    assert_eq!(client_token("t.o.k"), b"n,,\x01auth=Bearer t.o.k\x01\x01");
    assert_eq!(
        parse_initial_response(&client_token("t.o.k"))
            .unwrap()
            .token,
        "t.o.k"
    );
    for bad in [
        &b""[..],
        b"n,,",
        b"y,,\x01auth=Bearer t\x01\x01",
        b"n,,\x01auth=Bearer t\x01",
        b"n,,\x01\x01",
        b"n,,\x01auth=Basic dXNlcg\x01\x01",
        b"n,,\x01auth=Bearer t+/=\x01\x01",
        b"n,,\x01auth=Bearer\x01\x01",
        b"n,,\x01auth=Bearer t\x01k1=v\x01\x01",
        b"n,,\x01auth=Bearer t\x01=v\x01\x01",
        b"n,a=x,y,\x01auth=Bearer t\x01\x01",
        b"n,a=,\x01auth=Bearer t\x01\x01",
        b"n,,\x01auth=Bearer t\xff\x01\x01",
    ] {
        assert!(
            parse_initial_response(bad).is_err(),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

/// Validates against a fixed set at a fixed time.
struct Fixed(JwkSet, TokenRules);

impl CredentialLookup for Fixed {
    fn oauthbearer_validate(&self, token: &str) -> Result<ValidToken, TokenError> {
        validate(token, &self.1, &self.0, NOW_MS)
    }
}

#[test]
fn the_exchange_succeeds_with_a_valid_token() {
    let key = TestKey::rsa("r");
    let lookup = Fixed(jwks(&[&key]), rules());
    let mut server = SaslServer::new(SaslMechanism::OAuthBearer);
    assert_eq!(server.mechanism(), SaslMechanism::OAuthBearer);
    let step = server
        .step(&client_token(&key.sign(&claims())), &lookup)
        .unwrap();
    assert_eq!(
        step,
        SaslStep::Complete {
            username: "alice".into(),
            principal: "User:alice".into(),
            reply: Vec::new(),
            credential_expires_at_ms: Some((NOW + 300) * 1000),
        }
    );
    assert!(server.is_complete());
    assert!(server.step(b"\x01", &lookup).is_err());
}

#[test]
fn a_bad_token_gets_kafkas_error_exchange() {
    let key = TestKey::ec("k");
    let lookup = Fixed(jwks(&[&key]), rules());
    let mut server = SaslServer::new(SaslMechanism::OAuthBearer);
    let expired = key.sign(&with(claims(), "exp", json!(NOW - 3600)));
    let Ok(SaslStep::Refused {
        challenge,
        log_reason,
    }) = server.step(&client_token(&expired), &lookup)
    else {
        panic!("an expired token must be refused with a challenge");
    };
    assert_eq!(challenge, br#"{"status":"invalid_token"}"#);
    assert!(log_reason.contains("expired"), "{log_reason}");
    let failure = server.step(b"\x01", &lookup).unwrap_err();
    assert_eq!(failure.client_message, INVALID_TOKEN_JSON);
    assert!(!server.is_complete());

    // A malformed first message: the generic text at once.
    let mut server = SaslServer::new(SaslMechanism::OAuthBearer);
    let failure = server.step(b"n,,\x01auth=\x01\x01", &lookup).unwrap_err();
    assert_eq!(
        failure.client_message,
        crate::generic_failure_message(SaslMechanism::OAuthBearer)
    );

    // Not configured: refused like any bad token.
    struct Nothing;
    impl CredentialLookup for Nothing {}
    let mut server = SaslServer::new(SaslMechanism::OAuthBearer);
    let step = server.step(&client_token("a.b.c"), &Nothing).unwrap();
    assert!(
        matches!(step, SaslStep::Refused { log_reason, .. } if log_reason.contains("not configured"))
    );
}

#[test]
fn an_authzid_must_be_the_principal() {
    let key = TestKey::ec("k");
    let lookup = Fixed(jwks(&[&key]), rules());
    let token = key.sign(&claims());
    let mut server = SaslServer::new(SaslMechanism::OAuthBearer);
    let ok = format!("n,a=alice,\u{1}auth=Bearer {token}\u{1}\u{1}");
    assert!(matches!(
        server.step(ok.as_bytes(), &lookup),
        Ok(SaslStep::Complete { .. })
    ));
    let mut server = SaslServer::new(SaslMechanism::OAuthBearer);
    let other = format!("n,a=admin,\u{1}auth=Bearer {token}\u{1}\u{1}");
    let failure = server.step(other.as_bytes(), &lookup).unwrap_err();
    assert!(
        failure.client_message.contains("(admin)"),
        "{}",
        failure.client_message
    );
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever a client sends, parsing and validation answer; they never panic.
        #[test]
        fn arbitrary_initial_responses_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = parse_initial_response(&bytes);
            let mut server = OAuthBearerServer::new();
            let lookup = Fixed(JwkSet::default(), rules());
            let _ = server.step(&bytes, &lookup);
        }

        /// Three base64url parts of arbitrary JSON-ish bytes: refused, never a panic.
        #[test]
        fn arbitrary_tokens_never_panic(
            header in proptest::collection::vec(any::<u8>(), 0..128),
            claims in proptest::collection::vec(any::<u8>(), 0..128),
            sig in proptest::collection::vec(any::<u8>(), 0..80),
            alg in prop_oneof![Just("ES256"), Just("RS256"), Just("none"), Just("HS256"), Just("EdDSA")],
        ) {
            let key = TestKey::ec("k");
            let set = jwks(&[&key]);
            let mut head = serde_json::json!({"alg": alg, "kid": "k"}).to_string().into_bytes();
            head.extend_from_slice(&header);
            for h in [head.as_slice(), header.as_slice()] {
                let token = format!("{}.{}.{}", b64(h), b64(&claims), b64(&sig));
                prop_assert!(validate(&token, &rules(), &set, NOW_MS).is_err());
            }
        }
    }
}
