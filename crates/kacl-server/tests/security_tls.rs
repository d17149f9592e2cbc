//! TLS listeners with a CA made in the test: SSL with and without client certificates,
//! principals from certificate DNs through `ssl.principal.mapping.rules` (as in Kafka's
//! `SslPrincipalMapperTest`), ACL decisions on those principals, SASL over TLS, and what
//! `ssl.enabled.protocols` and `ssl.cipher.suites` let a client negotiate.

mod common;
mod security_support;

use std::borrow::Cow;

use common::ServerBuilder;
use kacl_protocol::messages::create_acls::{AclCreation, CreateAclsRequest, CreateAclsResponse};
use kacl_sasl::ScramMechanism;
use security_support::*;

fn tls_props<'a>(
    keystore: &'a str,
    truststore: &'a str,
    listeners: &'a str,
    client_auth: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("listeners", listeners),
        ("ssl.keystore.type", "PEM"),
        ("ssl.keystore.location", keystore),
        ("ssl.truststore.location", truststore),
        ("ssl.client.auth", client_auth),
    ]
}

/// ALLOW DESCRIBE on the cluster for `principal`.
fn cluster_describe(principal: &str) -> AclCreation<'static> {
    AclCreation {
        resource_type: 4,
        resource_name: Cow::Borrowed("kafka-cluster"),
        resource_pattern_type: 3,
        principal: Cow::Owned(principal.to_owned()),
        host: Cow::Borrowed("*"),
        operation: 8,
        permission_type: 3,
        ..Default::default()
    }
}

#[tokio::test]
async fn mtls_principals_are_mapped_dns_and_acls_apply_to_them() {
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let server = ServerBuilder::bare()
        .tls(&keystore, &truststore, "required")
        .properties(&[
            (
                "ssl.principal.mapping.rules",
                "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=.*$/$1/L,DEFAULT",
            ),
            ("super.users", "User:ops"),
        ])
        .start()
        .await;
    let addr = server.addr_of("SSL");

    // CN=Alice,OU=eng → RULE 2 lower-cases: User:alice.
    let mut alice = pki
        .connect(addr, Some(pki.client(&[("OU", "eng"), ("CN", "Alice")])))
        .await
        .expect("TLS with a client certificate");
    assert_eq!(alice.describe_acls().await.error_code, 31, "no ACL yet");

    // CN=ops,OU=ServiceUsers,O=Example → RULE 1: User:ops, a super user.
    let mut ops = pki
        .connect(
            addr,
            Some(pki.client(&[("O", "Example"), ("OU", "ServiceUsers"), ("CN", "ops")])),
        )
        .await
        .unwrap();
    let req = CreateAclsRequest {
        creations: vec![cluster_describe("User:alice")],
        ..Default::default()
    };
    let created = call_as!(ops, 2, &req, CreateAclsResponse);
    assert_eq!(created.results[0].error_code, 0);

    // The ACL for User:alice now lets the mapped principal describe.
    let described = alice.describe_acls().await;
    assert_eq!(described.error_code, 0);
    assert_eq!(described.resources.len(), 1);
    assert_eq!(described.resources[0].acls[0].principal, "User:alice");

    // No rule matches a DN without OU... except DEFAULT: the whole DN is the name.
    let mut plain_cn = pki
        .connect(addr, Some(pki.client(&[("CN", "Alice")])))
        .await
        .unwrap();
    assert_eq!(plain_cn.describe_acls().await.error_code, 31);
    let req = CreateAclsRequest {
        creations: vec![cluster_describe("User:CN=Alice")],
        ..Default::default()
    };
    assert_eq!(
        call_as!(ops, 2, &req, CreateAclsResponse).results[0].error_code,
        0
    );
    assert_eq!(plain_cn.describe_acls().await.error_code, 0);

    // ssl.client.auth=required: no certificate, no session.
    let refused = match pki.connect(addr, None).await {
        Err(_) => true,
        Ok(mut wire) => wire.is_closed().await,
    };
    assert!(refused, "a client without a certificate is refused");
}

