//! Property tests: for random ACL sets (shared prefixes, wildcards, `User:*`, several
//! hosts), random filters and random authorization questions, the index answers
//! exactly what the linear-scan oracle answers.

mod oracle;

use std::collections::HashSet;

use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclChanges,
    AclIndex, AclOperation, AclPermissionType, Authorizer, AuthorizerConfig, PatternType,
    ResourcePattern, ResourcePatternFilter, ResourceType, SharedAclIndex,
};
use oracle::Oracle;
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "a", "ab", "abc", "abd", "abcd", "b", "ba", "*", "*a", "*ab", "é", "éa", "hardcode", "hard", "",
];
const QUERY_NAMES: &[&str] = &[
    "a", "ab", "abc", "abcd", "abcde", "abz", "b", "bab", "*", "*a", "*abc", "é", "éab", "x",
    "hardcode", "",
];
const PRINCIPALS: &[&str] = &["User:a", "User:b", "User:*", "Group:a", "User:a:b"];
const HOSTS: &[&str] = &[
    "*",
    "h1",
    "h2",
    "10.0.0.1",
    "10.0.0.0/8",
    "10.0.0.1/32",
    "10.1.2.3/8",
    "fd00:0:0:0:0:0:0:1",
    "fd00::/16",
    "10.0.0.0/33",
];
/// Client addresses the questions come from (canonical text, as the server passes them).
const CLIENTS: &[&str] = &[
    "*",
    "h1",
    "10.0.0.1",
    "10.9.9.9",
    "11.0.0.1",
    "fd00:0:0:0:0:0:0:1",
    "fd01:0:0:0:0:0:0:1",
];
const TYPES: &[ResourceType] = &[
    ResourceType::Topic,
    ResourceType::Group,
    ResourceType::Cluster,
];

fn concrete_op() -> impl Strategy<Value = AclOperation> {
    (2i8..=14).prop_map(AclOperation::from_code)
}

fn binding() -> impl Strategy<Value = AclBinding> {
    (
        prop::sample::select(TYPES),
        prop::sample::select(NAMES),
        prop::bool::weighted(0.4),
        prop::sample::select(PRINCIPALS),
        prop::sample::select(HOSTS),
        prop_oneof![
            3 => prop::sample::select(&[AclOperation::Read, AclOperation::Write, AclOperation::Describe, AclOperation::All][..]),
            2 => concrete_op(),
        ],
        prop::bool::weighted(0.3),
    )
        .prop_map(|(rt, name, prefixed, principal, host, op, deny)| {
            AclBinding::new(
                ResourcePattern::new(
                    rt,
                    name,
                    if prefixed { PatternType::Prefixed } else { PatternType::Literal },
                ),
                AccessControlEntry::new(
                    principal,
                    host,
                    op,
                    if deny { AclPermissionType::Deny } else { AclPermissionType::Allow },
                ),
            )
        })
}

fn filter() -> impl Strategy<Value = AclBindingFilter> {
    let rt = prop_oneof![
        3 => Just(ResourceType::Any),
        4 => prop::sample::select(TYPES),
        1 => Just(ResourceType::Unknown),
    ];
    let pt = prop_oneof![
        2 => Just(PatternType::Any),
        3 => Just(PatternType::Match),
        2 => Just(PatternType::Literal),
        2 => Just(PatternType::Prefixed),
        1 => Just(PatternType::Unknown),
    ];
    let name = prop::option::weighted(0.7, prop::sample::select(QUERY_NAMES));
    let principal = prop::option::weighted(0.4, prop::sample::select(PRINCIPALS));
    let host = prop::option::weighted(0.3, prop::sample::select(HOSTS));
    let op = prop_oneof![
        4 => Just(AclOperation::Any),
        3 => concrete_op(),
        1 => Just(AclOperation::Unknown),
    ];
    let perm = prop_oneof![
        4 => Just(AclPermissionType::Any),
        2 => Just(AclPermissionType::Allow),
        2 => Just(AclPermissionType::Deny),
        1 => Just(AclPermissionType::Unknown),
    ];
    (rt, name, pt, principal, host, op, perm).prop_map(
        |(rt, name, pt, principal, host, op, perm)| {
            AclBindingFilter::new(
                ResourcePatternFilter::new(rt, name, pt),
                AccessControlEntryFilter::new(principal, host, op, perm),
            )
        },
    )
}

