//! Changes to the index: single additions and removals, which keep every
//! structure in step (pattern entries, name maps, prefix lengths, principal name
//! lists with their solo copies, string uses), and the batch paths.
//!
//! A large batch is sorted by pattern. New patterns then get consecutive slots in
//! name order (walks in name order read memory mostly sequentially), and a run of many
//! changes to one pattern is merged into its sorted entry list in one pass instead of
//! one `Vec::insert`/`remove` each: a pattern with 100k entries (say, IDEMPOTENT_WRITE
//! on the cluster for 100k users) loads in O(n log n), not O(n²).

use std::sync::Arc;

use crate::enums::{PatternType, ResourceType};
use crate::types::AclBinding;

use super::entries::{self, Added, Entry, Removed};
use super::names::Solo;
use super::{stored_kind, AclChanges, AclIndex, ApplyOutcome, PatternSlot};

/// From this many changes of one kind in a batch, they are applied sorted by pattern.
const BULK_CHANGES: usize = 1024;
/// From this many changes to one pattern in a sorted batch, they are merged at once.
const MERGE_RUN: usize = 16;

fn pattern_key(b: &AclBinding) -> (ResourceType, &str, PatternType) {
    (
        b.pattern.resource_type,
        &b.pattern.name,
        b.pattern.pattern_type,
    )
}

/// The bindings sorted by pattern, cut into runs of one pattern each.
fn runs_by_pattern(bindings: &[AclBinding]) -> Vec<Vec<&AclBinding>> {
    let mut order: Vec<&AclBinding> = bindings.iter().collect();
    order.sort_unstable_by(|a, b| pattern_key(a).cmp(&pattern_key(b)));
    order
        .chunk_by(|a, b| pattern_key(a) == pattern_key(b))
        .map(<[&AclBinding]>::to_vec)
        .collect()
}

/// Sorts entries by (principal, host) and ORs the masks of equal keys together,
/// returning the merged-away duplicates so their string uses can be released.
fn sort_and_coalesce(list: &mut Vec<Entry>) -> Vec<Entry> {
    list.sort_unstable_by_key(|e| (e.principal, e.host));
    let mut duplicates = Vec::new();
    let mut out: Vec<Entry> = Vec::with_capacity(list.len());
    for e in list.drain(..) {
        match out.last_mut() {
            Some(last) if (last.principal, last.host) == (e.principal, e.host) => {
                last.mask |= e.mask;
                duplicates.push(e);
            }
            _ => out.push(e),
        }
    }
    *list = out;
    duplicates
}

/// The distinct principals of a sorted entry list.
fn principals_of(list: &[Entry]) -> Vec<u32> {
    let mut out: Vec<u32> = list.iter().map(|e| e.principal).collect();
    out.dedup();
    out
}

/// One side of a batch, ready to apply: small ones as given, large ones sorted into
/// per-pattern runs. Built before the write lock is taken, so the sort does not
/// hold readers off.
pub(super) enum Plan<'a> {
    AsGiven(&'a [AclBinding]),
    Runs(Vec<Vec<&'a AclBinding>>),
}

impl<'a> Plan<'a> {
    fn of(bindings: &'a [AclBinding]) -> Self {
        if bindings.len() < BULK_CHANGES {
            Plan::AsGiven(bindings)
        } else {
            Plan::Runs(runs_by_pattern(bindings))
        }
    }
}

/// A whole batch, ready to apply (see [`Plan`]).
pub(super) struct Prepared<'a> {
    removes: Plan<'a>,
    adds: Plan<'a>,
}

impl<'a> Prepared<'a> {
    pub(super) fn of(changes: &'a AclChanges) -> Self {
        Prepared {
            removes: Plan::of(&changes.removes),
            adds: Plan::of(&changes.adds),
        }
    }
}

impl AclIndex {
    pub(super) fn apply_checked(&mut self, changes: &AclChanges) -> ApplyOutcome {
        self.apply_prepared(&Prepared::of(changes))
    }

    pub(super) fn apply_prepared(&mut self, prepared: &Prepared<'_>) -> ApplyOutcome {
        self.changes = self.changes.wrapping_add(1);
        ApplyOutcome {
            removed: self.apply_removes(&prepared.removes),
            added: self.apply_adds(&prepared.adds),
        }
    }

