//! The change feed of a shared store: how changes committed anywhere (by this node or by
//! another node of the cluster) reach the in-memory state, in commit order.
//!
//! The embedded store has no feed: its single writer commits, then applies to memory itself.
//! A shared store (etcd) delivers every committed change, this node's own too, through one
//! [`ChangeSink`]; its write methods return only once their change has been delivered
//! (read-your-writes), and the writers must not apply anything themselves.

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};

use crate::records::TopicRecord;

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
}

/// Everything the store holds at one revision: what the in-memory state is replaced with
/// after the feed lost its place (a compacted history).
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Every ACL.
    pub acls: Vec<AclBinding>,
    /// Every topic, in creation order.
    pub topics: Vec<TopicRecord>,
    /// Every SCRAM credential.
    pub scram: Vec<(String, ScramMechanism, ScramCredential)>,
}

/// Where a shared store delivers its changes. Implementations apply each call atomically
/// (readers see all of a call's changes or none), so a committed batch is never seen in part.
pub trait ChangeSink: Send + Sync {
    /// Applies the changes of one or more whole commits, in order.
    fn apply(&self, changes: Vec<Change>);

    /// Replaces the whole state with `snapshot` in one step (after a re-list).
    fn replace(&self, snapshot: Snapshot);
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