fn build(acls: &[AclBinding]) -> (AclIndex, Oracle) {
    let mut index = AclIndex::new();
    let mut oracle = Oracle::new();
    let outcome = index
        .apply(&AclChanges {
            removes: vec![],
            adds: acls.to_vec(),
        })
        .expect("storable");
    let mut added = 0;
    for b in acls {
        if oracle.add(b.clone()) {
            added += 1;
        }
    }
    assert_eq!(outcome.added, added);
    (index, oracle)
}

fn sorted(mut v: Vec<AclBinding>) -> Vec<AclBinding> {
    v.sort();
    v
}

fn check_describe(
    index: &AclIndex,
    oracle: &Oracle,
    filter: &AclBindingFilter,
) -> Result<(), TestCaseError> {
    let expected = sorted(oracle.describe(filter));
    prop_assert_eq!(
        sorted(index.describe(filter)),
        expected.clone(),
        "filter {}",
        filter
    );
    prop_assert_eq!(index.count_matching(filter), expected.len());
    // Grouped: each pattern once, lengths exact, entries distinct.
    let groups = index.describe_grouped(filter);
    let mut patterns = HashSet::new();
    let mut total = 0;
    for group in &groups {
        prop_assert!(patterns.insert(group.pattern), "pattern listed twice");
        let entries: Vec<_> = group.entries.clone().collect();
        prop_assert_eq!(entries.len(), group.entries.len());
        prop_assert!(!entries.is_empty());
        let distinct: HashSet<_> = entries.iter().collect();
        prop_assert_eq!(distinct.len(), entries.len());
        total += entries.len();
    }
    prop_assert_eq!(total, expected.len());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn describe_matches_the_oracle(
        acls in prop::collection::vec(binding(), 0..60),
        filters in prop::collection::vec(filter(), 1..12),
    ) {
        let (index, oracle) = build(&acls);
        prop_assert_eq!(index.len(), oracle.len());
        for f in &filters {
            check_describe(&index, &oracle, f)?;
        }
        check_describe(&index, &oracle, &AclBindingFilter::ANY)?;
        for b in acls.iter().take(5) {
            check_describe(&index, &oracle, &b.to_filter())?;
            prop_assert!(index.contains(b));
        }
    }

    #[test]
    fn authorize_matches_the_oracle(
        acls in prop::collection::vec(binding(), 0..60),
        questions in prop::collection::vec(
            (prop::sample::select(PRINCIPALS), prop::sample::select(CLIENTS), concrete_op(),
             prop::sample::select(TYPES), prop::sample::select(QUERY_NAMES)),
            1..24),
        allow_everyone in any::<bool>(),
        super_user in prop::option::weighted(0.2, prop::sample::select(PRINCIPALS)),
    ) {
        let (index, oracle) = build(&acls);
        let config = AuthorizerConfig {
            super_users: super_user.map(|s| vec![s.to_string()]).unwrap_or_default(),
            allow_everyone_if_no_acl_found: allow_everyone,
        };
        let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
        // One session answering many questions (its wildcard memo is reused).
        if let Some((principal, host, ..)) = questions.first() {
            let session = authorizer.session(principal, host);
            for (_, _, op, rt, name) in &questions {
                prop_assert_eq!(
                    session.authorize(*op, *rt, name),
                    oracle.authorize(&config, principal, host, *op, *rt, name)
                );
                prop_assert_eq!(
                    session.authorize_by_resource_type(*op, *rt),
                    oracle.authorize_by_resource_type(&config, principal, host, *op, *rt)
                );
            }
        }
        for (principal, host, op, rt, name) in questions {
            prop_assert_eq!(
                authorizer.authorize(principal, host, op, rt, name),
                oracle.authorize(&config, principal, host, op, rt, name),
                "{} from {} {} {} {:?}", principal, host, op, rt, name
            );
            prop_assert_eq!(
                authorizer.authorize_by_resource_type(principal, host, op, rt),
                oracle.authorize_by_resource_type(&config, principal, host, op, rt),
                "by type: {} from {} {} {}", principal, host, op, rt
            );
        }
    }

    #[test]
    fn removals_and_delete_matching_keep_the_index_equal_to_the_oracle(
        acls in prop::collection::vec(binding(), 0..60),
        remove_every in 1usize..5,
        filters in prop::collection::vec(filter(), 1..4),
        probes in prop::collection::vec(filter(), 1..6),
    ) {
        let (index, mut oracle) = build(&acls);
        let shared = SharedAclIndex::from_index(index);
        let removes: Vec<AclBinding> = acls.iter().step_by(remove_every).cloned().collect();
        let outcome = shared.apply(&AclChanges { removes: removes.clone(), adds: vec![] }).expect("ok");
        let removed = removes.iter().filter(|b| oracle.remove(b)).count();
        prop_assert_eq!(outcome.removed, removed);
        prop_assert_eq!(shared.len(), oracle.len());

        let plan = shared.delete_matching(&filters);
        for (f, matched) in filters.iter().zip(&plan.matched) {
            prop_assert_eq!(sorted(matched.clone()), sorted(oracle.describe(f)));
        }
        let unique: HashSet<_> = plan.removals.iter().collect();
        prop_assert_eq!(unique.len(), plan.removals.len());
        for b in &plan.removals {
            prop_assert!(oracle.remove(b));
        }
        prop_assert_eq!(shared.len(), oracle.len());
        let index = shared.read();
        for f in &probes {
            check_describe(&index, &oracle, f)?;
        }
        check_describe(&index, &oracle, &AclBindingFilter::ANY)?;
    }
}