#[tokio::test]
async fn no_matching_rule_closes_the_connection() {
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    let mut props = tls_props(&keystore, &truststore, "SSL://127.0.0.1:0", "required");
    props.push(("ssl.principal.mapping.rules", "RULE:^CN=(.*?),OU=eng$/$1/"));
    props.push(("super.users", "User:ANONYMOUS"));
    let server = start(&props).await;
    let mut other = pki
        .connect(
            server.addr_of("SSL"),
            Some(pki.client(&[("OU", "sales"), ("CN", "bob")])),
        )
        .await
        .unwrap();
    other
        .send(
            2,
            &kacl_protocol::messages::describe_acls::DescribeAclsRequest::default(),
        )
        .await;
    assert!(
        other.is_closed().await,
        "Kafka fails the login: no rule applies"
    );
}

#[tokio::test]
async fn ssl_without_client_certificates_is_anonymous() {
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    for client_auth in ["none", "requested"] {
        let mut props = tls_props(&keystore, &truststore, "SSL://127.0.0.1:0", client_auth);
        props.push(("super.users", "User:ANONYMOUS"));
        let server = start(&props).await;
        let mut wire = pki.connect(server.addr_of("SSL"), None).await.unwrap();
        assert_eq!(
            wire.describe_acls().await.error_code,
            0,
            "{client_auth}: User:ANONYMOUS is the super user"
        );
        if client_auth == "requested" {
            // A certificate, when offered, names the principal instead.
            let mut carl = pki
                .connect(server.addr_of("SSL"), Some(pki.client(&[("CN", "carl")])))
                .await
                .unwrap();
            assert_eq!(carl.describe_acls().await.error_code, 31);
        }
        // Plaintext bytes on a TLS port never reach the Kafka layer.
        let mut raw = Wire::tcp(server.addr_of("SSL")).await;
        raw.send(
            2,
            &kacl_protocol::messages::describe_acls::DescribeAclsRequest::default(),
        )
        .await;
        assert!(raw.is_closed().await);
    }
}

#[tokio::test]
async fn sasl_ssl_runs_scram_and_plain_inside_tls() {
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let keystore_pem = std::fs::read_to_string(&keystore).unwrap();
    // The inline form: ssl.keystore.certificate.chain + ssl.keystore.key.
    let key_start = keystore_pem.find("-----BEGIN PRIVATE KEY-----").unwrap();
    let cert_start = keystore_pem.find("-----BEGIN CERTIFICATE-----").unwrap();
    let (key_pem, chain_pem) = if key_start < cert_start {
        (
            &keystore_pem[key_start..cert_start],
            &keystore_pem[cert_start..],
        )
    } else {
        (
            &keystore_pem[key_start..],
            &keystore_pem[cert_start..key_start],
        )
    };
    let truststore = truststore.display().to_string();
    let props = vec![
        ("listeners", "SASL_SSL://127.0.0.1:0"),
        ("ssl.keystore.certificate.chain", chain_pem),
        ("ssl.keystore.key", key_pem),
        ("ssl.truststore.location", truststore.as_str()),
        ("super.users", "User:admin"),
        ("sasl.jaas.config", JAAS),
    ];
    let server = start(&props).await;
    let addr = server.addr_of("SASL_SSL");

    // SASL is required inside TLS: nothing but the SASL APIs before authentication.
    let mut anonymous = pki.connect(addr, None).await.unwrap();
    anonymous
        .send(
            2,
            &kacl_protocol::messages::describe_acls::DescribeAclsRequest::default(),
        )
        .await;
    assert!(anonymous.is_closed().await);

    let mut admin = pki.connect(addr, None).await.unwrap();
    admin.plain_login("admin", "admin-secret").await;
    assert_eq!(admin.describe_acls().await.error_code, 0);
    let resp = admin
        .alter_scram(
            vec![],
            vec![upsertion(
                "admin",
                ScramMechanism::Sha512,
                "scram-secret",
                4096,
            )],
        )
        .await;
    assert_eq!(resp.results[0].error_code, 0);

    let mut scram = pki.connect(addr, None).await.unwrap();
    assert_eq!(
        scram
            .scram_login(ScramMechanism::Sha512, "admin", "scram-secret")
            .await
            .error_code,
        0
    );
    assert_eq!(scram.describe_acls().await.error_code, 0);

    // A client certificate does not change the SASL principal on SASL_SSL.
    let mut with_cert = pki
        .connect(addr, Some(pki.client(&[("CN", "admin")])))
        .await
        .unwrap();
    with_cert
        .send(
            2,
            &kacl_protocol::messages::describe_acls::DescribeAclsRequest::default(),
        )
        .await;
    assert!(with_cert.is_closed().await, "still needs SASL");
}

