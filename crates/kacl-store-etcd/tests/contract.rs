//! The behaviour every `MetadataStore` must show (kacl-store's contract checks), run against
//! `EtcdStore` on a real etcd. Skipped without etcd (see kacl_test_support::etcd).

use kacl_test_support::etcd as etcd_support;
use kacl_test_support::store_contract as common;

use kacl_store_etcd::EtcdStore;

fn open(etcd: &etcd_support::Etcd, prefix: &str) -> EtcdStore {
    etcd.open_store(prefix, 10_000).expect("store opens")
}

#[test]
fn the_etcd_store_keeps_the_store_contract() {
    let Some(etcd) = etcd_support::Etcd::start() else {
        return;
    };
    common::check_acls(&open(&etcd, "/acls/"));
    common::check_chunked_acl_load(&open(&etcd, "/chunked/"));
    common::check_topics(&open(&etcd, "/topics/"));
    common::check_scram(&open(&etcd, "/scram/"));
    common::check_scram_bootstrap(&open(&etcd, "/fresh/"), &open(&etcd, "/creds/"));
    let store = open(&etcd, "/id/");
    common::check_cluster_id(&store);
    // The same prefix opened again is the same cluster.
    use kacl_store::MetadataStore;
    assert_eq!(open(&etcd, "/id/").cluster_id(), store.cluster_id());
}
