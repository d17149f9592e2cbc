//! Describing ACLs by filter, grouped by resource pattern, with borrowed strings: what
//! DescribeAcls and DeleteAcls need, without an allocation per ACL.
//!
//! The candidate patterns come from the most selective index the filter allows:
//! a name (exact, or for MATCH the name, `*` and the name's stored prefixes), else a
//! principal, else every pattern (a scan of patterns, not of ACLs, and only when the
//! filter names neither a resource nor a principal).

use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};
use crate::filter::{AccessControlEntryFilter, AclBindingFilter};
use crate::types::{AccessControlEntry, AclBinding, ResourcePattern, WILDCARD_RESOURCE};

use super::entries::{self, Entry};
use super::intern::Interner;
use super::names::NO_PATTERN;
use super::{AclIndex, PatternSlot};

/// How many candidate patterns are warmed (see `AclIndex::warm`) before being visited.
const WARM_BATCH: usize = 32;

/// The resource types an ACL can be stored under.
const STORED_TYPES: [ResourceType; 6] = [
    ResourceType::Topic,
    ResourceType::Group,
    ResourceType::Cluster,
    ResourceType::TransactionalId,
    ResourceType::DelegationToken,
    ResourceType::User,
];

/// A stored resource pattern, borrowed from the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PatternRef<'a> {
    /// The resource type.
    pub resource_type: ResourceType,
    /// The name (or prefix, or `*`).
    pub name: &'a str,
    /// LITERAL or PREFIXED.
    pub pattern_type: PatternType,
}

impl PatternRef<'_> {
    /// An owned copy.
    pub fn to_pattern(&self) -> ResourcePattern {
        ResourcePattern::new(self.resource_type, self.name, self.pattern_type)
    }
}

/// A stored entry, borrowed from the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryRef<'a> {
    /// `Type:name`.
    pub principal: &'a str,
    /// A host or `*`.
    pub host: &'a str,
    /// The operation.
    pub operation: AclOperation,
    /// ALLOW or DENY.
    pub permission_type: AclPermissionType,
}

impl EntryRef<'_> {
    /// An owned copy.
    pub fn to_entry(&self) -> AccessControlEntry {
        AccessControlEntry::new(
            self.principal,
            self.host,
            self.operation,
            self.permission_type,
        )
    }
}

/// The matching entries of one pattern. It knows its length before iterating (the
/// wire format counts an array before its elements) and can be cloned to iterate again.
#[derive(Debug, Clone)]
pub struct GroupEntries<'a> {
    strings: &'a Interner,
    /// An entry copied out of a principal's name list, served first.
    single: Option<Entry>,
    entries: std::slice::Iter<'a, Entry>,
    host: Option<u32>,
    wanted_bits: u32,
    /// The (principal, host) ids of the entry whose bits are `pending`.
    current: (u32, u32),
    pending: u32,
    remaining: usize,
}

