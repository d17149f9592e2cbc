//! SCRAM end to end over TCP: credentials made with AlterUserScramCredentials (and the
//! bootstrap key) log in with both hashes; wrong passwords, nonces and proofs fail cleanly;
//! Describe/AlterUserScramCredentials answer with Kafka's codes and texts.

mod common;
mod security_support;

use std::time::{Duration, Instant};

use kacl_protocol::messages::alter_user_scram_credentials::AlterUserScramCredentialsResult;
use kacl_sasl::{ScramClient, ScramMechanism};
use security_support::*;

const SHA256: ScramMechanism = ScramMechanism::Sha256;
const SHA512: ScramMechanism = ScramMechanism::Sha512;

fn codes(results: &[AlterUserScramCredentialsResult<'_>]) -> Vec<(String, i16, Option<String>)> {
    results
        .iter()
        .map(|r| {
            (
                r.user.to_string(),
                r.error_code,
                r.error_message.as_deref().map(str::to_owned),
            )
        })
        .collect()
}

async fn admin(server: &TestServer) -> Wire<tokio::net::TcpStream> {
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    wire.plain_login("admin", "admin-secret").await;
    wire
}

#[tokio::test]
async fn credentials_made_over_the_api_log_in_with_both_hashes() {
    let server = sasl_server(&[]).await;
    let mut admin = admin(&server).await;
    let resp = admin
        .alter_scram(
            vec![],
            vec![
                upsertion("carol", SHA256, "carol-256", 4096),
                upsertion("dave", SHA512, "dave-512", 8192),
            ],
        )
        .await;
    assert_eq!(
        codes(&resp.results),
        vec![("carol".into(), 0, None), ("dave".into(), 0, None)]
    );

    for (mechanism, user, password) in
        [(SHA256, "carol", "carol-256"), (SHA512, "dave", "dave-512")]
    {
        let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
        let last = wire.scram_login(mechanism, user, password).await;
        assert_eq!(last.error_code, 0, "{mechanism} login of {user}: {last:?}");
        assert_eq!(last.session_lifetime_ms, 0);
        // Authenticated as User:<name>: not a super user, so DescribeAcls is refused.
        assert_eq!(wire.describe_acls().await.error_code, 31);

        // The other hash has no credential for this user: fails like a wrong password.
        let other = if mechanism == SHA256 { SHA512 } else { SHA256 };
        let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
        let last = wire.scram_login(other, user, password).await;
        assert_eq!(last.error_code, 58);
        assert!(wire.is_closed().await);
    }
}

#[tokio::test]
async fn wrong_password_fails_with_kafkas_message_after_the_delay_then_closes() {
    let server = sasl_server(&[("connection.failed.authentication.delay.ms", "300")]).await;
    let mut admin = admin(&server).await;
    for mechanism in [SHA256, SHA512] {
        let resp = admin
            .alter_scram(vec![], vec![upsertion("erin", mechanism, "right", 4096)])
            .await;
        assert_eq!(resp.results[0].error_code, 0);
        let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
        let started = Instant::now();
        let last = wire.scram_login(mechanism, "erin", "wrong").await;
        assert_eq!(last.error_code, 58);
        assert_eq!(
            last.error_message.as_deref(),
            Some(
                format!(
                    "Authentication failed during authentication due to invalid credentials \
                     with SASL mechanism {mechanism}"
                )
                .as_str()
            )
        );
        assert!(last.auth_bytes.is_empty(), "no server signature on failure");
        assert!(
            started.elapsed() >= Duration::from_millis(300),
            "connection.failed.authentication.delay.ms is waited before answering"
        );
        assert!(wire.is_closed().await);

        // An unknown user fails the same way (and is not told apart at the first message).
        let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
        let last = wire.scram_login(mechanism, "nobody", "x").await;
        assert_eq!(last.error_code, 58);
    }
}

#[tokio::test]
async fn wrong_nonce_and_forged_proof_are_refused() {
    let server = sasl_server(&[]).await;
    let mut admin = admin(&server).await;
    admin
        .alter_scram(vec![], vec![upsertion("frank", SHA256, "pw", 4096)])
        .await;

    // A client-final whose nonce is not the server's.
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("SCRAM-SHA-256").await.error_code, 0);
    let mut scram = ScramClient::new(SHA256, "frank", "pw");
    let first = wire.authenticate(&scram.client_first().unwrap()).await;
    assert_eq!(first.error_code, 0);
    let final_message =
        String::from_utf8(scram.handle_server_first(&first.auth_bytes).unwrap()).unwrap();
    let tampered_nonce = final_message.replacen(",r=", ",r=X", 1);
    let last = wire.authenticate(tampered_nonce.as_bytes()).await;
    assert_eq!(last.error_code, 58);
    assert!(wire.is_closed().await);

    // A proof with one bit flipped.
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("SCRAM-SHA-256").await.error_code, 0);
    let mut scram = ScramClient::new(SHA256, "frank", "pw");
    let first = wire.authenticate(&scram.client_first().unwrap()).await;
    let final_message =
        String::from_utf8(scram.handle_server_first(&first.auth_bytes).unwrap()).unwrap();
    let (without_proof, proof) = final_message.rsplit_once(",p=").unwrap();
    let mut proof = base64_decode(proof);
    proof[0] ^= 1;
    let forged = format!("{without_proof},p={}", base64_encode(&proof));
    let last = wire.authenticate(forged.as_bytes()).await;
    assert_eq!(last.error_code, 58);
    assert!(wire.is_closed().await);

    // Garbage as the first message.
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("SCRAM-SHA-512").await.error_code, 0);
    let last = wire.authenticate(b"not scram").await;
    assert_eq!(last.error_code, 58);
    assert!(wire.is_closed().await);
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn alter_and_describe_follow_kafkas_rules_and_codes() {
    let server = sasl_server(&[]).await;
    let mut admin = admin(&server).await;

    // Describe with nothing stored: all users is empty; a named user is 91.
    let all = admin.describe_scram(None).await;
    assert_eq!((all.error_code, all.results.len()), (0, 0));
    assert_eq!(all.error_message.as_deref(), Some(""));
    let missing = admin.describe_scram(Some(&["ghost"])).await;
    assert_eq!(missing.results[0].error_code, 91);
    assert_eq!(
        missing.results[0].error_message.as_deref(),
        Some("Attempt to describe a user credential that does not exist: ghost")
    );

    // Add both hashes for one user in two requests (one user twice in a request is 92).
    let resp = admin
        .alter_scram(vec![], vec![upsertion("gina", SHA256, "a", 4096)])
        .await;
    assert_eq!(codes(&resp.results), vec![("gina".into(), 0, None)]);
    let resp = admin
        .alter_scram(vec![], vec![upsertion("gina", SHA512, "b", 10000)])
        .await;
    assert_eq!(resp.results[0].error_code, 0);
    let described = admin.describe_scram(Some(&["gina"])).await;
    let infos: Vec<(i8, i32)> = described.results[0]
        .credential_infos
        .iter()
        .map(|c| (c.mechanism, c.iterations))
        .collect();
    assert_eq!(infos, vec![(1, 4096), (2, 10000)]);
    assert_eq!(described.results[0].error_message.as_deref(), Some(""));

    // Alter (replace) the SHA-256 credential: the new password works, the old one does not.
    admin
        .alter_scram(vec![], vec![upsertion("gina", SHA256, "a2", 4096)])
        .await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.scram_login(SHA256, "gina", "a2").await.error_code, 0);
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.scram_login(SHA256, "gina", "a").await.error_code, 58);

    // Every refusal, in one request.
    let resp = admin
        .alter_scram(
            vec![
                deletion("ghost", 1), // not stored
                deletion("gina", 1),  // fine, then named again below
                deletion("", 1),      // empty name
                deletion("hank", 3),  // unknown mechanism
            ],
            vec![
                upsertion("gina", SHA256, "x", 4096),  // second change for gina
                upsertion("ivan", SHA256, "x", 4095),  // too few
                upsertion("jane", SHA512, "x", 16385), // too many
                upsertion("kim", SHA512, "x", 16384),  // fine: the maximum
            ],
        )
        .await;
    let mut got = codes(&resp.results);
    got.sort();
    let text = |s: &str| Some(s.to_owned());
    let mut want = vec![
        ("".to_owned(), 93, text("Username must not be empty")),
        (
            "ghost".into(),
            91,
            text("Attempt to delete a user credential that does not exist"),
        ),
        (
            "gina".into(),
            92,
            text("A user credential cannot be altered twice in the same request"),
        ),
        ("hank".into(), 33, text("Unknown SCRAM mechanism")),
        ("ivan".into(), 93, text("Too few iterations")),
        ("jane".into(), 93, text("Too many iterations")),
        ("kim".into(), 0, None),
    ];
    want.sort();
    assert_eq!(got, want);
    // Successes come first, then refusals in the order they were found.
    assert_eq!(resp.results[0].user, "kim");
    assert_eq!(resp.results[1].user, "ghost");
    // gina's deletion was dropped with the duplicate: her credential is still there.
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.scram_login(SHA256, "gina", "a2").await.error_code, 0);

    // kacl's extra checks: empty salt or salted password.
    let mut empty_salt = upsertion("lena", SHA256, "x", 4096);
    empty_salt.salt = Vec::new().into();
    let mut empty_password = upsertion("mike", SHA256, "x", 4096);
    empty_password.salted_password = Vec::new().into();
    let resp = admin
        .alter_scram(vec![], vec![empty_salt, empty_password])
        .await;
    assert_eq!(
        codes(&resp.results),
        vec![
            ("lena".into(), 93, text("Salt must not be empty")),
            ("mike".into(), 93, text("Salted password must not be empty")),
        ]
    );

    // Describe: duplicates are 92 once; all users come by name.
    let described = admin
        .describe_scram(Some(&["gina", "kim", "gina", "nobody"]))
        .await;
    let summary: Vec<(String, i16)> = described
        .results
        .iter()
        .map(|r| (r.user.to_string(), r.error_code))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("gina".into(), 92),
            ("kim".into(), 0),
            ("nobody".into(), 91)
        ]
    );
    assert_eq!(
        described.results[0].error_message.as_deref(),
        Some("Cannot describe SCRAM credentials for the same user twice in a single request: gina")
    );
    let all = admin.describe_scram(Some(&[])).await;
    let users: Vec<String> = all.results.iter().map(|r| r.user.to_string()).collect();
    assert_eq!(users, vec!["gina", "kim"]);

    // Delete both of gina's credentials (two requests: one change per user per request).
    for code in [1, 2] {
        let resp = admin
            .alter_scram(vec![deletion("gina", code)], vec![])
            .await;
        assert_eq!(codes(&resp.results), vec![("gina".into(), 0, None)]);
    }
    let resp = admin.alter_scram(vec![deletion("gina", 2)], vec![]).await;
    assert_eq!(resp.results[0].error_code, 91);
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.scram_login(SHA256, "gina", "a2").await.error_code, 58);
}

