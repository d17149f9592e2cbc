//! Authorization rules, with cases taken from Kafka's StandardAuthorizerTest and
//! AuthorizerTest (authorizeByResourceType).

use kacl_acl::{
    AccessControlEntry, AclBinding, AclChanges, AclOperation, AclPermissionType,
    AuthorizationResult, Authorizer, AuthorizerConfig, PatternType, ResourcePattern, ResourceType,
    ResourceTypeCheckError, SharedAclIndex,
};
use AclOperation::*;
use AclPermissionType::{Allow, Deny};
use AuthorizationResult::{Allowed, Denied};
use PatternType::{Literal, Prefixed};
use ResourceType::{Group, Topic};

fn acl(
    rt: ResourceType,
    name: &str,
    pt: PatternType,
    principal: &str,
    host: &str,
    op: AclOperation,
    perm: AclPermissionType,
) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(rt, name, pt),
        AccessControlEntry::new(principal, host, op, perm),
    )
}

fn authorizer_with(config: AuthorizerConfig, acls: Vec<AclBinding>) -> Authorizer {
    let index = SharedAclIndex::new();
    index
        .apply(&AclChanges {
            removes: vec![],
            adds: acls,
        })
        .expect("storable ACLs");
    Authorizer::new(config, index)
}

fn authorizer(acls: Vec<AclBinding>) -> Authorizer {
    authorizer_with(AuthorizerConfig::default(), acls)
}

fn check(
    a: &Authorizer,
    user: &str,
    op: AclOperation,
    rt: ResourceType,
    name: &str,
) -> AuthorizationResult {
    a.authorize(&format!("User:{user}"), "127.0.0.1", op, rt, name)
}

/// Kafka's `newFooAcl`: PREFIXED TOPIC `foo_` for User:bob, and `newBarAcl`: LITERAL
/// GROUP `bar` for User:*.
fn foo_acl(op: AclOperation, perm: AclPermissionType) -> AclBinding {
    acl(Topic, "foo_", Prefixed, "User:bob", "*", op, perm)
}
fn bar_acl(op: AclOperation, perm: AclPermissionType) -> AclBinding {
    acl(Group, "bar", Literal, "User:*", "*", op, perm)
}

#[test]
fn simple_authorizations() {
    let a = authorizer(vec![
        foo_acl(Read, Allow),
        foo_acl(Write, Allow),
        bar_acl(DescribeConfigs, Allow),
        bar_acl(AlterConfigs, Allow),
    ]);
    assert_eq!(check(&a, "bob", Read, Topic, "foo_"), Allowed);
    assert_eq!(check(&a, "fred", AlterConfigs, Group, "bar"), Allowed);
    assert_eq!(
        check(&a, "alice", Read, Topic, "foo_bar"),
        Denied,
        "principal does not match"
    );
}

#[test]
fn implied_operations_only_from_allow() {
    // findResult cases: ALLOW READ implies DESCRIBE; DENY READ does not deny DESCRIBE.
    for op in [Read, Write, Delete, Alter, Describe] {
        let a = authorizer(vec![foo_acl(op, Allow)]);
        assert_eq!(
            check(&a, "bob", Describe, Topic, "foo_bar"),
            Allowed,
            "{op} implies DESCRIBE"
        );
        assert_eq!(check(&a, "bob", DescribeConfigs, Topic, "foo_bar"), Denied);
    }
    for op in [Create, ClusterAction, DescribeConfigs, IdempotentWrite] {
        let a = authorizer(vec![foo_acl(op, Allow)]);
        assert_eq!(
            check(&a, "bob", Describe, Topic, "foo_bar"),
            Denied,
            "{op} does not imply DESCRIBE"
        );
    }
    let a = authorizer(vec![foo_acl(AlterConfigs, Allow)]);
    assert_eq!(check(&a, "bob", DescribeConfigs, Topic, "foo_bar"), Allowed);
    assert_eq!(check(&a, "bob", Describe, Topic, "foo_bar"), Denied);

    let a = authorizer(vec![foo_acl(Read, Deny), foo_acl(Describe, Allow)]);
    assert_eq!(
        check(&a, "bob", Describe, Topic, "foo_bar"),
        Allowed,
        "DENY READ does not deny DESCRIBE"
    );
    assert_eq!(check(&a, "bob", Read, Topic, "foo_bar"), Denied);
    let a = authorizer(vec![
        foo_acl(AlterConfigs, Deny),
        foo_acl(DescribeConfigs, Allow),
    ]);
    assert_eq!(check(&a, "bob", DescribeConfigs, Topic, "foo_bar"), Allowed);
}

