//! The single path by which ACL changes are made: validate (done by the handler) → decide
//! what changes under the writer lock → commit durably to the store, which hands the change to
//! the in-memory index through its feed before it returns (whatever the backend: nothing is
//! applied here) → answer with what the store says it committed. Holding one lock across the
//! sequence serializes this node's writes, and a response is sent only for a change that is
//! already durable and in memory. The answer (and so the audit line) lists what the commit
//! really changed, not the plan: two nodes racing to create one ACL both plan it, and only the
//! one whose commit stored it reports it added.
//!
//! CreateAcls requests are committed in groups: a request queues itself, then takes the writer
//! lock; whoever holds it commits every request queued by then in one store transaction and
//! one fsync (at most what one commit of the store may carry), and hands each its own result.
//! One fsync per request capped durable creates at ~1/fsync-latency requests a second whatever
//! the number of connections; a group costs one. Each request is planned in arrival order as
//! if alone (duplicates of an earlier request of the group are not new for a later one), so
//! its limit, its "new ACLs" list and its atomicity are what they would be alone; a request
//! refused (above `kacl.acl.max.batch`) is left out of the group's commit, and a commit the
//! store refuses without a storage failure is retried request by request, so one request never
//! fails another. Nothing is answered before the group's fsync returns.
//!
//! Every method blocks (the store fsyncs); call them from a blocking-capable thread
//! (`tokio::task::spawn_blocking`).

use std::collections::{HashMap, HashSet};
use std::sync::mpsc;
use std::sync::Arc;

use kacl_acl::{AclBinding, AclBindingFilter, EntryRef, PatternRef, SharedAclIndex};
use kacl_store::{AclCommit, MetadataStore, StoreError};
use parking_lot::Mutex;
use thiserror::Error;

/// A leader stops adding queued requests to its group past this many ACLs (at least one
/// request is always taken), so that one transaction stays bounded; the rest form the next.
const GROUP_MAX_ACLS: usize = 100_000;

/// Why a CreateAcls batch was not applied.
#[derive(Debug, Error)]
pub enum CreateError {
    /// More new ACLs than `kacl.acl.max.batch` allows.
    #[error("the request would create {new} ACLs, more than the limit of {max}")]
    TooLarge {
        /// New ACLs the request would have written.
        new: usize,
        /// The limit.
        max: usize,
    },
    /// The store refused or failed the commit; nothing was applied. Shared: a failed group
    /// commit is every member's failure.
    #[error(transparent)]
    Store(Arc<StoreError>),
}

/// What happened to one DeleteAcls filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterDeletion<T = AclBinding> {
    /// The filter was refused before planning (the handler answers for it).
    Skipped,
    /// Every ACL the filter matched, all now deleted (an ACL matched by several filters is
    /// listed under each, and deleted once).
    Deleted(Vec<T>),
    /// Deleting this filter's matches would take the request above `kacl.acl.max.batch`;
    /// none of them were deleted.
    TooLarge,
}

/// What one DeleteAcls deleted, each ACL held once: a filter lists its matches as positions in
/// [`Deletion::acls`]. 1,000 ANY filters over 2,000 ACLs list 2,000,000 matches; as owned
/// bindings per filter that was ~287 MB for a 45 MB answer, as positions it is 8 MB beside
/// the 2,000 bindings, and the answer is encoded from them one filter at a time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deletion {
    /// Every ACL this request's commit deleted, once, in the order the filters met them.
    pub acls: Vec<AclBinding>,
    /// Each filter's outcome, in request order: its matches as positions in `acls`.
    pub filters: Vec<FilterDeletion<u32>>,
}

impl Deletion {
    /// Each filter's outcome with its matches as bindings (copies; for tests and small
    /// answers).
    pub fn expand(&self) -> Vec<FilterDeletion> {
        self.filters
            .iter()
            .map(|outcome| match outcome {
                FilterDeletion::Skipped => FilterDeletion::Skipped,
                FilterDeletion::TooLarge => FilterDeletion::TooLarge,
                FilterDeletion::Deleted(ids) => FilterDeletion::Deleted(
                    ids.iter()
                        .filter_map(|&id| self.acls.get(id as usize).cloned())
                        .collect(),
                ),
            })
            .collect()
    }
}

/// The most bytes one filter's result takes in a DeleteAcls answer besides its matches (error
/// code, null message, array length, tagged fields), at any version.
pub const FILTER_RESULT_BYTES: usize = 16;

/// The most bytes one matching ACL takes in a DeleteAcls answer, at any version, whose
/// resource name, principal and host together are `strings` bytes long: error code, null
/// message, resource type, pattern type, operation, permission type, three string lengths
/// (up to 5 bytes each as compact varints) and tagged fields.
pub fn match_bytes(strings: usize) -> usize {
    24 + strings
}

