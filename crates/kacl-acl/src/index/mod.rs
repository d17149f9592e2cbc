//! The indexed ACL set: every ACL the server holds, arranged so that authorizing and
//! describing never scan ACLs that cannot match.
//!
//! Layout:
//! - a pattern table (slot per distinct resource pattern), each with its packed,
//!   sorted entries ([`entries`]);
//! - LITERAL and PREFIXED patterns by (resource type, name) in hash maps; PREFIXED
//!   patterns that apply to a name are found by probing the name's own prefixes at the
//!   lengths that exist (a per-type set of prefix lengths), never by scanning;
//! - the wildcard `*` is the LITERAL pattern named `*`, one hash probe away;
//! - per (principal, resource type), the names of the patterns it has entries on, in
//!   name order ([`names`]);
//! - principals and hosts interned ([`intern`]).
//!
//! Concurrency: [`SharedAclIndex`] wraps the index in a `parking_lot::RwLock`. A batch
//! ([`AclChanges`]) is validated before the lock is taken and applied under one write
//! lock, so a reader sees all of a batch or none of it; write sections are short
//! (about a microsecond per change) and readers never copy the set.

mod builder;
mod describe;
mod digest;
mod encoded;
mod entries;
mod id_hash;
mod intern;
mod lookup;
mod names;
mod order;
mod ranges;
mod update;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard};

use crate::enums::{PatternType, ResourceType};
use crate::filter::AclBindingFilter;
use crate::types::AclBinding;

pub use builder::{AclIndexBuilder, AclRef};
pub use describe::{AclGroup, EntryRef, GroupEntries, PatternRef};
pub use digest::AclDigest;
pub use encoded::IndexBytesError;
pub(crate) use lookup::{Requester, Verdict};

use entries::Entry;
use id_hash::IdMap;
use intern::Interner;
use names::NameSet;

/// Number of resource type codes (UNKNOWN..USER).
const TYPE_COUNT: usize = 8;

/// One resource pattern and its entries.
#[derive(Debug)]
struct PatternSlot {
    name: Arc<str>,
    resource_type: ResourceType,
    pattern_type: PatternType,
    entries: Vec<Entry>,
}

/// A batch of changes applied atomically: removals first, then additions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclChanges {
    /// Exact bindings to remove; absent ones are ignored.
    pub removes: Vec<AclBinding>,
    /// Bindings to add; ones already present are ignored (creation is idempotent).
    pub adds: Vec<AclBinding>,
}

/// What a batch changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApplyOutcome {
    /// ACLs that were not present and now are.
    pub added: usize,
    /// ACLs that were present and no longer are.
    pub removed: usize,
}

/// A change the index refuses; the whole batch is then left unapplied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// The binding carries a filter-only or UNKNOWN value (validate ACLs first).
    #[error("ACL {0} cannot be stored: its resource type, pattern type, operation and permission must be concrete")]
    NotStorable(AclBinding),
}

/// The ACLs that each DeleteAcls filter matched, and the deduplicated removals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeletePlan {
    /// For each filter, in order, every binding it matched (a binding matched by two
    /// filters is listed under both, as Kafka does).
    pub matched: Vec<Vec<AclBinding>>,
    /// Every matched binding once: what to remove.
    pub removals: Vec<AclBinding>,
}

/// The indexed ACL set. Read it through [`SharedAclIndex::read`]; it is also usable
/// alone (single-threaded) through [`AclIndex::apply`].
#[derive(Debug)]
pub struct AclIndex {
    strings: Interner,
    patterns: Vec<Option<PatternSlot>>,
    free_patterns: Vec<u32>,
    /// `[type code][0 = LITERAL, 1 = PREFIXED]`: name → pattern id.
    by_name: [[HashMap<Arc<str>, u32>; 2]; TYPE_COUNT],
    /// `[type code]`: the lengths of PREFIXED names, with how many patterns have each.
    prefix_lengths: [BTreeMap<usize, u32>; TYPE_COUNT],
    by_principal: IdMap<(u32, ResourceType), NameSet>,
    len: usize,
    /// Batches applied since the set was built (see [`AclIndex::changes`]).
    changes: u64,
    /// The patterns in display order, computed by the first walk of every pattern after a
    /// change (see `order.rs`).
    display_order: order::DisplayOrder,
}

impl Default for AclIndex {
    fn default() -> Self {
        AclIndex {
            strings: Interner::default(),
            patterns: Vec::new(),
            free_patterns: Vec::new(),
            by_name: std::array::from_fn(|_| [HashMap::new(), HashMap::new()]),
            prefix_lengths: std::array::from_fn(|_| BTreeMap::new()),
            by_principal: IdMap::default(),
            len: 0,
            changes: 0,
            display_order: order::DisplayOrder::default(),
        }
    }
}

/// `0` for LITERAL, `1` for PREFIXED, `None` for the filter-only pattern types.
fn stored_kind(pattern_type: PatternType) -> Option<usize> {
    match pattern_type {
        PatternType::Literal => Some(0),
        PatternType::Prefixed => Some(1),
        _ => None,
    }
}

/// True if the index can hold this binding (every enum concrete).
pub fn is_storable(binding: &AclBinding) -> bool {
    !matches!(
        binding.pattern.resource_type,
        ResourceType::Any | ResourceType::Unknown
    ) && stored_kind(binding.pattern.pattern_type).is_some()
        && entries::acl_bit(binding.entry.operation, binding.entry.permission_type).is_some()
}

