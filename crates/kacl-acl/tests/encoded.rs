//! The index as bytes (`AclIndex::to_bytes` / `from_bytes`): a rebuilt set answers
//! exactly as the set it was taken from, keeps working under later changes, and hostile bytes
//! (truncated, flipped, forged) are refused or at worst read as some other valid set, never a
//! panic.

use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclChanges,
    AclIndex, AclIndexBuilder, AclOperation, AclPermissionType, AclRef, PatternType,
    ResourcePattern, ResourcePatternFilter, ResourceType,
};
use proptest::prelude::*;

const NAMES: &[&str] = &["a", "ab", "abc", "b", "*", "é", ""];
const PRINCIPALS: &[&str] = &["User:a", "User:b", "User:*", "Group:a"];
const HOSTS: &[&str] = &["*", "h1", "10.0.0.1"];
const TYPES: &[ResourceType] = &[
    ResourceType::Topic,
    ResourceType::Group,
    ResourceType::Cluster,
];

fn binding() -> impl Strategy<Value = AclBinding> {
    (
        prop::sample::select(TYPES),
        prop::sample::select(NAMES),
        any::<bool>(),
        prop::sample::select(PRINCIPALS),
        prop::sample::select(HOSTS),
        (2i8..=14).prop_map(AclOperation::from_code),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(rt, name, prefixed, principal, host, op, deny)| {
            acl(rt, name, prefixed, principal, host, op, deny)
        })
}

fn acl(
    rt: ResourceType,
    name: &str,
    prefixed: bool,
    principal: &str,
    host: &str,
    op: AclOperation,
    deny: bool,
) -> AclBinding {
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
}

/// Everything the set answers to the filters that exercise each of its structures.
fn answers(index: &AclIndex) -> Vec<Vec<AclBinding>> {
    let mut filters = vec![AclBindingFilter::ANY];
    for principal in PRINCIPALS {
        filters.push(AclBindingFilter::new(
            ResourcePatternFilter::ANY,
            AccessControlEntryFilter::new(
                Some(*principal),
                None::<String>,
                AclOperation::Any,
                AclPermissionType::Any,
            ),
        ));
    }
    for rt in TYPES {
        for name in NAMES {
            filters.push(AclBindingFilter::new(
                ResourcePatternFilter::new(*rt, Some(*name), PatternType::Match),
                AccessControlEntryFilter::ANY,
            ));
        }
    }
    filters
        .iter()
        .map(|f| {
            let mut found = index.describe(f);
            found.sort();
            found
        })
        .collect()
}

fn rebuilt(index: &AclIndex) -> AclIndex {
    AclIndex::from_bytes(&index.to_bytes()).expect("the bytes of a set read back")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_rebuilt_set_answers_as_the_original_before_and_after_changes(
        adds in prop::collection::vec(binding(), 0..80),
        removes in prop::collection::vec(binding(), 0..40),
        later in prop::collection::vec(binding(), 0..20),
    ) {
        let mut original = AclIndex::from_bindings(adds.clone()).expect("storable");
        original.apply(&AclChanges { removes: removes.clone(), adds: Vec::new() }).expect("removes");
        let mut copy = rebuilt(&original);
        prop_assert_eq!(copy.len(), original.len());
        prop_assert_eq!(answers(&copy), answers(&original));
        prop_assert_eq!(copy.to_bytes(), original.to_bytes(), "the layout is deterministic");
        // Later changes land the same on both (string use counts, solo entries, name lists).
        let changes = AclChanges { removes: adds, adds: later };
        let a = original.apply(&changes).expect("apply");
        let b = copy.apply(&changes).expect("apply");
        prop_assert_eq!(a, b);
        prop_assert_eq!(answers(&copy), answers(&original));
    }

    #[test]
    fn the_builder_builds_the_same_set_from_grouped_or_any_order(
        adds in prop::collection::vec(binding(), 0..80),
        grouped in any::<bool>(),
        later in prop::collection::vec(binding(), 0..20),
    ) {
        let mut expected = AclIndex::from_bindings(adds.clone()).expect("storable");
        let mut input = adds.clone();
        if grouped {
            input.sort_by(|a, b| a.pattern.cmp(&b.pattern));
        }
        let mut builder = AclIndexBuilder::new();
        for b in &input {
            builder.push(AclRef {
                resource_type: b.pattern.resource_type,
                pattern_type: b.pattern.pattern_type,
                name: &b.pattern.name,
                principal: &b.entry.principal,
                host: &b.entry.host,
                operation: b.entry.operation,
                permission_type: b.entry.permission_type,
            }).expect("storable");
        }
        let mut built = builder.finish();
        prop_assert_eq!(built.len(), expected.len());
        prop_assert_eq!(answers(&built), answers(&expected));
        prop_assert_eq!(built.to_bytes(), expected.to_bytes());
        let changes = AclChanges { removes: adds, adds: later };
        prop_assert_eq!(built.apply(&changes).expect("apply"), expected.apply(&changes).expect("apply"));
        prop_assert_eq!(answers(&built), answers(&expected));
    }

    #[test]
    fn damaged_bytes_never_panic(
        adds in prop::collection::vec(binding(), 1..30),
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        let bytes = AclIndex::from_bindings(adds).expect("storable").to_bytes();
        let mut damaged = bytes.clone();
        let i = at.index(damaged.len());
        damaged[i] ^= xor;
        if let Ok(index) = AclIndex::from_bytes(&damaged) {
            // Some flips spell another valid set (a different name); it must be coherent.
            let _ = answers(&index);
        }
    }
}

