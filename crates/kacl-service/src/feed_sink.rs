//! Where a shared store's change feed lands: the ACL index, the topic table and the SCRAM
//! credentials of [`ServerState`]. Every backend's writes reach memory by one path per
//! backend: the embedded store's writers apply what they committed; a shared store (etcd)
//! delivers every node's commits here, in commit order.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};

use kacl_acl::{AclBinding, AclBindingFilter, AclChanges};
use kacl_store::{Change, ChangeSink, Snapshot};

use crate::state::ServerState;

/// Applies feed batches to a server's state (held weakly: the state owns the store that
/// owns the feed).
#[derive(Debug)]
pub struct StateSink(Weak<ServerState>);

impl StateSink {
    /// A sink for `state`.
    pub fn new(state: &Arc<ServerState>) -> Arc<StateSink> {
        Arc::new(StateSink(Arc::downgrade(state)))
    }
}

impl ChangeSink for StateSink {
    /// The batch's ACL changes go to the index in one `apply` (readers see all of them or
    /// none). Each binding's last change wins, so an add then a remove of one ACL in one
    /// batch (two revisions) nets out in order.
    fn apply(&self, changes: Vec<Change>) {
        let Some(state) = self.0.upgrade() else {
            return;
        };
        let mut last: HashMap<AclBinding, bool> = HashMap::new();
        let mut others = Vec::new();
        for change in changes {
            match change {
                Change::AclAdded(binding) => {
                    last.insert(binding, true);
                }
                Change::AclRemoved(binding) => {
                    last.insert(binding, false);
                }
                other => others.push(other),
            }
        }
        if !last.is_empty() {
            let mut acl_changes = AclChanges::default();
            for (binding, present) in last {
                if present {
                    acl_changes.adds.push(binding);
                } else {
                    acl_changes.removes.push(binding);
                }
            }
            if let Err(err) = state.acls.apply(&acl_changes) {
                tracing::error!(%err, "an ACL batch from the store's feed does not index");
            }
        }
        if !others.is_empty() {
            state.topics.apply_feed(&others);
            state.scram.apply_feed(&others);
        }
    }

    /// The ACL index is changed by the difference, in one step; topics and credentials are
    /// swapped whole.
    fn replace(&self, snapshot: Snapshot) {
        let Some(state) = self.0.upgrade() else {
            return;
        };
        let stored: HashSet<AclBinding> = snapshot.acls.into_iter().collect();
        let in_memory: HashSet<AclBinding> = state
            .acls
            .read()
            .describe(&AclBindingFilter::ANY)
            .into_iter()
            .collect();
        let changes = AclChanges {
            removes: in_memory.difference(&stored).cloned().collect(),
            adds: stored.difference(&in_memory).cloned().collect(),
        };
        if let Err(err) = state.acls.apply(&changes) {
            tracing::error!(%err, "the re-listed ACLs do not index");
        }
        state.topics.replace(snapshot.topics);
        state.scram.replace(snapshot.scram);
        tracing::info!(
            acls = stored.len(),
            "replaced the in-memory state with a fresh listing of the store"
        );
    }
}
