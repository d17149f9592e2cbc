//! SCRAM exchanges end to end: the RFC 7677 vector, our client against our server for both
//! hashes, and every way a client can get it wrong.

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use proptest::prelude::*;

use super::*;
use crate::plain::AUTHZID_MISMATCH;
use crate::{generic_failure_message, AuthFailure, CredentialLookup, SaslStep};

/// A store of SCRAM credentials keyed by (mechanism, user).
#[derive(Default)]
struct Store(HashMap<(ScramMechanism, String), ScramCredential>);

impl Store {
    fn with(mechanism: ScramMechanism, user: &str, password: &str) -> Store {
        let mut store = Store::default();
        store.add(mechanism, user, password);
        store
    }

    fn add(&mut self, mechanism: ScramMechanism, user: &str, password: &str) {
        let credential = ScramCredential::generate(mechanism, password, 4096).unwrap();
        self.0.insert((mechanism, user.to_owned()), credential);
    }
}

impl CredentialLookup for Store {
    fn scram_credential(&self, m: ScramMechanism, user: &str) -> Option<ScramCredential> {
        self.0.get(&(m, user.to_owned())).cloned()
    }
}

fn challenge(step: SaslStep) -> Vec<u8> {
    match step {
        SaslStep::Continue(bytes) => bytes,
        other => panic!("expected a challenge, got {other:?}"),
    }
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// RFC 7677 section 3, byte for byte.
#[test]
fn rfc7677_sha256_example_verifies() {
    let salt = STANDARD.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
    let credential =
        ScramCredential::from_password(ScramMechanism::Sha256, "pencil", &salt, 4096).unwrap();
    let mut store = Store::default();
    store
        .0
        .insert((ScramMechanism::Sha256, "user".into()), credential);

    let client_first = b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    let server_first =
        "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    let client_final = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
                        p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    let server_final = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    let mut server =
        ScramServer::with_server_nonce(ScramMechanism::Sha256, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
    let first = challenge(server.step(client_first, &store).unwrap());
    assert_eq!(text(&first), server_first);
    let done = server.step(client_final.as_bytes(), &store).unwrap();
    assert_eq!(
        done,
        SaslStep::Complete {
            username: "user".into(),
            principal: "User:user".into(),
            reply: server_final.as_bytes().to_vec(),
            credential_expires_at_ms: None,
        }
    );
    assert!(server.is_complete());

    // Our client produces the same messages from the same nonce.
    let mut client = ScramClient::with_client_nonce(
        ScramMechanism::Sha256,
        "user",
        "pencil",
        "rOprNGfwEbeRWgbNEkqO",
    );
    assert_eq!(client.client_first().unwrap(), client_first);
    let final_message = client.handle_server_first(server_first.as_bytes()).unwrap();
    assert_eq!(text(&final_message), client_final);
    client.handle_server_final(server_final.as_bytes()).unwrap();
    assert!(client.is_complete());
}

/// Runs a full exchange; returns the server's outcome of the final step.
fn exchange(
    mechanism: ScramMechanism,
    store: &Store,
    user: &str,
    password: &str,
) -> Result<SaslStep, AuthFailure> {
    let mut client = ScramClient::new(mechanism, user, password);
    let mut server = ScramServer::new(mechanism);
    let first = challenge(server.step(&client.client_first().unwrap(), store)?);
    let last = client.handle_server_first(&first).unwrap();
    let outcome = server.step(&last, store);
    if let Ok(SaslStep::Complete { reply, .. }) = &outcome {
        client.handle_server_final(reply).unwrap();
        assert!(client.is_complete());
    }
    outcome
}

#[test]
fn both_hashes_round_trip_client_against_server() {
    for mechanism in ScramMechanism::ALL {
        let store = Store::with(mechanism, "alice", "alice-secret");
        let step = exchange(mechanism, &store, "alice", "alice-secret").unwrap();
        let SaslStep::Complete { principal, .. } = step else {
            panic!("not complete")
        };
        assert_eq!(principal, "User:alice");
    }
}

#[test]
fn names_with_comma_and_equals_and_non_ascii() {
    for user in ["a,b=c", "jürgen"] {
        let store = Store::with(ScramMechanism::Sha512, user, "pw");
        let step = exchange(ScramMechanism::Sha512, &store, user, "pw").unwrap();
        assert!(matches!(step, SaslStep::Complete { username, .. } if username == user));
    }
}

#[test]
fn wrong_password_fails_at_the_end_with_the_generic_message() {
    let mechanism = ScramMechanism::Sha256;
    let store = Store::with(mechanism, "alice", "alice-secret");
    let failure = exchange(mechanism, &store, "alice", "wrong").unwrap_err();
    assert_eq!(
        failure.client_message,
        generic_failure_message(mechanism.sasl())
    );
    assert_eq!(
        failure.server_final.as_deref(),
        Some(&b"e=invalid-proof"[..])
    );
    assert!(failure.log_reason.contains("alice"));
    assert!(!failure.log_reason.contains("wrong"));
}

#[test]
fn mechanism_mismatch_is_an_unknown_user() {
    let store = Store::with(ScramMechanism::Sha512, "alice", "pw");
    assert!(exchange(ScramMechanism::Sha256, &store, "alice", "pw").is_err());
}

#[test]
fn unknown_user_runs_the_whole_exchange_then_fails_like_a_wrong_password() {
    let mechanism = ScramMechanism::Sha256;
    let store = Store::with(mechanism, "alice", "pw");
    let unknown = exchange(mechanism, &store, "mallory", "pw").unwrap_err();
    let wrong = exchange(mechanism, &store, "alice", "nope").unwrap_err();
    assert_eq!(unknown.client_message, wrong.client_message);
    assert_eq!(unknown.server_final, wrong.server_final);

    // The stand-in salt is stable per name, so it does not betray the user's absence.
    let salt_of = |user: &str| {
        let mut server = ScramServer::new(mechanism);
        let first = challenge(
            server
                .step(format!("n,,n={user},r=abc").as_bytes(), &store)
                .unwrap(),
        );
        let parsed = messages::ServerFirst::parse(text(&first)).unwrap();
        (parsed.salt, parsed.iterations)
    };
    assert_eq!(salt_of("mallory"), salt_of("mallory"));
    assert_ne!(salt_of("mallory").0, salt_of("trudy").0);
    assert_eq!(salt_of("mallory").1, 4096);
}

/// Runs the first step, then lets `tamper` rewrite the client's final message.
fn tampered(tamper: impl Fn(String) -> String) -> AuthFailure {
    let mechanism = ScramMechanism::Sha256;
    let store = Store::with(mechanism, "alice", "pw");
    let mut client = ScramClient::new(mechanism, "alice", "pw");
    let mut server = ScramServer::new(mechanism);
    let first = challenge(
        server
            .step(&client.client_first().unwrap(), &store)
            .unwrap(),
    );
    let last = String::from_utf8(client.handle_server_first(&first).unwrap()).unwrap();
    let result = server.step(tamper(last).as_bytes(), &store);
    let failure = result.unwrap_err();
    assert!(!server.is_complete());
    assert_eq!(
        failure.client_message,
        generic_failure_message(mechanism.sasl())
    );
    failure
}

#[test]
fn wrong_nonce_is_refused() {
    let failure = tampered(|m| m.replacen(",r=", ",r=X", 1));
    assert!(
        failure.log_reason.contains("nonce"),
        "{}",
        failure.log_reason
    );
    assert_eq!(failure.server_final.as_deref(), Some(&b"e=other-error"[..]));
}

#[test]
fn tampered_proof_is_refused() {
    let failure = tampered(|m| {
        let (head, proof) = m.rsplit_once(",p=").unwrap();
        let mut bytes = STANDARD.decode(proof).unwrap();
        bytes[0] ^= 1;
        format!("{head},p={}", STANDARD.encode(bytes))
    });
    assert_eq!(
        failure.server_final.as_deref(),
        Some(&b"e=invalid-proof"[..])
    );
    // A proof of the wrong length is refused the same way.
    let failure = tampered(|m| format!("{},p=AAAA", m.rsplit_once(",p=").unwrap().0));
    assert_eq!(
        failure.server_final.as_deref(),
        Some(&b"e=invalid-proof"[..])
    );
}

#[test]
fn channel_binding_must_repeat_the_gs2_header() {
    let failure = tampered(|m| m.replacen("c=biws", "c=eSws", 1));
    assert_eq!(
        failure.server_final.as_deref(),
        Some(&b"e=channel-bindings-dont-match"[..])
    );
}

#[test]
fn malformed_final_message_is_refused() {
    let failure = tampered(|_| "c=biws".to_owned());
    assert_eq!(
        failure.server_final.as_deref(),
        Some(&b"e=invalid-encoding"[..])
    );
}

fn first_step(message: &str, store: &Store) -> Result<SaslStep, AuthFailure> {
    ScramServer::new(ScramMechanism::Sha256).step(message.as_bytes(), store)
}

#[test]
fn client_first_rules() {
    let store = Store::with(ScramMechanism::Sha256, "alice", "pw");
    let generic = generic_failure_message(ScramMechanism::Sha256.sasl());
    // Channel binding, mandatory extensions and delegation tokens are refused.
    for message in [
        "p=tls-unique,,n=alice,r=abc",
        "n,,m=x,n=alice,r=abc",
        "n,,n=alice,r=abc,tokenauth=true",
        "n,,n=alice,r=abc,tokenauth=TRUE",
        "",
        "n,,n=alice",
    ] {
        let failure = first_step(message, &store).unwrap_err();
        assert_eq!(failure.client_message, generic, "{message:?}");
        assert_eq!(failure.server_final, None);
    }
    // A different authzid is refused with Kafka's own message.
    let failure = first_step("n,a=admin,n=alice,r=abc", &store).unwrap_err();
    assert_eq!(failure.client_message, AUTHZID_MISMATCH);
    // The same authzid, the `y` flag, unknown extensions and tokenauth=false are fine.
    for message in [
        "n,a=alice,n=alice,r=abc",
        "y,,n=alice,r=abc",
        "n,,n=alice,r=abc,foo=bar,tokenauth=false",
    ] {
        assert!(
            matches!(first_step(message, &store), Ok(SaslStep::Continue(_))),
            "{message:?}"
        );
    }
}

#[test]
fn authzid_and_y_flag_complete_with_matching_channel_binding() {
    let mechanism = ScramMechanism::Sha256;
    let store = Store::with(mechanism, "alice", "pw");
    for gs2 in ["n,a=alice,", "y,,"] {
        // Drive our client's maths, then rewrite its messages for this gs2 header.
        let mut server = ScramServer::new(mechanism);
        let first = challenge(
            server
                .step(format!("{gs2}n=alice,r=abc").as_bytes(), &store)
                .unwrap(),
        );
        let sf = messages::ServerFirst::parse(text(&first)).unwrap();
        let salted = mechanism.salted_password(b"pw", &sf.salt, sf.iterations);
        let without_proof = messages::ClientFinal::format_without_proof(gs2, &sf.nonce);
        let auth = format!("n=alice,r=abc,{},{without_proof}", text(&first));
        let client_key = mechanism.hmac(&salted, &[b"Client Key"]);
        let signature = mechanism.hmac(&mechanism.hash(&client_key), &[auth.as_bytes()]);
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&signature)
            .map(|(a, b)| a ^ b)
            .collect();
        let last = format!("{without_proof},p={}", STANDARD.encode(proof));
        let step = server.step(last.as_bytes(), &store).unwrap();
        assert!(matches!(step, SaslStep::Complete { .. }), "gs2 {gs2:?}");
    }
}

#[test]
fn credential_below_minimum_iterations_is_refused() {
    let mut store = Store::default();
    let mut credential =
        ScramCredential::from_password(ScramMechanism::Sha256, "pw", b"salt", 4096).unwrap();
    credential.iterations = 1000;
    store
        .0
        .insert((ScramMechanism::Sha256, "old".into()), credential);
    let failure = first_step("n,,n=old,r=abc", &store).unwrap_err();
    assert!(failure.log_reason.contains("less than the minimum 4096"));
}

#[test]
fn steps_after_the_end_are_refused() {
    let mechanism = ScramMechanism::Sha512;
    let store = Store::with(mechanism, "alice", "pw");
    let mut server = ScramServer::new(mechanism);
    assert!(server.step(b"junk", &store).is_err());
    assert!(
        server.step(b"n,,n=alice,r=abc", &store).is_err(),
        "failed stays failed"
    );
}

#[test]
fn client_checks_the_server() {
    let mechanism = ScramMechanism::Sha256;
    let fresh = || {
        let mut c = ScramClient::with_client_nonce(mechanism, "u", "pw", "abc");
        c.client_first().unwrap();
        c
    };
    assert_eq!(
        fresh().handle_server_first(b"r=xyz,s=AQID,i=4096"),
        Err(ScramClientError::NonceMismatch)
    );
    assert_eq!(
        fresh()
            .handle_server_first(b"r=abcdef,s=AQID,i=1000")
            .unwrap_err()
            .to_string(),
        "Requested iterations 1000 is less than the minimum 4096 for SCRAM-SHA-256"
    );
    let mut c = fresh();
    c.handle_server_first(b"r=abcdef,s=AQID,i=4096").unwrap();
    assert_eq!(
        c.handle_server_final(b"e=invalid-proof")
            .unwrap_err()
            .to_string(),
        "Sasl authentication using SCRAM-SHA-256 failed with error: invalid-proof"
    );
    let mut c = fresh();
    c.handle_server_first(b"r=abcdef,s=AQID,i=4096").unwrap();
    assert_eq!(
        c.handle_server_final(b"v=AQID"),
        Err(ScramClientError::BadServerSignature)
    );
    assert!(!c.is_complete());
    let mut c = ScramClient::new(mechanism, "u", "pw");
    assert!(matches!(
        c.handle_server_first(b"r=a,s=AQID,i=4096"),
        Err(ScramClientError::OutOfOrder(_))
    ));
    assert!(!format!("{c:?}").contains("pw"));
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..80),
        "[nyp=a,rmcsvie0-9A-Za-z+/]{0,60}".prop_map(String::into_bytes),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_client_first_never_panics(token in bytes()) {
        let store = Store::with(ScramMechanism::Sha256, "alice", "pw");
        let _ = ScramServer::new(ScramMechanism::Sha256).step(&token, &store);
    }

    #[test]
    fn random_client_final_never_panics_or_succeeds(token in bytes()) {
        let store = Store::default();
        let mut server = ScramServer::new(ScramMechanism::Sha512);
        server.step(b"n,,n=alice,r=abc", &store).unwrap();
        prop_assert!(server.step(&token, &store).is_err());
    }

    #[test]
    fn random_server_messages_never_panic_the_client(first in bytes(), last in bytes()) {
        // Huge iteration counts are valid but would make the test crawl.
        let slow = std::str::from_utf8(&first)
            .ok()
            .and_then(|t| messages::ServerFirst::parse(t).ok())
            .is_some_and(|m| m.iterations > 20_000);
        let mut client = ScramClient::with_client_nonce(ScramMechanism::Sha256, "u", "pw", "a");
        client.client_first().unwrap();
        if !slow && client.handle_server_first(&first).is_ok() {
            prop_assert!(client.handle_server_final(&last).is_err());
        }
    }
}