/// Serializes ACL writes and answers with what the store committed.
pub struct AclWriter {
    store: Arc<dyn MetadataStore>,
    acls: SharedAclIndex,
    lock: Mutex<()>,
    /// CreateAcls requests waiting to be committed by whoever holds `lock` next.
    queue: Mutex<Vec<QueuedCreate>>,
    /// [`GROUP_MAX_ACLS`] (smaller in tests).
    group_max_acls: usize,
}

/// What [`AclWriter::create`] answers.
type CreateResult = Result<Vec<AclBinding>, CreateError>;

/// A CreateAcls request waiting for a group commit, with where its answer goes.
struct QueuedCreate {
    bindings: Vec<AclBinding>,
    max_batch: usize,
    reply: mpsc::Sender<CreateResult>,
}

/// One request of a group, planned: its answer if already decided, else the positions of its
/// new ACLs in its list and whether it relies on the group's commit (some of its ACLs are new
/// to the index).
struct Plan {
    new: Vec<usize>,
    decided: Option<CreateResult>,
    relies_on_commit: bool,
}

/// The bindings at `positions` (ascending), moved out of `bindings`.
fn take(bindings: Vec<AclBinding>, positions: &[usize]) -> Vec<AclBinding> {
    let mut wanted = positions.iter().copied().peekable();
    bindings
        .into_iter()
        .enumerate()
        .filter_map(|(i, binding)| wanted.next_if_eq(&i).map(|_| binding))
        .collect()
}

impl AclWriter {
    /// A writer for `store` and the index loaded from it (and kept by the store's feed).
    pub fn new(store: Arc<dyn MetadataStore>, acls: SharedAclIndex) -> AclWriter {
        AclWriter {
            store,
            acls,
            lock: Mutex::new(()),
            queue: Mutex::new(Vec::new()),
            group_max_acls: GROUP_MAX_ACLS,
        }
    }

    /// Creates the given (validated, storable) bindings atomically. Bindings already present
    /// or repeated are not written again: creation is idempotent, as in Kafka. The limit
    /// counts the ACLs that would really be written, as Kafka counts records.
    /// Returns the ACLs the store's commit stored (for the audit log). Committed together with
    /// the other requests waiting at the same time (see the module documentation).
    pub fn create(&self, bindings: &[AclBinding], max_batch: usize) -> CreateResult {
        self.create_owned(bindings.to_vec(), max_batch)
    }

    /// [`AclWriter::create`] of bindings the caller gives up (no copy to queue them).
    pub fn create_owned(&self, bindings: Vec<AclBinding>, max_batch: usize) -> CreateResult {
        let (reply, answer) = mpsc::channel();
        self.queue.lock().push(QueuedCreate {
            bindings,
            max_batch,
            reply,
        });
        let _serialized = self.lock.lock();
        loop {
            // Answered by an earlier holder of the lock, whose group it joined.
            if let Ok(result) = answer.try_recv() {
                return result;
            }
            let group = self.take_group();
            if group.is_empty() {
                // Unreachable: this request was queued before the lock was taken, and only
                // holders of the lock take from the queue, answering what they take.
                return Err(CreateError::Store(Arc::new(StoreError::Engine {
                    path: std::path::PathBuf::new(),
                    detail: "the request left the group-commit queue unanswered".to_owned(),
                })));
            }
            self.commit_group(group);
        }
    }

    /// Runs `f` between commits: while it runs no ACL commit is under way, so the index
    /// equals what the store holds (for a snapshot taken while serving). Blocks writers.
    pub fn between_commits<R>(&self, f: impl FnOnce() -> R) -> R {
        let _serialized = self.lock.lock();
        f()
    }

    /// The oldest queued requests, up to [`GROUP_MAX_ACLS`] ACLs or what one commit of the
    /// store may carry (at least one request).
    fn take_group(&self) -> Vec<QueuedCreate> {
        let max = self
            .group_max_acls
            .min(self.store.max_acl_changes_per_commit());
        let mut queue = self.queue.lock();
        let mut acls = 0;
        let take = queue
            .iter()
            .position(|q| {
                acls += q.bindings.len();
                acls > max
            })
            .map_or(queue.len(), |over| over.max(1));
        queue.drain(..take).collect()
    }

