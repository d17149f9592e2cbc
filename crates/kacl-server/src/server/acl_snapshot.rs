//! Starting from the ACL snapshot (`kacl_store::snapshot`) and writing it at a clean stop, so
//! that a restart with millions of ACLs loads the index in a fraction of the time a scan of
//! the store takes. The snapshot is only used when the store vouches for it (same cluster,
//! same ACL version, same count, checksums match) and the index decodes from it; anything else
//! is logged and the store is read as before.

use std::time::Instant;

use kacl_acl::{AclIndex, SharedAclIndex};
use kacl_store::snapshot::SnapshotRejected;
use kacl_store::RedbStore;

/// The index from the snapshot, or `None` (logged) when the store must be read instead.
pub(super) fn load(store: &RedbStore) -> Option<AclIndex> {
    let started = Instant::now();
    let snapshot = match store.read_acl_snapshot() {
        Ok(snapshot) => snapshot,
        Err(SnapshotRejected::Missing) => {
            tracing::info!(
                "no ACL snapshot (a new store, or the last stop was not clean): reading the store"
            );
            return None;
        }
        Err(error) => {
            tracing::warn!(%error, "not using the ACL snapshot: reading the store");
            return None;
        }
    };
    match AclIndex::from_snapshot(&snapshot.payload) {
        Ok(index) if index.len() as u64 == snapshot.acl_count => {
            tracing::info!(
                acls = index.len(),
                bytes = snapshot.payload.len(),
                ms = started.elapsed().as_millis() as u64,
                "loaded the ACL index from its snapshot"
            );
            Some(index)
        }
        Ok(index) => {
            tracing::warn!(
                found = index.len(),
                expected = snapshot.acl_count,
                "not using the ACL snapshot (it holds another count of ACLs): reading the store"
            );
            None
        }
        Err(error) => {
            tracing::warn!(%error, "not using the ACL snapshot: reading the store");
            None
        }
    }
}

/// Writes the snapshot of `acls`, which must hold exactly the store's ACLs with no ACL
/// commit running (the server has stopped serving). A failure is logged: the next start
/// then reads the store.
pub(super) fn save(store: &RedbStore, acls: &SharedAclIndex) {
    let started = Instant::now();
    let written = store.acl_version().and_then(|version| {
        let (count, payload) = {
            let index = acls.read();
            (index.len() as u64, index.to_snapshot())
        };
        store
            .write_acl_snapshot(version, count, &payload)
            .map(|()| (count, payload.len()))
    });
    match written {
        Ok((acls, bytes)) => tracing::info!(
            acls,
            bytes,
            ms = started.elapsed().as_millis() as u64,
            "wrote the ACL snapshot"
        ),
        Err(error) => tracing::warn!(%error, "could not write the ACL snapshot"),
    }
}
