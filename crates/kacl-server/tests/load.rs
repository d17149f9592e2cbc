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

#[tokio::test]
async fn start_loads_every_stored_acl() {
    init_logs();
    let dir = tempfile::tempdir().unwrap();
    let count = 30_000;
    {
        let store = RedbStore::open(dir.path()).unwrap();
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
