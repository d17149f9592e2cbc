//! Where every store's change feed lands: the ACL index, the topic table and the SCRAM
//! credentials of [`ServerState`]. This is the one path from a commit to memory, for every
//! backend: the embedded stores deliver their commits here inside the commit, a shared store
//! (etcd) delivers every node's commits here in commit order. The writers apply nothing.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};

use kacl_acl::{AclBinding, AclBindingFilter, AclChanges, SharedAclIndex};
use kacl_store::{Change, ChangeSink, StoreContents};

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
    fn apply(&self, changes: Vec<Change>) {
        let Some(state) = self.0.upgrade() else {
            return;
        };
        let others = apply_acls(&state.acls, changes);
        if !others.is_empty() {
            state.topics.apply_feed(&others);
            state.scram.apply_feed(&others);
            state.quotas.apply_feed(&others);
        }
    }

    /// The ACL index is changed by the difference, in one step; topics and credentials are
    /// swapped whole.
    fn replace(&self, contents: StoreContents) {
        let Some(state) = self.0.upgrade() else {
            return;
        };
        let acls = replace_acls(&state.acls, contents.acls);
        state.topics.replace(contents.topics);
        state.scram.replace(contents.scram);
        state.quotas.replace(contents.quotas);
        tracing::info!(
            acls,
            "replaced the in-memory state with a fresh listing of the store"
        );
    }
}

/// Applies a batch's ACL changes to `acls` in one `apply` (readers see all of them or none)
/// and returns the other changes. With adds and removes mixed, each binding's last change
/// wins, so an add then a remove of one ACL in one batch (two revisions) nets out in order.
pub(crate) fn apply_acls(acls: &SharedAclIndex, changes: Vec<Change>) -> Vec<Change> {
    let added = changes.iter().any(|c| matches!(c, Change::AclAdded(_)));
    let removed = changes.iter().any(|c| matches!(c, Change::AclRemoved(_)));
    let mut acl_changes = AclChanges::default();
    let mut others = Vec::new();
    if added && removed {
        // Both kinds: each binding's last change counts.
        let mut last: HashMap<AclBinding, bool> = HashMap::new();
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
        for (binding, present) in last {
            if present {
                acl_changes.adds.push(binding);
            } else {
                acl_changes.removes.push(binding);
            }
        }
    } else {
        // One kind (a create or a delete, the common case): in commit order, as it is;
        // repeating an add or a remove of one binding changes nothing.
        for change in changes {
            match change {
                Change::AclAdded(binding) => acl_changes.adds.push(binding),
                Change::AclRemoved(binding) => acl_changes.removes.push(binding),
                other => others.push(other),
            }
        }
    }
    if added || removed {
        if let Err(err) = acls.apply(&acl_changes) {
            tracing::error!(%err, "an ACL batch from the store's feed does not index");
        }
    }
    others
}

/// Makes `acls` hold exactly `stored`, by the difference, in one step; returns the count.
pub(crate) fn replace_acls(acls: &SharedAclIndex, stored: Vec<AclBinding>) -> usize {
    let stored: HashSet<AclBinding> = stored.into_iter().collect();
    let in_memory: HashSet<AclBinding> = acls
        .read()
        .describe(&AclBindingFilter::ANY)
        .into_iter()
        .collect();
    let changes = AclChanges {
        removes: in_memory.difference(&stored).cloned().collect(),
        adds: stored.difference(&in_memory).cloned().collect(),
    };
    if let Err(err) = acls.apply(&changes) {
        tracing::error!(%err, "the stored ACLs do not index");
    }
    stored.len()
}

/// A sink over some parts of the state only, for tests of one writer without a whole
/// [`ServerState`].
#[cfg(test)]
#[derive(Default)]
pub(crate) struct PartsSink {
    pub(crate) acls: Option<SharedAclIndex>,
    pub(crate) topics: Option<Weak<crate::topic_registry::TopicRegistry>>,
    pub(crate) scram: Option<Weak<crate::credentials::ScramCredentials>>,
}

#[cfg(test)]
impl ChangeSink for PartsSink {
    fn apply(&self, changes: Vec<Change>) {
        let others = match &self.acls {
            Some(acls) => apply_acls(acls, changes),
            None => changes,
        };
        if let Some(topics) = self.topics.as_ref().and_then(Weak::upgrade) {
            topics.apply_feed(&others);
        }
        if let Some(scram) = self.scram.as_ref().and_then(Weak::upgrade) {
            scram.apply_feed(&others);
        }
    }

    fn replace(&self, contents: StoreContents) {
        if let Some(acls) = &self.acls {
            replace_acls(acls, contents.acls);
        }
        if let Some(topics) = self.topics.as_ref().and_then(Weak::upgrade) {
            topics.replace(contents.topics);
        }
        if let Some(scram) = self.scram.as_ref().and_then(Weak::upgrade) {
            scram.replace(contents.scram);
        }
    }
}

/// Credentials loaded from `store`, kept by its feed (for tests).
#[cfg(test)]
pub(crate) fn fed_credentials(
    store: &Arc<dyn kacl_store::MetadataStore>,
) -> Arc<crate::credentials::ScramCredentials> {
    let creds = Arc::new(crate::credentials::ScramCredentials::load(store.clone()).unwrap());
    store
        .start_feed(Arc::new(PartsSink {
            scram: Some(Arc::downgrade(&creds)),
            ..Default::default()
        }))
        .unwrap();
    creds
}
