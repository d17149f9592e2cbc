//! Flag checks and shortcut expansion against the messages and sets of Kafka's AclCommand and
//! AclCommandTest.

use std::collections::BTreeSet;

use clap::Parser;
use kacl_acl::{AccessControlEntry, AclOperation, AclPermissionType, PatternType, ResourceType};

use super::args::{AclsArgs, Action};
use super::expand::{self, ResourceAcls};

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    args: AclsArgs,
}

fn parse(line: &str) -> AclsArgs {
    let argv = std::iter::once("kacl-acls").chain(line.split_whitespace());
    Cli::try_parse_from(argv).expect("flags parse").args
}

fn check_err(line: &str) -> String {
    parse(line).check().unwrap_err().to_string()
}

fn expanded(line: &str) -> ResourceAcls {
    let args = parse(line);
    args.check().expect("valid flags");
    let pattern_type = expand::pattern_type(&args).expect("pattern type");
    expand::resource_acls_to_add(&args, pattern_type).expect("expansion")
}

fn ops(
    map: &ResourceAcls,
    rt: ResourceType,
    name: &str,
    pt: PatternType,
) -> BTreeSet<AclOperation> {
    map.get(&(rt, name.to_owned(), pt))
        .unwrap_or_else(|| panic!("no {rt} {name} in {map:?}"))
        .iter()
        .map(|a| a.operation)
        .collect()
}

const B: &str = "--bootstrap-server localhost:9092";

#[test]
fn exactly_one_action() {
    let msg = "Command must include exactly one action: --list, --add, --remove. ";
    assert_eq!(check_err(&format!("{B} --add --list")), msg);
    assert_eq!(check_err(&format!("{B} --add --list --remove")), msg);
    assert_eq!(check_err(B), msg);
    assert_eq!(parse(&format!("{B} --list")).check().unwrap(), Action::List);
}

#[test]
fn invalid_combinations_use_kafkas_messages() {
    assert_eq!(
        check_err(&format!("{B} --list --producer")),
        "Option \"[list]\" can't be used with option \"[producer]\""
    );
    assert_eq!(
        check_err(&format!("{B} --add --producer --operation Read")),
        "Option \"[producer]\" can't be used with option \"[operation]\""
    );
    assert_eq!(
        check_err(&format!(
            "{B} --add --consumer --operation Read --topic t --group g"
        )),
        "Option \"[consumer]\" can't be used with option \"[operation]\""
    );
    assert_eq!(
        check_err(&format!("{B} --add --principal User:CN=client")),
        "The --principal option is only available if --list is set"
    );
    assert_eq!(
        check_err(&format!("{B} --add --producer")),
        "With --producer you must specify a --topic"
    );
    assert_eq!(
        check_err(&format!("{B} --add --idempotent")),
        "The --idempotent option is only available if --producer is set"
    );
    let consumer = "With --consumer you must specify a --topic and a --group and no --cluster or \
                    --transactional-id option should be specified.";
    assert_eq!(check_err(&format!("{B} --add --consumer")), consumer);
    assert_eq!(
        check_err(&format!(
            "{B} --add --consumer --topic t --group g --cluster"
        )),
        consumer
    );
    assert!(parse(&format!("{B} --add --consumer --topic t --group g"))
        .check()
        .is_ok());
}

#[test]
fn bootstrap_flags_are_exclusive_and_required() {
    let args = parse("--list");
    assert_eq!(
        args.connection.admin_config().unwrap_err().to_string(),
        "One of --bootstrap-server or --bootstrap-controller must be specified"
    );
    let args = parse("--list --bootstrap-server a:1 --bootstrap-controller b:2");
    assert_eq!(
        args.connection.admin_config().unwrap_err().to_string(),
        "Only one of --bootstrap-server or --bootstrap-controller must be specified"
    );
    let args = parse("--list --bootstrap-controller b:2,c:3");
    assert_eq!(
        args.connection.admin_config().unwrap().bootstrap_servers,
        ["b:2", "c:3"]
    );
}

#[test]
fn producer_expands_to_topic_transactional_id_and_idempotent_cluster_acls() {
    let map = expanded(&format!(
        "{B} --add --allow-principal User:app --producer --idempotent --topic t \
         --transactional-id tx"
    ));
    use AclOperation::*;
    assert_eq!(
        ops(&map, ResourceType::Topic, "t", PatternType::Literal),
        BTreeSet::from([Write, Describe, Create])
    );
    assert_eq!(
        ops(
            &map,
            ResourceType::TransactionalId,
            "tx",
            PatternType::Literal
        ),
        BTreeSet::from([Write, Describe])
    );
    assert_eq!(
        ops(
            &map,
            ResourceType::Cluster,
            "kafka-cluster",
            PatternType::Literal
        ),
        BTreeSet::from([IdempotentWrite])
    );
    assert_eq!(map.len(), 3);
    let entry = map.values().next().unwrap().iter().next().unwrap();
    assert_eq!(entry.principal, "User:app");
    assert_eq!(entry.host, "*");
    assert_eq!(entry.permission_type, AclPermissionType::Allow);
}

#[test]
fn prefixed_producer_keeps_a_literal_idempotent_cluster_acl() {
    let map = expanded(&format!(
        "{B} --add --allow-principal User:app --producer --idempotent --topic t- \
         --resource-pattern-type Prefixed"
    ));
    assert!(map.contains_key(&(ResourceType::Topic, "t-".into(), PatternType::Prefixed)));
    assert!(map.contains_key(&(
        ResourceType::Cluster,
        "kafka-cluster".into(),
        PatternType::Literal
    )));
}

