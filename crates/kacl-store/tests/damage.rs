//! A damaged or missing store is refused with a reason, never served as a new or different
//! cluster, and never panics: the identity file, the record checksums, the format migration,
//! and `verify`.

use kacl_test_support::store_contract as common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use kacl_acl::AclBinding;
use kacl_store::{
    verify, MetadataStore, RedbStore, StoreError, StoreOptions, DB_FILE_NAME, IDENTITY_FILE_NAME,
};

fn options(node_id: i32) -> StoreOptions {
    StoreOptions {
        node_id: Some(node_id),
        ..StoreOptions::default()
    }
}

fn acls(n: usize) -> Vec<AclBinding> {
    (0..n)
        .map(|i| common::acl(&format!("t{i}"), &format!("User:p{}", i % 97)))
        .collect()
}

/// A store with `n` ACLs, a topic and a credential, closed.
fn filled(dir: &Path, n: usize) {
    let store = RedbStore::open_with_options(dir, options(1)).unwrap();
    store.commit_acl_changes(&acls(n), &[]).unwrap();
    store.create_topics(&[common::topic("orders", 3)]).unwrap();
    common::check_scram(&store);
}

type Loaded = (
    String,
    Vec<AclBinding>,
    Vec<kacl_store::TopicRecord>,
    Vec<kacl_store::StoredScramCredential>,
);

fn load(dir: &Path) -> Result<Loaded, StoreError> {
    let store = RedbStore::open_with_options(dir, options(1))?;
    Ok((
        store.cluster_id(),
        store.load_acls()?,
        store.load_topics()?,
        store.list_scram_credentials()?,
    ))
}

#[test]
fn a_store_emptied_or_deleted_under_its_identity_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path(), 10);
    let cluster_id = load(dir.path()).unwrap().0;
    assert!(dir.path().join(IDENTITY_FILE_NAME).exists());
    let db = dir.path().join(DB_FILE_NAME);

    std::fs::File::create(&db).unwrap().set_len(0).unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(matches!(err, StoreError::StoreMissing { .. }), "{err}");
    assert!(err.refuses_data_dir());
    let text = err.to_string();
    assert!(
        text.contains(&cluster_id) && text.contains("0 bytes"),
        "{text}"
    );

    std::fs::remove_file(&db).unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(!db.exists(), "nothing was created in its place");
}

#[test]
fn another_clusters_database_or_another_nodes_directory_is_refused() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    filled(a.path(), 3);
    filled(b.path(), 3);
    let b_cluster = load(b.path()).unwrap().0;
    std::fs::copy(b.path().join(DB_FILE_NAME), a.path().join(DB_FILE_NAME)).unwrap();
    let err = load(a.path()).unwrap_err();
    assert!(matches!(err, StoreError::IdentityMismatch { .. }), "{err}");
    assert!(err.to_string().contains(&b_cluster), "{err}");

    let err = RedbStore::open_with_options(b.path(), options(2)).unwrap_err();
    assert!(err.to_string().contains("node.id 1"), "{err}");
    assert!(err.refuses_data_dir());
}

#[test]
fn a_damaged_identity_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path(), 1);
    std::fs::write(
        dir.path().join(IDENTITY_FILE_NAME),
        "version=1\ncluster.id=x\n",
    )
    .unwrap();
    let err = load(dir.path()).unwrap_err();
    assert!(matches!(err, StoreError::Identity { .. }), "{err}");
}