#[test]
fn wildcard_principal_matches_anyone() {
    let a = authorizer(vec![bar_acl(Read, Deny), bar_acl(Read, Allow)]);
    assert_eq!(check(&a, "alice", Read, Group, "bar"), Denied);
    let a = authorizer(vec![bar_acl(Read, Allow)]);
    assert_eq!(check(&a, "alice", Read, Group, "bar"), Allowed);
}

#[test]
fn topic_acl_with_operation_all() {
    let a = authorizer(vec![
        acl(Topic, "foo", Literal, "User:*", "*", All, Allow),
        acl(Topic, "bar", Prefixed, "User:alice", "*", All, Allow),
        acl(Topic, "baz", Literal, "User:bob", "*", All, Allow),
    ]);
    assert_eq!(check(&a, "alice", Write, Topic, "foo"), Allowed);
    assert_eq!(check(&a, "alice", DescribeConfigs, Topic, "bar"), Allowed);
    assert_eq!(check(&a, "alice", Describe, Topic, "baz"), Denied);
    assert_eq!(check(&a, "bob", Write, Topic, "foo"), Allowed);
    assert_eq!(check(&a, "bob", Read, Topic, "bar"), Denied);
    assert_eq!(check(&a, "bob", Describe, Topic, "baz"), Allowed);
    assert_eq!(check(&a, "malory", Describe, Topic, "foo"), Allowed);
    assert_eq!(check(&a, "malory", Write, Topic, "bar"), Denied);
    assert_eq!(check(&a, "malory", Read, Topic, "baz"), Denied);
}

fn many_acls() -> Vec<AclBinding> {
    vec![
        acl(Topic, "green2", Literal, "User:*", "*", Read, Allow),
        acl(Topic, "green", Prefixed, "User:bob", "*", Read, Allow),
        acl(Topic, "betamax4", Literal, "User:bob", "*", Read, Allow),
        acl(Topic, "betamax", Literal, "User:bob", "*", Read, Allow),
        acl(Topic, "beta", Prefixed, "User:*", "*", Read, Allow),
        acl(Topic, "alpha", Prefixed, "User:*", "*", Read, Allow),
        acl(Topic, "alp", Prefixed, "User:bob", "*", Read, Deny),
        acl(Group, "*", Literal, "User:bob", "*", Write, Allow),
        acl(Group, "wheel", Literal, "User:*", "*", Write, Deny),
    ]
}

#[test]
fn authorization_with_many_acls() {
    let a = authorizer(many_acls());
    assert_eq!(check(&a, "bob", Read, Topic, "green1"), Allowed);
    assert_eq!(check(&a, "bob", Write, Group, "wheel"), Denied);
    assert_eq!(check(&a, "bob", Read, Topic, "alpha"), Denied);
    assert_eq!(check(&a, "bob", Write, Group, "arbitrary"), Allowed);
    assert_eq!(check(&a, "bob", Read, Topic, "ala"), Denied);
    assert_eq!(check(&a, "alice", Read, Topic, "alpha-1"), Allowed);
    assert_eq!(
        check(&a, "alice", Read, Topic, "betamax4"),
        Allowed,
        "via PREFIXED beta for User:*"
    );
}