    /// Plans each request of `group` in order, commits the new ACLs of all in one store
    /// transaction, then answers each. Called with the lock held.
    fn commit_group(&self, group: Vec<QueuedCreate>) {
        // Each request's new ACLs as positions in its own list: planning clones nothing, the
        // commit clones each new ACL once, and the answers move them out of the requests.
        let several = group.len() > 1;
        let plans: Vec<Plan> = {
            let index = self.acls.read();
            // The ACLs earlier requests of this group add: present for the later ones.
            let mut added_before: HashSet<&AclBinding> = HashSet::new();
            group
                .iter()
                .map(|queued| {
                    let mut seen = HashSet::new();
                    let mut relies_on_commit = false;
                    let new: Vec<usize> = (0..queued.bindings.len())
                        .filter(|&i| {
                            let Some(b) = queued.bindings.get(i) else {
                                return false;
                            };
                            if index.contains(b) {
                                return false;
                            }
                            relies_on_commit = true;
                            !(several && added_before.contains(b)) && seen.insert(b)
                        })
                        .collect();
                    let decided = if new.len() > queued.max_batch {
                        Some(Err(CreateError::TooLarge {
                            new: new.len(),
                            max: queued.max_batch,
                        }))
                    } else {
                        if several {
                            added_before.extend(new.iter().filter_map(|&i| queued.bindings.get(i)));
                        }
                        (!relies_on_commit).then(|| Ok(Vec::new()))
                    };
                    Plan {
                        new,
                        decided,
                        relies_on_commit,
                    }
                })
                .collect()
        };
        let adds: Vec<AclBinding> = group
            .iter()
            .zip(&plans)
            .filter(|(_, plan)| plan.decided.is_none())
            .flat_map(|(queued, plan)| {
                plan.new
                    .iter()
                    .filter_map(|&i| queued.bindings.get(i).cloned())
            })
            .collect();
        let planned = adds.len();
        let committed = if adds.is_empty() {
            Ok(AclCommit::default())
        } else {
            self.commit(&adds, &[])
        };
        match committed {
            Ok(commit) => {
                // What the commit stored: every planned ACL, unless another node stored some
                // first (a shared store); then each request reports only what it stored.
                let stored: Option<HashSet<AclBinding>> =
                    (commit.added.len() != planned).then(|| commit.added.into_iter().collect());
                for (queued, plan) in group.into_iter().zip(plans) {
                    let result = match plan.decided {
                        Some(result) => result,
                        None => {
                            let mut new = take(queued.bindings, &plan.new);
                            if let Some(stored) = &stored {
                                new.retain(|b| stored.contains(b));
                            }
                            Ok(new)
                        }
                    };
                    let _ = queued.reply.send(result);
                }
            }
            Err(err) if !err.is_storage_failure() && several => {
                // Refused without a storage failure (nothing changed): one request's ACLs
                // must not fail the others, so each is committed alone.
                for (queued, plan) in group.into_iter().zip(plans) {
                    let result = match plan.decided {
                        Some(result) => result,
                        None => self.create_alone(&queued.bindings, queued.max_batch),
                    };
                    let _ = queued.reply.send(result);
                }
            }
            Err(err) => {
                let err = Arc::new(err);
                for (queued, plan) in group.into_iter().zip(plans) {
                    let result = match plan.decided {
                        Some(result) => result,
                        None if plan.relies_on_commit => Err(CreateError::Store(err.clone())),
                        None => Ok(Vec::new()),
                    };
                    let _ = queued.reply.send(result);
                }
            }
        }
    }

    /// One request as its own transaction. Called with the lock held.
    fn create_alone(&self, bindings: &[AclBinding], max_batch: usize) -> CreateResult {
        let new: Vec<AclBinding> = {
            let index = self.acls.read();
            let mut seen = HashSet::new();
            bindings
                .iter()
                .filter(|b| !index.contains(b) && seen.insert(*b))
                .cloned()
                .collect()
        };
        if new.len() > max_batch {
            return Err(CreateError::TooLarge {
                new: new.len(),
                max: max_batch,
            });
        }
        if new.is_empty() {
            return Ok(new);
        }
        let commit = self
            .commit(&new, &[])
            .map_err(|err| CreateError::Store(Arc::new(err)))?;
        Ok(commit.added)
    }

    /// Deletes what the filters match, atomically. Filters are taken in order; a filter whose
    /// new matches would take the request's total above `max_batch` is refused as a whole
    /// ([`FilterDeletion::TooLarge`]), the others proceed. `None` filters are skipped.
    pub fn delete(
        &self,
        filters: &[Option<AclBindingFilter>],
        max_batch: usize,
    ) -> Result<Vec<FilterDeletion>, StoreError> {
        let _serialized = self.lock.lock();
        self.delete_locked(filters, max_batch)
            .map(|deletion| deletion.expand())
    }

