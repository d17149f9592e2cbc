//! CIDR host patterns (Kafka 4.4, KIP-1190) through the index and the authorizer: a range
//! grants and refuses like a host, by resource type too, survives removal and the index's
//! bytes, and the explanation names the ACL of the range. (Kafka's own answers for many
//! more cases: tests/authorizer-differential.)

use kacl_acl::{
    AccessControlEntry, AclBinding, AclChanges, AclIndex, AclOperation, AclPermissionType,
    AuthorizationResult, Authorizer, AuthorizerConfig, DecidingRule, PatternType, ResourcePattern,
    ResourceType, SharedAclIndex,
};
use AclOperation::*;
use AclPermissionType::{Allow, Deny};
use AuthorizationResult::{Allowed, Denied};
use ResourceType::Topic;

fn acl(host: &str, op: AclOperation, perm: AclPermissionType) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(Topic, "orders", PatternType::Literal),
        AccessControlEntry::new("User:alice", host, op, perm),
    )
}

fn authorizer(index: SharedAclIndex) -> Authorizer {
    Authorizer::new(AuthorizerConfig::default(), index)
}

fn shared(acls: Vec<AclBinding>) -> SharedAclIndex {
    SharedAclIndex::from_index(AclIndex::from_bindings(acls).expect("storable"))
}

fn read_from(a: &Authorizer, host: &str) -> AuthorizationResult {
    a.authorize("User:alice", host, Read, Topic, "orders")
}

#[test]
fn an_allowed_subnet_grants_and_a_denied_one_refuses() {
    let a = authorizer(shared(vec![
        acl("10.0.0.0/8", Read, Allow),
        acl("10.1.0.0/16", Read, Deny),
        acl("fd00::/16", Read, Allow),
    ]));
    assert_eq!(read_from(&a, "10.2.3.4"), Allowed);
    assert_eq!(
        read_from(&a, "10.1.3.4"),
        Denied,
        "the DENY range inside wins"
    );
    assert_eq!(read_from(&a, "11.0.0.1"), Denied);
    assert_eq!(read_from(&a, "fd00:0:0:0:0:0:0:1"), Allowed);
    assert_eq!(read_from(&a, "fd01:0:0:0:0:0:0:1"), Denied);
    assert_eq!(
        a.authorize("User:alice", "10.2.3.4", Describe, Topic, "orders"),
        Allowed,
        "READ from a range implies DESCRIBE, as from a host"
    );
}

#[test]
fn kafkas_edges_of_ipv4_ranges() {
    let a = authorizer(shared(vec![
        acl("10.0.0.0/31", Read, Allow),
        acl("192.168.1.7/32", Read, Allow),
        acl("172.16.0.0/24", Read, Allow),
        acl("0.0.0.0/0", Write, Allow),
        acl("1.2.3.4/33", Read, Allow),
    ]));
    for inside in [
        "10.0.0.0",
        "10.0.0.1",
        "192.168.1.7",
        "172.16.0.0",
        "172.16.0.255",
    ] {
        assert_eq!(read_from(&a, inside), Allowed, "{inside}");
    }
    for outside in ["10.0.0.2", "192.168.1.8", "172.16.1.0", "1.2.3.4"] {
        assert_eq!(read_from(&a, outside), Denied, "{outside}");
    }
    assert_eq!(
        a.authorize("User:alice", "8.8.8.8", Write, Topic, "orders"),
        Allowed
    );
    assert_eq!(
        a.authorize("User:alice", "0.0.0.0", Write, Topic, "orders"),
        Denied,
        "Commons Net never puts 0.0.0.0 in a range"
    );
    assert_eq!(
        a.authorize("User:alice", "0:0:0:0:0:0:0:1", Write, Topic, "orders"),
        Denied,
        "an IPv6 client is never in an IPv4 range"
    );
}

