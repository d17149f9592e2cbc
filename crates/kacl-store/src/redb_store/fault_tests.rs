//! Failing storage under the real redb store: a backend that refuses writes on demand,
//! as a full disk does, to show that a failed commit changes nothing and that the store
//! recovers (reopening the file) once writes succeed again.

use std::fs::OpenOptions;
use std::io;
use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use redb::backends::FileBackend;
use redb::{BackendError, Builder, StorageBackend};

use super::{scratch, Opener, RedbStore, StoreOptions, DB_FILE_NAME};
use crate::store::MetadataStore;
use crate::StoreError;

/// A file whose writes, syncs and growth fail with "no space left" while `full` is set.
#[derive(Debug)]
struct FullDisk {
    inner: FileBackend,
    full: Arc<AtomicBool>,
}

impl FullDisk {
    fn check(&self) -> io::Result<()> {
        if self.full.load(Ordering::SeqCst) {
            Err(io::Error::from(io::ErrorKind::StorageFull))
        } else {
            Ok(())
        }
    }
}

impl StorageBackend for FullDisk {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.inner.read(offset, out)
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.check()?;
        self.inner.set_len(len)
    }
    fn sync_data(&self) -> io::Result<()> {
        self.check()?;
        self.inner.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.check()?;
        self.inner.write(offset, data)
    }
    fn close(&self) -> io::Result<()> {
        self.inner.close()
    }
    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.try_lock_range(start, end)
    }
    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.inner.try_lock_shared_range(start, end)
    }
    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_range(start, end)
    }
    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_shared_range(start, end)
    }
    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.unlock_range(start, end)
    }
    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.query_lock_range(start, end)
    }
}

/// A store on a disk that fills up when the returned flag is set.
fn open_on_full_disk(dir: &Path) -> (RedbStore, Arc<AtomicBool>) {
    let full = Arc::new(AtomicBool::new(false));
    let flag = full.clone();
    let path = dir.join(DB_FILE_NAME);
    let read_only_path = path.clone();
    let options = StoreOptions::default();
    let store = RedbStore::open_with(
        dir,
        options,
        Opener {
            writable: Box::new(move || {
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&path)?;
                Builder::new()
                    .set_cache_size(options.cache_bytes)
                    .create_with_backend(FullDisk {
                        inner: FileBackend::new(file)?,
                        full: flag.clone(),
                    })
            }),
            read_only: Box::new(move || {
                scratch::open_without_writing(&read_only_path, options.cache_bytes)
            }),
        },
    )
    .expect("open");
    (store, full)
}

fn acl(name: &str) -> kacl_acl::AclBinding {
    use kacl_acl::*;
    AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, name, PatternType::Literal),
        AccessControlEntry::new("User:a", "*", AclOperation::Write, AclPermissionType::Allow),
    )
}

#[test]
fn a_commit_on_a_full_disk_fails_as_storage_full_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, full) = open_on_full_disk(dir.path());
    store
        .commit_acl_changes(&[acl("kept")], &[])
        .expect("first commit");

    full.store(true, Ordering::SeqCst);
    let batch: Vec<_> = (0..200).map(|i| acl(&format!("lost-{i}"))).collect();
    let err = store.commit_acl_changes(&batch, &[]).unwrap_err();
    assert!(
        matches!(err, StoreError::StorageFull { .. }),
        "expected StorageFull, got {err}"
    );
    assert!(err.is_storage_failure());
    assert!(err.to_string().contains(DB_FILE_NAME), "{err}");

    // Once space is back, the store reopens the file and shows the state before the
    // failed batch, and takes new writes.
    full.store(false, Ordering::SeqCst);
    assert_eq!(
        store.load_acls().expect("load after failure"),
        vec![acl("kept")]
    );
    store
        .commit_acl_changes(&[acl("after")], &[])
        .expect("commit after recovery");
    drop(store);

    let reopened = RedbStore::open(dir.path()).expect("reopen");
    let mut loaded = reopened.load_acls().expect("load");
    loaded.sort();
    assert_eq!(loaded, vec![acl("after"), acl("kept")]);
}

#[test]
fn every_write_kind_fails_cleanly_while_the_disk_is_full() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, full) = open_on_full_disk(dir.path());
    let topic = crate::TopicRecord {
        name: "t".into(),
        topic_id: [3; 16],
        partitions: vec![],
        configs: Default::default(),
        created_seq: 0,
    };
    full.store(true, Ordering::SeqCst);
    assert!(store.create_topics(std::slice::from_ref(&topic)).is_err());
    assert!(store.delete_topics(&["t".into()]).is_err());
    let cred = kacl_sasl::ScramCredential {
        salt: vec![1],
        iterations: 4096,
        stored_key: vec![2],
        server_key: vec![3],
    };
    assert!(store
        .upsert_scram_credential("u", kacl_sasl::ScramMechanism::Sha256, &cred)
        .is_err());
    full.store(false, Ordering::SeqCst);
    assert!(store.load_topics().expect("topics").is_empty());
    assert!(store.list_scram_credentials().expect("scram").is_empty());
    store
        .create_topics(&[topic])
        .expect("create after recovery");
    assert_eq!(store.load_topics().expect("topics").len(), 1);
}

#[test]
fn reads_keep_working_while_the_disk_stays_full() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, full) = open_on_full_disk(dir.path());
    store
        .commit_acl_changes(&[acl("kept")], &[])
        .expect("first commit");
    full.store(true, Ordering::SeqCst);
    assert!(store.commit_acl_changes(&[acl("x")], &[]).is_err());
    // The writable reopen fails (it must write), so reads come from a read-only open.
    for _ in 0..3 {
        assert_eq!(
            store.load_acls().expect("read while full"),
            vec![acl("kept")]
        );
        let err = store.commit_acl_changes(&[acl("y")], &[]).unwrap_err();
        assert!(matches!(err, StoreError::StorageFull { .. }), "{err}");
    }
    full.store(false, Ordering::SeqCst);
    store
        .commit_acl_changes(&[acl("y")], &[])
        .expect("write once space is back");
    assert_eq!(store.load_acls().expect("load").len(), 2);
}