    /// [`AclWriter::delete`], unless the answer listing every filter's matches would be larger
    /// than `max_response_bytes`: then nothing is deleted and the answer's size (an upper
    /// estimate, [`match_bytes`]) is returned. The size is counted over the index without
    /// building a binding, under the same lock as the deletion, so it is exact for what would
    /// be deleted. Each filter lists all its matches, even those another filter matched too, so
    /// 1,000 ANY filters over 2,000 ACLs would otherwise answer 2,000,000 entries.
    pub fn delete_within(
        &self,
        filters: &[Option<AclBindingFilter>],
        max_batch: usize,
        max_response_bytes: usize,
    ) -> Result<Result<Deletion, usize>, StoreError> {
        let _serialized = self.lock.lock();
        let mut bytes = 0usize;
        {
            let index = self.acls.read();
            for filter in filters.iter().flatten() {
                bytes = bytes.saturating_add(FILTER_RESULT_BYTES);
                index.for_each_group(filter, |group| {
                    let name = group.pattern.name.len();
                    for entry in group.entries {
                        let strings = name + entry.principal.len() + entry.host.len();
                        bytes = bytes.saturating_add(match_bytes(strings));
                    }
                });
                if bytes > max_response_bytes {
                    return Ok(Err(bytes));
                }
            }
        }
        self.delete_locked(filters, max_batch).map(Ok)
    }

    fn delete_locked(
        &self,
        filters: &[Option<AclBindingFilter>],
        max_batch: usize,
    ) -> Result<Deletion, StoreError> {
        let mut deletion = Deletion {
            acls: Vec::new(),
            filters: Vec::with_capacity(filters.len()),
        };
        {
            let index = self.acls.read();
            // Each distinct match's position, keyed by the index's own strings (borrowed for
            // the plan only): at most `max_batch` entries, whatever the number of filters.
            let mut positions: HashMap<(PatternRef<'_>, EntryRef<'_>), u32> = HashMap::new();
            for filter in filters {
                let Some(filter) = filter else {
                    deletion.filters.push(FilterDeletion::Skipped);
                    continue;
                };
                let known = deletion.acls.len();
                let mut matched: Vec<u32> = Vec::new();
                let mut fresh: Vec<(PatternRef<'_>, EntryRef<'_>)> = Vec::new();
                // A filter visits each pattern once and each of its entries once: no
                // duplicates within one filter.
                index.for_each_group(filter, |group| {
                    for entry in group.entries {
                        let key = (group.pattern, entry);
                        matched.push(match positions.get(&key) {
                            Some(&at) => at,
                            None => {
                                fresh.push(key);
                                (known + fresh.len() - 1) as u32
                            }
                        });
                    }
                });
                if known + fresh.len() > max_batch {
                    deletion.filters.push(FilterDeletion::TooLarge);
                    continue;
                }
                for key in fresh {
                    positions.insert(key, deletion.acls.len() as u32);
                    deletion
                        .acls
                        .push(AclBinding::new(key.0.to_pattern(), key.1.to_entry()));
                }
                deletion.filters.push(FilterDeletion::Deleted(matched));
            }
        }
        if deletion.acls.is_empty() {
            return Ok(deletion);
        }
        let planned = deletion.acls.len();
        let commit = self.commit(&[], &deletion.acls)?;
        if commit.removed.len() != planned {
            // Another node deleted some first (a shared store): each filter lists only what
            // this commit deleted.
            let removed: HashSet<&AclBinding> = commit.removed.iter().collect();
            let mut renumbered: Vec<Option<u32>> = Vec::with_capacity(planned);
            let mut kept = Vec::with_capacity(commit.removed.len());
            for binding in std::mem::take(&mut deletion.acls) {
                if removed.contains(&binding) {
                    renumbered.push(Some(kept.len() as u32));
                    kept.push(binding);
                } else {
                    renumbered.push(None);
                }
            }
            deletion.acls = kept;
            for outcome in &mut deletion.filters {
                if let FilterDeletion::Deleted(matched) = outcome {
                    *matched = matched
                        .iter()
                        .filter_map(|&at| renumbered.get(at as usize).copied().flatten())
                        .collect();
                }
            }
        }
        Ok(deletion)
    }

    /// Commits to the store, which has delivered the change to the index through its feed
    /// when it returns (after a storage failure, the state it reads back). Called with the
    /// lock held.
    fn commit(&self, adds: &[AclBinding], removes: &[AclBinding]) -> Result<AclCommit, StoreError> {
        self.store
            .commit_acl_changes(adds, removes)
            .inspect_err(|err| tracing::error!(%err, "ACL commit failed"))
    }
}

#[cfg(test)]
#[path = "acl_writer_tests.rs"]
mod tests;
