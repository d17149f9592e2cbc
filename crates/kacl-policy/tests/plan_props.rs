//! Plans, for random ACL sets and scopes: importing a cluster and planning against it
//! changes nothing; applying a plan (additions, then removals) makes the cluster equal the
//! file within the scope and leaves every ACL outside the scope as it was.

use std::collections::BTreeSet;
use std::path::Path;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_policy::{Document, Format, Plan, Scope};
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "orders",
    "orders-eu",
    "ord",
    "pay",
    "*",
    "pay-in",
    "kafka-cluster",
];
const PRINCIPALS: &[&str] = &["User:a", "User:b", "User:*", "Group:ops"];
const HOSTS: &[&str] = &["*", "10.0.0.1", "h2"];

fn binding() -> impl Strategy<Value = AclBinding> {
    (
        prop::sample::select(
            &[
                ResourceType::Topic,
                ResourceType::Group,
                ResourceType::Cluster,
                ResourceType::TransactionalId,
            ][..],
        ),
        prop::sample::select(NAMES),
        any::<bool>(),
        prop::sample::select(PRINCIPALS),
        prop::sample::select(HOSTS),
        (2i8..=14).prop_map(AclOperation::from_code),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(rt, name, prefixed, principal, host, op, deny)| {
            let (name, prefixed) = if rt == ResourceType::Cluster {
                ("kafka-cluster", false)
            } else {
                (name, prefixed)
            };
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

fn scope() -> impl Strategy<Value = Scope> {
    (
        prop::collection::vec(prop::sample::select(PRINCIPALS), 0..3),
        prop::collection::vec(
            (
                prop::sample::select(&[ResourceType::Topic, ResourceType::Group][..]),
                prop::sample::select(&["orders", "ord", "pay", "*"][..]),
                any::<bool>(),
            ),
            0..3,
        ),
    )
        .prop_map(|(principals, resources)| {
            Scope::new(
                principals.into_iter().map(str::to_owned).collect(),
                resources
                    .into_iter()
                    .map(|(rt, name, prefixed)| {
                        let pt = if prefixed {
                            PatternType::Prefixed
                        } else {
                            PatternType::Literal
                        };
                        ResourcePattern::new(rt, name, pt)
                    })
                    .collect(),
            )
        })
}

/// The file round-trips through its text form, as a user would store it.
fn reread(doc: &Document, format: Format) -> Document {
    let text = match format {
        Format::Yaml => doc.to_yaml(),
        Format::Json => doc.to_json(),
    };
    Document::parse(Path::new("f"), &text, format).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// What applying does to a cluster: additions, then removals.
fn apply(cluster: &mut BTreeSet<AclBinding>, plan: &Plan) {
    for b in &plan.additions {
        cluster.insert(b.clone());
    }
    for b in &plan.removals {
        cluster.remove(b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn planning_an_import_changes_nothing(
        acls in prop::collection::vec(binding(), 0..60),
        scope in scope(),
        json in any::<bool>(),
    ) {
        // A cluster holds each ACL once.
        let acls: Vec<AclBinding> = acls.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let format = if json { Format::Json } else { Format::Yaml };
        let doc = reread(&Document::import(scope, &acls), format);
        let plan = Plan::compute(&doc, &acls);
        prop_assert!(plan.is_empty(), "{:?}", plan);
        prop_assert_eq!(plan.unchanged + plan.outside_scope, acls.len());
        prop_assert_eq!(plan.unchanged, acls.iter().filter(|b| doc.scope.contains(b)).count());
        prop_assert!(!plan.drifted(&acls));
    }

    #[test]
    fn applying_a_plan_makes_the_scope_equal_the_file_and_nothing_else_moves(
        cluster_acls in prop::collection::vec(binding(), 0..60),
        file_acls in prop::collection::vec(binding(), 0..40),
        scope in scope(),
    ) {
        // A file declares only ACLs inside its scope.
        let doc = reread(&Document::import(scope.clone(), &file_acls), Format::Yaml);
        let wanted: BTreeSet<AclBinding> = doc.bindings().into_iter().collect();
        let cluster_acls: Vec<AclBinding> =
            cluster_acls.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let plan = Plan::compute(&doc, &cluster_acls);
        let mut cluster: BTreeSet<AclBinding> = cluster_acls.iter().cloned().collect();
        let outside_before: Vec<_> = cluster.iter().filter(|b| !scope.contains(b)).cloned().collect();
        apply(&mut cluster, &plan);
        let inside: BTreeSet<AclBinding> = cluster.iter().filter(|b| scope.contains(b)).cloned().collect();
        prop_assert_eq!(&inside, &wanted);
        let outside_after: Vec<_> = cluster.iter().filter(|b| !scope.contains(b)).cloned().collect();
        prop_assert_eq!(outside_before, outside_after);
        let now: Vec<AclBinding> = cluster.into_iter().collect();
        prop_assert!(Plan::compute(&doc, &now).is_empty());
        // The saved plan no longer fits the changed cluster (unless nothing changed).
        prop_assert_eq!(plan.drifted(&now), !plan.is_empty());
    }
}

#[test]
fn the_summary_reads_like_terraform() {
    let acls = vec![AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, "t", PatternType::Literal),
        AccessControlEntry::new("User:a", "*", AclOperation::Read, AclPermissionType::Allow),
    )];
    let doc = Document::import(Scope::new(vec!["User:b".into()], vec![]), &[]);
    let plan = Plan::compute(&doc, &acls);
    assert_eq!(
        plan.summary(),
        "Plan: 0 to add, 0 to remove, 0 unchanged, 1 outside scope untouched"
    );
    assert_eq!(kacl_policy::thousands(40_112), "40,112");
    assert_eq!(kacl_policy::thousands(1_234_567), "1,234,567");
    assert_eq!(kacl_policy::thousands(999), "999");
}