#[test]
fn by_resource_type_sees_ranges() {
    let a = authorizer(shared(vec![acl("10.0.0.0/8", Read, Allow)]));
    let by_type = |host| {
        a.authorize_by_resource_type("User:alice", host, Read, Topic)
            .expect("concrete")
    };
    assert_eq!(by_type("10.9.9.9"), Allowed);
    assert_eq!(by_type("11.9.9.9"), Denied);
    let denied = authorizer(shared(vec![
        acl("*", Read, Allow),
        AclBinding::new(
            ResourcePattern::new(Topic, "orders", PatternType::Prefixed),
            AccessControlEntry::new("User:alice", "10.0.0.0/8", Read, Deny),
        ),
    ]));
    let by_type = |host| {
        denied
            .authorize_by_resource_type("User:alice", host, Read, Topic)
            .expect("concrete")
    };
    assert_eq!(
        by_type("10.9.9.9"),
        Denied,
        "a DENY prefix by range dominates"
    );
    assert_eq!(by_type("11.9.9.9"), Allowed);
}

#[test]
fn removing_the_last_acl_of_a_range_forgets_it_and_bytes_keep_it() {
    let index = shared(vec![
        acl("10.0.0.0/8", Read, Allow),
        acl("10.1.2.3/8", Read, Deny),
    ]);
    let a = authorizer(index.clone());
    assert_eq!(read_from(&a, "10.0.0.9"), Denied);
    let copy = AclIndex::from_bytes(&index.read().to_bytes()).expect("bytes read back");
    assert_eq!(
        read_from(&authorizer(SharedAclIndex::from_index(copy)), "10.0.0.9"),
        Denied
    );
    index
        .apply(&AclChanges {
            removes: vec![acl("10.1.2.3/8", Read, Deny)],
            adds: vec![],
        })
        .expect("storable");
    assert_eq!(read_from(&a, "10.0.0.9"), Allowed);
    index
        .apply(&AclChanges {
            removes: vec![acl("10.0.0.0/8", Read, Allow)],
            adds: vec![acl("10.0.0.0/8", Write, Allow)],
        })
        .expect("storable");
    assert_eq!(read_from(&a, "10.0.0.9"), Denied);
    assert_eq!(
        a.authorize("User:alice", "10.0.0.9", Write, Topic, "orders"),
        Allowed
    );
}

#[test]
fn the_explanation_names_the_acl_of_the_range() {
    let a = authorizer(shared(vec![
        acl("10.0.0.0/8", Read, Allow),
        acl("fd00::/16", Read, Deny),
    ]));
    let e = a.explain("User:alice", "10.2.3.4", Read, Topic, "orders");
    assert_eq!(e.result, Allowed);
    match e.rule {
        DecidingRule::MatchingAcl { acl, implied } => {
            assert_eq!(acl.entry.host, "10.0.0.0/8");
            assert!(!implied);
        }
        other => panic!("expected the range's ACL, got {other}"),
    }
    let e = a.explain("User:alice", "fd00:0:0:0:0:0:0:9", Read, Topic, "orders");
    assert_eq!(e.result, Denied);
    assert!(e.rule.to_string().contains("host=fd00::/16"), "{}", e.rule);
}

#[test]
fn two_phase_commit_is_stored_granted_by_all_and_implies_nothing() {
    let tx = |op, perm| {
        AclBinding::new(
            ResourcePattern::new(ResourceType::TransactionalId, "tx", PatternType::Literal),
            AccessControlEntry::new("User:alice", "*", op, perm),
        )
    };
    assert_eq!(
        kacl_acl::validate_new_acl(&tx(TwoPhaseCommit, Allow)),
        Ok(())
    );
    let a = authorizer(shared(vec![tx(TwoPhaseCommit, Allow)]));
    let ask = |op| {
        a.authorize(
            "User:alice",
            "1.1.1.1",
            op,
            ResourceType::TransactionalId,
            "tx",
        )
    };
    assert_eq!(ask(TwoPhaseCommit), Allowed);
    assert_eq!(ask(Describe), Denied, "TWO_PHASE_COMMIT implies nothing");
    assert_eq!(ask(Write), Denied);
    let all = authorizer(shared(vec![tx(All, Allow)]));
    assert_eq!(
        all.authorize(
            "User:alice",
            "1.1.1.1",
            TwoPhaseCommit,
            ResourceType::TransactionalId,
            "tx"
        ),
        Allowed
    );
    assert_eq!(AclOperation::from_code(15), TwoPhaseCommit);
    assert_eq!(AclOperation::from_code(16), AclOperation::Unknown);
}
