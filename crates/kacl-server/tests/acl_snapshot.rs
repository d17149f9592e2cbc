//! The ACL snapshot written at a clean stop: the next start serves the index from it when the
//! store vouches for it, and reads the store when it is damaged or stale.

mod common;

use common::*;
use kacl_acl::{
    AccessControlEntry, AclBinding, AclIndex, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType,
};
use kacl_server::Server;
use kacl_store::snapshot::SNAPSHOT_FILE_NAME;
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
    let snapshot = dir.path().join(SNAPSHOT_FILE_NAME);
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
            .write_acl_snapshot(version, count as u64, &other.to_snapshot())
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
    let snapshot = dir.path().join(SNAPSHOT_FILE_NAME);
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