#[tokio::test]
async fn unusable_tls_files_stop_the_start_with_the_key_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let not_pem = dir.path().join("not.pem");
    std::fs::write(&not_pem, "hello").unwrap();
    for (file, expected) in [
        (
            missing.display().to_string(),
            "cannot read ssl.keystore.location file",
        ),
        (not_pem.display().to_string(), "ssl.keystore.location"),
    ] {
        let data = tempfile::tempdir().unwrap();
        let config = crate::common::bare_config(
            data.path(),
            &[
                ("listeners", "SSL://127.0.0.1:0"),
                ("ssl.keystore.location", file.as_str()),
            ],
        );
        let err = kacl_server::Server::start(config).await.unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
    }
}

/// True if a TLS connection attempt was refused: the handshake failed, or (the client may
/// finish its side first) the server closed the connection without answering.
async fn refused(
    attempt: std::io::Result<Wire<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>>,
) -> bool {
    match attempt {
        Err(_) => true,
        Ok(mut wire) => wire.is_closed().await,
    }
}

#[tokio::test]
async fn enabled_protocols_and_cipher_suites_bound_what_clients_negotiate() {
    use rustls::version::{TLS12, TLS13};
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    let negotiated = |wire: &Wire<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>| {
        let session = wire.stream.get_ref().1;
        (
            session.protocol_version().and_then(|v| v.as_str()),
            session
                .negotiated_cipher_suite()
                .and_then(|s| s.suite().as_str()),
        )
    };

    // Kafka's defaults: both versions.
    let mut props = tls_props(&keystore, &truststore, "SSL://127.0.0.1:0", "none");
    props.push(("super.users", "User:ANONYMOUS"));
    let server = start(&props).await;
    let addr = server.addr_of("SSL");
    for version in [&TLS12, &TLS13] {
        let mut wire = pki
            .connect_offering(addr, None, &[version], None)
            .await
            .expect("handshake");
        assert_eq!(wire.describe_acls().await.error_code, 0);
    }

    // TLS 1.3 only: a TLS 1.2 client is refused in the handshake.
    let mut props = tls_props(&keystore, &truststore, "SSL://127.0.0.1:0", "none");
    props.push(("ssl.enabled.protocols", "TLSv1.3"));
    props.push(("super.users", "User:ANONYMOUS"));
    let server = start(&props).await;
    let addr = server.addr_of("SSL");
    let old = pki.connect_offering(addr, None, &[&TLS12], None).await;
    assert!(refused(old).await, "a TLS 1.2 client got through");
    let mut wire = pki
        .connect_offering(addr, None, &[&TLS12, &TLS13], None)
        .await
        .expect("a client offering 1.3 too");
    assert_eq!(negotiated(&wire).0, Some("TLSv1_3"));
    assert_eq!(wire.describe_acls().await.error_code, 0);

    // One suite: a client without it is refused, one with it gets it.
    let mut props = tls_props(&keystore, &truststore, "SSL://127.0.0.1:0", "none");
    props.push(("ssl.cipher.suites", "TLS_AES_256_GCM_SHA384"));
    props.push(("super.users", "User:ANONYMOUS"));
    let server = start(&props).await;
    let addr = server.addr_of("SSL");
    let other = pki
        .connect_offering(addr, None, &[&TLS13], Some(&["TLS13_AES_128_GCM_SHA256"]))
        .await;
    assert!(
        refused(other).await,
        "a client without the one allowed suite got through"
    );
    let mut wire = pki
        .connect_offering(
            addr,
            None,
            &[&TLS12, &TLS13],
            Some(&["TLS13_AES_128_GCM_SHA256", "TLS13_AES_256_GCM_SHA384"]),
        )
        .await
        .expect("a client offering the allowed suite");
    assert_eq!(
        negotiated(&wire),
        (Some("TLSv1_3"), Some("TLS13_AES_256_GCM_SHA384"))
    );
    assert_eq!(wire.describe_acls().await.error_code, 0);
}