impl<'a> Iterator for GroupEntries<'a> {
    type Item = EntryRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<EntryRef<'a>> {
        loop {
            if self.pending != 0 {
                let bit = self.pending.trailing_zeros();
                self.pending &= self.pending - 1;
                self.remaining = self.remaining.saturating_sub(1);
                let (operation, permission_type) = entries::decode_bit(bit);
                return Some(EntryRef {
                    principal: self.strings.resolve(self.current.0),
                    host: self.strings.resolve(self.current.1),
                    operation,
                    permission_type,
                });
            }
            let entry = match self.entries.next() {
                Some(entry) => *entry,
                None => self.single.take()?,
            };
            if self.host.is_some_and(|h| h != entry.host) {
                continue;
            }
            self.pending = entry.mask & self.wanted_bits;
            self.current = (entry.principal, entry.host);
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for GroupEntries<'_> {}

/// One pattern and its matching entries: one `Resources[]` element of DescribeAcls.
#[derive(Debug, Clone)]
pub struct AclGroup<'a> {
    /// The pattern.
    pub pattern: PatternRef<'a>,
    /// Its entries that match the filter (at least one).
    pub entries: GroupEntries<'a>,
}

/// A pattern to describe: by id (its entries are read from the pattern), or already
/// built from a principal's name list.
enum Candidate<'a> {
    Pattern(u32),
    Ready(AclGroup<'a>),
}

/// The entry half of a filter, resolved to interned ids.
struct EntryQuery {
    principal: Option<u32>,
    host: Option<u32>,
    wanted_bits: u32,
}

impl EntryQuery {
    /// `None` when the filter names a principal or host no ACL has: nothing matches.
    fn resolve(index: &AclIndex, filter: &AccessControlEntryFilter) -> Option<EntryQuery> {
        let principal = match &filter.principal {
            Some(p) => Some(index.strings.get(p)?),
            None => None,
        };
        let host = match &filter.host {
            Some(h) => Some(index.strings.get(h)?),
            None => None,
        };
        let wanted_bits = entries::filter_bits(filter.operation, filter.permission_type);
        (wanted_bits != 0).then_some(EntryQuery {
            principal,
            host,
            wanted_bits,
        })
    }
}

impl AclIndex {
    /// Calls `visit` once per pattern with at least one ACL matching `filter`, with
    /// that pattern's matching entries. Each pattern is visited at most once. A filter with
    /// neither a resource name nor a principal visits the patterns in display order:
    /// resource type, name, pattern type.
    pub fn for_each_group<'a>(
        &'a self,
        filter: &AclBindingFilter,
        mut visit: impl FnMut(AclGroup<'a>),
    ) {
        if filter.is_unknown() {
            return;
        }
        let Some(query) = EntryQuery::resolve(self, &filter.entry) else {
            return;
        };
        // On the stack: a describe of a few ACLs (most requests) allocates nothing here.
        let mut batch = [0u32; WARM_BATCH];
        let mut batched = 0;
        let mut emit = |candidate: Candidate<'a>| match candidate {
            Candidate::Pattern(id) => {
                if let Some(free) = batch.get_mut(batched) {
                    *free = id;
                    batched += 1;
                }
                if batched == WARM_BATCH {
                    self.visit_batch(&batch, filter, &query, &mut visit);
                    batched = 0;
                }
            }
            Candidate::Ready(group) => visit(group),
        };
        self.visit_candidates(filter, &query, &mut emit);
        let rest = batch.get(..batched).unwrap_or_default();
        self.visit_batch(rest, filter, &query, &mut visit);
    }

    /// Warms then visits the patterns `ids`.
    fn visit_batch<'a>(
        &'a self,
        ids: &[u32],
        filter: &AclBindingFilter,
        query: &EntryQuery,
        visit: &mut impl FnMut(AclGroup<'a>),
    ) {
        self.warm(ids);
        for &id in ids {
            if let Some(group) = self.group(id, filter, query) {
                visit(group);
            }
        }
    }

    /// Touches the memory the next patterns will need (slot, first and last entry,
    /// first name byte) in one independent pass, so the CPU overlaps the cache misses
    /// of a whole batch instead of taking them one pattern at a time. At 2M ACLs the
    /// entries of a pattern are almost never cached; this is most of describe's cost.
    fn warm(&self, ids: &[u32]) {
        let mut acc = 0u32;
        for &id in ids {
            if let Some(slot) = self.slot(id) {
                let first = slot.entries.first().map_or(0, |e| e.mask);
                let last = slot.entries.last().map_or(0, |e| e.principal);
                let byte = slot.name.as_bytes().first().copied().unwrap_or(0);
                acc ^= first ^ last ^ u32::from(byte);
            }
        }
        std::hint::black_box(acc);
    }