/// What librdkafka 2.0 (any release before 2.6.1) sends, rebuilt from its SCRAM code with
/// fixed nonces and salt: client-first `n,,n=<user>,r=<cnonce>`, and a client-final whose
/// nonce repeats the client's part in front of the combined nonce, proven over exactly those
/// bytes. The keys are derived here with the hash crates directly, not through this crate.
struct Librdkafka20 {
    mechanism: ScramMechanism,
    client_first_bare: String,
    salted_password: Vec<u8>,
}

/// librdkafka's nonce alphabet is 0x2d..=0x7e (no comma); 32 characters.
const RDKAFKA_CNONCE: &str = "q-9Z~x:Kd/;4@]Uw^t_e8Pb>Lm<YcR2?";
const SERVER_NONCE: &str = "1hVz8pQqk3Fw0cS9TnL4mYbR";
const FIXED_SALT: &[u8] = b"librdkafka-capture-salt-16b";

impl Librdkafka20 {
    fn new(mechanism: ScramMechanism, user: &str, password: &str) -> Librdkafka20 {
        let mut salted_password = vec![0u8; mechanism.hash_len()];
        match mechanism {
            ScramMechanism::Sha256 => pbkdf2::pbkdf2_hmac::<sha2::Sha256>(
                password.as_bytes(),
                FIXED_SALT,
                4096,
                &mut salted_password,
            ),
            ScramMechanism::Sha512 => pbkdf2::pbkdf2_hmac::<sha2::Sha512>(
                password.as_bytes(),
                FIXED_SALT,
                4096,
                &mut salted_password,
            ),
        }
        Librdkafka20 {
            mechanism,
            client_first_bare: format!("n={user},r={RDKAFKA_CNONCE}"),
            salted_password,
        }
    }

