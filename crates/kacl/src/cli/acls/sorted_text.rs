//! `kacl acls --list` of every ACL, formatted while the answer arrives: the same text as
//! [`write_groups`](super::output::write_groups) (resources sorted, entries sorted and
//! deduplicated within each), without sorting or owning the answer when the broker already
//! sends it in that order, as a kacl broker does.
//!
//! The text must be sorted but the answer is printed before all of it has been seen, so each
//! resource is formatted as it arrives only while the resources come in strictly increasing
//! order: then no later resource can sort before, or merge with, one already formatted. An
//! answer in any other order (Kafka brokers send theirs in hash order) is reported as such and
//! the caller falls back to sorting a grouped answer. Entries out of order within one resource
//! are sorted locally, which keeps the order of the resources.
//!
//! The text is kept until the answer is complete (blocks of 8 MiB, never copied to grow), then
//! written at once: a failure mid-answer prints nothing, as before.

use std::cmp::Ordering;
use std::io::Write;

use kacl_acl::{PatternType, ResourceType};
use kacl_client::{AclGroupRef, EntryRef};

const BLOCK: usize = 8 << 20;

/// The text of an answer, formatted as resources arrive (see the module docs).
#[derive(Debug)]
pub(super) struct SortedText {
    blocks: Vec<Vec<u8>>,
    last: Option<(ResourceType, String, PatternType)>,
    in_order: bool,
}

impl Default for SortedText {
    fn default() -> Self {
        SortedText {
            blocks: vec![Vec::with_capacity(BLOCK)],
            last: None,
            in_order: true,
        }
    }
}

fn entry_key<'a>(
    e: &EntryRef<'a>,
) -> (
    &'a str,
    &'a str,
    kacl_acl::AclOperation,
    kacl_acl::AclPermissionType,
) {
    (e.principal, e.host, e.operation, e.permission_type)
}

impl SortedText {
    /// Formats one resource, unless the answer has left sorted order.
    pub(super) fn visit(&mut self, group: AclGroupRef<'_>) {
        if !self.in_order {
            return;
        }
        if let Some((rt, name, pt)) = &self.last {
            let order = (group.resource_type, group.name, group.pattern_type).cmp(&(
                *rt,
                name.as_str(),
                *pt,
            ));
            if order != Ordering::Greater {
                self.in_order = false;
                self.blocks = Vec::new();
                return;
            }
        }
        match &mut self.last {
            Some((rt, name, pt)) => {
                *rt = group.resource_type;
                name.clear();
                name.push_str(group.name);
                *pt = group.pattern_type;
            }
            None => {
                self.last = Some((
                    group.resource_type,
                    group.name.to_owned(),
                    group.pattern_type,
                ))
            }
        }
        if group.is_empty() {
            return;
        }
        let sorted = group
            .entries()
            .zip(group.entries().skip(1))
            .all(|(a, b)| entry_key(&a) < entry_key(&b));
        if sorted {
            self.write_group(&group, group.entries());
        } else {
            let mut entries: Vec<EntryRef<'_>> = group.entries().collect();
            entries.sort_by(|a, b| entry_key(a).cmp(&entry_key(b)));
            entries.dedup();
            self.write_group(&group, entries.into_iter());
        }
    }

