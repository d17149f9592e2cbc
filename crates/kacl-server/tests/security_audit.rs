//! The audit log (`kacl::authorizer`): a line per authorization decision on the admin APIs
//! (DENIED at info, ALLOWED at debug) and per ACL added or removed; failed logins logged
//! without their secrets.

mod common;
mod security_support;

use std::borrow::Cow;

use kacl_protocol::messages::create_acls::{AclCreation, CreateAclsRequest, CreateAclsResponse};
use kacl_protocol::messages::delete_acls::{
    DeleteAclsFilter, DeleteAclsRequest, DeleteAclsResponse,
};
use security_support::*;

fn read_orders(principal: &str) -> AclCreation<'static> {
    AclCreation {
        resource_type: 2,
        resource_name: Cow::Borrowed("orders"),
        resource_pattern_type: 3,
        principal: Cow::Owned(principal.to_owned()),
        host: Cow::Borrowed("*"),
        operation: 3,
        permission_type: 3,
        ..Default::default()
    }
}

const ALICE_DENIED: &str = "Principal = User:alice is Denied operation = ALTER from host = \
    127.0.0.1 on resource = Cluster:LITERAL:kafka-cluster for request = CreateAcls with \
    resourceRefCount = 1";
const ADMIN_ALLOWED: &str = "Principal = User:admin is Allowed operation = ALTER from host = \
    127.0.0.1 on resource = Cluster:LITERAL:kafka-cluster for request = CreateAcls with \
    resourceRefCount = 1";

#[tokio::test]
async fn decisions_and_acl_changes_are_audited() {
    let (log, _guard) = LogCapture::start("kacl::authorizer=debug");
    let server = sasl_server(&[]).await;
    let addr = server.addr_of("SASL_PLAINTEXT");

    let mut alice = Wire::tcp(addr).await;
    alice.plain_login("alice", "alice-secret").await;
    let req = CreateAclsRequest {
        creations: vec![read_orders("User:bob")],
        ..Default::default()
    };
    let resp = call_as!(alice, 2, &req, CreateAclsResponse);
    assert_eq!(resp.results[0].error_code, 31);

    let mut admin = Wire::tcp(addr).await;
    admin.plain_login("admin", "admin-secret").await;
    let req = CreateAclsRequest {
        creations: vec![read_orders("User:bob"), read_orders("User:carol")],
        ..Default::default()
    };
    assert_eq!(
        call_as!(admin, 2, &req, CreateAclsResponse).results[0].error_code,
        0
    );
    // Created again: nothing new, so no "added" line.
    assert_eq!(
        call_as!(admin, 2, &req, CreateAclsResponse).results[0].error_code,
        0
    );
    let req = DeleteAclsRequest {
        filters: vec![DeleteAclsFilter {
            resource_type_filter: 2,
            resource_name_filter: Some(Cow::Borrowed("orders")),
            pattern_type_filter: 3,
            principal_filter: Some(Cow::Borrowed("User:bob")),
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }],
        ..Default::default()
    };
    let deleted = call_as!(admin, 2, &req, DeleteAclsResponse);
    assert_eq!(deleted.filter_results[0].matching_acls.len(), 1);

    let denied = log.lines_with(ALICE_DENIED);
    assert_eq!(denied.len(), 1, "{}", log.text());
    assert!(denied[0].contains(" INFO ") && denied[0].contains("kacl::authorizer"));
    let allowed = log.lines_with(ADMIN_ALLOWED);
    assert_eq!(allowed.len(), 2, "one per request: {}", log.text());
    assert!(allowed.iter().all(|l| l.contains("DEBUG")));

    let added = log.lines_with("added ACL");
    assert_eq!(added.len(), 2, "each new ACL once: {}", log.text());
    assert!(added[0].contains(
        "Principal = User:admin from host = 127.0.0.1 added ACL (pattern=ResourcePattern(\
         resourceType=TOPIC, name=orders, patternType=LITERAL), entry=(principal=User:bob, \
         host=*, operation=READ, permissionType=ALLOW)) for request = CreateAcls"
    ));
    assert!(added.iter().all(|l| l.contains(" INFO ")));
    let removed = log.lines_with("removed ACL");
    assert_eq!(removed.len(), 1);
    assert!(removed[0].contains("principal=User:bob") && removed[0].contains("DeleteAcls"));

    // The SCRAM admin APIs are audited too.
    alice.describe_scram(None).await;
    assert_eq!(
        log.lines_with("Principal = User:alice is Denied operation = DESCRIBE")
            .len(),
        1
    );
    assert!(
        log.lines_with("for request = DescribeUserScramCredentials")
            .len()
            == 1
    );
}

