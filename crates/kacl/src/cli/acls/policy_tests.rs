//! The `--scope` syntax of `import`.

use kacl_acl::{AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType};
use kacl_acl::{ResourcePattern, ResourceType};

use super::policy_args::scope;

fn acl(rt: ResourceType, name: &str, pt: PatternType, principal: &str) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(rt, name, pt),
        AccessControlEntry::new(principal, "*", AclOperation::Read, AclPermissionType::Allow),
    )
}

#[test]
fn scope_values_name_principals_literals_and_prefixes() {
    let s = scope(&["topic=orders-*".into(), "group=billing".into()]).expect("valid");
    assert!(s.contains(&acl(
        ResourceType::Topic,
        "orders-eu",
        PatternType::Literal,
        "User:a"
    )));
    assert!(s.contains(&acl(
        ResourceType::Topic,
        "orders-",
        PatternType::Prefixed,
        "User:a"
    )));
    assert!(!s.contains(&acl(
        ResourceType::Topic,
        "orders",
        PatternType::Literal,
        "User:a"
    )));
    assert!(s.contains(&acl(
        ResourceType::Group,
        "billing",
        PatternType::Literal,
        "User:a"
    )));
    assert!(!s.contains(&acl(
        ResourceType::Group,
        "billing-x",
        PatternType::Literal,
        "User:a"
    )));
    let s = scope(&["principal=User:alice".into()]).expect("valid");
    assert!(s.contains(&acl(
        ResourceType::Group,
        "g",
        PatternType::Literal,
        "User:alice"
    )));
    assert!(!s.contains(&acl(
        ResourceType::Group,
        "g",
        PatternType::Literal,
        "User:bob"
    )));
    let s = scope(&["all".into()]).expect("valid");
    assert!(s.all && s.check().is_ok());
    assert!(scope(&["principal=alice".into()]).is_err());
    assert!(scope(&["orders".into()]).is_err());
    assert!(scope(&["all".into(), "topic=a".into()]).is_err());
}