    fn apply_adds(&mut self, plan: &Plan<'_>) -> usize {
        let runs = match plan {
            Plan::AsGiven(adds) => return adds.iter().filter(|b| self.add_one(b)).count(),
            Plan::Runs(runs) => runs,
        };
        let mut added = 0;
        for run in runs {
            let Some(first) = run.first() else { continue };
            if run.len() < MERGE_RUN {
                added += run.iter().filter(|b| self.add_one(b)).count();
                continue;
            }
            let p = &first.pattern;
            if let Some(id) = self.pattern_id_or_create(p.resource_type, p.pattern_type, &p.name) {
                added += self.merge_adds(id, run);
            }
        }
        added
    }

    fn apply_removes(&mut self, plan: &Plan<'_>) -> usize {
        let runs = match plan {
            Plan::AsGiven(removes) => return removes.iter().filter(|b| self.remove_one(b)).count(),
            Plan::Runs(runs) => runs,
        };
        let mut removed = 0;
        for run in runs {
            let Some(first) = run.first() else { continue };
            let p = &first.pattern;
            if run.len() < MERGE_RUN {
                removed += run.iter().filter(|b| self.remove_one(b)).count();
            } else if let Some(id) = self.pattern_id(p.resource_type, p.pattern_type, &p.name) {
                removed += self.merge_removes(id, run);
            }
        }
        removed
    }

    /// Updates the principal name lists after the entries of pattern `id` changed
    /// from `old` for the given principals.
    fn sync_principals(&mut self, id: u32, old: &[Entry], principals: &[u32]) {
        let Some(slot) = self.patterns.get(id as usize).and_then(Option::as_ref) else {
            return;
        };
        let (name, resource_type, pattern_type) =
            (slot.name.clone(), slot.resource_type, slot.pattern_type);
        for &principal in principals {
            let Some(slot) = self.patterns.get(id as usize).and_then(Option::as_ref) else {
                return;
            };
            let before = solo_of(old, principal);
            let after = solo_of(&slot.entries, principal);
            let was = !entries::principal_range(old, principal).is_empty();
            let is = !entries::principal_range(&slot.entries, principal).is_empty();
            let key = (principal, resource_type);
            match (was, is) {
                (false, true) => {
                    self.by_principal
                        .entry(key)
                        .or_default()
                        .insert(&name, pattern_type, id, after)
                }
                (true, false) => {
                    if let Some(set) = self.by_principal.get_mut(&key) {
                        set.remove(&name, pattern_type);
                        if set.is_empty() {
                            self.by_principal.remove(&key);
                        }
                    }
                }
                (true, true) if before != after => {
                    if let Some(set) = self.by_principal.get_mut(&key) {
                        set.set_solo(&name, pattern_type, after);
                    }
                }
                _ => {}
            }
        }
    }

    /// Adds a run of bindings of pattern `id` in one merge; returns how many were new.
    fn merge_adds(&mut self, id: u32, run: &[&AclBinding]) -> usize {
        let mut fresh: Vec<Entry> = Vec::with_capacity(run.len());
        for b in run {
            if let Some(bit) = entries::acl_bit(b.entry.operation, b.entry.permission_type) {
                fresh.push(Entry {
                    principal: self.strings.acquire(&b.entry.principal),
                    host: self.strings.acquire(&b.entry.host),
                    mask: bit,
                });
            }
        }
        let mut released = sort_and_coalesce(&mut fresh);
        let Some(slot) = self.patterns.get_mut(id as usize).and_then(Option::as_mut) else {
            return 0;
        };
        let old = std::mem::take(&mut slot.entries);
        let mut merged = Vec::with_capacity(old.len() + fresh.len());
        let mut added = 0usize;
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < fresh.len() {
            match (old.get(i), fresh.get(j)) {
                (Some(o), Some(f)) if (o.principal, o.host) == (f.principal, f.host) => {
                    added += (f.mask & !o.mask).count_ones() as usize;
                    merged.push(Entry {
                        mask: o.mask | f.mask,
                        ..*o
                    });
                    released.push(*f);
                    i += 1;
                    j += 1;
                }
                (Some(o), Some(f)) if (o.principal, o.host) < (f.principal, f.host) => {
                    merged.push(*o);
                    i += 1;
                }
                (_, Some(f)) => {
                    added += f.mask.count_ones() as usize;
                    merged.push(*f);
                    j += 1;
                }
                (Some(o), None) => {
                    merged.push(*o);
                    i += 1;
                }
                (None, None) => break,
            }
        }
        slot.entries = merged;
        self.sync_principals(id, &old, &principals_of(&fresh));
        for e in released {
            self.strings.release(e.principal);
            self.strings.release(e.host);
        }
        self.len += added;
        added
    }

