//! The page cache bound: scanning every ACL at start must not leave the whole file cached
//! (redb's own default cache is 1 GiB, which at 2M ACLs kept ~270 MiB resident).

use std::path::Path;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};

use super::{RedbStore, StoreOptions, DEFAULT_CACHE_BYTES};
use crate::store::MetadataStore;

const PAGE: usize = 4096;

fn acl(i: usize) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::Topic,
            format!("cache-test-topic-with-a-longish-name-{i:08}"),
            PatternType::Literal,
        ),
        AccessControlEntry::new(
            format!("User:principal-{}", i % 97),
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        ),
    )
}

/// Writes `count` ACLs (several MiB of pages) with default options and closes the store.
fn fill(dir: &Path, count: usize) {
    let store = RedbStore::open(dir).expect("open");
    let all: Vec<AclBinding> = (0..count).map(acl).collect();
    for batch in all.chunks(2_000) {
        store.commit_acl_changes(batch, &[]).expect("commit");
    }
}

/// Reopens the store with `options`, reads every ACL as the server does at start, and
/// returns how many were read and the bytes redb's cache then holds.
fn scan_with(dir: &Path, options: StoreOptions) -> (usize, usize) {
    let store = RedbStore::open_with_options(dir, options).expect("reopen");
    assert_eq!(store.options(), options);
    let mut read = 0;
    store
        .load_acls_chunked(1_000, &mut |chunk| {
            read += chunk.len();
            Ok(())
        })
        .expect("scan");
    (read, store.db.cache_used_bytes())
}

#[test]
fn a_full_scan_stays_within_the_configured_cache() {
    let dir = tempfile::tempdir().expect("tempdir");
    let count = 20_000;
    fill(dir.path(), count);
    let file_len = std::fs::metadata(dir.path().join(super::DB_FILE_NAME))
        .expect("file")
        .len();

    let small = 256 * 1024;
    let (read, cached) = scan_with(
        dir.path(),
        StoreOptions {
            cache_bytes: small,
            ..StoreOptions::default()
        },
    );
    assert_eq!(read, count);
    assert!(
        cached <= small + PAGE,
        "{cached} bytes cached with a {small}-byte cache"
    );

    // The same scan with room for the whole file caches well past the small bound, so the
    // bound above is the option's doing.
    assert!(
        file_len < DEFAULT_CACHE_BYTES as u64,
        "file of {file_len} bytes"
    );
    let (read, cached) = scan_with(dir.path(), StoreOptions::default());
    assert_eq!(read, count);
    assert!(
        cached > 4 * small,
        "only {cached} bytes cached with the default cache ({file_len}-byte file)"
    );
}

#[test]
fn no_cache_at_all_still_reads_and_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    fill(dir.path(), 3_000);
    let none = StoreOptions {
        cache_bytes: 0,
        ..StoreOptions::default()
    };
    let (read, cached) = scan_with(dir.path(), none);
    assert_eq!((read, cached), (3_000, 0));

    let store = RedbStore::open_with_options(dir.path(), none).expect("reopen");
    let commit = store
        .commit_acl_changes(&[acl(3_000)], &[acl(0)])
        .expect("commit without a cache");
    assert_eq!((commit.added.len(), commit.removed.len()), (1, 1));
    assert_eq!(store.load_acls().expect("load").len(), 3_000);
    assert_eq!(store.db.cache_used_bytes(), 0);
}

#[test]
fn open_uses_the_default_options() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = RedbStore::open(dir.path()).expect("open");
    assert_eq!(store.options(), StoreOptions::default());
    assert_eq!(store.options().cache_bytes, DEFAULT_CACHE_BYTES);
}
