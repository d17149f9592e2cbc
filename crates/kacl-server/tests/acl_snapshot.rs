//! The ACL snapshot written at a clean stop: the next start serves the index from it when the
//! store vouches for it, and reads the store when it is damaged or stale.

mod common;

use common::*;
use kacl_acl::{
    AccessControlEntry, AclBinding, AclIndex, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType,
};
use kacl_server::Server;
use kacl_store::acl_snapshot::ACL_SNAPSHOT_FILE_NAME;
use kacl_store::{MetadataStore, RedbStore};

fn bindings(prefix: &str, count: usize) -> Vec<AclBinding> {
    (0..count)
        .map(|i| {
            AclBinding::new(
                ResourcePattern::new(
                    ResourceType::Topic,
                    format!("{prefix}-{}", i / 4),
                    PatternType::Literal,
                ),
                AccessControlEntry::new(
                    format!("User:u{}", i % 4),
                    "*",
                    AclOperation::Read,
                    AclPermissionType::Allow,
                ),
            )
        })
        .collect()
}

async fn served_names(server: &kacl_server::server::RunningServer) -> usize {
    let mut client = Client::connect(server.listeners()[0].local_addr).await;
    acl_count(&client.describe(3, &describe_all()).await)
}

#[tokio::test]
async fn a_clean_stop_writes_the_snapshot_and_the_next_start_trusts_only_a_current_one() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 4_000;
    {
        let store = RedbStore::open(dir.path()).unwrap();
        store
            .commit_acl_changes(&bindings("stored", count), &[])
            .unwrap();
    }
    let snapshot = dir.path().join(ACL_SNAPSHOT_FILE_NAME);
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert_eq!(server.state().acls.len(), count);
    server.shutdown().await;
    assert!(snapshot.is_file(), "a clean stop writes the snapshot");

    // A snapshot whose header the store vouches for (its version and count) but which holds
    // other ACLs, forged through the store's own API, is not served: the start checks the
    // index it decodes against every stored record and reads the store instead.
    {
        let store = RedbStore::open(dir.path()).unwrap();
        let other = AclIndex::from_bindings(bindings("from-snapshot", count)).unwrap();
        let version = store.acl_version().unwrap();
        store
            .write_acl_snapshot(version, count as u64, &other.to_bytes())
            .unwrap();
    }
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert!(server
        .state()
        .acls
        .read()
        .describe(&kacl_acl::AclBindingFilter::ANY)
        .iter()
        .all(|b| b.pattern.name.starts_with("stored-")));
    assert_eq!(served_names(&server).await, count);
    server.shutdown().await;

    // The snapshot of that clean stop is the store's and is served.
    assert!(RedbStore::open(dir.path())
        .unwrap()
        .read_acl_snapshot()
        .is_ok());
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert_eq!(served_names(&server).await, count);
    server.shutdown().await;
}

/// A store with `count` ACLs stopped cleanly by a server, so that a current snapshot is
/// beside it; returns the database file's bytes.
async fn stopped_with_snapshot(dir: &std::path::Path, count: usize) -> Vec<u8> {
    {
        let store = RedbStore::open(dir).unwrap();
        store
            .commit_acl_changes(&bindings("stored", count), &[])
            .unwrap();
    }
    let server = Server::start(config(dir, &[])).await.unwrap();
    server.shutdown().await;
    assert!(RedbStore::open(dir).unwrap().read_acl_snapshot().is_ok());
    std::fs::read(dir.join(kacl_store::DB_FILE_NAME)).unwrap()
}

#[tokio::test]
async fn a_damaged_store_is_refused_at_start_even_beside_a_current_snapshot() {
    init_logs();
    let pristine = tempfile::tempdir().unwrap();
    let count = 3_000;
    let file = stopped_with_snapshot(pristine.path(), count).await;
    let records: Vec<usize> = file
        .windows(7)
        .enumerate()
        .filter(|(_, w)| w == b"stored-")
        .map(|(at, _)| at)
        .collect();
    assert!(records.len() >= count / 4, "{}", records.len());

    // A bit flipped inside ACL records (a different name unless a checksum finds it), and the
    // file cut short: refused with the table or the file named, or (a flip the engine never
    // reads) served with exactly the stored ACLs, never other ones, never a panic.
    let mut damaged_copies: Vec<(String, Vec<u8>)> = Vec::new();
    for (round, at) in records
        .iter()
        .step_by(records.len() / 6)
        .take(6)
        .enumerate()
    {
        let mut bytes = file.clone();
        bytes[at + 8] ^= 1 << (round % 7);
        damaged_copies.push((format!("bit flip at byte {}", at + 8), bytes));
    }
    for keep in [file.len() / 2, file.len() - 4096, 4096] {
        damaged_copies.push((format!("truncated to {keep} bytes"), file[..keep].to_vec()));
    }
    let mut refused = 0;
    for (what, bytes) in damaged_copies {
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(pristine.path()).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() && entry.file_name() != "LOCK" {
                std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
            }
        }
        std::fs::write(dir.path().join(kacl_store::DB_FILE_NAME), &bytes).unwrap();
        assert!(dir.path().join(ACL_SNAPSHOT_FILE_NAME).is_file());
        match Server::start(config(dir.path(), &[])).await {
            Ok(server) => {
                let served = server
                    .state()
                    .acls
                    .read()
                    .describe(&kacl_acl::AclBindingFilter::ANY);
                assert_eq!(served.len(), count, "{what}: served another set");
                assert!(
                    served.iter().all(|b| b.pattern.name.starts_with("stored-")),
                    "{what}: served other ACLs"
                );
                server.shutdown().await;
            }
            Err(err) => {
                let text = format!("{err:#}");
                assert!(
                    text.contains("table `") || text.contains(kacl_store::DB_FILE_NAME),
                    "{what}: the error names what is damaged: {text}"
                );
                refused += 1;
            }
        }
    }
    assert!(refused >= 6, "only {refused} damaged stores refused");
}