#[test]
fn hosts_must_match_exactly_or_be_the_wildcard() {
    let a = authorizer(vec![
        acl(Topic, "t", Literal, "User:a", "10.0.0.1", Read, Allow),
        acl(Topic, "t", Literal, "User:a", "*", Write, Allow),
        acl(Topic, "t", Literal, "User:a", "10.0.0.2", Write, Deny),
    ]);
    assert_eq!(a.authorize("User:a", "10.0.0.1", Read, Topic, "t"), Allowed);
    assert_eq!(a.authorize("User:a", "10.0.0.9", Read, Topic, "t"), Denied);
    assert_eq!(
        a.authorize("User:a", "10.0.0.9", Write, Topic, "t"),
        Allowed
    );
    assert_eq!(a.authorize("User:a", "10.0.0.2", Write, Topic, "t"), Denied);
}

#[test]
fn super_users_and_default_result() {
    let config = AuthorizerConfig {
        super_users: vec!["User:admin".into()],
        allow_everyone_if_no_acl_found: false,
    };
    let a = authorizer_with(
        config.clone(),
        vec![acl(Topic, "t", Literal, "User:admin", "*", All, Deny)],
    );
    assert_eq!(
        check(&a, "admin", Write, Topic, "t"),
        Allowed,
        "super users before DENY"
    );
    assert_eq!(
        check(&a, "bob", Write, Topic, "other"),
        Denied,
        "default is DENIED"
    );

    let open = AuthorizerConfig {
        allow_everyone_if_no_acl_found: true,
        ..config
    };
    let a = authorizer_with(
        open,
        vec![acl(Topic, "t", Literal, "User:x", "*", Read, Allow)],
    );
    assert_eq!(
        check(&a, "bob", Write, Topic, "other"),
        Allowed,
        "no ACL applies"
    );
    assert_eq!(
        check(&a, "bob", Write, Topic, "t"),
        Denied,
        "an ACL of someone else applies"
    );
}

#[test]
fn literal_wildcard_applies_to_every_name_including_star_prefixed_ones() {
    let a = authorizer(vec![acl(Group, "*", Literal, "User:a", "*", Read, Allow)]);
    assert_eq!(check(&a, "a", Read, Group, "g"), Allowed);
    assert_eq!(check(&a, "a", Read, Group, "*"), Allowed);
    // Kafka's walk skips the wildcard for such names (quirk); we do not.
    assert_eq!(check(&a, "a", Read, Group, "*abc"), Allowed);
}

#[test]
fn super_users_parse_like_kafka() {
    assert_eq!(AuthorizerConfig::parse_super_users(" "), Ok(vec![]));
    assert_eq!(
        AuthorizerConfig::parse_super_users(";  User:bob  ;  User:alice "),
        Ok(vec!["User:bob".to_string(), "User:alice".to_string()])
    );
    assert_eq!(
        AuthorizerConfig::parse_super_users("bob;:alice").map_err(|e| e.to_string()),
        Err("expected a string in format principalType:principalName but got bob".to_string())
    );
}

fn by_type(
    a: &Authorizer,
    user: &str,
    host: &str,
    op: AclOperation,
    rt: ResourceType,
) -> AuthorizationResult {
    a.authorize_by_resource_type(&format!("User:{user}"), host, op, rt)
        .expect("valid arguments")
}

#[test]
fn by_resource_type_argument_checks() {
    let a = authorizer(vec![]);
    assert_eq!(
        a.authorize_by_resource_type("User:a", "h", Read, ResourceType::Any),
        Err(ResourceTypeCheckError::FilterResourceType)
    );
    assert_eq!(
        a.authorize_by_resource_type("User:a", "h", AclOperation::Unknown, Topic),
        Err(ResourceTypeCheckError::UnknownOperation)
    );
}

