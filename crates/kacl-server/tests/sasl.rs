//! SASL on SASL_PLAINTEXT listeners: handshake v0 (raw tokens) and v1 with SaslAuthenticate
//! v0-2, PLAIN from the JAAS line and SCRAM from the store, and the gate before authentication.

mod common;

use std::borrow::Cow;

use common::*;
use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::sasl_authenticate::{
    SaslAuthenticateRequest, SaslAuthenticateResponse,
};
use kacl_protocol::messages::sasl_handshake::{SaslHandshakeRequest, SaslHandshakeResponse};
use kacl_sasl::plain::client_token;
use kacl_sasl::{ScramClient, ScramCredential, ScramMechanism};

const JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
    username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

async fn sasl_server(extra: &[(&str, &str)]) -> TestServer {
    let mut props = vec![
        (
            "listeners",
            "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
        ),
        ("super.users", "User:admin"),
        ("sasl.jaas.config", JAAS),
    ];
    props.extend_from_slice(extra);
    start(&props).await
}

async fn handshake(
    client: &mut Client,
    version: i16,
    mechanism: &str,
) -> SaslHandshakeResponse<'static> {
    let req = SaslHandshakeRequest {
        mechanism: Cow::Owned(mechanism.to_owned()),
        ..Default::default()
    };
    let payload = client.call(version, &req).await;
    kacl_protocol::IntoStatic::into_static(decode::<SaslHandshakeResponse>(&payload, version))
}

async fn authenticate(
    client: &mut Client,
    version: i16,
    token: &[u8],
) -> SaslAuthenticateResponse<'static> {
    let req = SaslAuthenticateRequest {
        auth_bytes: Cow::Owned(token.to_vec()),
        ..Default::default()
    };
    let payload = client.call(version, &req).await;
    kacl_protocol::IntoStatic::into_static(decode::<SaslAuthenticateResponse>(&payload, version))
}

async fn plain_login(
    server: &TestServer,
    auth_version: i16,
    user: &str,
    password: &str,
) -> (Client, SaslAuthenticateResponse<'static>) {
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    let hs = handshake(&mut client, 1, "PLAIN").await;
    assert_eq!(hs.error_code, 0);
    let resp = authenticate(&mut client, auth_version, &client_token("", user, password)).await;
    (client, resp)
}

#[tokio::test]
async fn plain_with_authenticate_v0_to_v2() {
    let server = sasl_server(&[]).await;
    for version in 0..=2 {
        let (mut client, resp) = plain_login(&server, version, "admin", "admin-secret").await;
        assert_eq!(resp.error_code, 0, "v{version}: {resp:?}");
        assert!(resp.auth_bytes.is_empty(), "PLAIN success bytes are empty");
        assert_eq!(resp.session_lifetime_ms, 0);
        assert_eq!(client.describe(3, &describe_all()).await.error_code, 0);
        // A second SaslAuthenticate after success: ILLEGAL_SASL_STATE, connection kept.
        let again = authenticate(&mut client, version, b"\0admin\0admin-secret").await;
        assert_eq!(again.error_code, 34);
        assert_eq!(client.describe(3, &describe_all()).await.error_code, 0);
    }
}

#[tokio::test]
async fn plain_authzid_rules() {
    let server = sasl_server(&[]).await;
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    handshake(&mut client, 1, "PLAIN").await;
    let resp = authenticate(
        &mut client,
        2,
        &client_token("alice", "alice", "alice-secret"),
    )
    .await;
    assert_eq!(
        resp.error_code, 0,
        "authzid = username is accepted (kafka-python)"
    );
    // A non-super user is refused the ACL APIs.
    assert_eq!(client.describe(3, &describe_all()).await.error_code, 31);

    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    handshake(&mut client, 1, "PLAIN").await;
    let resp = authenticate(
        &mut client,
        1,
        &client_token("admin", "alice", "alice-secret"),
    )
    .await;
    assert_eq!(resp.error_code, 58);
    assert_eq!(
        resp.error_message.as_deref(),
        Some("Authentication failed: Client requested an authorization id that is different from username")
    );
    assert!(client.is_closed().await);
}

#[tokio::test]
async fn wrong_password_fails_then_closes() {
    let server = sasl_server(&[]).await;
    for version in 0..=2 {
        let (mut client, resp) = plain_login(&server, version, "admin", "nope").await;
        assert_eq!(resp.error_code, 58);
        assert_eq!(
            resp.error_message.as_deref(),
            Some("Authentication failed: Invalid username or password")
        );
        assert!(client.is_closed().await);
    }
    let (mut client, resp) = plain_login(&server, 2, "nobody", "x").await;
    assert_eq!(resp.error_code, 58);
    assert!(client.is_closed().await);
}

