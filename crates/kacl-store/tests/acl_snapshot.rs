//! The ACL snapshot beside the store (`kacl_store::acl_snapshot`): used only when it holds exactly
//! what the store holds; missing, stale, damaged, truncated and foreign snapshots are refused,
//! so that the start reads the store instead.

use kacl_test_support::store_contract as common;

use std::fs;

use kacl_store::acl_snapshot::{SnapshotRejected, ACL_SNAPSHOT_FILE_NAME};
use kacl_store::{MetadataStore, RedbStore};

const PAYLOAD: &[u8] = b"the caller's index bytes";

/// A store with two ACLs and a snapshot written for them.
fn store_with_snapshot(dir: &tempfile::TempDir) -> RedbStore {
    let store = RedbStore::open(dir.path()).unwrap();
    store
        .commit_acl_changes(
            &[common::acl("a", "User:x"), common::acl("b", "User:y")],
            &[],
        )
        .unwrap();
    let version = store.acl_version().unwrap();
    store.write_acl_snapshot(version, 2, PAYLOAD).unwrap();
    store
}

#[test]
fn a_snapshot_of_the_current_acls_is_read_back_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_snapshot(&dir);
    let read = store.read_acl_snapshot().unwrap();
    assert_eq!((read.acl_count, read.payload.as_slice()), (2, PAYLOAD));
    drop(store);
    let store = RedbStore::open(dir.path()).unwrap();
    assert_eq!(store.read_acl_snapshot().unwrap().payload, PAYLOAD);
    // A commit that changes nothing (the ACL exists) leaves the snapshot current.
    store
        .commit_acl_changes(&[common::acl("a", "User:x")], &[])
        .unwrap();
    assert!(store.read_acl_snapshot().is_ok());
}

#[test]
fn no_snapshot_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path()).unwrap();
    assert!(matches!(
        store.read_acl_snapshot(),
        Err(SnapshotRejected::Missing)
    ));
}

#[test]
fn any_acl_change_makes_it_stale() {
    for change in ["add", "remove"] {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_snapshot(&dir);
        match change {
            "add" => store.commit_acl_changes(&[common::acl("c", "User:z")], &[]),
            _ => store.commit_acl_changes(&[], &[common::acl("a", "User:x")]),
        }
        .unwrap();
        assert!(
            matches!(store.read_acl_snapshot(), Err(SnapshotRejected::Stale(_))),
            "after an {change}"
        );
    }
}

#[test]
fn a_snapshot_for_an_older_version_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path()).unwrap();
    let before = store.acl_version().unwrap();
    store
        .commit_acl_changes(&[common::acl("a", "User:x")], &[])
        .unwrap();
    assert_ne!(store.acl_version().unwrap(), before);
    assert!(store.write_acl_snapshot(before, 1, PAYLOAD).is_err());
    let now = store.acl_version().unwrap();
    assert!(
        store.write_acl_snapshot(now, 7, PAYLOAD).is_err(),
        "wrong count"
    );
    assert!(matches!(
        store.read_acl_snapshot(),
        Err(SnapshotRejected::Missing)
    ));
}

#[test]
fn every_flipped_byte_and_every_truncation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_snapshot(&dir);
    let path = dir.path().join(ACL_SNAPSHOT_FILE_NAME);
    let good = fs::read(&path).unwrap();
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        fs::write(&path, &bad).unwrap();
        assert!(store.read_acl_snapshot().is_err(), "byte {at} flipped");
    }
    for len in 0..good.len() {
        fs::write(&path, &good[..len]).unwrap();
        let refused = store.read_acl_snapshot();
        assert!(
            matches!(
                refused,
                Err(SnapshotRejected::Truncated(_) | SnapshotRejected::Unsupported(_))
            ),
            "{len} of {} bytes: {refused:?}",
            good.len()
        );
    }
    let mut longer = good.clone();
    longer.push(0);
    fs::write(&path, &longer).unwrap();
    assert!(matches!(
        store.read_acl_snapshot(),
        Err(SnapshotRejected::Damaged(..))
    ));
    fs::write(&path, &good).unwrap();
    assert!(store.read_acl_snapshot().is_ok());
}

#[test]
fn another_clusters_snapshot_is_foreign() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    drop(store_with_snapshot(&a));
    let other = store_with_snapshot(&b);
    fs::copy(
        a.path().join(ACL_SNAPSHOT_FILE_NAME),
        b.path().join(ACL_SNAPSHOT_FILE_NAME),
    )
    .unwrap();
    assert!(matches!(
        other.read_acl_snapshot(),
        Err(SnapshotRejected::Foreign { .. })
    ));
}

#[test]
fn the_raw_key_load_decodes_to_what_load_acls_returns() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path()).unwrap();
    let acls = common::many_acls(2_500);
    store.commit_acl_changes(&acls, &[]).unwrap();
    let mut chunks = 0;
    let mut seen = Vec::new();
    store
        .load_acl_keys_chunked(1_000, &mut |chunk| {
            chunks += 1;
            assert!(chunk.len() <= 1_000);
            for acl in chunk.acls() {
                let acl = acl.unwrap();
                seen.push(kacl_acl::AclBinding::new(
                    kacl_acl::ResourcePattern::new(acl.resource_type, acl.name, acl.pattern_type),
                    kacl_acl::AccessControlEntry::new(
                        acl.principal,
                        acl.host,
                        acl.operation,
                        acl.permission_type,
                    ),
                ));
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(chunks, 3);
    assert_eq!(seen, store.load_acls().unwrap());
}