    /// The matching ACLs grouped by pattern, borrowing from the index.
    pub fn describe_grouped(&self, filter: &AclBindingFilter) -> Vec<AclGroup<'_>> {
        let mut groups = Vec::new();
        self.for_each_group(filter, |group| groups.push(group));
        groups
    }

    /// The matching ACLs as owned bindings.
    pub fn describe(&self, filter: &AclBindingFilter) -> Vec<AclBinding> {
        let mut out = Vec::new();
        self.for_each_group(filter, |group| {
            let pattern = group.pattern.to_pattern();
            out.extend(
                group
                    .entries
                    .map(|entry| AclBinding::new(pattern.clone(), entry.to_entry())),
            );
        });
        out
    }

    /// How many ACLs match, without building them.
    pub fn count_matching(&self, filter: &AclBindingFilter) -> usize {
        let mut count = 0;
        self.for_each_group(filter, |group| count += group.entries.len());
        count
    }

    fn visit_candidates<'a>(
        &'a self,
        filter: &AclBindingFilter,
        query: &EntryQuery,
        emit: &mut dyn FnMut(Candidate<'a>),
    ) {
        let pattern = &filter.pattern;
        let types: &[ResourceType] = match pattern.resource_type {
            ResourceType::Any => &STORED_TYPES,
            ResourceType::Unknown => &[],
            ref one => std::slice::from_ref(one),
        };
        if let Some(name) = pattern.name.as_deref() {
            for &resource_type in types {
                let mut exact = |pattern_type| {
                    if let Some(id) = self.pattern_id(resource_type, pattern_type, name) {
                        emit(Candidate::Pattern(id));
                    }
                };
                match pattern.pattern_type {
                    PatternType::Literal | PatternType::Prefixed => exact(pattern.pattern_type),
                    PatternType::Any => {
                        exact(PatternType::Literal);
                        exact(PatternType::Prefixed);
                    }
                    PatternType::Match => {
                        exact(PatternType::Literal);
                        if name != WILDCARD_RESOURCE {
                            if let Some(id) = self.pattern_id(
                                resource_type,
                                PatternType::Literal,
                                WILDCARD_RESOURCE,
                            ) {
                                emit(Candidate::Pattern(id));
                            }
                        }
                        self.visit_prefixes_of(resource_type, name, 0, &mut |id| {
                            emit(Candidate::Pattern(id))
                        });
                    }
                    PatternType::Unknown => {}
                }
            }
        } else if let Some(principal) = query.principal {
            for &resource_type in types {
                let Some(set) = self.by_principal.get(&(principal, resource_type)) else {
                    continue;
                };
                for entry in set.iter_from("") {
                    let sides = [
                        (entry.pair.literal, PatternType::Literal, entry.solo[0]),
                        (entry.pair.prefixed, PatternType::Prefixed, entry.solo[1]),
                    ];
                    for (id, pattern_type, solo) in sides {
                        if id == NO_PATTERN {
                            continue;
                        }
                        if solo.mask == 0 {
                            emit(Candidate::Pattern(id));
                            continue;
                        }
                        // The principal's only entry here is copied in the name list:
                        // no need to read the pattern.
                        if !pattern.matches_parts(resource_type, &entry.name, pattern_type)
                            || query.host.is_some_and(|h| h != solo.host)
                        {
                            continue;
                        }
                        let remaining = (solo.mask & query.wanted_bits).count_ones() as usize;
                        if remaining == 0 {
                            continue;
                        }
                        emit(Candidate::Ready(AclGroup {
                            pattern: PatternRef {
                                resource_type,
                                name: &entry.name,
                                pattern_type,
                            },
                            entries: GroupEntries {
                                strings: &self.strings,
                                single: Some(Entry {
                                    principal,
                                    host: solo.host,
                                    mask: solo.mask,
                                }),
                                entries: [].iter(),
                                host: query.host,
                                wanted_bits: query.wanted_bits,
                                current: (0, 0),
                                pending: 0,
                                remaining,
                            },
                        }));
                    }
                }
            }
        } else {
            // Every pattern: in display order (see `order.rs`).
            for &id in self.display_order().iter() {
                emit(Candidate::Pattern(id));
            }
        }
    }

    /// Emits the PREFIXED patterns of `resource_type` whose name is a prefix of `name`
    /// at least `min_len` bytes long, shortest first, by probing only the prefix
    /// lengths that exist.
    pub(crate) fn visit_prefixes_of(
        &self,
        resource_type: ResourceType,
        name: &str,
        min_len: usize,
        emit: &mut dyn FnMut(u32),
    ) {
        let type_index = resource_type.code() as usize;
        let (Some(lengths), Some(prefixed)) = (
            self.prefix_lengths.get(type_index),
            self.by_name.get(type_index).and_then(|m| m.get(1)),
        ) else {
            return;
        };
        if min_len > name.len() {
            return;
        }
        for &len in lengths.range(min_len..=name.len()).map(|(len, _)| len) {
            if let Some(id) = name.get(..len).and_then(|prefix| prefixed.get(prefix)) {
                emit(*id);
            }
        }
    }

    fn group(
        &self,
        id: u32,
        filter: &AclBindingFilter,
        query: &EntryQuery,
    ) -> Option<AclGroup<'_>> {
        let slot: &PatternSlot = self.slot(id)?;
        if !filter
            .pattern
            .matches_parts(slot.resource_type, &slot.name, slot.pattern_type)
        {
            return None;
        }
        let list: &[Entry] = match query.principal {
            Some(p) => slot
                .entries
                .get(entries::principal_range(&slot.entries, p))?,
            None => &slot.entries,
        };
        let remaining = list
            .iter()
            .filter(|e| query.host.is_none_or(|h| h == e.host))
            .map(|e| (e.mask & query.wanted_bits).count_ones() as usize)
            .sum();
        if remaining == 0 {
            return None;
        }
        Some(AclGroup {
            pattern: PatternRef {
                resource_type: slot.resource_type,
                name: &slot.name,
                pattern_type: slot.pattern_type,
            },
            entries: GroupEntries {
                strings: &self.strings,
                single: None,
                entries: list.iter(),
                host: query.host,
                wanted_bits: query.wanted_bits,
                current: (0, 0),
                pending: 0,
                remaining,
            },
        })
    }
}