#[test]
fn by_resource_type_follows_kafkas_default_algorithm() {
    let u = "User:alice";
    let h = "192.168.1.1";
    // No ACL at all: default DENIED; with allow.everyone: ALLOWED via "hardcode".
    assert_eq!(
        by_type(&authorizer(vec![]), "alice", h, Read, Topic),
        Denied
    );
    let open = AuthorizerConfig {
        allow_everyone_if_no_acl_found: true,
        ..Default::default()
    };
    assert_eq!(
        by_type(&authorizer_with(open, vec![]), "alice", h, Read, Topic),
        Allowed
    );
    let su = AuthorizerConfig {
        super_users: vec![u.into()],
        ..Default::default()
    };
    let a = authorizer_with(su, vec![acl(Topic, "*", Literal, u, "*", Read, Deny)]);
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Allowed, "super user");

    // Any undominated ALLOW.
    let a = authorizer(vec![acl(Topic, "t1", Literal, u, "*", Read, Allow)]);
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Allowed);
    assert_eq!(by_type(&a, "alice", h, Write, Topic), Denied);
    assert_eq!(by_type(&a, "alice", h, Read, Group), Denied);
    assert_eq!(by_type(&a, "bob", h, Read, Topic), Denied);

    // No implied operations: ALLOW READ gives no DESCRIBE here...
    assert_eq!(by_type(&a, "alice", h, Describe, Topic), Denied);
    // ...but ALL counts.
    let a = authorizer(vec![acl(Topic, "t1", Literal, u, "*", All, Allow)]);
    assert_eq!(by_type(&a, "alice", h, Describe, Topic), Allowed);

    // Literal DENY on the same name dominates; a DENY on another name does not.
    let a = authorizer(vec![
        acl(Topic, "t1", Literal, u, "*", Read, Allow),
        acl(Topic, "t1", Literal, "User:*", "*", Read, Deny),
    ]);
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Denied);
    let a = authorizer(vec![
        acl(Topic, "t1", Literal, u, "*", Read, Allow),
        acl(Topic, "t2", Literal, u, "*", Read, Deny),
    ]);
    assert_eq!(
        by_type(&a, "alice", h, Read, Topic),
        Allowed,
        "unrelated deny"
    );

    // A DENY prefix dominates literals and prefixes under it.
    let a = authorizer(vec![
        acl(Topic, "abc", Literal, u, "*", Read, Allow),
        acl(Topic, "abd", Prefixed, u, "*", Read, Allow),
        acl(Topic, "ab", Prefixed, u, h, Read, Deny),
    ]);
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Denied);
    assert_eq!(
        by_type(&a, "alice", "10.0.0.1", Read, Topic),
        Allowed,
        "deny is for another host"
    );
    // A literal DENY does not dominate a PREFIXED ALLOW of the same name.
    let a = authorizer(vec![
        acl(Topic, "abc", Prefixed, u, "*", Read, Allow),
        acl(Topic, "abc", Literal, u, "*", Read, Deny),
    ]);
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Allowed);

    // Wildcard DENY wins over everything; wildcard ALLOW allows.
    let a = authorizer(vec![
        acl(Topic, "t1", Literal, u, "*", Read, Allow),
        acl(Topic, "*", Literal, u, "*", Read, Deny),
    ]);
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Denied);
    let a = authorizer(vec![
        acl(Topic, "t1", Prefixed, u, "*", Read, Deny),
        acl(Topic, "*", Literal, "User:*", "*", Read, Allow),
    ]);
    // "hardcode" probe: the wildcard ALLOW applies to it, so ALLOWED at step 2.
    assert_eq!(by_type(&a, "alice", h, Read, Topic), Allowed);

    // The "hardcode" probe applies implied operations (it is `authorize`).
    let a = authorizer(vec![acl(Topic, "hard", Prefixed, u, "*", Read, Allow)]);
    assert_eq!(by_type(&a, "alice", h, Describe, Topic), Allowed);
}

#[test]
fn many_topics_in_one_session() {
    let a = authorizer(many_acls());
    let session = a.session("User:bob", "127.0.0.1");
    let names = ["green1", "alpha", "ala", "betamax", "zzz"];
    let got: Vec<_> = names
        .iter()
        .map(|n| session.authorize(Read, Topic, n))
        .collect();
    assert_eq!(got, vec![Allowed, Denied, Denied, Allowed, Denied]);
}

/// Cases of Kafka's AuthorizerTest / BaseAuthorizerTest for authorizeByResourceType,
/// replayed step by step on a live set.
mod by_resource_type_kafka_cases {
    use super::*;