    fn client_first(&self) -> Vec<u8> {
        format!("n,,{}", self.client_first_bare).into_bytes()
    }

    fn hmac(&self, key: &[u8], data: &[u8]) -> Vec<u8> {
        use hmac::{Hmac, Mac};
        match self.mechanism {
            ScramMechanism::Sha256 => {
                let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
            ScramMechanism::Sha512 => {
                let mut mac = Hmac::<sha2::Sha512>::new_from_slice(key).unwrap();
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
        }
    }

    fn hash(&self, data: &[u8]) -> Vec<u8> {
        use sha2::Digest;
        match self.mechanism {
            ScramMechanism::Sha256 => sha2::Sha256::digest(data).to_vec(),
            ScramMechanism::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    /// The client-final for `sent_nonce`, its proof computed over `signed_nonce`'s
    /// auth message (the same for an honest client), and the server signature to expect.
    fn client_final(
        &self,
        server_first: &str,
        sent_nonce: &str,
        signed_nonce: &str,
    ) -> (String, Vec<u8>) {
        let without_proof = |nonce: &str| format!("c=biws,r={nonce}");
        let auth_message = format!(
            "{},{server_first},{}",
            self.client_first_bare,
            without_proof(signed_nonce)
        );
        let client_key = self.hmac(&self.salted_password, b"Client Key");
        let stored_key = self.hash(&client_key);
        let signature = self.hmac(&stored_key, auth_message.as_bytes());
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&signature)
            .map(|(k, s)| k ^ s)
            .collect();
        let server_key = self.hmac(&self.salted_password, b"Server Key");
        let server_signature = self.hmac(&server_key, auth_message.as_bytes());
        let verifier = format!("v={}", STANDARD.encode(server_signature)).into_bytes();
        (
            format!("{},p={}", without_proof(sent_nonce), STANDARD.encode(proof)),
            verifier,
        )
    }
}

fn librdkafka_store(mechanism: ScramMechanism) -> Store {
    let mut store = Store::default();
    let credential =
        ScramCredential::from_password(mechanism, "alice-secret", FIXED_SALT, 4096).unwrap();
    store.0.insert((mechanism, "alice".into()), credential);
    store
}

#[test]
fn librdkafka_before_2_6_1_logs_in_with_its_doubled_nonce() {
    for mechanism in ScramMechanism::ALL {
        let store = librdkafka_store(mechanism);
        let client = Librdkafka20::new(mechanism, "alice", "alice-secret");
        let mut server = ScramServer::with_server_nonce(mechanism, SERVER_NONCE);
        let first = challenge(server.step(&client.client_first(), &store).unwrap());
        let server_first = text(&first).to_owned();
        let combined = format!("{RDKAFKA_CNONCE}{SERVER_NONCE}");
        assert!(server_first.starts_with(&format!("r={combined},")));
        let doubled = format!("{RDKAFKA_CNONCE}{combined}");
        let (last, verifier) = client.client_final(&server_first, &doubled, &doubled);
        assert_eq!(
            server.step(last.as_bytes(), &store).unwrap(),
            SaslStep::Complete {
                username: "alice".into(),
                principal: "User:alice".into(),
                reply: verifier,
                credential_expires_at_ms: None,
            },
            "{mechanism}"
        );
    }
}

#[test]
fn the_doubled_nonce_is_signed_as_sent_and_other_prefixes_are_refused() {
    let mechanism = ScramMechanism::Sha512;
    let store = librdkafka_store(mechanism);
    let client = Librdkafka20::new(mechanism, "alice", "alice-secret");
    let combined = format!("{RDKAFKA_CNONCE}{SERVER_NONCE}");
    let doubled = format!("{RDKAFKA_CNONCE}{combined}");
    let other_prefix = format!("X{combined}");
    for (sent, signed, expected) in [
        // The doubled nonce, but proven over the RFC's auth message: not what was sent.
        (&doubled, &combined, "e=invalid-proof"),
        // A prefix other than the client's nonce, even honestly signed.
        (&other_prefix, &other_prefix, "e=other-error"),
        // The client's nonce twice more.
        (
            &format!("{RDKAFKA_CNONCE}{doubled}"),
            &format!("{RDKAFKA_CNONCE}{doubled}"),
            "e=other-error",
        ),
    ] {
        let mut server = ScramServer::with_server_nonce(mechanism, SERVER_NONCE);
        let first = challenge(server.step(&client.client_first(), &store).unwrap());
        let (last, _) = client.client_final(text(&first), sent, signed);
        let failure = server.step(last.as_bytes(), &store).unwrap_err();
        assert_eq!(
            failure.server_final.as_deref(),
            Some(expected.as_bytes()),
            "sent {sent}"
        );
        assert_eq!(
            failure.client_message,
            generic_failure_message(mechanism.sasl())
        );
    }
    // And the same client with the fixed (2.6.1) nonce logs in as before.
    let mut server = ScramServer::with_server_nonce(mechanism, SERVER_NONCE);
    let first = challenge(server.step(&client.client_first(), &store).unwrap());
    let (last, _) = client.client_final(text(&first), &combined, &combined);
    assert!(matches!(
        server.step(last.as_bytes(), &store),
        Ok(SaslStep::Complete { .. })
    ));
}

/// A lookup whose real users have 8192 iterations, as most of a cluster's might.
struct EightK(Store);

impl CredentialLookup for EightK {
    fn scram_credential(&self, m: ScramMechanism, user: &str) -> Option<ScramCredential> {
        self.0.scram_credential(m, user)
    }

    fn stand_in_iterations(&self, _: ScramMechanism) -> u32 {
        8192
    }
}

#[test]
fn an_unknown_users_stand_in_looks_like_the_real_ones() {
    let mechanism = ScramMechanism::Sha512;
    let lookup = EightK(Store::with(mechanism, "alice", "pw"));
    let mut server = ScramServer::new(mechanism);
    let first = challenge(server.step(b"n,,n=mallory,r=abc", &lookup).unwrap());
    let parsed = messages::ServerFirst::parse(text(&first)).unwrap();
    // The iterations the real users have, not a constant that sets the stand-in apart, and a
    // salt shaped like the ones Kafka's tools store.
    assert_eq!(parsed.iterations, 8192);
    assert!(parsed
        .salt
        .iter()
        .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
}
