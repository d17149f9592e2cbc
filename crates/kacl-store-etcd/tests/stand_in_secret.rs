//! The SCRAM stand-in secret in cluster mode (issue 27): one for the cluster, created by the
//! first node that asks, so every node derives the same stand-in for an unknown user.
//! Skipped without etcd (see kacl_test_support::etcd).

use kacl_store::MetadataStore;

#[test]
fn every_node_of_a_cluster_gets_the_same_stand_in_secret() {
    let Some(etcd) = kacl_test_support::etcd::Etcd::start() else {
        return;
    };
    let a = etcd.open_store("/kacl/", 10_000).expect("node a");
    let b = etcd.open_store("/kacl/", 10_000).expect("node b");
    let secret = a.scram_stand_in_secret().unwrap().expect("etcd keeps one");
    assert_eq!(b.scram_stand_in_secret().unwrap(), Some(secret));
    assert_eq!(a.scram_stand_in_secret().unwrap(), Some(secret));
    let other = etcd.open_store("/other/", 10_000).expect("another cluster");
    assert_ne!(other.scram_stand_in_secret().unwrap(), Some(secret));
}