#[tokio::test]
async fn a_restart_right_after_acknowledged_writes_never_refuses_the_store() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 1_000;
    stopped_with_snapshot(dir.path(), count).await;
    // Started from the snapshot, then writes acknowledged over the wire, then a crash (the
    // image of the directory as it is on disk): the restart serves every acknowledged ACL.
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    let mut client = Client::connect(server.listeners()[0].local_addr).await;
    for round in 0..5 {
        let creations = (0..40)
            .map(|i| allow_read(&format!("acked-{round}-{i}"), "User:p"))
            .collect();
        let created = client.create(3, creations).await;
        assert!(created.results.iter().all(|r| r.error_code == 0));
        let image = crash_image(dir.path());
        let restarted = Server::start(config(image.path(), &[]))
            .await
            .unwrap_or_else(|e| panic!("round {round}: the store was refused: {e:#}"));
        assert_eq!(restarted.state().acls.len(), count + 40 * (round + 1));
        restarted.shutdown().await;
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_damaged_or_stale_snapshot_is_ignored_and_the_store_is_read() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 3_000;
    {
        let store = RedbStore::open(dir.path()).unwrap();
        store
            .commit_acl_changes(&bindings("stored", count), &[])
            .unwrap();
    }
    let snapshot = dir.path().join(ACL_SNAPSHOT_FILE_NAME);
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    server.shutdown().await;

    // Damaged: one flipped bit in the payload.
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&snapshot, &bytes).unwrap();
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert_eq!(server.state().acls.len(), count);
    assert_eq!(served_names(&server).await, count);
    server.shutdown().await;

    // Stale: the store changed after the clean stop (here by a tool on the store itself).
    {
        let store = RedbStore::open(dir.path()).unwrap();
        store
            .commit_acl_changes(&bindings("later", 8), &[])
            .unwrap();
    }
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert_eq!(server.state().acls.len(), count + 8);
    server.shutdown().await;

    // Truncated.
    let bytes = std::fs::read(&snapshot).unwrap();
    std::fs::write(&snapshot, &bytes[..bytes.len() / 2]).unwrap();
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert_eq!(server.state().acls.len(), count + 8);
    server.shutdown().await;
}

/// A copy of a live server's data directory: what a restart after SIGKILL finds (the copy has
/// no lock holder; the database and the snapshot are as last made durable).
fn crash_image(from: &std::path::Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.path().join(entry.file_name())).unwrap();
        }
    }
    to
}

/// Waits (at most 20 s) until a crash image of `dir` holds a snapshot its store vouches for.
async fn wait_for_current_snapshot(dir: &std::path::Path) -> tempfile::TempDir {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let image = crash_image(dir);
        let current = RedbStore::open(image.path())
            .unwrap()
            .read_acl_snapshot()
            .is_ok();
        if current {
            return image;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no current snapshot written while serving"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_snapshot_is_written_while_serving_and_a_crash_restart_refuses_it_once_stale() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 2_000;
    {
        let store = RedbStore::open(dir.path()).unwrap();
        store
            .commit_acl_changes(&bindings("stored", count), &[])
            .unwrap();
    }
    let snapshot = dir.path().join(ACL_SNAPSHOT_FILE_NAME);
    let fast = [("kacl.acl.snapshot.interval.ms", "50")];
    assert!(!snapshot.exists());
    let server = Server::start(config(dir.path(), &fast)).await.unwrap();

    // Written after a start from the store, with no clean stop: a crash restart uses it.
    let image = wait_for_current_snapshot(dir.path()).await;
    let old_snapshot = std::fs::read(image.path().join(ACL_SNAPSHOT_FILE_NAME)).unwrap();
    let restarted = Server::start(config(image.path(), &[])).await.unwrap();
    assert_eq!(restarted.state().acls.len(), count);
    restarted.shutdown().await;

    // ACLs created after it: the old snapshot no longer matches the store and a crash
    // restart reads the store, with every ACL.
    let state = server.state().clone();
    let later = bindings("later", 12);
    tokio::task::spawn_blocking(move || state.acl_writer.create(&later, 100))
        .await
        .unwrap()
        .unwrap();
    let image = crash_image(dir.path());
    std::fs::write(image.path().join(ACL_SNAPSHOT_FILE_NAME), &old_snapshot).unwrap();
    assert!(matches!(
        RedbStore::open(image.path()).unwrap().read_acl_snapshot(),
        Err(kacl_store::acl_snapshot::SnapshotRejected::Stale(_))
    ));
    let restarted = Server::start(config(image.path(), &[])).await.unwrap();
    assert_eq!(restarted.state().acls.len(), count + 12);
    assert_eq!(served_names(&restarted).await, count + 12);
    restarted.shutdown().await;

    // Once the writes settle the running server catches the snapshot up.
    let image = wait_for_current_snapshot(dir.path()).await;
    let restarted = Server::start(config(image.path(), &[])).await.unwrap();
    assert_eq!(restarted.state().acls.len(), count + 12);
    restarted.shutdown().await;
    server.shutdown().await;
}
