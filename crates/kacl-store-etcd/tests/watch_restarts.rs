//! What `kacl_etcd_watch_restarts_total` counts, against a real etcd: an idle watch re-opened
//! after 5 s of silence is counted apart (`watch_idle_reopens`), not as a restart; an etcd
//! that goes away and comes back is a restart, and the watch then delivers again. Skipped
//! without etcd (see kacl_test_support::etcd).

use kacl_test_support::etcd as etcd_support;
use kacl_test_support::store_contract as common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_store::{Change, ChangeSink, MetadataStore, StoreContents};
use kacl_store_etcd::EtcdStore;
use parking_lot::Mutex;

fn open(etcd: &etcd_support::Etcd) -> EtcdStore {
    etcd.open_store("/kacl/", 100).expect("store opens")
}

#[derive(Default)]
struct Count(Mutex<usize>);

impl ChangeSink for Count {
    fn apply(&self, changes: Vec<Change>) {
        *self.0.lock() += changes
            .iter()
            .filter(|c| matches!(c, Change::AclAdded(_)))
            .count();
    }

    fn replace(&self, _contents: StoreContents) {}
}

fn wait(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn silence_is_not_a_restart_and_a_lost_etcd_is() {
    let Some(mut etcd) = etcd_support::Etcd::start() else {
        return;
    };
    let store = open(&etcd);
    let seen = Arc::new(Count::default());
    store.start_feed(seen.clone()).unwrap();
    let metrics = store.metrics();
    // More than one idle timeout (5 s) with nothing written.
    wait("an idle re-open", || metrics.watch_idle_reopens() >= 1);
    assert_eq!(metrics.watch_restarts(), 0, "silence counted as a restart");

    // The counter moves before the re-open; let the new watch be open before etcd goes, or
    // the kill lands on the open (a failed open, retried, is not a restart of a watch).
    std::thread::sleep(Duration::from_secs(1));
    etcd.restart();
    wait("a counted restart", || metrics.watch_restarts() >= 1);
    store
        .commit_acl_changes(&[common::acl("after", "User:a")], &[])
        .unwrap();
    wait("the watch to deliver again", || *seen.0.lock() == 1);
}