#[test]
fn consumer_and_producer_merge_on_topics() {
    let map = expanded(&format!(
        "{B} --add --allow-principal User:c --consumer --producer --topic t --group g"
    ));
    use AclOperation::*;
    assert_eq!(
        ops(&map, ResourceType::Topic, "t", PatternType::Literal),
        BTreeSet::from([Read, Write, Create, Describe])
    );
    assert_eq!(
        ops(&map, ResourceType::Group, "g", PatternType::Literal),
        BTreeSet::from([Read])
    );
}

#[test]
fn principals_hosts_and_operations_multiply() {
    let map = expanded(&format!(
        "{B} --add --allow-principal User:a --allow-principal User:b --allow-host 10.0.0.1 \
         --allow-host 10.0.0.2 --deny-principal User:c --operation Read --operation Write \
         --topic t --topic u"
    ));
    assert_eq!(map.len(), 2);
    let acls = map.values().next().unwrap();
    // 2 principals × 2 hosts × 2 operations allowed, 1 principal × * × 2 operations denied.
    assert_eq!(acls.len(), 10);
    assert!(acls.contains(&AccessControlEntry::new(
        "User:c",
        "*",
        AclOperation::Write,
        AclPermissionType::Deny
    )));
    assert!(acls.contains(&AccessControlEntry::new(
        "User:b",
        "10.0.0.2",
        AclOperation::Read,
        AclPermissionType::Allow
    )));
}

#[test]
fn default_operation_is_all_and_cluster_is_literal_only() {
    let map = expanded(&format!("{B} --add --allow-principal User:a --cluster"));
    assert_eq!(
        ops(
            &map,
            ResourceType::Cluster,
            "kafka-cluster",
            PatternType::Literal
        ),
        BTreeSet::from([AclOperation::All])
    );
    let args = parse(&format!("{B} --list --cluster --resource-pattern-type any"));
    let filters = expand::resource_filters(&args, PatternType::Any, false).unwrap();
    assert!(filters.is_empty(), "Kafka drops --cluster unless literal");
}

#[test]
fn operation_resource_combinations_are_checked() {
    let args = parse(&format!(
        "{B} --add --allow-principal User:a --operation IdempotentWrite --topic t"
    ));
    let err = expand::resource_acls_to_add(&args, PatternType::Literal).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ResourceType TOPIC only supports operations [ALL, READ, WRITE, CREATE, DELETE, ALTER, \
         DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS]"
    );
    let args = parse(&format!(
        "{B} --add --allow-principal User:a --operation Write --group g"
    ));
    let err = expand::resource_acls_to_add(&args, PatternType::Literal).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ResourceType GROUP only supports operations [ALL, READ, DELETE, DESCRIBE, \
         DESCRIBE_CONFIGS, ALTER_CONFIGS]"
    );
    let args = parse(&format!(
        "{B} --add --allow-principal User:a --operation CreateTokens --user-principal User:b"
    ));
    assert!(expand::resource_acls_to_add(&args, PatternType::Literal).is_ok());
    let args = parse(&format!(
        "{B} --add --allow-principal User:a --operation Describe --delegation-token tok \
         --transactional-id tx"
    ));
    assert!(expand::resource_acls_to_add(&args, PatternType::Literal).is_ok());
}

#[test]
fn add_needs_a_specific_pattern_type_a_resource_and_a_principal() {
    let args = parse(&format!("{B} --add --allow-principal User:a --topic t"));
    let err = expand::resource_acls_to_add(&args, PatternType::Match).unwrap_err();
    assert_eq!(
        err.to_string(),
        "A '--resource-pattern-type' value of 'MATCH' is not valid when adding acls."
    );
    let args = parse(&format!("{B} --add --allow-principal User:a"));
    let err = expand::resource_acls_to_add(&args, PatternType::Literal).unwrap_err();
    assert!(err
        .to_string()
        .starts_with("You must provide at least one resource"));
    let args = parse(&format!("{B} --add --topic t"));
    let err = expand::resource_acls_to_add(&args, PatternType::Literal).unwrap_err();
    assert_eq!(
        err.to_string(),
        "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."
    );
    let args = parse(&format!("{B} --add --allow-principal alice --topic t"));
    let err = expand::resource_acls_to_add(&args, PatternType::Literal).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a string in format principalType:principalName but got alice"
    );
}

#[test]
fn pattern_types_parse_case_insensitively() {
    for (text, expected) in [
        ("literal", PatternType::Literal),
        ("Prefixed", PatternType::Prefixed),
        ("ANY", PatternType::Any),
        ("match", PatternType::Match),
    ] {
        let args = parse(&format!("{B} --list --resource-pattern-type {text}"));
        assert_eq!(expand::pattern_type(&args).unwrap(), expected);
    }
    let args = parse(&format!("{B} --list --resource-pattern-type unknown"));
    assert_eq!(
        expand::pattern_type(&args).unwrap_err().to_string(),
        "Unknown resource-pattern-type: unknown"
    );
}

#[test]
fn remove_without_principals_targets_all_acls_of_the_resource() {
    let args = parse(&format!("{B} --remove --topic t --group g"));
    args.check().unwrap();
    let map = expand::resource_acls(&args, PatternType::Literal).unwrap();
    assert_eq!(map.len(), 2);
    assert!(map.values().all(BTreeSet::is_empty));
}
