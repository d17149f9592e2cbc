//! `kacl_policy::explain` sees only the ACLs a MATCH describe returns for the resource (what
//! the CLI fetches); its decision must still be the full set's `Authorizer::authorize`.

use kacl_acl::AclRef;
use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclIndex,
    AclOperation, AclPermissionType, Authorizer, AuthorizerConfig, PatternType, ResourcePattern,
    ResourcePatternFilter, ResourceType, SharedAclIndex,
};
use kacl_policy::{Candidates, Listing, Query};
use proptest::prelude::*;

const NAMES: &[&str] = &["a", "ab", "abc", "b", "*", "ba"];
const PRINCIPALS: &[&str] = &["User:a", "User:b", "User:*", "User:A"];
const HOSTS: &[&str] = &[
    "*",
    "h1",
    "h2",
    "10.0.0.0/8",
    "10.0.0.1",
    "fd00::/16",
    "fd00:0:0:0:0:0:0:1",
];
/// Client addresses as typed: explain compares their canonical text (`fd00::1`).
const CLIENTS: &[&str] = &["*", "h1", "10.0.0.1", "10.9.9.9", "fd00::1", "fd01::1"];

fn binding() -> impl Strategy<Value = AclBinding> {
    (
        prop::sample::select(&[ResourceType::Topic, ResourceType::Group][..]),
        prop::sample::select(NAMES),
        any::<bool>(),
        prop::sample::select(PRINCIPALS),
        prop::sample::select(HOSTS),
        (2i8..=15).prop_map(AclOperation::from_code),
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn explain_over_the_candidates_decides_as_the_full_set(
        acls in prop::collection::vec(binding(), 0..50),
        questions in prop::collection::vec(
            (prop::sample::select(PRINCIPALS), prop::sample::select(CLIENTS),
             (2i8..=15).prop_map(AclOperation::from_code),
             prop::sample::select(&[ResourceType::Topic, ResourceType::Group][..]),
             prop::sample::select(&["a", "abc", "abd", "b", "*", "x"][..])),
            1..16),
        allow_everyone in any::<bool>(),
    ) {
        let index = AclIndex::from_bindings(acls).expect("storable");
        let config = AuthorizerConfig {
            super_users: vec!["User:b".into()],
            allow_everyone_if_no_acl_found: allow_everyone,
        };
        for (principal, host, op, rt, name) in questions {
            let filter = AclBindingFilter::new(
                ResourcePatternFilter::new(rt, Some(name), PatternType::Match),
                AccessControlEntryFilter::ANY,
            );
            let candidates = index.describe(&filter);
            let query = Query {
                principal: principal.into(),
                host: host.into(),
                operation: op,
                resource_type: rt,
                name: name.into(),
            };
            let report = kacl_policy::explain(&config, &candidates, &[], &query);
            let full = Authorizer::new(
                config.clone(),
                SharedAclIndex::from_index(AclIndex::from_bindings(index.describe(&AclBindingFilter::ANY)).expect("ok")),
            );
            prop_assert_eq!(report.explanation.result, full.authorize(principal, &kacl_acl::canonical_host(host), op, rt, name));
            // Listing only the relevant candidates changes what is listed, never the decision
            // or what the asker's own candidates say; the others are counted.
            let mut relevant = Candidates::new(&query, Listing::Relevant);
            for b in &candidates {
                relevant.push(AclRef {
                    resource_type: b.pattern.resource_type,
                    pattern_type: b.pattern.pattern_type,
                    name: &b.pattern.name,
                    principal: &b.entry.principal,
                    host: &b.entry.host,
                    operation: b.entry.operation,
                    permission_type: b.entry.permission_type,
                });
            }
            let short = kacl_policy::explain_candidates(&config, relevant, &[], &query);
            prop_assert_eq!(&short.explanation, &report.explanation);
            prop_assert_eq!(&short.near_misses, &report.near_misses);
            prop_assert_eq!(short.candidates.len() + short.unlisted, report.candidates.len());
            let own = |r: &kacl_policy::Report| -> Vec<kacl_policy::Candidate> {
                r.candidates.iter().filter(|c| c.acl.entry.principal == principal || c.acl.entry.principal == "User:*").cloned().collect()
            };
            prop_assert_eq!(own(&short), own(&report));
            // Every candidate the report calls applying concerns the request.
            let applying = report.candidates.iter().filter(|c| c.mismatches.is_empty()).count();
            if let kacl_acl::DecidingRule::MatchingAcl { acl, .. } = &report.explanation.rule {
                prop_assert!(applying > 0 && candidates.contains(acl));
            }
        }
    }
}
