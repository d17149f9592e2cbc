//! The embedded store: the shared behaviour, plus what only a file can show —
//! reopening, the directory lock, format checks and a large load.

use kacl_test_support::store_contract as common;

use std::fs;

use kacl_sasl::scram::ScramMechanism;
use kacl_store::{MetadataStore, RedbStore, StoreError, DB_FILE_NAME};

fn open(dir: &tempfile::TempDir) -> RedbStore {
    RedbStore::open(dir.path()).unwrap()
}

#[test]
fn acls() {
    let dir = tempfile::tempdir().unwrap();
    common::check_acls(&open(&dir));
}

#[test]
fn acls_load_in_chunks() {
    let dir = tempfile::tempdir().unwrap();
    common::check_chunked_acl_load(&open(&dir));
}

#[test]
fn topics() {
    let dir = tempfile::tempdir().unwrap();
    common::check_topics(&open(&dir));
}

#[test]
fn scram() {
    let dir = tempfile::tempdir().unwrap();
    common::check_scram(&open(&dir));
}

#[test]
fn cluster_id() {
    let dir = tempfile::tempdir().unwrap();
    common::check_cluster_id(&open(&dir));
}

#[test]
fn scram_bootstrap_happens_once_and_the_record_survives_a_reopen() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    common::check_scram_bootstrap(&open(&a), &open(&b));
    assert!(open(&a).scram_bootstrapped().unwrap());
    assert!(open(&b).scram_bootstrapped().unwrap());
}

#[test]
fn everything_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let (cluster_id, acls, topics, creds) = {
        let store = open(&dir);
        common::check_acls(&store);
        common::check_topics(&store);
        common::check_scram(&store);
        (
            store.cluster_id(),
            store.load_acls().unwrap(),
            store.load_topics().unwrap(),
            store.list_scram_credentials().unwrap(),
        )
    };
    let store = open(&dir);
    assert_eq!(
        store.cluster_id(),
        cluster_id,
        "the cluster id is generated once"
    );
    assert_eq!(store.load_acls().unwrap(), acls);
    assert_eq!(store.load_topics().unwrap(), topics);
    assert_eq!(store.list_scram_credentials().unwrap(), creds);
    assert!(!acls.is_empty() && !topics.is_empty() && !creds.is_empty());

    // Sequence numbers keep counting after a reopen.
    let created = store.create_topics(&[common::topic("later", 1)]).unwrap();
    assert!(topics
        .iter()
        .all(|t| t.created_seq < created[0].created_seq));
}

#[test]
fn a_second_open_of_a_locked_directory_fails_and_names_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir);
    let err = RedbStore::open(dir.path()).unwrap_err();
    match &err {
        StoreError::Locked { path } => assert_eq!(path, &dir.path().join("LOCK")),
        other => panic!("expected Locked, got {other}"),
    }
    assert!(err.to_string().contains(&dir.path().display().to_string()));
    drop(store);
    // Dropping the store releases the lock.
    open(&dir);
}

#[test]
fn open_creates_the_directory_and_the_database_file() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("nested").join("kacl-data");
    let store = RedbStore::open(&dir).unwrap();
    assert!(dir.join(DB_FILE_NAME).is_file());
    assert!(dir.join("LOCK").is_file());
    assert_eq!(store.db_path(), dir.join(DB_FILE_NAME));
}

#[test]
fn open_fails_cleanly_when_the_directory_is_a_file() {
    let parent = tempfile::tempdir().unwrap();
    let file = parent.path().join("not-a-dir");
    fs::write(&file, b"x").unwrap();
    let err = RedbStore::open(&file).unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }), "{err}");
}

#[test]
fn a_garbage_database_file_is_reported_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(DB_FILE_NAME), vec![0x5a; 8192]).unwrap();
    let err = RedbStore::open(dir.path()).unwrap_err();
    assert!(err.is_storage_failure());
    assert!(
        err.to_string().contains(DB_FILE_NAME),
        "the error names the file: {err}"
    );
}

