//! Client quotas in etcd (cluster mode): one node's alteration reaches another node's sink
//! through the watch, and a node that starts later lists them. Skipped without etcd (see
//! kacl_test_support::etcd).

use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_store::{
    Change, ChangeSink, MetadataStore, QuotaEntity, QuotaName, QuotaValue, StoreContents,
};
use parking_lot::Mutex;

#[derive(Default)]
struct Seen(Mutex<Vec<Change>>);

impl ChangeSink for Seen {
    fn apply(&self, changes: Vec<Change>) {
        self.0.lock().extend(changes);
    }

    fn replace(&self, _contents: StoreContents) {}
}

#[test]
fn a_quota_set_on_one_node_reaches_the_other_and_a_new_node_lists_it() {
    let Some(etcd) = kacl_test_support::etcd::Etcd::start() else {
        return;
    };
    let a = etcd.open_store("/kacl/", 10_000).expect("node a");
    let b = etcd.open_store("/kacl/", 10_000).expect("node b");
    let seen_a = Arc::new(Seen::default());
    let seen_b = Arc::new(Seen::default());
    a.start_feed(seen_a.clone()).unwrap();
    b.start_feed(seen_b.clone()).unwrap();
    let entity = QuotaEntity {
        user: Some(QuotaName::Named("alice".into())),
        client_id: Some(QuotaName::Default),
    };
    a.alter_client_quotas(&[
        (
            entity.clone(),
            "producer_byte_rate".into(),
            Some(1_048_576.0),
        ),
        (entity.clone(), "consumer_byte_rate".into(), Some(5e5)),
    ])
    .unwrap();
    // Read-your-writes on the writer; the watch on the other node.
    assert_eq!(seen_a.0.lock().len(), 2);
    let deadline = Instant::now() + Duration::from_secs(20);
    while seen_b.0.lock().len() < 2 {
        assert!(Instant::now() < deadline, "node b never saw the quotas");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(seen_b.0.lock().contains(&Change::Quota(
        entity.clone(),
        "producer_byte_rate".into(),
        Some(QuotaValue(1_048_576.0))
    )));
    b.alter_client_quotas(&[(entity.clone(), "consumer_byte_rate".into(), None)])
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !seen_a.0.lock().contains(&Change::Quota(
        entity.clone(),
        "consumer_byte_rate".into(),
        None,
    )) {
        assert!(Instant::now() < deadline, "node a never saw the removal");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop((a, b));
    let c = etcd.open_store("/kacl/", 10_000).expect("node c");
    assert_eq!(
        c.load_client_quotas().unwrap(),
        vec![(entity, "producer_byte_rate".to_owned(), 1_048_576.0)]
    );
}