#[tokio::test]
async fn credential_admin_needs_cluster_alter_and_describe() {
    let server = sasl_server(&[]).await;
    let mut alice = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    alice.plain_login("alice", "alice-secret").await;

    let resp = alice
        .alter_scram(
            vec![deletion("zed", 1)],
            vec![
                upsertion("bob", SHA256, "x", 4096),
                upsertion("amy", SHA256, "x", 4096),
            ],
        )
        .await;
    let got = codes(&resp.results);
    let users: Vec<&str> = got.iter().map(|(u, _, _)| u.as_str()).collect();
    assert_eq!(
        users,
        vec!["amy", "bob", "zed"],
        "one result per user, sorted"
    );
    assert!(got.iter().all(|(_, code, _)| *code == 31));

    let described = alice.describe_scram(Some(&["amy", "bob"])).await;
    assert_eq!(described.error_code, 31);
    assert_eq!(
        described.error_message.as_deref(),
        Some("Cluster authorization failed.")
    );
    assert_eq!(described.results.len(), 2);
    assert!(described
        .results
        .iter()
        .all(|r| r.error_code == 31 && r.user.is_empty()));

    // Nothing was written.
    let mut admin = admin(&server).await;
    assert!(admin.describe_scram(None).await.results.is_empty());
}

#[tokio::test]
async fn credentials_survive_a_restart_and_bootstrap_starts_a_scram_only_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let password_file = dir.path().join("admin.password");
    std::fs::write(&password_file, "boot-secret\n").unwrap();
    let bootstrap = format!(
        "SCRAM-SHA-512=[name=root,password-file={}]",
        password_file.display()
    );
    let data = tempfile::tempdir().unwrap();
    let props = [
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512"),
        ("super.users", "User:root"),
        ("kacl.scram.bootstrap.credentials", bootstrap.as_str()),
    ];
    let server = crate::common::start_bare_in(data, &props).await;

    // PLAIN is not enabled: only SCRAM gets in, and the bootstrap admin can.
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("PLAIN").await.error_code, 33);
    let mut root = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(
        root.scram_login(SHA512, "root", "boot-secret")
            .await
            .error_code,
        0
    );
    assert_eq!(
        root.describe_acls().await.error_code,
        0,
        "root is a super user"
    );
    // The admin makes a user and removes the bootstrap credential's twin... then restarts.
    let resp = root
        .alter_scram(vec![], vec![upsertion("svc", SHA256, "svc-pw", 4096)])
        .await;
    assert_eq!(resp.results[0].error_code, 0);
    let resp = root.alter_scram(vec![deletion("root", 2)], vec![]).await;
    assert_eq!(resp.results[0].error_code, 0);
    drop(root);

    let TestServer { server, dir: data } = server;
    server.shutdown().await;
    let server = crate::common::start_bare_in(data, &props).await;
    // The store had credentials, so the bootstrap entry was not applied again.
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(
        wire.scram_login(SHA512, "root", "boot-secret")
            .await
            .error_code,
        58,
        "a deleted bootstrap credential does not come back"
    );
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(
        wire.scram_login(SHA256, "svc", "svc-pw").await.error_code,
        0
    );
    // Never the password on disk: the store holds salted keys only.
    let stored = server
        .server
        .state()
        .store
        .list_scram_credentials()
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert!(!String::from_utf8_lossy(&stored[0].2.stored_key).contains("svc-pw"));
}