    const H1: &str = "192.168.1.1";
    const H2: &str = "192.168.1.2";

    struct Live {
        authorizer: Authorizer,
    }

    impl Live {
        fn new() -> Self {
            Live {
                authorizer: Authorizer::new(AuthorizerConfig::default(), SharedAclIndex::new()),
            }
        }
        fn add(&self, acls: &[AclBinding]) {
            let changes = AclChanges {
                removes: vec![],
                adds: acls.to_vec(),
            };
            assert!(self.authorizer.acls().apply(&changes).is_ok());
        }
        fn remove(&self, acls: &[AclBinding]) {
            let changes = AclChanges {
                removes: acls.to_vec(),
                adds: vec![],
            };
            assert!(self.authorizer.acls().apply(&changes).is_ok());
        }
        fn allowed(&self, user: &str, host: &str, op: AclOperation, rt: ResourceType) -> bool {
            self.authorizer
                .authorize_by_resource_type(&format!("User:{user}"), host, op, rt)
                == Ok(Allowed)
        }
    }

    fn on(
        rt: ResourceType,
        name: &str,
        pt: PatternType,
        principal: &str,
        host: &str,
        op: AclOperation,
        perm: AclPermissionType,
    ) -> AclBinding {
        acl(rt, name, pt, principal, host, op, perm)
    }

    #[test]
    fn multiple_add_and_remove() {
        let live = Live::new();
        let deny = on(Topic, "sb1", Literal, "User:user1", H1, Read, Deny);
        let allow = on(Topic, "sb1", Literal, "User:user1", H1, Read, Allow);
        for _ in 0..3 {
            assert!(!live.allowed("user1", H1, Read, Topic));
            live.add(std::slice::from_ref(&allow));
            assert!(live.allowed("user1", H1, Read, Topic));
            for _ in 0..3 {
                live.add(std::slice::from_ref(&deny));
                assert!(!live.allowed("user1", H1, Read, Topic));
                live.remove(std::slice::from_ref(&deny));
                live.add(std::slice::from_ref(&allow));
                assert!(live.allowed("user1", H1, Read, Topic));
            }
            live.remove(std::slice::from_ref(&allow));
            assert!(!live.allowed("user1", H1, Read, Topic));
        }
    }

    #[test]
    fn isolation_unrelated_deny_wont_dominate_allow() {
        let live = Live::new();
        let (u1, u2) = ("User:user1", "User:user2");
        live.add(&[
            on(Topic, "sb1", Literal, u1, H1, Read, Deny),
            on(Topic, "sb1", Literal, u2, H1, Read, Deny),
            on(Topic, "sb1", Literal, u1, H2, Write, Deny),
            on(Topic, "sb1", Literal, u2, H2, Read, Deny),
            on(Topic, "sb1", Literal, u1, H2, Read, Allow),
            on(Topic, "sb2", Literal, u1, H2, Read, Deny),
            on(Group, "s", Prefixed, u1, H2, Read, Deny),
        ]);
        assert!(!live.allowed("user1", H1, Read, Topic));
        assert!(!live.allowed("user1", H1, Read, Group));
        assert!(!live.allowed("user1", H1, Read, ResourceType::TransactionalId));
        assert!(!live.allowed("user1", H1, Read, ResourceType::Cluster));
        assert!(live.allowed("user1", H2, Read, Topic));
    }

    #[test]
    fn deny_takes_precedence() {
        let live = Live::new();
        live.add(&[on(Topic, "sb1", Literal, "User:user1", H1, Write, Allow)]);
        assert!(live.allowed("user1", H1, Write, Topic));
        live.add(&[on(Topic, "sb1", Literal, "User:user1", H1, Write, Deny)]);
        assert!(!live.allowed("user1", H1, Write, Topic));
    }

