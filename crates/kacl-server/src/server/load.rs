//! What a start reads into memory: the ACLs (from the live snapshot beside a store that keeps
//! one when it is current and holds exactly the store's records, which are read and checked
//! all the same; else from the store, read on one thread and indexed on another),
//! the topics and the SCRAM credentials; and the SCRAM bootstrap, once the feed is attached.

use std::sync::Arc;
use std::time::Instant;

use kacl_acl::{AclBinding, AclChanges, AclIndex, SharedAclIndex};
use kacl_service::credentials::ScramCredentials;
use kacl_service::scram_bootstrap;
use kacl_service::ServerState;
use kacl_store::{AclSnapshots, MetadataStore};

use super::acl_snapshot;
use super::start_error::StartError;

/// Loads the SCRAM credentials into memory.
pub(super) async fn load_scram(
    store: Arc<dyn MetadataStore>,
) -> Result<ScramCredentials, StartError> {
    tokio::task::spawn_blocking(move || ScramCredentials::load(store).map_err(StartError::Load))
        .await
        .map_err(|e| StartError::Task(e.to_string()))?
}

/// Applies `kacl.scram.bootstrap.credentials` to a store that was never bootstrapped. Called
/// once the store's feed is attached: the credentials reach memory through it. Blocking.
pub(super) fn bootstrap_scram(state: &ServerState) -> Result<(), StartError> {
    scram_bootstrap::apply(&state.scram, &state.config.scram_bootstrap)?;
    tracing::info!(users = state.scram.user_count(), "loaded SCRAM credentials");
    Ok(())
}

/// ACLs handed from the store thread to the indexing thread at a time at start.
///
/// Small on purpose: the chunks in flight (up to four: one being read, two queued, one being
/// indexed) are allocated by the reading thread and freed by the indexing one, and glibc keeps
/// that memory in the reader's arena afterwards. At 65,536 a chunk this left ~58 MB of freed
/// memory resident after a 2M-ACL start; at 8,192 it is ~8 MB, and the start is no slower
/// (BENCHMARKS.md, "Whole server").
const LOAD_CHUNK_LEN: usize = 8_192;

/// What a start loads: the index, the topics, and the ACL version of the snapshot the index
/// came from (`None`: it was read from the store).
pub(super) type Loaded = (
    SharedAclIndex,
    Vec<kacl_store::TopicRecord>,
    Option<kacl_store::acl_snapshot::AclVersion>,
);

/// Loads every ACL into a fresh index (from the ACL snapshot beside a store that keeps one,
/// when it is current), and every topic.
pub(super) fn load(store: &dyn MetadataStore) -> Result<Loaded, StartError> {
    let started = Instant::now();
    let snapshot_store = store.acl_snapshots();
    let from_snapshot = match snapshot_store {
        Some(redb) => acl_snapshot::load(redb)?,
        None => None,
    };
    if let Some((index, version)) = from_snapshot {
        let topics = store.load_topics().map_err(StartError::Load)?;
        tracing::info!(
            acls = index.len(),
            topics = topics.len(),
            total_ms = started.elapsed().as_millis() as u64,
            "loaded metadata"
        );
        return Ok((SharedAclIndex::from_index(index), topics, Some(version)));
    }
    if let Some(redb) = snapshot_store {
        let index = load_redb(redb, started)?;
        let topics = store.load_topics().map_err(StartError::Load)?;
        tracing::info!(
            acls = index.len(),
            topics = topics.len(),
            total_ms = started.elapsed().as_millis() as u64,
            "loaded metadata"
        );
        return Ok((SharedAclIndex::from_index(index), topics, None));
    }
    // The store is read on a second thread in key order while this one indexes what has
    // arrived, so reading and indexing overlap and the whole set is never held twice.
    let mut index = AclIndex::new();
    let mut count = 0;
    let (read, indexed) = std::thread::scope(|scope| {
        let (chunks_tx, chunks_rx) = std::sync::mpsc::sync_channel::<Vec<AclBinding>>(2);
        let reader = scope.spawn(move || {
            let result = store.load_acls_chunked(LOAD_CHUNK_LEN, &mut |chunk| {
                // A closed channel means indexing failed; its error is the one reported.
                let _ = chunks_tx.send(chunk);
                Ok(())
            });
            (result, started.elapsed())
        });
        let mut indexed = Ok(());
        for adds in chunks_rx {
            count += adds.len();
            if let Err(e) = index.apply(&AclChanges {
                adds,
                removes: Vec::new(),
            }) {
                indexed = Err(StartError::Task(format!("stored ACLs do not index: {e}")));
                break;
            }
        }
        let (read, read_time) = reader
            .join()
            .map_err(|_| StartError::Task("the ACL load thread panicked".to_owned()))?;
        read.map_err(StartError::Load)?;
        Ok::<_, StartError>((read_time, indexed))
    })?;
    indexed?;
    let topics = store.load_topics().map_err(StartError::Load)?;
    tracing::info!(
        acls = count,
        topics = topics.len(),
        read_ms = read.as_millis() as u64,
        total_ms = started.elapsed().as_millis() as u64,
        "loaded metadata"
    );
    Ok((SharedAclIndex::from_index(index), topics, None))
}

/// The ACLs of a redb store into a fresh index: the store's keys are read and checked on a
/// second thread, in chunks, while this one decodes them without allocating and builds the
/// index a pattern at a time (the store's key order keeps each pattern's ACLs together).
fn load_redb(store: &dyn AclSnapshots, started: Instant) -> Result<AclIndex, StartError> {
    let mut builder = kacl_acl::AclIndexBuilder::new();
    let (read, indexed) = std::thread::scope(|scope| {
        let (chunks_tx, chunks_rx) = std::sync::mpsc::sync_channel::<kacl_store::AclKeyChunk>(2);
        let reader = scope.spawn(move || {
            let result = store.load_acl_keys_chunked(LOAD_CHUNK_LEN, &mut |chunk| {
                // A closed channel means indexing failed; its error is the one reported.
                let _ = chunks_tx.send(chunk);
                Ok(())
            });
            (result, started.elapsed())
        });
        let mut indexed = Ok(());
        'chunks: for chunk in chunks_rx {
            for acl in chunk.acls() {
                let pushed = acl.map_err(StartError::Load).and_then(|acl| {
                    builder
                        .push(acl)
                        .map_err(|e| StartError::Task(format!("stored ACLs do not index: {e}")))
                });
                if let Err(e) = pushed {
                    indexed = Err(e);
                    break 'chunks;
                }
            }
        }
        let (read, read_time) = reader
            .join()
            .map_err(|_| StartError::Task("the ACL load thread panicked".to_owned()))?;
        read.map_err(StartError::Load)?;
        Ok::<_, StartError>((read_time, indexed))
    })?;
    indexed?;
    tracing::debug!(read_ms = read.as_millis() as u64, "read the stored ACLs");
    Ok(builder.finish())
}
