//! Every embedded store hands what it committed to the sink attached with `start_feed`, before
//! the write returns (the one path from a commit to memory), and after a storage failure hands
//! it the whole state read back.

use kacl_test_support::store_contract as common;

use std::sync::{Arc, Mutex};

use common::{acl, credential, topic};
use kacl_sasl::scram::ScramMechanism;
use kacl_store::{
    Change, ChangeSink, MemoryStore, MetadataStore, PartitionRecord, RedbStore, StoreContents,
};

#[derive(Default)]
struct Recorder {
    applied: Mutex<Vec<Change>>,
    replaced: Mutex<Vec<StoreContents>>,
}

impl ChangeSink for Recorder {
    fn apply(&self, changes: Vec<Change>) {
        self.applied.lock().unwrap().extend(changes);
    }

    fn replace(&self, contents: StoreContents) {
        self.replaced.lock().unwrap().push(contents);
    }
}

impl Recorder {
    fn take(&self) -> Vec<Change> {
        std::mem::take(&mut *self.applied.lock().unwrap())
    }
}

fn check_feed(store: &dyn MetadataStore) {
    let sink = Arc::new(Recorder::default());
    store.start_feed(sink.clone()).unwrap();
    let (a, b) = (acl("a", "User:x"), acl("b", "User:x"));

    store
        .commit_acl_changes(&[a.clone(), b.clone()], &[])
        .unwrap();
    assert_eq!(
        sink.take(),
        [Change::AclAdded(a.clone()), Change::AclAdded(b.clone())]
    );
    // What really changed only: a stored ACL added again, an absent one removed.
    store
        .commit_acl_changes(std::slice::from_ref(&a), &[acl("never", "User:x")])
        .unwrap();
    assert_eq!(sink.take(), []);
    store
        .commit_acl_changes(&[], std::slice::from_ref(&a))
        .unwrap();
    assert_eq!(sink.take(), [Change::AclRemoved(a)]);

    let created = store.create_topics(&[topic("t", 1)]).unwrap();
    assert_eq!(sink.take(), [Change::TopicPut(created[0].clone())]);
    let grown = store
        .add_partitions(
            "t",
            &[PartitionRecord {
                partition_index: 1,
                replicas: vec![1],
            }],
        )
        .unwrap();
    assert_eq!(sink.take(), [Change::TopicPut(grown)]);
    store
        .delete_topics(&["t".to_owned(), "none".to_owned()])
        .unwrap();
    assert_eq!(sink.take(), [Change::TopicDeleted("t".to_owned())]);

    let c = credential(ScramMechanism::Sha256, 4096);
    store
        .upsert_scram_credential("u", ScramMechanism::Sha256, &c)
        .unwrap();
    assert_eq!(
        sink.take(),
        [Change::ScramPut("u".to_owned(), ScramMechanism::Sha256, c)]
    );
    assert!(store
        .delete_scram_credential("u", ScramMechanism::Sha256)
        .unwrap());
    assert!(!store
        .delete_scram_credential("u", ScramMechanism::Sha256)
        .unwrap());
    assert_eq!(
        sink.take(),
        [Change::ScramDeleted("u".to_owned(), ScramMechanism::Sha256)]
    );
    assert!(sink.replaced.lock().unwrap().is_empty());
}

#[test]
fn the_memory_store_feeds_its_commits() {
    check_feed(&MemoryStore::new());
}

#[test]
fn the_redb_store_feeds_its_commits() {
    let dir = tempfile::tempdir().unwrap();
    check_feed(&RedbStore::open(dir.path()).unwrap());
}

#[test]
fn a_storage_failure_hands_the_sink_the_state_read_back() {
    let store = MemoryStore::new();
    let sink = Arc::new(Recorder::default());
    store.start_feed(sink.clone()).unwrap();
    let kept = acl("kept", "User:x");
    store
        .commit_acl_changes(std::slice::from_ref(&kept), &[])
        .unwrap();
    store.set_fail_writes(true);
    assert!(store
        .commit_acl_changes(&[acl("lost", "User:x")], &[])
        .is_err());
    let replaced = sink.replaced.lock().unwrap();
    assert_eq!(replaced.len(), 1);
    assert_eq!(replaced[0].acls, [kept]);
    // A refused write (nothing can have changed) reads nothing back.
    drop(replaced);
    store.set_fail_writes(false);
    assert!(store
        .create_topics(&[topic("t", 1), topic("t", 1)])
        .is_err());
    assert_eq!(sink.replaced.lock().unwrap().len(), 1);
}