    #[test]
    fn prefixed_resource_deny_dominates() {
        let live = Live::new();
        let allow = |name: &str| on(Group, name, Prefixed, "User:user1", H1, Read, Allow);
        let deny = |name: &str| on(Group, name, Prefixed, "User:user1", H1, Read, Deny);
        live.add(&[allow("abcde")]);
        assert!(live.allowed("user1", H1, Read, Group));
        live.add(&[deny("abcd")]);
        assert!(!live.allowed("user1", H1, Read, Group));
        live.add(&[allow("abc")]);
        assert!(live.allowed("user1", H1, Read, Group));
        live.add(&[deny("a")]);
        assert!(!live.allowed("user1", H1, Read, Group));
        live.add(&[allow("ab")]);
        assert!(!live.allowed("user1", H1, Read, Group));
    }

    #[test]
    fn wildcard_resource_deny_dominates() {
        let live = Live::new();
        let ace = |name: &str, pt, perm| on(Group, name, pt, "User:user1", H1, Write, perm);
        live.add(&[ace("hello", Prefixed, Allow)]);
        assert!(live.allowed("user1", H1, Write, Group));
        live.add(&[ace("*", Literal, Deny)]);
        assert!(!live.allowed("user1", H1, Write, Group));
        live.add(&[ace("*", Literal, Allow)]);
        assert!(!live.allowed("user1", H1, Write, Group));
        live.add(&[ace("aloha", Literal, Allow)]);
        assert!(!live.allowed("user1", H1, Write, Group));
    }

    #[test]
    fn with_all_operation_ace() {
        let live = Live::new();
        let ace = |op, perm| on(Topic, "sb1", Literal, "User:user1", H1, op, perm);
        assert!(!live.allowed("user1", H1, Read, Topic));
        live.add(&[ace(Write, Deny), ace(All, Allow)]);
        assert!(live.allowed("user1", H1, Read, Topic));
        live.add(&[ace(All, Deny)]);
        assert!(!live.allowed("user1", H1, Read, Topic));
    }

    #[test]
    fn with_all_host_ace() {
        let live = Live::new();
        let ace =
            |name: &str, host: &str, perm| on(Topic, name, Literal, "User:user1", host, Read, perm);
        assert!(!live.allowed("user1", H1, Read, Topic));
        live.add(&[ace("sb1", H1, Allow)]);
        assert!(live.allowed("user1", H1, Read, Topic));
        live.add(&[ace("sb1", "*", Deny)]);
        assert!(!live.allowed("user1", H1, Read, Topic));
        live.add(&[ace("sb2", H1, Deny)]);
        assert!(!live.allowed("user1", H1, Read, Topic));
        assert!(!live.allowed("user1", H2, Read, Topic));
        live.add(&[ace("sb2", "*", Allow)]);
        assert!(live.allowed("user1", H2, Read, Topic));
        live.add(&[ace("sb2", "*", Deny)]);
        assert!(!live.allowed("user1", H2, Read, Topic));
    }

    #[test]
    fn with_all_principal_ace() {
        let live = Live::new();
        let ace =
            |name: &str, principal: &str, perm| on(Topic, name, Literal, principal, H1, Read, perm);
        assert!(!live.allowed("user1", H1, Read, Topic));
        live.add(&[ace("sb1", "User:user1", Allow)]);
        assert!(live.allowed("user1", H1, Read, Topic));
        live.add(&[ace("sb1", "User:*", Deny)]);
        assert!(!live.allowed("user1", H1, Read, Topic));
        live.add(&[ace("sb2", "User:user1", Deny)]);
        assert!(!live.allowed("user1", H1, Read, Topic));
        assert!(!live.allowed("user2", H1, Read, Topic));
        live.add(&[ace("sb2", "User:*", Allow)]);
        assert!(live.allowed("user2", H1, Read, Topic));
        live.add(&[ace("sb2", "User:*", Deny)]);
        assert!(!live.allowed("user2", H1, Read, Topic));
    }

    #[test]
    fn enable_allow_everyone() {
        let config = AuthorizerConfig {
            allow_everyone_if_no_acl_found: true,
            ..Default::default()
        };
        let authorizer = Authorizer::new(config, SharedAclIndex::new());
        assert_eq!(
            authorizer.authorize_by_resource_type("User:user1", H1, Read, Topic),
            Ok(Allowed)
        );
    }
}
