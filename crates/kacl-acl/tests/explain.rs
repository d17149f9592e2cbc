//! `Authorizer::explain`: its decision is `authorize`'s and the linear-scan oracle's for
//! random ACL sets and questions, and the rule it names really carries that decision.

mod oracle;

use kacl_acl::{
    allow_grants, deny_refuses, AccessControlEntry, AclBinding, AclChanges, AclIndex, AclOperation,
    AclPermissionType, AuthorizationResult, Authorizer, AuthorizerConfig, DecidingRule,
    PatternType, ResourcePattern, ResourceType, SharedAclIndex,
};
use oracle::Oracle;
use proptest::prelude::*;

const NAMES: &[&str] = &["a", "ab", "abc", "abd", "b", "*", "*a", "hardcode"];
const QUERY_NAMES: &[&str] = &["a", "ab", "abc", "abcd", "abz", "b", "*", "*a", "x"];
const PRINCIPALS: &[&str] = &["User:a", "User:b", "User:*", "Group:a"];
const HOSTS: &[&str] = &["*", "h1", "h2"];
const TYPES: &[ResourceType] = &[ResourceType::Topic, ResourceType::Group];

fn op() -> impl Strategy<Value = AclOperation> {
    prop_oneof![
        3 => prop::sample::select(&[AclOperation::Read, AclOperation::Write,
            AclOperation::Describe, AclOperation::All, AclOperation::AlterConfigs,
            AclOperation::DescribeConfigs][..]),
        1 => (2i8..=14).prop_map(AclOperation::from_code),
    ]
}

fn binding() -> impl Strategy<Value = AclBinding> {
    (
        prop::sample::select(TYPES),
        prop::sample::select(NAMES),
        any::<bool>(),
        prop::sample::select(PRINCIPALS),
        prop::sample::select(HOSTS),
        op(),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(rt, name, prefixed, principal, host, op, deny)| {
            let pt = if prefixed {
                PatternType::Prefixed
            } else {
                PatternType::Literal
            };
            let perm = if deny {
                AclPermissionType::Deny
            } else {
                AclPermissionType::Allow
            };
            AclBinding::new(
                ResourcePattern::new(rt, name, pt),
                AccessControlEntry::new(principal, host, op, perm),
            )
        })
}

fn applies(b: &AclBinding, rt: ResourceType, name: &str) -> bool {
    b.pattern.resource_type == rt
        && match b.pattern.pattern_type {
            PatternType::Literal => b.pattern.name == name || b.pattern.name == "*",
            _ => name.starts_with(&b.pattern.name),
        }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn explain_decides_as_authorize_and_the_oracle(
        acls in prop::collection::vec(binding(), 0..50),
        questions in prop::collection::vec(
            (prop::sample::select(PRINCIPALS), prop::sample::select(HOSTS), op(),
             prop::sample::select(TYPES), prop::sample::select(QUERY_NAMES)),
            1..24),
        allow_everyone in any::<bool>(),
        super_user in prop::option::weighted(0.2, prop::sample::select(PRINCIPALS)),
    ) {
        let mut index = AclIndex::new();
        index.apply(&AclChanges { removes: vec![], adds: acls.clone() }).expect("storable");
        let mut oracle = Oracle::new();
        for b in &acls {
            oracle.add(b.clone());
        }
        let config = AuthorizerConfig {
            super_users: super_user.map(|s| vec![s.to_string()]).unwrap_or_default(),
            allow_everyone_if_no_acl_found: allow_everyone,
        };
        let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
        for (principal, host, op, rt, name) in questions {
            let explained = authorizer.explain(principal, host, op, rt, name);
            let decided = authorizer.authorize(principal, host, op, rt, name);
            prop_assert_eq!(explained.result, decided);
            prop_assert_eq!(decided, oracle.authorize(&config, principal, host, op, rt, name));
            prop_assert_eq!(explained.rule.result(), explained.result);
            let any_applies = acls.iter().any(|b| applies(b, rt, name));
            match &explained.rule {
                DecidingRule::SuperUser => prop_assert_eq!(super_user, Some(principal)),
                DecidingRule::DefaultAllow => {
                    prop_assert!(allow_everyone && !any_applies);
                }
                DecidingRule::DefaultDeny { resource_has_acls } => {
                    prop_assert_eq!(*resource_has_acls, any_applies);
                }
                DecidingRule::MatchingAcl { acl, implied } => {
                    prop_assert!(acls.contains(acl));
                    prop_assert!(applies(acl, rt, name));
                    prop_assert!(acl.entry.principal == principal || acl.entry.principal == "User:*");
                    prop_assert!(acl.entry.host == host || acl.entry.host == "*");
                    match acl.entry.permission_type {
                        AclPermissionType::Deny => {
                            prop_assert!(deny_refuses(acl.entry.operation, op));
                            prop_assert!(!implied);
                        }
                        _ => prop_assert_eq!(allow_grants(acl.entry.operation, op), Some(*implied)),
                    }
                }
            }
        }
    }
}

fn acl(
    name: &str,
    pt: PatternType,
    principal: &str,
    op: AclOperation,
    perm: AclPermissionType,
) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, name, pt),
        AccessControlEntry::new(principal, "*", op, perm),
    )
}

#[test]
fn each_rule_reads_as_kafkas_audit_line_names_it() {
    use AclOperation::*;
    use AclPermissionType::*;
    let acls = vec![
        acl("orders", PatternType::Literal, "User:alice", Read, Allow),
        acl("orders-", PatternType::Prefixed, "User:bob", Write, Deny),
        acl("orders-", PatternType::Prefixed, "User:bob", All, Allow),
    ];
    let config = AuthorizerConfig {
        super_users: vec!["User:admin".into()],
        allow_everyone_if_no_acl_found: true,
    };
    let authorizer = Authorizer::new(
        config,
        SharedAclIndex::from_index(AclIndex::from_bindings(acls).expect("storable")),
    );
    let rule = |p: &str, op, name: &str| {
        let e = authorizer.explain(p, "10.0.0.1", op, ResourceType::Topic, name);
        (e.result, e.rule.to_string())
    };
    assert_eq!(
        rule("User:admin", Write, "orders"),
        (AuthorizationResult::Allowed, "SuperUser".into())
    );
    assert_eq!(
        rule("User:alice", Describe, "orders"),
        (
            AuthorizationResult::Allowed,
            "MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders, \
             patternType=LITERAL, principal=User:alice, host=*, operation=READ, \
             permissionType=ALLOW))"
                .into()
        )
    );
    assert_eq!(
        rule("User:bob", Write, "orders-eu"),
        (
            AuthorizationResult::Denied,
            "MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders-, \
             patternType=PREFIXED, principal=User:bob, host=*, operation=WRITE, \
             permissionType=DENY))"
                .into()
        )
    );
    assert_eq!(
        rule("User:carol", Read, "orders"),
        (AuthorizationResult::Denied, "DefaultDeny".into())
    );
    assert_eq!(
        rule("User:carol", Read, "payments"),
        (AuthorizationResult::Allowed, "DefaultAllow".into())
    );
    let implied = authorizer.explain("User:alice", "h", Describe, ResourceType::Topic, "orders");
    assert!(matches!(
        implied.rule,
        DecidingRule::MatchingAcl { implied: true, .. }
    ));
}