#[test]
fn every_truncation_and_any_trailing_byte_is_refused() {
    let index = AclIndex::from_bindings(vec![
        acl(
            ResourceType::Topic,
            "orders",
            false,
            "User:a",
            "*",
            AclOperation::Read,
            false,
        ),
        acl(
            ResourceType::Topic,
            "orders",
            false,
            "User:b",
            "h1",
            AclOperation::Write,
            true,
        ),
        acl(
            ResourceType::Group,
            "g",
            true,
            "User:a",
            "*",
            AclOperation::Read,
            false,
        ),
    ])
    .expect("storable");
    let bytes = index.to_bytes();
    for len in 0..bytes.len() {
        assert!(
            AclIndex::from_bytes(&bytes[..len]).is_err(),
            "{len} of {} bytes",
            bytes.len()
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(AclIndex::from_bytes(&longer).is_err());
    assert_eq!(AclIndex::from_bytes(&bytes).map(|i| i.len()), Ok(3));
}

/// Hand-written encodings of what the index can never hold.
#[test]
fn forged_contents_are_refused() {
    // version 1, acl count, strings ["User:a", "*"], then patterns.
    let head = |acls: u8| {
        let mut b = vec![1, acls, 2, 6];
        b.extend_from_slice(b"User:a");
        b.extend_from_slice(&[1, b'*']);
        b
    };
    let read_bit = 1u32 << AclOperation::Read.code();
    let pattern = |b: &mut Vec<u8>, rt: u8, pt: u8, entries: &[(u8, u8, u32)]| {
        b.extend_from_slice(&[rt, pt, 1, b't', entries.len() as u8]);
        for (p, h, mask) in entries {
            b.extend_from_slice(&[*p, *h]);
            b.extend_from_slice(&mask.to_le_bytes());
        }
    };
    let topic = ResourceType::Topic.code() as u8;
    let literal = PatternType::Literal.code() as u8;
    let good = {
        let mut b = head(1);
        b.push(1);
        pattern(&mut b, topic, literal, &[(0, 1, read_bit)]);
        b
    };
    assert_eq!(AclIndex::from_bytes(&good).map(|i| i.len()), Ok(1));

    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("repeated pattern", {
            let mut b = head(2);
            b.push(2);
            pattern(&mut b, topic, literal, &[(0, 1, read_bit)]);
            pattern(&mut b, topic, literal, &[(0, 1, read_bit)]);
            b
        }),
        ("entries out of order", {
            let mut b = head(2);
            b.push(1);
            pattern(
                &mut b,
                topic,
                literal,
                &[(1, 1, read_bit), (0, 1, read_bit)],
            );
            b
        }),
        ("zero mask", {
            let mut b = head(0);
            b.push(1);
            pattern(&mut b, topic, literal, &[(0, 1, 0)]);
            b
        }),
        ("filter-only bit (ANY)", {
            let mut b = head(1);
            b.push(1);
            pattern(
                &mut b,
                topic,
                literal,
                &[(0, 1, 1 << AclOperation::Any.code())],
            );
            b
        }),
        ("string index out of range", {
            let mut b = head(1);
            b.push(1);
            pattern(&mut b, topic, literal, &[(0, 2, read_bit)]);
            b
        }),
        ("ANY resource type", {
            let mut b = head(1);
            b.push(1);
            pattern(
                &mut b,
                ResourceType::Any.code() as u8,
                literal,
                &[(0, 1, read_bit)],
            );
            b
        }),
        ("MATCH pattern type", {
            let mut b = head(1);
            b.push(1);
            pattern(
                &mut b,
                topic,
                PatternType::Match.code() as u8,
                &[(0, 1, read_bit)],
            );
            b
        }),
        ("wrong ACL count", {
            let mut b = head(2);
            b.push(1);
            pattern(&mut b, topic, literal, &[(0, 1, read_bit)]);
            b
        }),
        ("unused string", {
            let mut b = vec![1, 1, 3, 6];
            b.extend_from_slice(b"User:a");
            b.extend_from_slice(&[1, b'*', 1, b'x', 1]);
            pattern(&mut b, topic, literal, &[(0, 1, read_bit)]);
            b
        }),
        ("repeated string", {
            let mut b = vec![1, 1, 2, 1, b'*', 1, b'*', 1];
            pattern(&mut b, topic, literal, &[(0, 1, read_bit)]);
            b
        }),
        ("huge count", vec![1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]),
    ];
    for (what, bytes) in cases {
        assert!(AclIndex::from_bytes(&bytes).is_err(), "{what} is refused");
    }
}
