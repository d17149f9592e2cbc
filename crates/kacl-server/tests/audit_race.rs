//! Two nodes racing the same CreateAcls on one store (issue 28): the store stores the ACL once,
//! and only the node whose commit stored it audits it "added"; the other answers success (the
//! ACL exists) without claiming it.

mod common;
mod security_support;

use std::sync::Arc;

use common::{allow_read, Client};
use kacl_server::Server;
use kacl_store::{MemoryStore, MetadataStore};
use security_support::LogCapture;

#[tokio::test]
async fn two_nodes_racing_one_creation_audit_it_added_once() {
    let (log, _guard) = LogCapture::start("kacl::authorizer=info");
    let store: Arc<dyn MetadataStore> = Arc::new(MemoryStore::new());
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // One store feeds one sink: B's start takes the feed from A, so A stands for a node whose
    // feed has not yet delivered B's commit. Both plan the ACL as new; one commit stores it.
    let a = Server::start_with_store(common::config(dir_a.path(), &[]), store.clone())
        .await
        .expect("node A starts");
    let b = Server::start_with_store(common::config(dir_b.path(), &[]), store.clone())
        .await
        .expect("node B starts");
    let mut on_b = Client::connect(b.listeners()[0].local_addr).await;
    let mut on_a = Client::connect(a.listeners()[0].local_addr).await;

    let acl = allow_read("orders", "User:alice");
    assert_eq!(
        on_b.create(2, vec![acl.clone()]).await.results[0].error_code,
        0
    );
    assert_eq!(on_a.create(2, vec![acl]).await.results[0].error_code, 0);

    assert_eq!(store.load_acls().unwrap().len(), 1, "stored once");
    let added = log.lines_with("added ACL");
    assert_eq!(
        added.len(),
        1,
        "exactly one node audits the ACL added: {added:#?}"
    );
    assert!(added[0].contains("User:alice"), "{added:#?}");
    a.shutdown().await;
    b.shutdown().await;
}
