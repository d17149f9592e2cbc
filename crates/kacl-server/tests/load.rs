//! A start on a store that already holds many ACLs loads all of them into the index (the 1M
//! figure comes from `examples/start_with_acls.rs` in release mode).

mod common;

use common::*;
use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_server::Server;
use kacl_store::{MetadataStore, RedbStore};

/// Stores `count` ACLs (two per topic: LITERAL and PREFIXED, 100 principals) in `dir`.
fn fill_store(dir: &std::path::Path, count: usize) {
    let store = RedbStore::open(dir).unwrap();
    let bindings: Vec<AclBinding> = (0..count)
        .map(|i| {
            AclBinding::new(
                ResourcePattern::new(
                    ResourceType::Topic,
                    format!("topic-{}", i / 2),
                    if i % 2 == 0 {
                        PatternType::Literal
                    } else {
                        PatternType::Prefixed
                    },
                ),
                AccessControlEntry::new(
                    format!("User:u{}", i % 100),
                    "*",
                    AclOperation::Read,
                    AclPermissionType::Allow,
                ),
            )
        })
        .collect();
    store.commit_acl_changes(&bindings, &[]).unwrap();
}

#[tokio::test]
async fn start_loads_every_stored_acl() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 30_000;
    fill_store(dir.path(), count);
    let server = Server::start(config(dir.path(), &[])).await.unwrap();
    assert_eq!(server.state().acls.len(), count);
    let mut client = Client::connect(server.listeners()[0].local_addr).await;
    let all = client.describe(3, &describe_all()).await;
    assert_eq!(acl_count(&all), count);
    let one = client
        .describe(
            3,
            &describe_filter(TOPIC, Some("topic-77"), MATCH, None, ANY, ANY),
        )
        .await;
    // LITERAL topic-77 and PREFIXED topic-77, plus PREFIXED topic-7.
    assert_eq!(acl_count(&one), 3);
    server.shutdown().await;
}

#[tokio::test]
async fn start_without_a_store_cache_loads_and_writes() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 20_000;
    fill_store(dir.path(), count);
    let no_cache = [("kacl.store.cache.bytes", "0")];
    let server = Server::start(config(dir.path(), &no_cache)).await.unwrap();
    assert_eq!(server.state().config.store_cache_bytes, 0);
    assert_eq!(server.state().acls.len(), count);
    let mut client = Client::connect(server.listeners()[0].local_addr).await;
    let created = client
        .create(2, vec![allow_read("after-restart", "User:late")])
        .await;
    assert!(
        created.results.iter().all(|r| r.error_code == 0),
        "{created:?}"
    );
    server.shutdown().await;

    let server = Server::start(config(dir.path(), &no_cache)).await.unwrap();
    assert_eq!(server.state().acls.len(), count + 1);
    server.shutdown().await;
}
