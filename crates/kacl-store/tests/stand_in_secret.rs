//! The SCRAM stand-in secret (issue 27): created with the store, the same after a reopen,
//! different for another store.

use kacl_store::{MetadataStore, RedbStore};

#[test]
fn a_redb_store_keeps_its_stand_in_secret_across_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let first = RedbStore::open(dir.path()).unwrap();
    let secret = first
        .scram_stand_in_secret()
        .unwrap()
        .expect("a new store has one");
    assert_ne!(secret, [0u8; 32]);
    assert_eq!(first.scram_stand_in_secret().unwrap(), Some(secret));
    drop(first);
    let again = RedbStore::open(dir.path()).unwrap();
    assert_eq!(again.scram_stand_in_secret().unwrap(), Some(secret));
    let other_dir = tempfile::tempdir().unwrap();
    let other = RedbStore::open(other_dir.path()).unwrap();
    assert_ne!(other.scram_stand_in_secret().unwrap(), Some(secret));
}