#[test]
fn committed_batches_are_whole_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let batches: Vec<Vec<_>> = common::many_acls(500)
        .chunks(50)
        .map(<[_]>::to_vec)
        .collect();
    {
        let store = open(&dir);
        for batch in &batches {
            assert_eq!(
                store.commit_acl_changes(batch, &[]).unwrap().added.len(),
                50
            );
        }
        // A batch refused half-way leaves no trace, even after a reopen.
        let mut bad = batches[0][0].clone();
        bad.entry.operation = kacl_acl::AclOperation::Any;
        let refused = [common::acl("only-in-refused-batch", "User:z"), bad];
        assert!(store.commit_acl_changes(&refused, &[]).is_err());
    }
    let store = open(&dir);
    let loaded = common::sorted(store.load_acls().unwrap());
    let expected = common::sorted(batches.concat());
    assert_eq!(loaded, expected);
}

#[test]
fn scram_credentials_survive_a_reopen_per_mechanism() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(&dir);
        store
            .upsert_scram_credential(
                "admin",
                ScramMechanism::Sha512,
                &common::credential(ScramMechanism::Sha512, 4096),
            )
            .unwrap();
    }
    let store = open(&dir);
    assert_eq!(
        store
            .scram_credential("admin", ScramMechanism::Sha512)
            .unwrap(),
        Some(common::credential(ScramMechanism::Sha512, 4096))
    );
    assert_eq!(
        store
            .scram_credential("admin", ScramMechanism::Sha256)
            .unwrap(),
        None
    );
}

#[test]
fn hundred_thousand_acls_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let acls = common::many_acls(100_000);
    {
        let store = open(&dir);
        let commit = store.commit_acl_changes(&acls, &[]).unwrap();
        assert_eq!(
            commit.added.len(),
            acls.len(),
            "all generated ACLs are distinct"
        );
    }
    let store = open(&dir);
    let loaded = store.load_acls().unwrap();
    assert_eq!(loaded.len(), acls.len());
    assert_eq!(common::sorted(loaded), common::sorted(acls));
}

/// Writes one raw entry into a closed store's database file, as corruption would.
fn poke(dir: &tempfile::TempDir, table: &str, key: &[u8], value: &[u8]) {
    let db = redb::Database::create(dir.path().join(DB_FILE_NAME)).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let definition: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new(table);
        let mut t = txn.open_table(definition).unwrap();
        t.insert(key, value).unwrap();
    }
    txn.commit().unwrap();
}

#[test]
fn a_record_that_fails_to_decode_names_its_table_and_key() {
    let dir = tempfile::tempdir().unwrap();
    open(&dir)
        .create_topics(&[common::topic("good", 1)])
        .unwrap();
    poke(&dir, "topics", b"broken-topic", &[1, 2, 3]);
    let store = open(&dir);
    let err = store.load_topics().unwrap_err();
    match &err {
        StoreError::Corrupt { table, key, .. } => {
            assert_eq!(*table, "topics");
            assert_eq!(key, "\"broken-topic\"");
        }
        other => panic!("expected Corrupt, got {other}"),
    }
    assert!(err.to_string().contains("broken-topic"), "{err}");
    // The rest of the store still works.
    assert!(store.load_acls().unwrap().is_empty());
    store
        .commit_acl_changes(&[common::acl("t", "User:a")], &[])
        .unwrap();

    drop(store);
    poke(&dir, "acls", &[2, 3, 1, b'x'], &[0; 16]);
    let err = open(&dir).load_acls().unwrap_err();
    assert!(
        matches!(&err, StoreError::Corrupt { table: "acls", key, .. } if key == "0x02030178"),
        "{err}"
    );
}

#[test]
fn a_store_written_by_a_newer_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    drop(open(&dir));
    poke(&dir, "meta", b"format_version", &[99]);
    let err = RedbStore::open(dir.path()).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::UnsupportedFormat {
                found: 99,
                supported: kacl_store::FORMAT_VERSION
            }
        ),
        "{err}"
    );
}

#[test]
fn concurrent_commits_from_many_threads_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir);
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let store = &store;
            scope.spawn(move || {
                for i in 0..25 {
                    let acl = common::acl(&format!("t{thread}-{i}"), "User:a");
                    let commit = store.commit_acl_changes(&[acl], &[]).unwrap();
                    assert_eq!(commit.added.len(), 1);
                    assert!(!store.load_acls().unwrap().is_empty());
                }
            });
        }
    });
    assert_eq!(store.load_acls().unwrap().len(), 100);
}
