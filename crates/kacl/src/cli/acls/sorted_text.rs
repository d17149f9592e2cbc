//! `kacl acls --list` of every ACL, formatted while the answer arrives: the same text as
//! [`write_groups`](super::output::write_groups) (resources sorted, entries sorted and
//! deduplicated within each), without an owned binding, a shared string or a map per ACL.
//!
//! Each resource's block of text (heading, entry lines, blank line) is formatted as soon as the
//! resource is decoded, its entries sorted locally if they came out of order, and kept in 8 MiB
//! arenas with its pattern. At the end only the patterns are sorted (a kacl broker sends each
//! pattern once, in its index's order, which is not the display order) and the blocks written
//! in that order. An answer that names one pattern in two resources (any broker may) would need
//! its blocks merged: that is reported and the caller falls back to the grouped path.
//!
//! A failure mid-answer prints nothing, as before.

use std::io::Write;

use kacl_acl::{AclOperation, AclPermissionType, PatternType, ResourceType};
use kacl_client::{AclGroupRef, EntryRef};

const ARENA: usize = 8 << 20;

/// One resource's block: its pattern and where its text is.
#[derive(Debug)]
struct Block {
    resource_type: ResourceType,
    name: Box<str>,
    pattern_type: PatternType,
    arena: u32,
    start: usize,
    end: usize,
}

/// The text of an answer, formatted as resources arrive (see the module docs).
#[derive(Debug, Default)]
pub(super) struct SortedText {
    arenas: Vec<Vec<u8>>,
    blocks: Vec<Block>,
    scratch: Vec<u8>,
}

type EntryKey<'a> = (&'a str, &'a str, AclOperation, AclPermissionType);

fn entry_key<'a>(e: &EntryRef<'a>) -> EntryKey<'a> {
    (e.principal, e.host, e.operation, e.permission_type)
}

impl SortedText {
    /// Formats one resource's block.
    pub(super) fn visit(&mut self, group: AclGroupRef<'_>) {
        if group.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let sorted = group
            .entries()
            .zip(group.entries().skip(1))
            .all(|(a, b)| entry_key(&a) < entry_key(&b));
        if sorted {
            write_block(&mut out, &group, group.entries());
        } else {
            let mut entries: Vec<EntryRef<'_>> = group.entries().collect();
            entries.sort_by(|a, b| entry_key(a).cmp(&entry_key(b)));
            entries.dedup();
            write_block(&mut out, &group, entries.into_iter());
        }
        if self
            .arenas
            .last()
            .is_none_or(|a| a.len() + out.len() > a.capacity())
        {
            self.arenas.push(Vec::with_capacity(ARENA.max(out.len())));
        }
        let arena_no = self.arenas.len() - 1;
        let arena = &mut self.arenas[arena_no];
        let start = arena.len();
        arena.extend_from_slice(&out);
        self.blocks.push(Block {
            resource_type: group.resource_type,
            name: group.name.into(),
            pattern_type: group.pattern_type,
            arena: arena_no as u32,
            start,
            end: arena.len(),
        });
        self.scratch = out;
    }

    /// Writes the text in sorted order; `false` (nothing written) when a pattern came in two
    /// resources and the caller must merge them.
    pub(super) fn finish(mut self, out: &mut impl Write) -> std::io::Result<bool> {
        fn key(b: &Block) -> (ResourceType, &str, PatternType) {
            (b.resource_type, &b.name, b.pattern_type)
        }
        if !self.blocks.is_sorted_by(|a, b| key(a) < key(b)) {
            self.blocks.sort_unstable_by(|a, b| key(a).cmp(&key(b)));
            if self.blocks.windows(2).any(|w| key(&w[0]) == key(&w[1])) {
                return Ok(false);
            }
        }
        for b in &self.blocks {
            out.write_all(&self.arenas[b.arena as usize][b.start..b.end])?;
        }
        Ok(true)
    }
}

/// Kafka's block for one resource: the heading, one tab-indented line per entry, a blank line.
fn write_block<'a>(
    out: &mut Vec<u8>,
    group: &AclGroupRef<'_>,
    entries: impl Iterator<Item = EntryRef<'a>>,
) {
    out.extend_from_slice(b"Current ACLs for resource `ResourcePattern(resourceType=");
    out.extend_from_slice(group.resource_type.kafka_name().as_bytes());
    out.extend_from_slice(b", name=");
    out.extend_from_slice(group.name.as_bytes());
    out.extend_from_slice(b", patternType=");
    out.extend_from_slice(group.pattern_type.kafka_name().as_bytes());
    out.extend_from_slice(b")`:\n");
    for e in entries {
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
    out.push(b'\n');
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
            // Each pattern once (as a kacl broker sends it), in a shuffled order.
            let key = |r: &DescribeAclsResource<'_>| {
                (
                    ResourceType::from_code(r.resource_type),
                    r.resource_name.to_string(),
                    PatternType::from_code(r.pattern_type),
                )
            };
            resources.sort_by_key(key);
            resources.dedup_by_key(|r| key(r));
            let n = resources.len();
            for i in 0..n {
                resources.swap(i, rng.next(n as u64) as usize);
            }
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
    fn text_of_any_grouped_answer_is_the_sorted_text_and_repeated_patterns_are_refused() {
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
                let mut keys: Vec<_> = AclGroupRef::of(&response)
                    .filter(|g| !g.is_empty())
                    .map(|g| (g.resource_type, g.name, g.pattern_type))
                    .collect();
                keys.sort();
                assert!(
                    keys.windows(2).any(|w| w[0] == w[1]),
                    "case {case}: {keys:?}"
                );
                refused += 1;
            }
        }
        assert!(streamed > 200 && refused > 10, "{streamed} {refused}");
    }
}