/// A tiny xorshift, so the flips are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn thirty_bit_flips_are_detected_or_harmless_never_different_data_never_a_panic() {
    let pristine = tempfile::tempdir().unwrap();
    filled(pristine.path(), 5_000);
    let expected = load(pristine.path()).unwrap();
    let file = std::fs::read(pristine.path().join(DB_FILE_NAME)).unwrap();
    // Half the flips anywhere in the file, half inside stored ACLs (where a flip is a
    // different ACL unless the checksum finds it).
    let in_records: Vec<usize> = file
        .windows(6)
        .enumerate()
        .filter(|(_, w)| w == b"User:p")
        .map(|(at, _)| at)
        .collect();
    assert!(in_records.len() >= 5_000, "{}", in_records.len());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut detected, mut harmless) = (Vec::new(), 0);
    for round in 0..30 {
        let byte = if round % 2 == 0 {
            rng.below(file.len())
        } else {
            in_records[rng.below(in_records.len())] + rng.below(12)
        };
        let bit = rng.below(8);
        let dir = tempfile::tempdir().unwrap();
        for name in [IDENTITY_FILE_NAME, DB_FILE_NAME] {
            std::fs::copy(pristine.path().join(name), dir.path().join(name)).unwrap();
        }
        let mut damaged = file.clone();
        damaged[byte] ^= 1 << bit;
        std::fs::write(dir.path().join(DB_FILE_NAME), &damaged).unwrap();
        match catch_unwind(AssertUnwindSafe(|| load(dir.path()))) {
            Err(_) => panic!("flip of bit {bit} at byte {byte} panicked"),
            Ok(Ok(loaded)) => {
                assert!(
                    loaded == expected,
                    "flip of bit {bit} at byte {byte} changed the data"
                );
                harmless += 1;
            }
            Ok(Err(err)) => {
                let text = err.to_string();
                assert!(
                    text.contains("table `") || text.contains(DB_FILE_NAME),
                    "flip at {byte}: the error names what is affected: {text}"
                );
                detected.push(text);
            }
        }
    }
    // The flips inside records must have been found.
    assert!(
        detected.len() >= 15,
        "{} detected, {harmless} harmless",
        detected.len()
    );
}

#[test]
fn verify_counts_a_good_store_and_names_a_damaged_record() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path(), 200);
    let report = verify(dir.path()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.format_version, Some(kacl_store::FORMAT_VERSION));
    assert!(
        report.counts.contains(&("acls", 200)),
        "{:?}",
        report.counts
    );
    assert_eq!(
        report.cluster_id,
        report.identity.as_ref().map(|i| i.cluster_id.clone())
    );

    let db = dir.path().join(DB_FILE_NAME);
    let mut file = std::fs::read(&db).unwrap();
    let at = file.windows(4).position(|w| w == b"t150").unwrap();
    file[at + 1] ^= 0x04; // t150 -> t550
    std::fs::write(&db, &file).unwrap();
    let report = verify(dir.path()).unwrap();
    assert!(!report.is_ok());
    let all = report.problems.join("\n");
    assert!(all.contains("`acls`") && all.contains("checksum"), "{all}");
    assert!(all.contains("t550"), "names the ACL as read: {all}");
    // And a start refuses it the same way.
    let err = load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");

    std::fs::write(&db, b"").unwrap();
    assert!(!verify(dir.path()).unwrap().is_ok());
}

#[test]
fn a_format_1_store_is_migrated_on_first_open() {
    let dir = tempfile::tempdir().unwrap();
    let bindings = acls(50);
    let cluster_id = kacl_store::kafka_uuid_string(&[7; 16]);
    {
        // What kacl before the checksums wrote: raw values, format_version 1, no identity.
        type Bytes = &'static [u8];
        let db = redb::Database::create(dir.path().join(DB_FILE_NAME)).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut acls = txn
                .open_table(redb::TableDefinition::<Bytes, Bytes>::new("acls"))
                .unwrap();
            for (i, b) in bindings.iter().enumerate() {
                let id = [u8::try_from(i).unwrap(); 16];
                acls.insert(kacl_store::encoding::encode_acl_key(b).as_slice(), &id[..])
                    .unwrap();
            }
            let mut meta = txn
                .open_table(redb::TableDefinition::<Bytes, Bytes>::new("meta"))
                .unwrap();
            meta.insert(&b"format_version"[..], &[1u8][..]).unwrap();
            meta.insert(&b"cluster_id"[..], cluster_id.as_bytes())
                .unwrap();
            for name in ["topics", "scram_credentials"] {
                txn.open_table(redb::TableDefinition::<Bytes, Bytes>::new(name))
                    .unwrap();
            }
        }
        txn.commit().unwrap();
    }
    let before = verify(dir.path()).unwrap();
    assert_eq!(before.format_version, Some(1));
    let store = RedbStore::open_with_options(dir.path(), options(1)).unwrap();
    assert_eq!(store.cluster_id(), cluster_id);
    let mut expected = bindings.clone();
    expected.sort_by_key(kacl_store::encoding::encode_acl_key);
    assert_eq!(store.load_acls().unwrap(), expected);
    drop(store);
    let after = verify(dir.path()).unwrap();
    assert!(after.is_ok(), "{:?}", after.problems);
    assert_eq!(after.format_version, Some(kacl_store::FORMAT_VERSION));
    assert_eq!(after.identity.unwrap().node_id, Some(1));
}
