//! kacl-client's library calls against a real `kacl serve`: the KIP-140 ACL calls with their
//! per-position results, deduplication and errors, and describe_cluster.

mod cli_support;

use cli_support::TestServer;
use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation,
    AclPermissionType, PatternType, ResourcePattern, ResourcePatternFilter, ResourceType,
};
use kacl_client::{
    Admin, AdminConfig, AdminError, CreateAclsOptions, DeleteAclsOptions, DescribeAclsOptions,
    DescribeClusterOptions, SaslConfig, SaslMechanism, SecurityProtocol,
};
use kacl_protocol::ErrorCode;

fn binding(rt: ResourceType, name: &str, pt: PatternType, principal: &str) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(rt, name, pt),
        AccessControlEntry::new(principal, "*", AclOperation::Read, AclPermissionType::Allow),
    )
}

fn principal_filter(principal: &str) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::ANY,
        AccessControlEntryFilter::new(
            Some(principal),
            None::<String>,
            AclOperation::Any,
            AclPermissionType::Any,
        ),
    )
}

#[tokio::test]
async fn create_describe_delete_round_trip_with_positions_and_duplicates() {
    let server = TestServer::plaintext();
    let admin = Admin::connect(AdminConfig::new([server.addr.clone()]))
        .await
        .unwrap();
    let alice = binding(
        ResourceType::Topic,
        "orders",
        PatternType::Literal,
        "User:alice",
    );
    let bob = binding(ResourceType::Group, "g-", PatternType::Prefixed, "User:bob");
    let bad_cluster = binding(
        ResourceType::Cluster,
        "other",
        PatternType::Literal,
        "User:x",
    );
    let mut indefinite = alice.clone();
    indefinite.pattern.pattern_type = PatternType::Match;

    let results = admin
        .create_acls(
            vec![
                alice.clone(),
                bob.clone(),
                alice.clone(),
                bad_cluster,
                indefinite,
            ],
            CreateAclsOptions::default(),
        )
        .await;
    assert_eq!(results[..3], [Ok(()), Ok(()), Ok(())]);
    assert_eq!(
        results[3],
        Err(AdminError::Server {
            code: ErrorCode::InvalidRequest,
            message: "The only valid name for the CLUSTER resource is kafka-cluster".into()
        })
    );
    assert_eq!(
        results[4],
        Err(AdminError::InvalidRequest(
            "Invalid ACL creation: Resource pattern type is MATCH.".into()
        ))
    );

    let mut all = admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
    all.sort();
    let mut expected = vec![alice.clone(), bob.clone()];
    expected.sort();
    assert_eq!(all, expected);

    // MATCH finds the prefixed ACL for a concrete group name.
    let matching = AclBindingFilter::new(
        ResourcePatternFilter::new(ResourceType::Group, Some("g-1"), PatternType::Match),
        AccessControlEntryFilter::ANY,
    );
    let found = admin
        .describe_acls(matching, DescribeAclsOptions::default())
        .await
        .unwrap();
    assert_eq!(found, std::slice::from_ref(&bob));

    let deleted = admin
        .delete_acls(
            vec![
                principal_filter("User:alice"),
                principal_filter("User:nobody"),
                principal_filter("User:alice"),
            ],
            DeleteAclsOptions::default(),
        )
        .await;
    assert_eq!(deleted.len(), 3);
    assert_eq!(deleted[0], Ok(vec![Ok(alice.clone())]));
    assert_eq!(deleted[1], Ok(vec![]));
    assert_eq!(
        deleted[2], deleted[0],
        "a repeated filter shares its result"
    );

    let rest = admin
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap();
    assert_eq!(rest, [bob]);
}

#[tokio::test]
async fn authorization_failures_carry_the_kafka_error() {
    let server = TestServer::sasl_plain();
    let config = |user: &str, password: &str| {
        let mut config = AdminConfig::new([server.addr.clone()]);
        config.security_protocol = SecurityProtocol::SaslPlaintext;
        config.sasl = Some(SaslConfig {
            mechanism: SaslMechanism::Plain,
            username: user.into(),
            password: password.into(),
        });
        config
    };
    let alice = Admin::connect(config("alice", "alice-secret"))
        .await
        .unwrap();
    let err = alice
        .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some(ErrorCode::ClusterAuthorizationFailed),
        "{err}"
    );
    let results = alice
        .create_acls(
            vec![binding(
                ResourceType::Topic,
                "t",
                PatternType::Literal,
                "User:alice",
            )],
            CreateAclsOptions::default(),
        )
        .await;
    assert_eq!(
        results[0].as_ref().unwrap_err().code(),
        Some(ErrorCode::ClusterAuthorizationFailed)
    );

    let err = Admin::connect(config("alice", "wrong")).await.unwrap_err();
    assert_eq!(
        err.code(),
        Some(ErrorCode::SaslAuthenticationFailed),
        "{err}"
    );

    let mut scram = config("admin", "admin-secret");
    if let Some(sasl) = scram.sasl.as_mut() {
        sasl.mechanism = SaslMechanism::ScramSha256;
    }
    // No SCRAM credential exists for admin: the exchange is refused, not crashed.
    let err = Admin::connect(scram).await.unwrap_err();
    assert_eq!(
        err.code(),
        Some(ErrorCode::SaslAuthenticationFailed),
        "{err}"
    );
}

#[tokio::test]
async fn describe_cluster_names_the_broker_and_controller() {
    let server = TestServer::plaintext();
    let admin = Admin::connect(AdminConfig::new([server.addr.clone()]))
        .await
        .unwrap();
    let cluster = admin
        .describe_cluster(DescribeClusterOptions::default())
        .await
        .unwrap();
    assert_eq!(cluster.nodes.len(), 1);
    let node = &cluster.nodes[0];
    assert_eq!(format!("{}:{}", node.host, node.port), server.addr);
    assert_eq!(cluster.controller.as_ref(), Some(node));
    assert!(cluster.cluster_id.is_some_and(|id| !id.is_empty()));
}

#[tokio::test]
async fn a_client_moves_to_a_fresh_connection_before_its_session_expires() {
    // Sessions of 2 s (KIP-368). The client retires a connection at 85% of its session and
    // opens another, so calls keep working on a long-lived Admin; without that, the server
    // would close the old connection on the first request after expiry.
    let server = TestServer::start(&[
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:admin"),
        ("connections.max.reauth.ms", "2000"),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             user_admin=\"admin-secret\";",
        ),
    ]);
    let mut config = AdminConfig::new([server.addr.clone()]);
    config.security_protocol = SecurityProtocol::SaslPlaintext;
    config.retries = 0;
    config.sasl = Some(SaslConfig {
        mechanism: SaslMechanism::Plain,
        username: "admin".into(),
        password: "admin-secret".into(),
    });
    let admin = Admin::connect(config).await.unwrap();
    for _ in 0..3 {
        admin
            .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
            .await
            .expect("described on a live session");
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    }
}
