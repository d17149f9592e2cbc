//! The etcd key layout against a real etcd: ACL keys are spread over 256 shards and list
//! back whole; a key under `acl/` in the wrong shard (damaged, or foreign) never becomes an
//! ACL, neither in a listing nor through the watch; a cluster written with layout 1 (no
//! shards) is refused at start by name. Skipped without etcd (see kacl_test_support::etcd).

use kacl_test_support::etcd as etcd_support;
use kacl_test_support::store_contract as common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_store::{Change, ChangeSink, MetadataStore, StoreContents, StoreError};
use kacl_store_etcd::client::{op_put, prefix_end};
use kacl_store_etcd::EtcdStore;
use parking_lot::Mutex;

fn open(etcd: &etcd_support::Etcd) -> Result<EtcdStore, StoreError> {
    etcd.open_store("/kacl/", 10_000)
}

#[derive(Default)]
struct Seen(Mutex<Vec<kacl_acl::AclBinding>>);

impl ChangeSink for Seen {
    fn apply(&self, changes: Vec<Change>) {
        let mut seen = self.0.lock();
        for change in changes {
            if let Change::AclAdded(b) = change {
                seen.push(b);
            }
        }
    }

    fn replace(&self, _contents: StoreContents) {}
}

/// The ACL keys etcd holds under `/kacl/acl/`.
fn acl_keys(etcd: &etcd_support::Etcd) -> Vec<Vec<u8>> {
    let client = etcd.client(Duration::from_secs(10));
    let start = b"/kacl/acl/".to_vec();
    let range = client
        .range(&start, Some(&prefix_end(&start)), 0, 100_000)
        .expect("range");
    range.kvs.into_iter().map(|kv| kv.key).collect()
}

#[test]
fn acls_spread_over_the_shards_and_list_back_whole() {
    let Some(etcd) = etcd_support::Etcd::start() else {
        return;
    };
    let store = open(&etcd).expect("opens");
    let acls = common::many_acls(3_000);
    store.commit_acl_changes(&acls, &[]).expect("commit");
    let keys = acl_keys(&etcd);
    assert_eq!(keys.len(), 3_000);
    let shards: BTreeSet<&[u8]> = keys
        .iter()
        .map(|k| &k[b"/kacl/acl/".len()..][..3])
        .collect();
    assert!(shards.len() > 240, "only {} shards used", shards.len());
    assert!(shards
        .iter()
        .all(|s| s[2] == b'/' && s[..2].iter().all(|c| c.is_ascii_hexdigit())));
    drop(store);

    let reopened = open(&etcd).expect("reopens");
    let mut listed = reopened.load_acls().expect("lists");
    let mut expected = acls.clone();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
}

#[test]
fn an_acl_key_in_the_wrong_shard_is_never_an_acl() {
    let Some(etcd) = etcd_support::Etcd::start() else {
        return;
    };
    let store = open(&etcd).expect("opens");
    let seen = Arc::new(Seen::default());
    store.start_feed(seen.clone()).unwrap();

    // A well-sealed value under a key whose shard is not its binding's.
    let forged = common::acl("forged", "User:mallory");
    let encoded = kacl_store::encoding::encode_acl_key(&forged);
    let shard = (crc32c::crc32c(&encoded) & 0xff) as u8;
    let mut relative = format!("acl/{:02x}/", shard.wrapping_add(1)).into_bytes();
    relative.extend_from_slice(&encoded);
    let value = kacl_store::checksum::seal(&relative, &[7; 16]);
    let mut key = b"/kacl/".to_vec();
    key.extend_from_slice(&relative);
    let client = etcd.client(Duration::from_secs(10));
    client
        .txn(vec![], vec![op_put(&key, &value, 0, false)], vec![])
        .expect("put");
    // Then a real ACL: once the watch has delivered it, it has passed the forged one.
    let real = common::acl("real", "User:alice");
    store
        .commit_acl_changes(std::slice::from_ref(&real), &[])
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while seen.0.lock().is_empty() {
        assert!(Instant::now() < deadline, "the watch never delivered");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(*seen.0.lock(), vec![real.clone()]);
    drop(store);

    let listed = open(&etcd).expect("reopens").load_acls().expect("lists");
    assert_eq!(listed, vec![real]);
}

#[test]
fn a_layout_1_cluster_is_refused_at_start() {
    let Some(etcd) = etcd_support::Etcd::start() else {
        return;
    };
    // What a kacl before the shards left: a cluster id, no layout version, an ACL key
    // straight under `acl/`.
    let client = etcd.client(Duration::from_secs(10));
    let id = kacl_store::kafka_uuid_string(&kacl_store::random_kafka_uuid());
    let binding = common::acl("orders", "User:alice");
    let mut relative = b"acl/".to_vec();
    relative.extend_from_slice(&kacl_store::encoding::encode_acl_key(&binding));
    let mut key = b"/kacl/".to_vec();
    key.extend_from_slice(&relative);
    client
        .txn(
            vec![],
            vec![
                op_put(b"/kacl/meta/cluster-id", id.as_bytes(), 0, false),
                op_put(
                    &key,
                    &kacl_store::checksum::seal(&relative, &[1; 16]),
                    0,
                    false,
                ),
            ],
            vec![],
        )
        .expect("put");
    let err = open(&etcd).expect_err("a layout-1 cluster must be refused");
    let text = err.to_string();
    assert!(
        text.contains("older kacl") && text.contains("layout 1") && text.contains("store copy"),
        "{text}"
    );
    // A layout this build does not know is refused too, naming it.
    client
        .txn(
            vec![],
            vec![op_put(b"/kacl/meta/layout", b"9", 0, false)],
            vec![],
        )
        .expect("put");
    let text = open(&etcd).expect_err("layout 9").to_string();
    assert!(text.contains("\"9\""), "{text}");
}
