//! The desired-state file: what it expands to, and errors that name file, line and column.

use std::path::Path;

use kacl_acl::{AclOperation, AclPermissionType, ResourceType};
use kacl_policy::{Document, FileError, Format};

fn yaml(text: &str) -> Result<Document, FileError> {
    Document::parse(Path::new("acls.yaml"), text, Format::Yaml)
}

fn error(text: &str) -> String {
    yaml(text).expect_err("should fail").to_string()
}

const HEAD: &str = "version: 1\nscope:\n  all: true\nacls:\n";

#[test]
fn expands_rules_and_shortcuts() {
    let doc = yaml(&format!(
        "{HEAD}  - principal: User:app\n    hosts: [10.0.0.1]\n    allow:\n      - topic: orders-\n        pattern: prefixed\n        operations: [Read]\n    deny:\n      - group: g\n        operations: [All]\n        hosts: ['*']\n    producer: {{ topics: [events], idempotent: true }}\n    consumer: {{ topics: [events], groups: [g2] }}\n"
    ))
    .expect("valid");
    let acls = doc.bindings();
    let has = |rt, name: &str, op, perm, host: &str| {
        acls.iter().any(|b| {
            b.pattern.resource_type == rt
                && b.pattern.name == name
                && b.entry.operation == op
                && b.entry.permission_type == perm
                && b.entry.host == host
        })
    };
    use AclOperation::*;
    use AclPermissionType::*;
    assert!(has(ResourceType::Topic, "orders-", Read, Allow, "10.0.0.1"));
    assert!(has(ResourceType::Group, "g", All, Deny, "*"));
    assert!(has(
        ResourceType::Topic,
        "events",
        Create,
        Allow,
        "10.0.0.1"
    ));
    assert!(has(
        ResourceType::Cluster,
        "kafka-cluster",
        IdempotentWrite,
        Allow,
        "10.0.0.1"
    ));
    assert!(has(ResourceType::Group, "g2", Read, Allow, "10.0.0.1"));
    // events: WRITE, DESCRIBE, CREATE (producer) + READ (consumer; DESCRIBE merged).
    assert_eq!(
        acls.iter().filter(|b| b.pattern.name == "events").count(),
        4
    );
    assert_eq!(acls.len(), 1 + 1 + 4 + 1 + 1);
}

#[test]
fn an_unknown_operation_is_reported_at_its_own_position() {
    let text = format!("{HEAD}  - principal: User:alice\n    allow:\n      - topic: t\n        operations: [Read, Reed]\n");
    assert_eq!(
        error(&text),
        "acls.yaml:8:28: acls[0].allow[0].operations[1]: unknown operation `Reed` (one of All, Read, Write, Create, Delete, \
         Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, \
         CreateTokens, DescribeTokens, TwoPhaseCommit)"
    );
}

#[test]
fn a_principal_without_a_type_is_refused() {
    let text = format!(
        "{HEAD}  - principal: alice\n    allow:\n      - topic: t\n        operations: [Read]\n"
    );
    assert_eq!(
        error(&text),
        "acls.yaml:5:16: acls[0].principal: principal `alice` has no type: write it as Type:name, e.g. User:alice"
    );
}

#[test]
fn a_cluster_must_be_kafka_cluster() {
    let text = format!("{HEAD}  - principal: User:a\n    allow:\n      - cluster: my-cluster\n        operations: [Alter]\n");
    assert_eq!(
        error(&text),
        "acls.yaml:7:9: acls[0].allow[0]: the CLUSTER resource is named `kafka-cluster`, not `my-cluster`"
    );
}

#[test]
fn duplicates_are_reported_at_the_block_that_repeats() {
    let text = format!(
        "{HEAD}  - principal: User:a\n    allow:\n      - topic: t\n        operations: [Read]\n  - principal: User:a\n    allow:\n      - topic: t\n        operations: [Read, Write]\n"
    );
    assert_eq!(
        error(&text),
        "acls.yaml:9:5: acls[1]: duplicate ACL (pattern=ResourcePattern(resourceType=TOPIC, name=t, \
         patternType=LITERAL), entry=(principal=User:a, host=*, operation=READ, \
         permissionType=ALLOW)): it is declared twice"
    );
}

#[test]
fn json_errors_carry_line_and_column_too() {
    let text = r#"{"version": 1, "scope": {"all": true},
"acls": [{"principal": "User:a", "allow": [{"topic": "t", "operations": ["Raed"]}]}]}"#;
    let err = Document::parse(Path::new("acls.json"), text, Format::Json)
        .expect_err("bad op")
        .to_string();
    assert!(err.starts_with("acls.json:2:"), "{err}");
    assert!(err.contains("unknown operation `Raed`"), "{err}");
}

#[test]
fn acls_outside_the_scope_and_unscoped_files_are_refused() {
    let text = "version: 1\nscope:\n  principals: [User:a]\nacls:\n  - principal: User:b\n    allow:\n      - topic: t\n        operations: [Read]\n";
    assert!(
        error(text).contains("is outside the file's scope"),
        "{}",
        error(text)
    );
    let text = "version: 1\nscope: {}\nacls: []\n";
    assert!(error(text).contains("write `all: true`"), "{}", error(text));
    let text = "version: 2\nscope: {all: true}\n";
    assert!(
        error(text).starts_with("acls.yaml:1:10: version: unsupported version 2"),
        "{}",
        error(text)
    );
}