    /// Removes a run of bindings of pattern `id` in one pass; returns how many were present.
    fn merge_removes(&mut self, id: u32, run: &[&AclBinding]) -> usize {
        let mut gone: Vec<Entry> = Vec::with_capacity(run.len());
        for b in run {
            let bit = entries::acl_bit(b.entry.operation, b.entry.permission_type);
            let principal = self.strings.get(&b.entry.principal);
            let host = self.strings.get(&b.entry.host);
            if let (Some(mask), Some(principal), Some(host)) = (bit, principal, host) {
                gone.push(Entry {
                    principal,
                    host,
                    mask,
                });
            }
        }
        sort_and_coalesce(&mut gone);
        let Some(slot) = self.patterns.get_mut(id as usize).and_then(Option::as_mut) else {
            return 0;
        };
        let old = std::mem::take(&mut slot.entries);
        let mut kept = Vec::with_capacity(old.len());
        let mut dropped = Vec::new();
        let mut removed = 0usize;
        let mut j = 0;
        for o in &old {
            while gone
                .get(j)
                .is_some_and(|g| (g.principal, g.host) < (o.principal, o.host))
            {
                j += 1;
            }
            let mut e = *o;
            if let Some(g) = gone
                .get(j)
                .filter(|g| (g.principal, g.host) == (o.principal, o.host))
            {
                removed += (e.mask & g.mask).count_ones() as usize;
                e.mask &= !g.mask;
            }
            if e.mask == 0 {
                dropped.push(e);
            } else {
                kept.push(e);
            }
        }
        let now_empty = kept.is_empty();
        slot.entries = kept;
        self.sync_principals(id, &old, &principals_of(&gone));
        if now_empty {
            self.drop_pattern(id);
        }
        for e in dropped {
            self.strings.release(e.principal);
            self.strings.release(e.host);
        }
        self.len -= removed;
        removed
    }

    /// Adds one storable binding; false if it was already present.
    pub(super) fn add_one(&mut self, binding: &AclBinding) -> bool {
        let pattern = &binding.pattern;
        let entry = &binding.entry;
        let Some(bit) = entries::acl_bit(entry.operation, entry.permission_type) else {
            return false;
        };
        if self.contains(binding) {
            return false;
        }
        let Some(id) =
            self.pattern_id_or_create(pattern.resource_type, pattern.pattern_type, &pattern.name)
        else {
            return false;
        };
        let principal = self.strings.acquire(&entry.principal);
        let host = self.strings.acquire(&entry.host);
        let Some(slot) = self.patterns.get_mut(id as usize).and_then(Option::as_mut) else {
            return false;
        };
        let before = solo_of(&slot.entries, principal);
        let first_of_principal = entries::principal_range(&slot.entries, principal).is_empty();
        let added = entries::add(&mut slot.entries, principal, host, bit);
        let after = solo_of(&slot.entries, principal);
        if first_of_principal {
            let name = slot.name.clone();
            self.by_principal
                .entry((principal, pattern.resource_type))
                .or_default()
                .insert(&name, pattern.pattern_type, id, after);
        } else if before != after {
            if let Some(set) = self
                .by_principal
                .get_mut(&(principal, pattern.resource_type))
            {
                set.set_solo(&pattern.name, pattern.pattern_type, after);
            }
        }
        if added != Added::Entry {
            // Only a new entry keeps the two string uses acquired above.
            self.strings.release(principal);
            self.strings.release(host);
        }
        if added == Added::Duplicate {
            return false;
        }
        self.len += 1;
        true
    }

