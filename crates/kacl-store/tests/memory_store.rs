//! The in-memory store shows the same behaviour as the redb store.

use kacl_test_support::store_contract as common;

use kacl_store::{MemoryStore, MetadataStore, StoreError};

#[test]
fn acls() {
    common::check_acls(&MemoryStore::new());
}

#[test]
fn acls_load_in_chunks() {
    common::check_chunked_acl_load(&MemoryStore::new());
}

#[test]
fn topics() {
    common::check_topics(&MemoryStore::new());
}

#[test]
fn scram() {
    common::check_scram(&MemoryStore::new());
}

#[test]
fn scram_bootstrap_happens_once() {
    common::check_scram_bootstrap(&MemoryStore::new(), &MemoryStore::new());
}

#[test]
fn cluster_id() {
    let a = MemoryStore::new();
    common::check_cluster_id(&a);
    assert_ne!(a.cluster_id(), MemoryStore::new().cluster_id());
}

#[test]
fn injected_write_failures_change_nothing_and_reads_go_on() {
    let store = MemoryStore::new();
    store
        .commit_acl_changes(&[common::acl("t", "User:a")], &[])
        .unwrap();
    store.set_fail_writes(true);
    let err = store
        .commit_acl_changes(&[common::acl("t", "User:b")], &[])
        .unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }));
    assert!(err.is_storage_failure());
    assert!(store.create_topics(&[common::topic("x", 1)]).is_err());
    assert_eq!(store.load_acls().unwrap(), vec![common::acl("t", "User:a")]);
    assert!(store.load_topics().unwrap().is_empty());
    store.set_fail_writes(false);
    store
        .commit_acl_changes(&[common::acl("t", "User:b")], &[])
        .unwrap();
    assert_eq!(store.load_acls().unwrap().len(), 2);
}