#[tokio::test]
async fn handshake_v0_then_raw_tokens() {
    let server = sasl_server(&[]).await;
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    let hs = handshake(&mut client, 0, "PLAIN").await;
    assert_eq!(hs.error_code, 0);
    assert_eq!(
        hs.mechanisms,
        vec!["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
    );
    let token = client_token("", "admin", "admin-secret");
    let mut frame = (token.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&token);
    client.send_raw(&frame).await;
    let reply = client.read_frame().await.expect("a raw reply");
    assert!(
        reply.is_empty(),
        "PLAIN's raw reply is an empty size-prefixed token"
    );
    assert_eq!(client.describe(3, &describe_all()).await.error_code, 0);

    // A wrong raw token closes the connection (no error frame in the raw protocol).
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    handshake(&mut client, 0, "PLAIN").await;
    let token = client_token("", "admin", "wrong");
    let mut frame = (token.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&token);
    client.send_raw(&frame).await;
    assert!(client.is_closed().await);
}

#[tokio::test]
async fn unsupported_mechanism_lists_the_enabled_ones_then_closes() {
    let server = sasl_server(&[("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512")]).await;
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    let hs = handshake(&mut client, 1, "SCRAM-SHA-256").await;
    assert_eq!(hs.error_code, 33);
    assert_eq!(hs.mechanisms, vec!["PLAIN", "SCRAM-SHA-512"]);
    assert!(client.is_closed().await);
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(handshake(&mut client, 1, "GSSAPI").await.error_code, 33);
}

#[tokio::test]
async fn only_sasl_and_api_versions_before_authentication() {
    let server = sasl_server(&[]).await;
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    let payload = client
        .call(
            3,
            &ApiVersionsRequest {
                client_software_name: Cow::Borrowed("t"),
                client_software_version: Cow::Borrowed("1"),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(decode::<ApiVersionsResponse>(&payload, 3).error_code, 0);
    client.send(3, &describe_all()).await;
    assert!(
        client.is_closed().await,
        "DescribeAcls before authentication closes"
    );

    // SaslAuthenticate before SaslHandshake closes too.
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    client.send(2, &SaslAuthenticateRequest::default()).await;
    assert!(client.is_closed().await);

    // After the handshake, still nothing but the exchange.
    let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
    handshake(&mut client, 1, "PLAIN").await;
    client.send(3, &describe_all()).await;
    assert!(client.is_closed().await);

    // On the PLAINTEXT listener a handshake is ILLEGAL_SASL_STATE and the connection lives on.
    let mut client = Client::connect(server.addr_of("PLAINTEXT")).await;
    assert_eq!(handshake(&mut client, 1, "PLAIN").await.error_code, 34);
    assert_eq!(
        client.describe(3, &describe_all()).await.error_code,
        31,
        "ANONYMOUS is no super user here"
    );
}

#[tokio::test]
async fn listener_specific_jaas_comes_first() {
    let server = sasl_server(&[(
        "listener.name.sasl_plaintext.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"other\";",
    )])
    .await;
    let (_, resp) = plain_login(&server, 2, "admin", "admin-secret").await;
    assert_eq!(resp.error_code, 58);
    let (_, resp) = plain_login(&server, 2, "admin", "other").await;
    assert_eq!(resp.error_code, 0);
}

#[tokio::test]
async fn scram_uses_the_stores_credentials() {
    let server = sasl_server(&[]).await;
    for (mechanism, store_mechanism) in [
        (ScramMechanism::Sha256, kacl_store::ScramMechanism::Sha256),
        (ScramMechanism::Sha512, kacl_store::ScramMechanism::Sha512),
    ] {
        let credential =
            ScramCredential::from_password(mechanism, "admin-scram", b"0123456789abcdef", 4096)
                .unwrap();
        // Through the server's credentials, which keep memory and store equal.
        let (outcomes, ()) = server.server.state().scram.write(|_| {
            (
                vec![kacl_service::credentials::CredentialChange::Upsert {
                    user: "admin".into(),
                    mechanism,
                    credential: credential.clone(),
                }],
                (),
            )
        });
        assert!(outcomes.iter().all(|(_, stored)| stored.is_ok()));
        assert!(server
            .server
            .state()
            .store
            .scram_credential("admin", store_mechanism)
            .unwrap()
            .is_some());
        let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
        assert_eq!(
            handshake(&mut client, 1, mechanism.name()).await.error_code,
            0
        );
        let mut scram = ScramClient::new(mechanism, "admin", "admin-scram");
        let first = authenticate(&mut client, 2, &scram.client_first().unwrap()).await;
        assert_eq!(first.error_code, 0);
        let final_message = scram.handle_server_first(&first.auth_bytes).unwrap();
        let last = authenticate(&mut client, 2, &final_message).await;
        assert_eq!(last.error_code, 0, "{last:?}");
        scram
            .handle_server_final(&last.auth_bytes)
            .expect("the server proves itself");
        assert_eq!(client.describe(3, &describe_all()).await.error_code, 0);

        // Wrong password: 58, then closed.
        let mut client = Client::connect(server.addr_of("SASL_PLAINTEXT")).await;
        handshake(&mut client, 1, mechanism.name()).await;
        let mut scram = ScramClient::new(mechanism, "admin", "wrong");
        let first = authenticate(&mut client, 1, &scram.client_first().unwrap()).await;
        let final_message = scram.handle_server_first(&first.auth_bytes).unwrap();
        let last = authenticate(&mut client, 1, &final_message).await;
        assert_eq!(last.error_code, 58);
        assert!(client.is_closed().await);
    }
}
