//! Building a set from a stream of ACLs in which each pattern's ACLs come together (the
//! store's key order), without an owned `AclBinding` per ACL: the fields are borrowed from the
//! caller's buffer, the pattern's name is allocated once per pattern, principals and hosts are
//! interned as they come, and each pattern's entries are sorted once when the next pattern
//! starts. A pattern met again later (input not grouped) is merged through the ordinary add
//! path, so any order is correct; grouped input is the fast one.

use std::sync::Arc;

use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};
use crate::types::{AccessControlEntry, AclBinding, ResourcePattern};

use super::entries::{self, Entry};
use super::names::Solo;
use super::{stored_kind, AclIndex, IndexError, PatternSlot};

/// One ACL, its fields borrowed.
#[derive(Debug, Clone, Copy)]
pub struct AclRef<'a> {
    /// The resource type.
    pub resource_type: ResourceType,
    /// LITERAL or PREFIXED.
    pub pattern_type: PatternType,
    /// The pattern's name.
    pub name: &'a str,
    /// The principal.
    pub principal: &'a str,
    /// The host.
    pub host: &'a str,
    /// The operation.
    pub operation: AclOperation,
    /// ALLOW or DENY.
    pub permission_type: AclPermissionType,
}

impl AclRef<'_> {
    fn to_binding(self) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(self.resource_type, self.name, self.pattern_type),
            AccessControlEntry::new(
                self.principal,
                self.host,
                self.operation,
                self.permission_type,
            ),
        )
    }
}

/// Builds an [`AclIndex`] from ACLs pushed one at a time (see the module documentation).
#[derive(Debug, Default)]
pub struct AclIndexBuilder {
    index: AclIndex,
    /// The pattern being collected, and its entries so far (unsorted).
    current: Option<(ResourceType, PatternType, Arc<str>)>,
    entries: Vec<Entry>,
    /// Patterns stored without their principals' name lists yet (added in `finish`).
    deferred: Vec<u32>,
}

impl AclIndexBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        AclIndexBuilder::default()
    }

    /// Adds one ACL (a duplicate is ignored, as in [`AclIndex::apply`]); refuses a filter-only
    /// or UNKNOWN value.
    pub fn push(&mut self, acl: AclRef<'_>) -> Result<(), IndexError> {
        let bit = entries::acl_bit(acl.operation, acl.permission_type);
        let (Some(bit), Some(_), false) = (
            bit,
            stored_kind(acl.pattern_type),
            matches!(acl.resource_type, ResourceType::Any | ResourceType::Unknown),
        ) else {
            return Err(IndexError::NotStorable(acl.to_binding()));
        };
        let same = self.current.as_ref().is_some_and(|(rt, pt, name)| {
            *rt == acl.resource_type && *pt == acl.pattern_type && name.as_ref() == acl.name
        });
        if !same {
            self.flush();
            if self
                .index
                .pattern_id(acl.resource_type, acl.pattern_type, acl.name)
                .is_some()
            {
                // Met before: not grouped, take the ordinary path.
                self.index.add_one(&acl.to_binding());
                return Ok(());
            }
            self.current = Some((acl.resource_type, acl.pattern_type, Arc::from(acl.name)));
        }
        self.entries.push(Entry {
            principal: self.index.strings.acquire(acl.principal),
            host: self.index.strings.acquire(acl.host),
            mask: bit,
        });
        Ok(())
    }

    /// The set of every ACL pushed.
    pub fn finish(mut self) -> AclIndex {
        self.flush();
        // The principals' name lists, filled in name order (the store's key order is not:
        // lengths first, LITERAL before PREFIXED), so that every insert is an append.
        let mut order: Vec<u32> = std::mem::take(&mut self.deferred);
        let patterns = &self.index.patterns;
        let key = |id: u32| {
            patterns
                .get(id as usize)
                .and_then(Option::as_ref)
                .map(|slot| (slot.resource_type, &slot.name, slot.pattern_type))
        };
        order.sort_unstable_by(|a, b| key(*a).cmp(&key(*b)));
        for id in order {
            self.index.add_principal_names(id);
        }
        self.index
    }

    /// Stores the collected pattern: entries sorted, duplicates coalesced (their string uses
    /// released).
    fn flush(&mut self) {
        let Some((resource_type, pattern_type, name)) = self.current.take() else {
            return;
        };
        let mut list = std::mem::take(&mut self.entries);
        list.sort_unstable_by_key(|e| (e.principal, e.host));
        let mut coalesced: Vec<Entry> = Vec::with_capacity(list.len());
        for e in list {
            match coalesced.last_mut() {
                Some(last) if (last.principal, last.host) == (e.principal, e.host) => {
                    last.mask |= e.mask;
                    self.index.strings.release(e.principal);
                    self.index.strings.release(e.host);
                }
                _ => coalesced.push(e),
            }
        }
        self.index.len += coalesced
            .iter()
            .map(|e| e.mask.count_ones() as usize)
            .sum::<usize>();
        let id = self.index.patterns.len() as u32;
        if self
            .index
            .insert_new_pattern(resource_type, pattern_type, name, coalesced, false)
        {
            self.deferred.push(id);
        }
    }
}

impl AclIndex {
    /// Adds a pattern the set does not hold, with its sorted, coalesced, non-empty entries
    /// (whose string uses are already counted; `len` is the caller's to update), and unless
    /// told not to, to its principals' name lists. Returns false
    /// (changing nothing) if the pattern is held or the types are not storable.
    pub(super) fn insert_new_pattern(
        &mut self,
        resource_type: ResourceType,
        pattern_type: PatternType,
        name: Arc<str>,
        list: Vec<Entry>,
        with_principals: bool,
    ) -> bool {
        let Some(kind) = stored_kind(pattern_type) else {
            return false;
        };
        let type_index = resource_type.code() as usize;
        let id = self.patterns.len() as u32;
        let Some(by_name) = self
            .by_name
            .get_mut(type_index)
            .and_then(|m| m.get_mut(kind))
        else {
            return false;
        };
        match by_name.entry(name.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => return false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
            }
        }
        if kind == 1 {
            if let Some(lengths) = self.prefix_lengths.get_mut(type_index) {
                *lengths.entry(name.len()).or_insert(0) += 1;
            }
        }
        self.patterns.push(Some(PatternSlot {
            name,
            resource_type,
            pattern_type,
            entries: list,
        }));
        if with_principals {
            self.add_principal_names(id);
        }
        true
    }

    /// Adds pattern `id` to the name list of each principal with entries on it.
    pub(super) fn add_principal_names(&mut self, id: u32) {
        let Some(slot) = self.patterns.get(id as usize).and_then(Option::as_ref) else {
            return;
        };
        for run in slot.entries.chunk_by(|a, b| a.principal == b.principal) {
            let Some(first) = run.first() else { continue };
            let solo = match run {
                [only] => Solo {
                    host: only.host,
                    mask: only.mask,
                },
                _ => Solo::default(),
            };
            self.by_principal
                .entry((first.principal, slot.resource_type))
                .or_default()
                .insert(&slot.name, slot.pattern_type, id, solo);
        }
    }
}