#[tokio::test]
async fn a_deleted_bootstrap_credential_stays_deleted_even_when_it_was_the_last() {
    let data = tempfile::tempdir().unwrap();
    let props = [
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("sasl.enabled.mechanisms", "SCRAM-SHA-512"),
        ("super.users", "User:root"),
        (
            "kacl.scram.bootstrap.credentials",
            "SCRAM-SHA-512=[name=root,password=boot-secret]",
        ),
    ];
    let server = crate::common::start_bare_in(data, &props).await;
    let mut root = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(
        root.scram_login(SHA512, "root", "boot-secret")
            .await
            .error_code,
        0
    );
    // The store's only credential goes; its login fails at once.
    let resp = root.alter_scram(vec![deletion("root", 2)], vec![]).await;
    assert_eq!(resp.results[0].error_code, 0);
    drop(root);
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(
        wire.scram_login(SHA512, "root", "boot-secret")
            .await
            .error_code,
        58
    );

    let TestServer { server, dir: data } = server;
    server.shutdown().await;
    let server = crate::common::start_bare_in(data, &props).await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(
        wire.scram_login(SHA512, "root", "boot-secret")
            .await
            .error_code,
        58,
        "the store was bootstrapped once; the key is not applied again"
    );
    assert_eq!(server.server.state().scram.user_count(), 0);
}

