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

    // A snapshot the store vouches for (its version and count) is served as it is: here one
    // of other ACLs, forged through the store's own API, shows which source the start used.
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
        .all(|b| b.pattern.name.starts_with("from-snapshot-")));
    assert_eq!(served_names(&server).await, count);
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
