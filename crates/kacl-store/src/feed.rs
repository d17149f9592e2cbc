//! The change feed: the one path by which committed changes reach the in-memory state, in
//! commit order, whatever the backend.
//!
//! Every store delivers every committed change through the one [`ChangeSink`] attached with
//! [`MetadataStore::start_feed`](crate::MetadataStore::start_feed), and its write methods
//! return only once their change has been delivered (read-your-writes): the embedded stores
//! synchronously, inside the commit; a shared store (etcd) from its watch, this node's own
//! changes and other nodes' alike. Writers never apply anything themselves.

use std::sync::Arc;

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};
use parking_lot::{Mutex, MutexGuard, RwLock};

use crate::error::StoreError;
use crate::quotas::{QuotaEntity, QuotaEntry, QuotaValue};
use crate::records::{AclCommit, TopicRecord};

/// One committed change to the metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// An ACL is stored (adding a stored one changes nothing).
    AclAdded(AclBinding),
    /// An ACL is gone.
    AclRemoved(AclBinding),
    /// A topic was created or changed (partitions, configs): its record as stored now.
    TopicPut(TopicRecord),
    /// The topic of this name was deleted.
    TopicDeleted(String),
    /// A user's credential for a mechanism was stored or replaced.
    ScramPut(String, ScramMechanism, ScramCredential),
    /// A user's credential for a mechanism was deleted.
    ScramDeleted(String, ScramMechanism),
    /// A client quota key of an entity was set to a value (`Some`) or removed (`None`).
    Quota(QuotaEntity, String, Option<QuotaValue>),
}

/// Everything the store holds at one revision: what the in-memory state is replaced with
/// after the feed lost its place (a compacted history).
#[derive(Debug, Default)]
pub struct StoreContents {
    /// Every ACL.
    pub acls: Vec<AclBinding>,
    /// Every topic, in creation order.
    pub topics: Vec<TopicRecord>,
    /// Every SCRAM credential.
    pub scram: Vec<crate::StoredScramCredential>,
    /// Every client quota value.
    pub quotas: Vec<QuotaEntry>,
}

/// Where a store delivers its committed changes. Implementations apply each call atomically
/// (readers see all of a call's changes or none), so a committed batch is never seen in part.
/// An embedded store calls it inside its commit: it must not call back into the store.
pub trait ChangeSink: Send + Sync {
    /// Applies the changes of one or more whole commits, in order.
    fn apply(&self, changes: Vec<Change>);

    /// Replaces the whole state with `contents` in one step (after a re-list, or after a
    /// failed commit that may or may not have reached the disk).
    fn replace(&self, contents: StoreContents);
}

/// What a shared store's feed and client report for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedStats {
    /// Every change up to this store revision is in memory.
    pub applied_revision: i64,
    /// Revisions the store is known to be ahead of memory.
    pub lag_revisions: i64,
    /// Milliseconds since memory last equalled the newest revision seen (0 when caught up).
    pub lag_millis: u64,
    /// Times the watch was re-opened after a failure (not after silence).
    pub watch_restarts: u64,
    /// Times an idle watch was re-opened to check its connection.
    pub watch_idle_reopens: u64,
    /// Times the whole state was re-listed (a compacted history).
    pub relists: u64,
    /// Requests to the store.
    pub requests: u64,
    /// Requests that failed.
    pub request_errors: u64,
    /// Their total time, in microseconds.
    pub request_micros: u64,
}

impl Change {
    /// The changes of a quota alteration, in the order given.
    pub fn of_quota_ops(ops: &[crate::quotas::QuotaOp]) -> Vec<Change> {
        ops.iter()
            .map(|(entity, key, value)| {
                Change::Quota(entity.clone(), key.clone(), value.map(QuotaValue))
            })
            .collect()
    }

    /// The changes of an ACL commit, removals first (the order the commit made them).
    pub fn of_acl_commit(commit: &AclCommit) -> Vec<Change> {
        let removed = commit.removed.iter().cloned().map(Change::AclRemoved);
        let added = commit.added.iter().cloned().map(Change::AclAdded);
        removed.chain(added).collect()
    }
}

/// The changes of a SCRAM bootstrap: its credentials, if it stored them.
pub(crate) fn bootstrap_changes(
    stored: bool,
    credentials: &[crate::StoredScramCredential],
) -> Vec<Change> {
    if !stored {
        return Vec::new();
    }
    credentials
        .iter()
        .map(|(user, mechanism, credential)| {
            Change::ScramPut(user.clone(), *mechanism, credential.clone())
        })
        .collect()
}

/// Which part of the state a commit changes: commits of one part reach the sink in commit
/// order, and parts do not wait for each other's delivery.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Part {
    Acls = 0,
    Topics = 1,
    Scram = 2,
    Quotas = 3,
}

/// How an embedded store hands its commits to the sink, synchronously: each part's commits
/// are serialized from the transaction to the end of the delivery, so the sink sees them in
/// commit order and a write returns once memory holds it.
#[derive(Default)]
pub(crate) struct LocalFeed {
    sink: RwLock<Option<Arc<dyn ChangeSink>>>,
    order: [Mutex<()>; 4],
}

impl std::fmt::Debug for LocalFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalFeed")
            .field("attached", &self.sink.read().is_some())
            .finish_non_exhaustive()
    }
}

impl LocalFeed {
    /// From now on, commits are delivered to `sink` (replacing an earlier one).
    pub(crate) fn attach(&self, sink: Arc<dyn ChangeSink>) {
        *self.sink.write() = Some(sink);
    }

    /// Runs `commit` with `part`'s commits serialized, then delivers its `changes`. After a
    /// storage failure (which may have reached the disk, see the crate documentation) the sink
    /// is given the whole state as `reload` reads it back, so memory shows what the disk holds.
    pub(crate) fn commit<R>(
        &self,
        part: Part,
        commit: impl FnOnce() -> Result<R, StoreError>,
        changes: impl FnOnce(&R) -> Vec<Change>,
        reload: impl FnOnce() -> Result<StoreContents, StoreError>,
    ) -> Result<R, StoreError> {
        let ordered = self.lock(part);
        match commit() {
            Ok(done) => {
                if let Some(sink) = self.sink.read().as_ref() {
                    let changes = changes(&done);
                    if !changes.is_empty() {
                        sink.apply(changes);
                    }
                }
                drop(ordered);
                Ok(done)
            }
            Err(err) => {
                drop(ordered);
                if err.is_storage_failure() {
                    self.reload(reload);
                }
                Err(err)
            }
        }
    }

    /// Replaces the sink's state with the store's, every part held (in a fixed order) so that
    /// no commit is delivered between the read and the replacement.
    fn reload(&self, reload: impl FnOnce() -> Result<StoreContents, StoreError>) {
        let _all =
            [Part::Acls, Part::Topics, Part::Scram, Part::Quotas].map(|part| self.lock(part));
        let Some(sink) = self.sink.read().clone() else {
            return;
        };
        match reload() {
            Ok(contents) => sink.replace(contents),
            Err(err) => tracing::error!(%err, "cannot read the state back from the store"),
        }
    }

    fn lock(&self, part: Part) -> MutexGuard<'_, ()> {
        // Indexing by the enum's discriminant: always in bounds.
        self.order[part as usize].lock()
    }
}
