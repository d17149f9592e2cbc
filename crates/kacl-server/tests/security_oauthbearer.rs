//! SASL/OAUTHBEARER end to end on a real listener: tokens signed here (ES256, ring) and
//! verified against a JWKS served over HTTP by a small in-test endpoint, so the server's
//! fetch, refresh on an unknown `kid`, Kafka's `invalid_token` exchange, the session lifetime
//! bounded by the token's `exp`, and the escaped log line are all the real code paths.

mod common;
mod security_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use kacl_sasl::oauthbearer::client_token;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use security_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const ISSUER: &str = "https://idp.kacl.test";
const SASL_AUTHENTICATION_FAILED: i16 = 58;

struct SigningKey {
    kid: String,
    pair: EcdsaKeyPair,
}

impl SigningKey {
    fn new(kid: &str) -> SigningKey {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        SigningKey {
            kid: kid.into(),
            pair,
        }
    }

    fn jwk(&self) -> serde_json::Value {
        let point = self.pair.public_key().as_ref();
        serde_json::json!({"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256",
            "kid": self.kid, "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65])})
    }

    fn sign(&self, claims: &serde_json::Value) -> String {
        let header = serde_json::json!({"alg": "ES256", "typ": "JWT", "kid": self.kid});
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let sig = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn claims(sub: &str, lifetime: i64) -> serde_json::Value {
    serde_json::json!({"sub": sub, "iss": ISSUER, "aud": "kafka", "iat": now(),
        "exp": now() + lifetime, "scope": "kafka"})
}

/// A JWKS endpoint: serves whatever document it holds now and counts the fetches.
#[derive(Clone)]
struct JwksEndpoint {
    document: Arc<Mutex<String>>,
    fetches: Arc<AtomicUsize>,
    url: String,
}

impl JwksEndpoint {
    async fn start(keys: &[&SigningKey]) -> JwksEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks", listener.local_addr().unwrap());
        let endpoint = JwksEndpoint {
            document: Arc::new(Mutex::new(String::new())),
            fetches: Arc::new(AtomicUsize::new(0)),
            url,
        };
        endpoint.publish(keys);
        let served = endpoint.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve_one(stream, served.clone()));
            }
        });
        endpoint
    }

    fn publish(&self, keys: &[&SigningKey]) {
        let doc = serde_json::json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()});
        *self.document.lock().unwrap() = doc.to_string();
    }
}

async fn serve_one(mut stream: TcpStream, endpoint: JwksEndpoint) {
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    endpoint.fetches.fetch_add(1, Ordering::SeqCst);
    let body = endpoint.document.lock().unwrap().clone();
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
}

async fn oauth_server(endpoint: &JwksEndpoint, extra: &[(&str, &str)]) -> TestServer {
    let mut props = vec![
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("sasl.enabled.mechanisms", "OAUTHBEARER"),
        ("super.users", "User:alice"),
        ("sasl.oauthbearer.jwks.endpoint.url", endpoint.url.as_str()),
        ("sasl.oauthbearer.expected.audience", "kafka"),
        ("sasl.oauthbearer.expected.issuer", ISSUER),
    ];
    props.extend_from_slice(extra);
    start(&props).await
}

async fn login(server: &TestServer, token: &str) -> (Wire<TcpStream>, i16, Vec<u8>, i64) {
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    let hs = wire.handshake("OAUTHBEARER").await;
    assert_eq!(hs.error_code, 0, "{hs:?}");
    let resp = wire.authenticate(&client_token(token)).await;
    (
        wire,
        resp.error_code,
        resp.auth_bytes.into_owned(),
        resp.session_lifetime_ms,
    )
}

#[tokio::test]
async fn a_valid_token_authenticates_its_subject() {
    let key = SigningKey::new("k1");
    let endpoint = JwksEndpoint::start(&[&key]).await;
    let server = oauth_server(&endpoint, &[]).await;
    let (mut wire, code, bytes, lifetime) = login(&server, &key.sign(&claims("alice", 300))).await;
    assert_eq!(code, 0);
    assert!(bytes.is_empty(), "success bytes are empty");
    // KIP-368: the session ends with the token (300 s), reauth or not.
    assert!(lifetime > 290_000 && lifetime <= 300_000, "{lifetime}");
    // alice is a super user: the principal really is User:alice.
    assert_eq!(wire.describe_acls().await.error_code, 0);
    assert_eq!(
        endpoint.fetches.load(Ordering::SeqCst),
        1,
        "one fetch at start"
    );
}

