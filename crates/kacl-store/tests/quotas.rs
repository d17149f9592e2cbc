//! Client quotas in both embedded stores: stored per (entity, key), set and removed in one
//! transaction, delivered to the sink inside the commit, and still there after a reopen.

use std::sync::{Arc, Mutex};

use kacl_store::{
    Change, ChangeSink, MemoryStore, MetadataStore, QuotaEntity, QuotaName, QuotaValue, RedbStore,
    StoreContents,
};

#[derive(Default)]
struct Recorder(Mutex<Vec<Change>>);

impl ChangeSink for Recorder {
    fn apply(&self, changes: Vec<Change>) {
        self.0.lock().unwrap().extend(changes);
    }

    fn replace(&self, _contents: StoreContents) {}
}

fn user(name: &str) -> QuotaEntity {
    QuotaEntity {
        user: Some(QuotaName::Named(name.to_owned())),
        client_id: None,
    }
}

fn default_user_and_client(client: &str) -> QuotaEntity {
    QuotaEntity {
        user: Some(QuotaName::Default),
        client_id: Some(QuotaName::Named(client.to_owned())),
    }
}

fn check(store: &dyn MetadataStore) {
    let sink = Arc::new(Recorder::default());
    store.start_feed(sink.clone()).unwrap();
    let alice = user("alice");
    let pair = default_user_and_client("app");
    store
        .alter_client_quotas(&[
            (
                alice.clone(),
                "producer_byte_rate".into(),
                Some(1_048_576.0),
            ),
            (alice.clone(), "consumer_byte_rate".into(), Some(2e6)),
            (pair.clone(), "request_percentage".into(), Some(25.5)),
        ])
        .unwrap();
    assert_eq!(
        sink.0.lock().unwrap().drain(..).collect::<Vec<_>>(),
        [
            Change::Quota(
                alice.clone(),
                "producer_byte_rate".into(),
                Some(QuotaValue(1_048_576.0))
            ),
            Change::Quota(
                alice.clone(),
                "consumer_byte_rate".into(),
                Some(QuotaValue(2e6))
            ),
            Change::Quota(
                pair.clone(),
                "request_percentage".into(),
                Some(QuotaValue(25.5))
            ),
        ]
    );
    store
        .alter_client_quotas(&[(alice.clone(), "consumer_byte_rate".into(), None)])
        .unwrap();
    let mut loaded = store.load_client_quotas().unwrap();
    loaded.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let mut expected = vec![
        (alice, "producer_byte_rate".to_owned(), 1_048_576.0),
        (pair, "request_percentage".to_owned(), 25.5),
    ];
    expected.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert_eq!(loaded, expected);
}

#[test]
fn the_memory_store_keeps_quotas() {
    check(&MemoryStore::new());
}

#[test]
fn the_redb_store_keeps_quotas_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = RedbStore::open(dir.path()).unwrap();
        check(&store);
    }
    let store = RedbStore::open(dir.path()).unwrap();
    assert_eq!(store.load_client_quotas().unwrap().len(), 2);
    drop(store);
    let report = kacl_store::verify(dir.path()).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}
