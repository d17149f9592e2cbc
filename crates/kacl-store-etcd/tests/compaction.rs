//! The feed's recovery from a compacted history, against a real etcd: a node whose next
//! revision etcd has compacted away re-lists and replaces its state in one step, with exactly
//! the stored set. Skipped without etcd (see kacl_test_support::etcd).

use kacl_test_support::etcd as etcd_support;
use kacl_test_support::store_contract as common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_acl::AclBinding;
use kacl_store::{Change, ChangeSink, MetadataStore, StoreContents};
use kacl_store_etcd::EtcdStore;
use parking_lot::Mutex;

fn open(etcd: &etcd_support::Etcd) -> EtcdStore {
    etcd.open_store("/kacl/", 10_000).expect("store opens")
}

/// The ACL set a node would hold, and how it got there.
#[derive(Default)]
struct Recorder {
    acls: Mutex<BTreeSet<AclBinding>>,
    replaced: Mutex<usize>,
}

impl ChangeSink for Recorder {
    fn apply(&self, changes: Vec<Change>) {
        let mut acls = self.acls.lock();
        for change in changes {
            match change {
                Change::AclAdded(b) => {
                    acls.insert(b);
                }
                Change::AclRemoved(b) => {
                    acls.remove(&b);
                }
                _ => {}
            }
        }
    }

    fn replace(&self, contents: StoreContents) {
        *self.acls.lock() = contents.acls.into_iter().collect();
        *self.replaced.lock() += 1;
    }
}

#[test]
fn a_node_behind_a_compaction_relists_to_the_exact_set() {
    let Some(etcd) = etcd_support::Etcd::start() else {
        return;
    };
    let writer = open(&etcd);
    writer
        .commit_acl_changes(
            &[common::acl("kept", "User:a"), common::acl("gone", "User:a")],
            &[],
        )
        .unwrap();
    // This node lists now, and starts its watch only after the history it needs is gone.
    let behind = open(&etcd);
    let recorder = Arc::new(Recorder::default());
    *recorder.acls.lock() = behind.load_acls().unwrap().into_iter().collect();
    writer
        .commit_acl_changes(
            &[common::acl("new", "User:b")],
            &[common::acl("gone", "User:a")],
        )
        .unwrap();
    writer
        .commit_acl_changes(&[common::acl("newer", "User:c")], &[])
        .unwrap();
    let client = etcd.client(Duration::from_secs(5));
    let head = client
        .range(b"/kacl/", Some(b"/kacl0"), 0, 1)
        .unwrap()
        .revision;
    client.compact(head).expect("compaction");

    behind.start_feed(recorder.clone()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while *recorder.replaced.lock() == 0 {
        assert!(Instant::now() < deadline, "the node never re-listed");
        std::thread::sleep(Duration::from_millis(20));
    }
    let expected: BTreeSet<AclBinding> = writer.load_acls().unwrap().into_iter().collect();
    assert_eq!(*recorder.acls.lock(), expected);
    assert_eq!(expected.len(), 3);
    // And it follows on from there.
    writer
        .commit_acl_changes(&[common::acl("after", "User:d")], &[])
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while recorder.acls.lock().len() != 4 {
        assert!(
            Instant::now() < deadline,
            "the watch did not resume after the re-list"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