    pub(super) fn pattern_id_or_create(
        &mut self,
        resource_type: ResourceType,
        pattern_type: PatternType,
        name: &str,
    ) -> Option<u32> {
        if let Some(id) = self.pattern_id(resource_type, pattern_type, name) {
            return Some(id);
        }
        let kind = stored_kind(pattern_type)?;
        let type_index = resource_type.code() as usize;
        let name: Arc<str> = Arc::from(name);
        let slot = PatternSlot {
            name: name.clone(),
            resource_type,
            pattern_type,
            entries: Vec::new(),
        };
        let id = match self.free_patterns.pop() {
            Some(id) => {
                if let Some(free) = self.patterns.get_mut(id as usize) {
                    *free = Some(slot);
                }
                id
            }
            None => {
                self.patterns.push(Some(slot));
                (self.patterns.len() - 1) as u32
            }
        };
        if kind == 1 {
            if let Some(lengths) = self.prefix_lengths.get_mut(type_index) {
                *lengths.entry(name.len()).or_insert(0) += 1;
            }
        }
        if let Some(map) = self
            .by_name
            .get_mut(type_index)
            .and_then(|m| m.get_mut(kind))
        {
            map.insert(name, id);
        }
        Some(id)
    }

    /// Removes exactly this binding; false if it was not present.
    pub(super) fn remove_one(&mut self, binding: &AclBinding) -> bool {
        let pattern = &binding.pattern;
        let entry = &binding.entry;
        let Some(bit) = entries::acl_bit(entry.operation, entry.permission_type) else {
            return false;
        };
        let (Some(principal), Some(host)) = (
            self.strings.get(&entry.principal),
            self.strings.get(&entry.host),
        ) else {
            return false;
        };
        let Some(id) = self.pattern_id(pattern.resource_type, pattern.pattern_type, &pattern.name)
        else {
            return false;
        };
        let Some(slot) = self.patterns.get_mut(id as usize).and_then(Option::as_mut) else {
            return false;
        };
        let before = solo_of(&slot.entries, principal);
        let removed = entries::remove(&mut slot.entries, principal, host, bit);
        if removed == Removed::Missing {
            return false;
        }
        let after = solo_of(&slot.entries, principal);
        let principal_gone = entries::principal_range(&slot.entries, principal).is_empty();
        let pattern_gone = slot.entries.is_empty();
        let key = (principal, pattern.resource_type);
        if principal_gone {
            if let Some(set) = self.by_principal.get_mut(&key) {
                set.remove(&pattern.name, pattern.pattern_type);
                if set.is_empty() {
                    self.by_principal.remove(&key);
                }
            }
        } else if before != after {
            if let Some(set) = self.by_principal.get_mut(&key) {
                set.set_solo(&pattern.name, pattern.pattern_type, after);
            }
        }
        if pattern_gone {
            self.drop_pattern(id);
        }
        if removed == Removed::Entry {
            self.strings.release(principal);
            self.strings.release(host);
        }
        self.len -= 1;
        true
    }

    pub(super) fn drop_pattern(&mut self, id: u32) {
        let Some(slot) = self.patterns.get_mut(id as usize).and_then(Option::take) else {
            return;
        };
        let type_index = slot.resource_type.code() as usize;
        if let Some(kind) = stored_kind(slot.pattern_type) {
            if let Some(map) = self
                .by_name
                .get_mut(type_index)
                .and_then(|m| m.get_mut(kind))
            {
                map.remove(&slot.name);
            }
            if kind == 1 {
                if let Some(lengths) = self.prefix_lengths.get_mut(type_index) {
                    if let Some(count) = lengths.get_mut(&slot.name.len()) {
                        *count -= 1;
                        if *count == 0 {
                            lengths.remove(&slot.name.len());
                        }
                    }
                }
            }
        }
        self.free_patterns.push(id);
    }
}

/// The principal's only entry on a pattern, or the empty [`Solo`] if it has none or
/// several there.
fn solo_of(list: &[Entry], principal: u32) -> Solo {
    match list.get(entries::principal_range(list, principal)) {
        Some([only]) => Solo {
            host: only.host,
            mask: only.mask,
        },
        _ => Solo::default(),
    }
}