/// Dense in DENY prefixes over a prefix-rich name pool: exercises the
/// skip-under-a-dominating-prefix walk of `authorize_by_resource_type`.
fn dense_binding() -> impl Strategy<Value = AclBinding> {
    const DENSE_NAMES: &[&str] = &[
        "a", "aa", "ab", "aba", "abb", "b", "ba", "bb", "c", "ca", "*",
    ];
    (
        prop::sample::select(DENSE_NAMES),
        any::<bool>(),
        prop::sample::select(&["User:a", "User:*"][..]),
        prop::sample::select(&["*", "h1"][..]),
        prop::sample::select(&[AclOperation::Read, AclOperation::All, AclOperation::Write][..]),
        any::<bool>(),
    )
        .prop_map(|(name, prefixed, principal, host, op, deny)| {
            AclBinding::new(
                ResourcePattern::new(
                    ResourceType::Topic,
                    name,
                    if prefixed {
                        PatternType::Prefixed
                    } else {
                        PatternType::Literal
                    },
                ),
                AccessControlEntry::new(
                    principal,
                    host,
                    op,
                    if deny {
                        AclPermissionType::Deny
                    } else {
                        AclPermissionType::Allow
                    },
                ),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn by_resource_type_matches_the_oracle_under_dense_denies(
        acls in prop::collection::vec(dense_binding(), 0..30),
    ) {
        let (index, oracle) = build(&acls);
        let config = AuthorizerConfig::default();
        let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
        for principal in ["User:a", "User:b"] {
            for host in ["h1", "h2"] {
                for op in [AclOperation::Read, AclOperation::Write, AclOperation::Describe] {
                    prop_assert_eq!(
                        authorizer.authorize_by_resource_type(principal, host, op, ResourceType::Topic),
                        oracle.authorize_by_resource_type(&config, principal, host, op, ResourceType::Topic),
                        "{} from {} {}", principal, host, op
                    );
                }
            }
        }
    }
}

/// A batch of at least 1024 additions takes the bulk path (inserted in name order);
/// it must give the same set as one-by-one insertion.
#[test]
fn bulk_loaded_index_matches_the_oracle() {
    let mut acls = Vec::new();
    for (i, name) in NAMES.iter().enumerate() {
        for (j, principal) in PRINCIPALS.iter().enumerate() {
            for (k, host) in HOSTS.iter().enumerate() {
                for op in [
                    AclOperation::Read,
                    AclOperation::All,
                    AclOperation::Describe,
                ] {
                    let n = i + j + k;
                    let rt = TYPES[n % TYPES.len()];
                    let pt = if n % 3 == 0 {
                        PatternType::Prefixed
                    } else {
                        PatternType::Literal
                    };
                    let perm = if n % 4 == 0 {
                        AclPermissionType::Deny
                    } else {
                        AclPermissionType::Allow
                    };
                    acls.push(AclBinding::new(
                        ResourcePattern::new(rt, *name, pt),
                        AccessControlEntry::new(*principal, *host, op, perm),
                    ));
                    acls.push(AclBinding::new(
                        ResourcePattern::new(rt, format!("{name}-{n}"), pt),
                        AccessControlEntry::new(*principal, *host, op, perm),
                    ));
                }
            }
        }
    }
    assert!(acls.len() >= 1024, "exercise the bulk path");
    let (index, oracle) = build(&acls);
    assert_eq!(index.len(), oracle.len());
    let mut filters = vec![AclBindingFilter::ANY];
    for name in QUERY_NAMES {
        for pt in [PatternType::Match, PatternType::Any, PatternType::Prefixed] {
            filters.push(AclBindingFilter::new(
                ResourcePatternFilter::new(ResourceType::Any, Some(*name), pt),
                AccessControlEntryFilter::ANY,
            ));
        }
    }
    for principal in PRINCIPALS {
        filters.push(AclBindingFilter::new(
            ResourcePatternFilter::ANY,
            AccessControlEntryFilter::new(
                Some(*principal),
                None::<&str>,
                AclOperation::Any,
                AclPermissionType::Deny,
            ),
        ));
    }
    for f in &filters {
        assert_eq!(sorted(index.describe(f)), sorted(oracle.describe(f)), "{f}");
    }
    let config = AuthorizerConfig::default();
    let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
    for principal in PRINCIPALS {
        for host in HOSTS {
            for rt in TYPES {
                for op in [
                    AclOperation::Read,
                    AclOperation::Describe,
                    AclOperation::Write,
                ] {
                    for name in QUERY_NAMES {
                        assert_eq!(
                            authorizer.authorize(principal, host, op, *rt, name),
                            oracle.authorize(&config, principal, host, op, *rt, name)
                        );
                    }
                    assert_eq!(
                        authorizer.authorize_by_resource_type(principal, host, op, *rt),
                        oracle.authorize_by_resource_type(&config, principal, host, op, *rt)
                    );
                }
            }
        }
    }
}

/// Few patterns, many principals and hosts: long runs per pattern.
fn crowded_binding() -> impl Strategy<Value = AclBinding> {
    (
        prop::sample::select(&["a", "ab", "*", "b"][..]),
        any::<bool>(),
        0u32..40,
        0u32..8,
        prop::sample::select(&[AclOperation::Read, AclOperation::All, AclOperation::Write][..]),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(name, prefixed, user, host, op, deny)| {
            AclBinding::new(
                ResourcePattern::new(
                    ResourceType::Topic,
                    name,
                    if prefixed {
                        PatternType::Prefixed
                    } else {
                        PatternType::Literal
                    },
                ),
                AccessControlEntry::new(
                    format!("User:u{user}"),
                    if host == 0 {
                        "*".to_string()
                    } else {
                        format!("h{host}")
                    },
                    op,
                    if deny {
                        AclPermissionType::Deny
                    } else {
                        AclPermissionType::Allow
                    },
                ),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Batches of 1024+ changes take the sorted, merged path, for additions into
    /// existing patterns and for removals; the result must equal the oracle's.
    #[test]
    fn bulk_merges_match_the_oracle(
        first in prop::collection::vec(crowded_binding(), 1100..1300),
        second in prop::collection::vec(crowded_binding(), 1100..1300),
        remove_every in 1usize..3,
    ) {
        let (mut index, mut oracle) = build(&first);
        // Second bulk batch: merges into existing patterns, some duplicates.
        let outcome = index.apply(&AclChanges { removes: vec![], adds: second.clone() }).expect("ok");
        let added = second.iter().filter(|b| oracle.add((*b).clone())).count();
        prop_assert_eq!(outcome.added, added);
        prop_assert_eq!(index.len(), oracle.len());
        // Bulk removal, including absent bindings.
        let removes: Vec<AclBinding> = first.iter().chain(&second).step_by(remove_every).cloned().collect();
        prop_assume!(removes.len() >= 1024);
        let outcome = index.apply(&AclChanges { removes: removes.clone(), adds: vec![] }).expect("ok");
        let removed = removes.iter().filter(|b| oracle.remove(b)).count();
        prop_assert_eq!(outcome.removed, removed);
        prop_assert_eq!(index.len(), oracle.len());
        check_describe(&index, &oracle, &AclBindingFilter::ANY)?;
        for user in [0, 1, 7, 39] {
            let f = AclBindingFilter::new(
                ResourcePatternFilter::ANY,
                AccessControlEntryFilter::new(Some(format!("User:u{user}")), None::<&str>, AclOperation::Any, AclPermissionType::Any),
            );
            check_describe(&index, &oracle, &f)?;
        }
        let config = AuthorizerConfig::default();
        let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
        for user in [0, 5, 39] {
            let principal = format!("User:u{user}");
            for host in ["h1", "h7"] {
                for name in ["a", "abc", "b", "zz"] {
                    prop_assert_eq!(
                        authorizer.authorize(&principal, host, AclOperation::Read, ResourceType::Topic, name),
                        oracle.authorize(&config, &principal, host, AclOperation::Read, ResourceType::Topic, name)
                    );
                }
                prop_assert_eq!(
                    authorizer.authorize_by_resource_type(&principal, host, AclOperation::Write, ResourceType::Topic),
                    oracle.authorize_by_resource_type(&config, &principal, host, AclOperation::Write, ResourceType::Topic)
                );
            }
        }
    }
}