#[tokio::test]
async fn a_bad_token_gets_invalid_token_then_the_failure_and_an_escaped_log_line() {
    let key = SigningKey::new("k1");
    let endpoint = JwksEndpoint::start(&[&key]).await;
    let server = oauth_server(&endpoint, &[]).await;
    let (log, _guard) = LogCapture::start("kacl_service=warn");
    // Expired an hour ago.
    let mut expired = claims("alice", 0);
    expired["exp"] = serde_json::json!(now() - 3600);
    let (mut wire, code, bytes, _) = login(&server, &key.sign(&expired)).await;
    assert_eq!(code, 0, "the error travels as the server's challenge first");
    assert_eq!(bytes, br#"{"status":"invalid_token"}"#);
    let resp = wire.authenticate(b"\x01").await;
    assert_eq!(resp.error_code, SASL_AUTHENTICATION_FAILED);
    assert_eq!(
        resp.error_message.as_deref(),
        Some(r#"{"status":"invalid_token"}"#)
    );
    let lines = log.lines_with("refused authentication token");
    assert_eq!(lines.len(), 1, "{}", log.text());
    assert!(lines[0].contains("expired"), "{}", lines[0]);
    // A client-chosen kid lands in the reason: escaped, it cannot forge a line.
    let hostile = SigningKey::new("x\nINFO kacl: authenticated principal=User:admin");
    let (_, code, _, _) = login(&server, &hostile.sign(&claims("alice", 300))).await;
    assert_eq!(code, 0);
    let lines = log.lines_with("refused authentication token");
    assert_eq!(lines.len(), 2, "{}", log.text());
    assert!(
        lines[1].contains(r"x\nINFO kacl: authenticated"),
        "{}",
        lines[1]
    );
    assert!(
        !log.text().lines().any(|l| l.starts_with("INFO kacl")),
        "{}",
        log.text()
    );

    for (what, token) in [
        ("wrong audience", {
            let mut c = claims("alice", 300);
            c["aud"] = "other".into();
            key.sign(&c)
        }),
        ("wrong issuer", {
            let mut c = claims("alice", 300);
            c["iss"] = "https://evil.test".into();
            key.sign(&c)
        }),
        (
            "another key",
            SigningKey::new("k1").sign(&claims("alice", 300)),
        ),
    ] {
        let (_, code, bytes, _) = login(&server, &token).await;
        assert_eq!(
            (code, bytes.as_slice()),
            (0, &br#"{"status":"invalid_token"}"#[..]),
            "{what}"
        );
    }
}

#[tokio::test]
async fn a_malformed_first_message_fails_at_once() {
    let key = SigningKey::new("k1");
    let endpoint = JwksEndpoint::start(&[&key]).await;
    let server = oauth_server(&endpoint, &[]).await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("OAUTHBEARER").await.error_code, 0);
    let resp = wire
        .authenticate(b"n,,\x01auth=Basic YWxpY2U6c2VjcmV0\x01\x01")
        .await;
    assert_eq!(resp.error_code, SASL_AUTHENTICATION_FAILED);
    assert_eq!(
        resp.error_message.as_deref(),
        Some(
            "Authentication failed during authentication due to invalid credentials with SASL \
             mechanism OAUTHBEARER"
        )
    );
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_its_kid_shows_up() {
    let old = SigningKey::new("2025-01");
    let endpoint = JwksEndpoint::start(&[&old]).await;
    // No scheduled refresh within the test: only the unknown kid can bring the new key.
    let server = oauth_server(&endpoint, &[]).await;
    let new = SigningKey::new("2025-02");
    endpoint.publish(&[&old, &new]);
    let token = new.sign(&claims("alice", 300));
    let (_, code, bytes, _) = login(&server, &token).await;
    assert_eq!(
        (code, bytes.as_slice()),
        (0, &br#"{"status":"invalid_token"}"#[..]),
        "as in Kafka, the login that finds the unknown kid fails"
    );
    let mut accepted = false;
    for _ in 0..100 {
        let (_, code, bytes, _) = login(&server, &token).await;
        if code == 0 && bytes.is_empty() {
            accepted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(accepted, "the new key never arrived");
    assert_eq!(
        endpoint.fetches.load(Ordering::SeqCst),
        2,
        "start + one expedited"
    );
    // The old key's tokens still pass, and random kids do not hammer the provider.
    let (_, code, bytes, _) = login(&server, &old.sign(&claims("alice", 300))).await;
    assert_eq!((code, bytes.len()), (0, 0));
    for i in 0..40 {
        let stranger = SigningKey::new(&format!("random-{i}"));
        let _ = login(&server, &stranger.sign(&claims("alice", 300))).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fetches = endpoint.fetches.load(Ordering::SeqCst);
    assert!(
        fetches <= 2 + 16 + 1,
        "{fetches} fetches for 40 random kids"
    );
}

#[tokio::test]
async fn no_keys_no_start() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    let config = common::bare_config(
        dir.path(),
        &[
            ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
            ("sasl.enabled.mechanisms", "OAUTHBEARER"),
            ("sasl.oauthbearer.jwks.endpoint.url", url.as_str()),
            ("kacl.oauthbearer.jwks.timeout.ms", "300"),
        ],
    );
    let started = kacl_server::server::Server::start(config).await;
    let Err(err) = started else {
        panic!("a server without keys must not start");
    };
    assert!(
        err.to_string()
            .contains("sasl.oauthbearer.jwks.endpoint.url"),
        "{err}"
    );
}
