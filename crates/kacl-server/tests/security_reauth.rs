//! SASL re-authentication (KIP-368) with `connections.max.reauth.ms`: the session lifetime in
//! SaslAuthenticate, renewal on the same connection, the rules a renewal must keep (same
//! mechanism, same principal, at most one per second), and the close of an expired session.

mod common;
mod security_support;

use std::borrow::Cow;
use std::time::Duration;

use kacl_protocol::messages::sasl_authenticate::{
    SaslAuthenticateRequest, SaslAuthenticateResponse,
};
use kacl_sasl::plain::client_token;
use kacl_sasl::ScramMechanism;
use security_support::*;
use tokio::net::TcpStream;

/// A SASL_PLAINTEXT server whose sessions last `lifetime_ms`.
async fn server_with_lifetime(lifetime_ms: &str) -> TestServer {
    sasl_server(&[("connections.max.reauth.ms", lifetime_ms)]).await
}

/// PLAIN authentication (first or renewed) of `user`; the SaslAuthenticate answer.
async fn plain(wire: &mut Wire<TcpStream>, user: &str) -> SaslAuthenticateResponse<'static> {
    assert_eq!(wire.handshake("PLAIN").await.error_code, 0, "handshake");
    wire.authenticate(&client_token("", user, &format!("{user}-secret")))
        .await
}

/// True if the connection answers a DescribeAcls (whatever the answer's error code).
async fn answers(wire: &mut Wire<TcpStream>) -> bool {
    wire.send(2, &describe_everything()).await;
    wire.read_frame().await.is_some()
}

#[tokio::test]
async fn without_a_lifetime_sessions_never_expire_and_cannot_renew() {
    let server = sasl_server(&[]).await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    let login = plain(&mut wire, "alice").await;
    assert_eq!((login.error_code, login.session_lifetime_ms), (0, 0));
    // Kafka's KafkaApis answer to a handshake on an authenticated connection.
    assert_eq!(
        wire.handshake("PLAIN").await.error_code,
        34,
        "ILLEGAL_SASL_STATE"
    );
    assert!(answers(&mut wire).await, "the connection lives on");
}

#[tokio::test]
async fn a_session_renews_on_its_connection_and_expires_without_renewal() {
    let server = server_with_lifetime("3000").await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    let login = plain(&mut wire, "alice").await;
    assert_eq!((login.error_code, login.session_lifetime_ms), (0, 3000));
    assert!(answers(&mut wire).await);

    // Renewal with the same mechanism and principal: a fresh lifetime, same connection.
    let renewed = plain(&mut wire, "alice").await;
    assert_eq!((renewed.error_code, renewed.session_lifetime_ms), (0, 3000));
    assert!(answers(&mut wire).await);
    assert_eq!(server.server.state().metrics.reauthentications(), 1);

    // A second renewal within a second is an ordinary handshake on an authenticated
    // connection: refused, connection kept.
    assert_eq!(wire.handshake("PLAIN").await.error_code, 34);
    assert!(answers(&mut wire).await);

    // Once the lifetime has passed, the next request closes the connection ...
    tokio::time::sleep(Duration::from_millis(3200)).await;
    assert!(!answers(&mut wire).await, "an expired session was served");
    assert_eq!(server.server.state().metrics.expired_connections(), 1);

    // ... but a handshake, even after expiry, still renews the session.
    let mut late = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(plain(&mut late, "alice").await.error_code, 0);
    tokio::time::sleep(Duration::from_millis(3200)).await;
    assert_eq!(
        plain(&mut late, "alice").await.error_code,
        0,
        "renewed late"
    );
    assert!(answers(&mut late).await);
}

#[tokio::test]
async fn a_renewal_must_keep_the_principal() {
    let server = server_with_lifetime("60000").await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(plain(&mut wire, "alice").await.error_code, 0);
    let as_admin = plain(&mut wire, "admin").await;
    assert_eq!(as_admin.error_code, 58, "SASL_AUTHENTICATION_FAILED");
    assert_eq!(
        as_admin.error_message.as_deref(),
        Some("Cannot change principals during re-authentication from User.alice: User.admin")
    );
    assert!(wire.is_closed().await);
}

#[tokio::test]
async fn a_renewal_must_keep_the_mechanism() {
    let server = server_with_lifetime("60000").await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(plain(&mut wire, "alice").await.error_code, 0);
    // Kafka answers the handshake (the mechanism is enabled) and closes on the next token
    // without an answer.
    assert_eq!(wire.handshake("SCRAM-SHA-256").await.error_code, 0);
    let token = SaslAuthenticateRequest {
        auth_bytes: Cow::Borrowed(b"n,,n=alice,r=abcdefgh"),
        ..Default::default()
    };
    wire.send(2, &token).await;
    assert!(wire.is_closed().await);
}

#[tokio::test]
async fn a_wrong_password_on_renewal_says_re_authentication() {
    let server = server_with_lifetime("60000").await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(plain(&mut wire, "alice").await.error_code, 0);
    assert_eq!(wire.handshake("PLAIN").await.error_code, 0);
    let refused = wire
        .authenticate(&client_token("", "alice", "not-the-password"))
        .await;
    assert_eq!(refused.error_code, 58);
    assert!(wire.is_closed().await);

    // SCRAM's generic message names the re-authentication.
    let mut admin = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    admin.plain_login("admin", "admin-secret").await;
    let created = admin
        .alter_scram(
            vec![],
            vec![upsertion(
                "carol",
                ScramMechanism::Sha256,
                "carol-secret",
                4096,
            )],
        )
        .await;
    assert_eq!(created.results[0].error_code, 0);
    let mut carol = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    let first = carol
        .scram_login(ScramMechanism::Sha256, "carol", "carol-secret")
        .await;
    assert_eq!((first.error_code, first.session_lifetime_ms), (0, 60_000));
    let renewed = carol
        .scram_login(ScramMechanism::Sha256, "carol", "wrong")
        .await;
    assert_eq!(renewed.error_code, 58);
    assert_eq!(
        renewed.error_message.as_deref(),
        Some(
            "Authentication failed during re-authentication due to invalid credentials with \
             SASL mechanism SCRAM-SHA-256"
        )
    );
}