#[tokio::test]
async fn allowed_decisions_stay_out_of_an_info_log() {
    let (log, _guard) = LogCapture::start("info");
    let server = sasl_server(&[]).await;
    let mut admin = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    admin.plain_login("admin", "admin-secret").await;
    assert_eq!(admin.describe_acls().await.error_code, 0);
    assert!(log.lines_with("is Allowed").is_empty(), "{}", log.text());
    assert!(
        log.text().contains("authenticated"),
        "the login itself is logged"
    );
}

#[tokio::test]
async fn failed_logins_are_logged_without_secrets() {
    let (log, _guard) = LogCapture::start("info");
    let server = sasl_server(&[]).await;
    let mut wire = Wire::tcp(server.addr_of("SASL_PLAINTEXT")).await;
    assert_eq!(wire.handshake("PLAIN").await.error_code, 0);
    let token = kacl_sasl::plain::client_token("", "alice", "hunter2-not-it");
    let resp = wire.authenticate(&token).await;
    assert_eq!(resp.error_code, 58);
    assert_eq!(
        resp.error_message.as_deref(),
        Some("Authentication failed: Invalid username or password")
    );
    assert!(wire.is_closed().await);
    let failures = log.lines_with("failed authentication");
    assert!(!failures.is_empty(), "{}", log.text());
    assert!(failures[0].contains("WARN") && failures[0].contains("PLAIN"));
    assert!(
        !log.text().contains("hunter2"),
        "the password is never logged"
    );
}

/// Every handler decides through the one audited path: a denied topic creation and a denied
/// topic deletion each leave their line, as in Kafka; the all-topics Metadata list filters
/// without logging denials (Kafka's `logIfDenied = false`).
#[tokio::test]
async fn topic_decisions_are_audited() {
    use kacl_protocol::messages::create_topics::{
        CreatableTopic, CreateTopicsRequest, CreateTopicsResponse,
    };
    use kacl_protocol::messages::delete_topics::{DeleteTopicsRequest, DeleteTopicsResponse};
    use kacl_protocol::messages::metadata::{MetadataRequest, MetadataResponse};

    let (log, _guard) = LogCapture::start("kacl::authorizer=debug");
    let server = sasl_server(&[]).await;
    let addr = server.addr_of("SASL_PLAINTEXT");
    let mut admin = Wire::tcp(addr).await;
    admin.plain_login("admin", "admin-secret").await;
    let create = |name: &'static str| CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: Cow::Borrowed(name),
            num_partitions: 1,
            replication_factor: 1,
            ..Default::default()
        }],
        ..Default::default()
    };
    let created = call_as!(admin, 4, &create("payments"), CreateTopicsResponse);
    assert_eq!(created.topics[0].error_code, 0);

    let mut alice = Wire::tcp(addr).await;
    alice.plain_login("alice", "alice-secret").await;
    let refused = call_as!(alice, 4, &create("orders"), CreateTopicsResponse);
    assert_eq!(refused.topics[0].error_code, 29);
    let delete = DeleteTopicsRequest {
        topic_names: vec![Cow::Borrowed("payments")],
        timeout_ms: 1000,
        ..Default::default()
    };
    let refused = call_as!(alice, 4, &delete, DeleteTopicsResponse);
    assert_eq!(refused.responses[0].error_code, 29);
    let all_topics = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    let listed = call_as!(alice, 4, &all_topics, MetadataResponse);
    assert!(listed.topics.is_empty());

    let create_denied = log.lines_with(
        "Principal = User:alice is Denied operation = CREATE from host = 127.0.0.1 on resource \
         = Topic:LITERAL:orders for request = CreateTopics with resourceRefCount = 1",
    );
    assert_eq!(create_denied.len(), 1, "{}", log.text());
    assert!(create_denied[0].contains(" INFO "));
    // Kafka's tail: the rule that decided (no ACL names alice or the topic).
    assert!(
        create_denied[0].ends_with("resourceRefCount = 1 based on rule DefaultDeny"),
        "{}",
        create_denied[0]
    );
    let delete_denied = log.lines_with(
        "Principal = User:alice is Denied operation = DELETE from host = 127.0.0.1 on resource \
         = Topic:LITERAL:payments for request = DeleteTopics with resourceRefCount = 1",
    );
    assert_eq!(delete_denied.len(), 1, "{}", log.text());
    // The cluster-wide checks that a topic's own ACL may still grant are not logged as
    // denials, nor is the hidden topic of the all-topics list.
    assert!(
        log.lines_with(
            "User:alice is Denied operation = CREATE from host = 127.0.0.1 on resource = Cluster"
        )
        .is_empty(),
        "{}",
        log.text()
    );
    assert!(
        log.lines_with("for request = Metadata").is_empty(),
        "{}",
        log.text()
    );
    // The admin's creation was audited as allowed.
    assert_eq!(
        log.lines_with("Principal = User:admin is Allowed operation = CREATE")
            .len(),
        1,
        "{}",
        log.text()
    );
}
