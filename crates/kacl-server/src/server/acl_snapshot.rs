//! Starting from the ACL snapshot (`kacl_store::acl_snapshot`) and writing it at a clean stop, so
//! that a restart with millions of ACLs builds the index in a fraction of the time indexing
//! the store's records takes. The snapshot is only used when the store vouches for it (same
//! cluster, same ACL version, same count, checksums match), the index decodes from it, and the
//! index holds exactly the ACLs the store's records hold (every record read and checked, see
//! [`load`]); a mismatch is logged and the store is read as before, a damaged store refused.
//!
//! While serving, [`keep_fresh`] rewrites it once the ACLs have settled (see
//! `kacl.acl.snapshot.interval.ms`), so that a restart after a crash (SIGKILL, power loss)
//! also finds a current one instead of scanning the store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_acl::{AclDigest, AclIndex, SharedAclIndex};
use kacl_service::ServerState;
use kacl_store::acl_snapshot::{AclVersion, SnapshotRejected};
use kacl_store::{AclSnapshots, StoreError};
use tokio::sync::watch;

use super::start_error::StartError;
use crate::shutdown::wait_for_shutdown;

/// With the ACLs changing at every check, the snapshot is written anyway after this many
/// intervals behind the store.
const MAX_INTERVALS_BEHIND: u32 = 6;

/// The index from the snapshot and the store's ACL version it is current at, or `None`
/// (logged) when the store must be read instead; an error when the store is damaged.
///
/// The snapshot is only an accelerator of indexing, never a substitute for reading the store:
/// while it decodes, a second thread reads every stored ACL record (checksums, ids and the
/// table's count checked, as the load from the store does) and sums their digest
/// ([`kacl_acl::AclDigest`]); the snapshot is used only if its index's digest is the same. So
/// a damaged store is refused at start with a snapshot beside it exactly as without one, and a
/// snapshot that holds anything else than the store (whatever its header says) is not served.
pub(super) fn load(store: &dyn AclSnapshots) -> Result<Option<(AclIndex, AclVersion)>, StartError> {
    let started = Instant::now();
    let snapshot = match store.read_acl_snapshot() {
        Ok(snapshot) => snapshot,
        Err(SnapshotRejected::Missing) => {
            tracing::info!(
                "no ACL snapshot (a new store, or the last stop was not clean): reading the store"
            );
            return Ok(None);
        }
        Err(error) => {
            tracing::warn!(%error, "not using the ACL snapshot: reading the store");
            return Ok(None);
        }
    };
    let (stored, decoded) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| stored_digest(store));
        let decoded = AclIndex::from_bytes(&snapshot.payload).map(|index| {
            let digest = index.digest();
            (index, digest)
        });
        let stored = reader
            .join()
            .map_err(|_| StartError::Task("the ACL check thread panicked".to_owned()));
        (stored, decoded)
    });
    let stored = stored?.map_err(StartError::Load)?;
    match decoded {
        Ok((index, digest)) if digest == stored && index.len() as u64 == snapshot.acl_count => {
            tracing::info!(
                acls = index.len(),
                bytes = snapshot.payload.len(),
                ms = started.elapsed().as_millis() as u64,
                "loaded the ACL index from its snapshot (checked against every stored ACL)"
            );
            Ok(Some((index, snapshot.version)))
        }
        Ok((index, _)) => {
            tracing::warn!(
                found = index.len(),
                stored = stored.count(),
                "not using the ACL snapshot (it holds other ACLs than the store): reading the \
                 store"
            );
            Ok(None)
        }
        Err(error) => {
            tracing::warn!(%error, "not using the ACL snapshot: reading the store");
            Ok(None)
        }
    }
}

/// The digest of every ACL the store holds, each record checked as a load checks it.
fn stored_digest(store: &dyn AclSnapshots) -> Result<AclDigest, StoreError> {
    let mut digest = AclDigest::new();
    store.load_acl_keys_chunked(CHECK_CHUNK_LEN, &mut |chunk| {
        for acl in chunk.acls() {
            digest.add(acl?);
        }
        Ok(())
    })?;
    Ok(digest)
}

/// Keys read at a time by the check of the store against a snapshot.
const CHECK_CHUNK_LEN: usize = 8_192;

/// Writes the snapshot of `acls`, which must hold exactly the store's ACLs with no ACL
/// commit running (the server has stopped serving). A failure is logged: the next start
/// then reads the store.
pub(super) fn save(store: &dyn AclSnapshots, acls: &SharedAclIndex) {
    write(store, acls, |take| take(), "wrote the ACL snapshot");
}

/// The index encoded, with the store's ACL version and count it is current at.
type Taken = (AclVersion, u64, Vec<u8>);

/// Takes the version and encodes the index through `exclusive` (which runs it with no ACL
/// commit under way), then writes the file outside it; the store refuses the write if a
/// commit came in between. Logs the outcome (`done` on success); returns the version written.
fn write(
    store: &dyn AclSnapshots,
    acls: &SharedAclIndex,
    exclusive: impl FnOnce(&mut dyn FnMut() -> Result<Taken, StoreError>) -> Result<Taken, StoreError>,
    done: &'static str,
) -> Option<AclVersion> {
    let started = Instant::now();
    let mut take = || {
        store.acl_version().map(|version| {
            let index = acls.read();
            (version, index.len() as u64, index.to_bytes())
        })
    };
    let written = exclusive(&mut take).and_then(|(version, count, payload)| {
        store
            .write_acl_snapshot(version, count, &payload)
            .map(|()| (version, count, payload.len()))
    });
    match written {
        Ok((version, acls, bytes)) => {
            tracing::info!(
                acls,
                bytes,
                ms = started.elapsed().as_millis() as u64,
                "{done}"
            );
            Some(version)
        }
        Err(error) => {
            tracing::warn!(%error, "could not write the ACL snapshot");
            None
        }
    }
}

/// Every `interval` until shutdown: when the store's ACL version differs from the snapshot's
/// and has not changed since the previous check (writes have settled), or has been behind for
/// [`MAX_INTERVALS_BEHIND`] checks, writes the snapshot from the index between two commits.
/// `current` is the version the start found the snapshot at (`None`: no usable snapshot).
pub(super) async fn keep_fresh(
    state: Arc<ServerState>,
    interval: Duration,
    current: Option<AclVersion>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut written = current;
    let mut seen = version(&state).await;
    let mut behind = 0u32;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = wait_for_shutdown(&mut shutdown) => return,
        }
        let now = version(&state).await;
        if now.is_none() || now == written {
            behind = 0;
            continue;
        }
        behind += 1;
        let settled = now == seen;
        seen = now;
        if !settled && behind < MAX_INTERVALS_BEHIND {
            continue;
        }
        let state = state.clone();
        let saved = tokio::task::spawn_blocking(move || save_while_serving(&state))
            .await
            .ok()
            .flatten();
        if saved.is_some() {
            written = saved;
            behind = 0;
        }
    }
}

/// The store's ACL version now, `None` when it cannot be read (logged by the next write).
async fn version(state: &Arc<ServerState>) -> Option<AclVersion> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || state.store.acl_snapshots()?.acl_version().ok())
        .await
        .ok()
        .flatten()
}

/// [`save`] between two commits while serving (a write waits meanwhile). Returns the version
/// written; on a failure the next check retries.
fn save_while_serving(state: &ServerState) -> Option<AclVersion> {
    write(
        state.store.acl_snapshots()?,
        &state.acls,
        |take| state.acl_writer.between_commits(take),
        "wrote the ACL snapshot while serving",
    )
}