    fn write_group<'a>(
        &mut self,
        group: &AclGroupRef<'_>,
        entries: impl Iterator<Item = EntryRef<'a>>,
    ) {
        let out = self.room();
        out.extend_from_slice(b"Current ACLs for resource `ResourcePattern(resourceType=");
        out.extend_from_slice(group.resource_type.kafka_name().as_bytes());
        out.extend_from_slice(b", name=");
        out.extend_from_slice(group.name.as_bytes());
        out.extend_from_slice(b", patternType=");
        out.extend_from_slice(group.pattern_type.kafka_name().as_bytes());
        out.extend_from_slice(b")`:\n");
        for e in entries {
            let out = self.room();
            out.extend_from_slice(b"\t(principal=");
            out.extend_from_slice(e.principal.as_bytes());
            out.extend_from_slice(b", host=");
            out.extend_from_slice(e.host.as_bytes());
            out.extend_from_slice(b", operation=");
            out.extend_from_slice(e.operation.kafka_name().as_bytes());
            out.extend_from_slice(b", permissionType=");
            out.extend_from_slice(e.permission_type.kafka_name().as_bytes());
            out.extend_from_slice(b")\n");
        }
        self.room().push(b'\n');
    }

    /// The block to write into: a fresh one once the current one is nearly full (a line is
    /// at most a few hundred KB, names being at most 32 KiB each).
    fn room(&mut self) -> &mut Vec<u8> {
        if self
            .blocks
            .last()
            .is_none_or(|b| b.len() + (1 << 20) > b.capacity())
        {
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        self.blocks.last_mut().expect("a block was just pushed")
    }

    /// The text, if the whole answer came in sorted order; `None` when the caller must sort.
    pub(super) fn finish(self, out: &mut impl Write) -> std::io::Result<bool> {
        if !self.in_order {
            return Ok(false);
        }
        for block in &self.blocks {
            out.write_all(block)?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use kacl_acl::{AccessControlEntry, AclBinding, ResourcePattern};
    use kacl_protocol::messages::describe_acls::{
        AclDescription, DescribeAclsResource, DescribeAclsResponse,
    };

    use super::*;
    use crate::cli::acls::output::{by_resource, write_resource_acls};

    /// A small deterministic generator (no extra dev-dependency).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    fn answer(rng: &mut Lcg, sorted: bool) -> DescribeAclsResponse<'static> {
        let names = ["*", "a", "orders", "orders-", "zeta", "é"];
        let principals = ["User:alice", "User:bob", "User:*", "User:<x>"];
        let mut resources: Vec<DescribeAclsResource<'static>> = (0..rng.next(12))
            .map(|_| DescribeAclsResource {
                resource_type: [2, 3, 4, 5][rng.next(4) as usize],
                resource_name: Cow::Borrowed(names[rng.next(6) as usize]),
                pattern_type: [3, 4][rng.next(2) as usize],
                acls: (0..rng.next(5))
                    .map(|_| AclDescription {
                        principal: Cow::Borrowed(principals[rng.next(4) as usize]),
                        host: Cow::Borrowed(["*", "10.0.0.1"][rng.next(2) as usize]),
                        operation: [2, 3, 4][rng.next(3) as usize],
                        permission_type: [2, 3][rng.next(2) as usize],
                        ..Default::default()
                    })
                    .collect::<Vec<_>>()
                    .into(),
                ..Default::default()
            })
            .collect();
        if sorted {
            let key = |r: &DescribeAclsResource<'_>| {
                (
                    ResourceType::from_code(r.resource_type),
                    r.resource_name.to_string(),
                    PatternType::from_code(r.pattern_type),
                )
            };
            resources.sort_by_key(key);
            resources.dedup_by_key(|r| key(r));
        }
        DescribeAclsResponse {
            resources,
            ..Default::default()
        }
    }

    fn bindings(response: &DescribeAclsResponse<'_>) -> Vec<AclBinding> {
        AclGroupRef::of(response)
            .flat_map(|g| {
                let pattern = ResourcePattern::new(g.resource_type, g.name, g.pattern_type);
                g.entries()
                    .map(|e| {
                        AclBinding::new(
                            pattern.clone(),
                            AccessControlEntry::new(
                                e.principal,
                                e.host,
                                e.operation,
                                e.permission_type,
                            ),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn text_of_a_sorted_answer_is_the_sorted_text_and_others_are_refused() {
        let mut rng = Lcg(7);
        let (mut streamed, mut refused) = (0, 0);
        for case in 0..400 {
            let response = answer(&mut rng, case % 3 != 0);
            let mut text = SortedText::default();
            AclGroupRef::of(&response).for_each(|g| text.visit(g));
            let mut out = Vec::new();
            let mut expected = String::new();
            write_resource_acls(&mut expected, &by_resource(bindings(&response)));
            if text.finish(&mut out).unwrap() {
                assert_eq!(String::from_utf8(out).unwrap(), expected, "case {case}");
                streamed += 1;
            } else {
                assert!(out.is_empty());
                let keys: Vec<_> = AclGroupRef::of(&response)
                    .map(|g| (g.resource_type, g.name, g.pattern_type))
                    .collect();
                assert!(!keys.is_sorted_by(|a, b| a < b), "case {case}: {keys:?}");
                refused += 1;
            }
        }
        assert!(streamed > 200 && refused > 50, "{streamed} {refused}");
    }
}