#[tokio::test]
async fn a_listener_overrides_ssl_keys_with_its_own_prefix() {
    // Kafka's listener.name.<name>.ssl.*: client certificates required on SSL, not on
    // INTERNAL, which inherits the key store and trust store; and (KIP-684) not on SASL_SSL,
    // which takes ssl.client.auth only from its own key.
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    let mut props = tls_props(
        &keystore,
        &truststore,
        "SSL://127.0.0.1:0,INTERNAL://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
        "required",
    );
    props.push((
        "listener.security.protocol.map",
        "SSL:SSL,INTERNAL:SSL,SASL_SSL:SASL_SSL",
    ));
    props.push(("sasl.jaas.config", JAAS));
    props.push(("listener.name.internal.ssl.client.auth", "none"));
    props.push(("super.users", "User:ANONYMOUS;User:CN=carl"));
    let server = start(&props).await;

    let without_certificate = pki.connect(server.addr_of("SSL"), None).await;
    assert!(
        refused(without_certificate).await,
        "SSL requires a client certificate"
    );
    let mut carl = pki
        .connect(server.addr_of("SSL"), Some(pki.client(&[("CN", "carl")])))
        .await
        .unwrap();
    assert_eq!(carl.describe_acls().await.error_code, 0);
    let mut anonymous = pki.connect(server.addr_of("INTERNAL"), None).await.unwrap();
    assert_eq!(
        anonymous.describe_acls().await.error_code,
        0,
        "INTERNAL asks for no certificate: User:ANONYMOUS"
    );
    let mut sasl = pki.connect(server.addr_of("SASL_SSL"), None).await.unwrap();
    sasl.plain_login("alice", "alice-secret").await;
    assert_eq!(
        sasl.describe_acls().await.error_code,
        31,
        "no certificate asked for on SASL_SSL: alice logs in and is no super user"
    );
}

#[tokio::test]
async fn a_reload_serves_rotated_files_to_new_connections_and_keeps_open_ones() {
    let pki = TestPki::new();
    let (keystore, truststore) = pki.server_files();
    let (keystore_path, truststore) = (
        keystore.display().to_string(),
        truststore.display().to_string(),
    );
    let mut props = tls_props(&keystore_path, &truststore, "SSL://127.0.0.1:0", "none");
    props.push(("super.users", "User:ANONYMOUS"));
    let server = start(&props).await;
    let addr = server.addr_of("SSL");
    let served = |wire: &Wire<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>| {
        wire.stream.get_ref().1.peer_certificates().unwrap()[0].clone()
    };
    let mut before = pki.connect(addr, None).await.unwrap();
    let first = served(&before);

    // A new certificate in the same file: not used until the reload.
    pki.server_files();
    let unreloaded = pki.connect(addr, None).await.unwrap();
    assert_eq!(served(&unreloaded), first);
    let outcomes = server.server.tls_reloader().reload();
    assert_eq!(outcomes.len(), 1);
    assert!(outcomes[0].1.is_ok(), "{outcomes:?}");
    let mut after = pki.connect(addr, None).await.unwrap();
    let second = served(&after);
    assert_ne!(second, first, "new handshakes get the rotated certificate");
    assert_eq!(after.describe_acls().await.error_code, 0);
    assert_eq!(
        before.describe_acls().await.error_code,
        0,
        "a connection opened before the reload keeps working"
    );

    // A broken file is refused and the rotated certificate stays in use.
    std::fs::write(&keystore, "not PEM").unwrap();
    let outcomes = server.server.tls_reloader().reload();
    assert!(outcomes[0].1.is_err());
    let still = pki.connect(addr, None).await.unwrap();
    assert_eq!(served(&still), second);
}