impl AclIndex {
    /// An empty set.
    pub fn new() -> Self {
        AclIndex::default()
    }

    /// A set holding `bindings` (duplicates collapse), e.g. the store's ACLs at start.
    pub fn from_bindings(bindings: Vec<AclBinding>) -> Result<Self, IndexError> {
        let mut index = AclIndex::new();
        index.apply(&AclChanges {
            removes: Vec::new(),
            adds: bindings,
        })?;
        Ok(index)
    }

    /// How many ACLs (distinct 7-tuples) the set holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the set holds no ACL.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many batches have been applied to this set since it was built. Two read views
    /// that see the same count see the same ACLs, so work done under one (a DescribeAcls
    /// answer's size) can be trusted under the next.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// True if exactly this binding is present.
    pub fn contains(&self, binding: &AclBinding) -> bool {
        let Some(bit) = entries::acl_bit(binding.entry.operation, binding.entry.permission_type)
        else {
            return false;
        };
        let (Some(principal), Some(host)) = (
            self.strings.get(&binding.entry.principal),
            self.strings.get(&binding.entry.host),
        ) else {
            return false;
        };
        self.pattern_id(
            binding.pattern.resource_type,
            binding.pattern.pattern_type,
            &binding.pattern.name,
        )
        .and_then(|id| self.slot(id))
        .is_some_and(|slot| entries::mask_of(&slot.entries, principal, host) & bit != 0)
    }

    /// Applies a batch: all of it, or (if any addition is not storable) none of it.
    pub fn apply(&mut self, changes: &AclChanges) -> Result<ApplyOutcome, IndexError> {
        check_storable(changes)?;
        Ok(self.apply_checked(changes))
    }

    /// For each filter, the bindings it matches, and their union as removals.
    pub fn plan_delete(&self, filters: &[AclBindingFilter]) -> DeletePlan {
        let mut plan = DeletePlan::default();
        let mut seen = std::collections::HashSet::new();
        for filter in filters {
            let matched = self.describe(filter);
            for binding in &matched {
                if seen.insert(binding.clone()) {
                    plan.removals.push(binding.clone());
                }
            }
            plan.matched.push(matched);
        }
        plan
    }

    fn slot(&self, id: u32) -> Option<&PatternSlot> {
        self.patterns.get(id as usize).and_then(Option::as_ref)
    }

    fn pattern_id(
        &self,
        resource_type: ResourceType,
        pattern_type: PatternType,
        name: &str,
    ) -> Option<u32> {
        let kind = stored_kind(pattern_type)?;
        self.by_name
            .get(resource_type.code() as usize)?
            .get(kind)?
            .get(name)
            .copied()
    }
}

fn check_storable(changes: &AclChanges) -> Result<(), IndexError> {
    match changes.adds.iter().find(|b| !is_storable(b)) {
        Some(bad) => Err(IndexError::NotStorable(bad.clone())),
        None => Ok(()),
    }
}

/// The ACL set shared by the server's threads: many readers, one writer at a time.
#[derive(Debug, Clone, Default)]
pub struct SharedAclIndex {
    inner: Arc<RwLock<AclIndex>>,
}

/// A read view of the set; batches applied while it is held wait for it.
pub type AclIndexReadGuard<'a> = RwLockReadGuard<'a, AclIndex>;

impl SharedAclIndex {
    /// An empty shared set.
    pub fn new() -> Self {
        SharedAclIndex::default()
    }

    /// Shares an already built set (e.g. loaded from the store at start).
    pub fn from_index(index: AclIndex) -> Self {
        SharedAclIndex {
            inner: Arc::new(RwLock::new(index)),
        }
    }

    /// A consistent read view. Keep it briefly and never across an `.await`.
    ///
    /// The lock is fair: once a batch is waiting to be applied, new views wait for it
    /// (so writers are never starved). Hence never take a second view on a thread that
    /// already holds one (it could wait behind that writer, which waits for the first
    /// view): to authorize while describing, use
    /// [`Authorizer::session_in`](crate::Authorizer::session_in) on the view you hold,
    /// or describe through [`AuthorizerSession::acls`](crate::AuthorizerSession::acls).
    pub fn read(&self) -> AclIndexReadGuard<'_> {
        self.inner.read()
    }

    /// How many ACLs the set holds.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// True when the set holds no ACL.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Applies a batch atomically; validation and sorting happen before the write lock
    /// is taken.
    pub fn apply(&self, changes: &AclChanges) -> Result<ApplyOutcome, IndexError> {
        check_storable(changes)?;
        let prepared = update::Prepared::of(changes);
        let mut index: RwLockWriteGuard<'_, AclIndex> = self.inner.write();
        Ok(index.apply_prepared(&prepared))
    }

    /// For each filter, the bindings it matches now (nothing is removed).
    pub fn plan_delete(&self, filters: &[AclBindingFilter]) -> DeletePlan {
        self.read().plan_delete(filters)
    }

    /// Finds what the filters match and removes it in one atomic step: no other
    /// writer can slip in between, and readers see all the removals or none.
    pub fn delete_matching(&self, filters: &[AclBindingFilter]) -> DeletePlan {
        let index = self.inner.upgradable_read();
        let plan = index.plan_delete(filters);
        if !plan.removals.is_empty() {
            let mut index = RwLockUpgradableReadGuard::upgrade(index);
            index.apply_checked(&AclChanges {
                removes: plan.removals.clone(),
                adds: Vec::new(),
            });
        }
        plan
    }
}