#[tokio::test]
async fn a_trailing_byte_after_the_alter_body_is_accepted_as_by_kafka() {
    // librdkafka 2.x sends one byte more than the AlterUserScramCredentials body.
    use kacl_protocol::messages::alter_user_scram_credentials::{
        AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse,
    };
    let server = sasl_server(&[]).await;
    let mut admin = admin(&server).await;
    let req = AlterUserScramCredentialsRequest {
        upsertions: vec![upsertion("olga", SHA256, "pw", 4096)],
        ..Default::default()
    };
    let header = kacl_protocol::RequestHeader {
        correlation_id: 77,
        client_id: Some("rdkafka".into()),
        ..Default::default()
    };
    let mut frame = Vec::new();
    kacl_protocol::frame::encode_request_frame(&mut frame, &header, 0, &req).unwrap();
    frame.push(0);
    let size = (frame.len() - 4) as i32;
    frame[..4].copy_from_slice(&size.to_be_bytes());
    use tokio::io::AsyncWriteExt;
    admin.stream.write_all(&frame).await.unwrap();
    let payload = admin.read_frame().await.expect("answered, not closed");
    let (_, resp) =
        kacl_protocol::frame::decode_response_frame::<AlterUserScramCredentialsResponse>(
            &payload, 0,
        )
        .unwrap();
    assert_eq!(resp.results[0].error_code, 0);
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.scram_login(SHA256, "olga", "pw").await.error_code, 0);
}

/// The salt and iterations a server-first message shows for `user`.
async fn server_first_salt(server: &TestServer, user: &str) -> String {
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("SCRAM-SHA-256").await.error_code, 0);
    let mut scram = ScramClient::new(SHA256, user, "whatever");
    let first = wire.authenticate(&scram.client_first().unwrap()).await;
    assert_eq!(first.error_code, 0);
    let text = String::from_utf8(first.auth_bytes.to_vec()).unwrap();
    // r=<nonce>,s=<salt>,i=<iterations>: the nonce changes every time, the rest must not.
    text.split(',')
        .filter(|part| !part.starts_with("r="))
        .collect::<Vec<_>>()
        .join(",")
}

/// Issue 27: an unknown user's stand-in salt comes from a secret kept in the store, so a
/// restart does not change it (a changed salt would tell an unknown user from a real one,
/// whose salt only changes when its password does).
#[tokio::test]
async fn an_unknown_users_stand_in_salt_survives_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let props = [
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("sasl.enabled.mechanisms", "SCRAM-SHA-256"),
    ];
    let server = crate::common::start_bare_in(data, &props).await;
    let before = server_first_salt(&server, "ghost").await;
    assert!(
        before.contains("s=") && before.contains("i=4096"),
        "{before}"
    );
    assert_eq!(server_first_salt(&server, "ghost").await, before);
    assert_ne!(server_first_salt(&server, "other-ghost").await, before);
    let TestServer { server, dir: data } = server;
    server.shutdown().await;
    let server = crate::common::start_bare_in(data, &props).await;
    assert_eq!(
        server_first_salt(&server, "ghost").await,
        before,
        "the stand-in salt changed across a restart"
    );
}
