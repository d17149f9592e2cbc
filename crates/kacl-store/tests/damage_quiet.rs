//! A damaged database file is one clear error naming the file, and nothing else: redb panics
//! on some damaged pages (`btree_iters.rs`), and the panic is caught, but its message and
//! backtrace must not reach the panic hook (stderr) either. Damage is put in every class of
//! byte the file holds: the header, the tree pages, the record bodies; each damaged copy is
//! opened as a start opens it and verified as `kacl store verify` does.
//!
//! Its own test binary: the counting hook must be the process's hook before any store call.

use kacl_test_support::store_contract as common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use kacl_store::{
    verify, MetadataStore, RedbStore, StoreOptions, DB_FILE_NAME, IDENTITY_FILE_NAME,
};

const PAGE: usize = 4096;

fn options() -> StoreOptions {
    StoreOptions {
        node_id: Some(1),
        ..StoreOptions::default()
    }
}

/// Opens `dir` and reads everything a start reads.
fn start(dir: &Path) -> Result<(), String> {
    let store = RedbStore::open_with_options(dir, options()).map_err(|e| e.to_string())?;
    store.load_acls().map_err(|e| e.to_string())?;
    store.load_topics().map_err(|e| e.to_string())?;
    store.list_scram_credentials().map_err(|e| e.to_string())?;
    Ok(())
}

#[test]
fn damage_at_every_byte_class_is_one_error_without_panic_output() {
    let reported = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&reported);
    std::panic::set_hook(Box::new(move |info| {
        seen.fetch_add(1, Ordering::SeqCst);
        eprintln!(
            "panic reported: {info}\n{}",
            std::backtrace::Backtrace::force_capture()
        );
    }));

    let pristine = tempfile::tempdir().unwrap();
    {
        let store = RedbStore::open_with_options(pristine.path(), options()).unwrap();
        let acls: Vec<_> = (0..3_000)
            .map(|i| common::acl(&format!("t{i}"), &format!("User:p{}", i % 97)))
            .collect();
        store.commit_acl_changes(&acls, &[]).unwrap();
        store.create_topics(&[common::topic("orders", 3)]).unwrap();
        common::check_scram(&store);
    }
    let file = std::fs::read(pristine.path().join(DB_FILE_NAME)).unwrap();
    let records: Vec<usize> = file
        .windows(6)
        .enumerate()
        .filter(|(_, w)| w == b"User:p")
        .map(|(at, _)| at)
        .collect();
    // The header (the first page: magic, god byte, the commit slots), the start of every page
    // in use (a tree page's type, entry count and offsets), and record bodies.
    let mut offsets: Vec<usize> = (0..256).step_by(3).collect();
    for page in (PAGE..file.len()).step_by(PAGE) {
        if file[page..(page + PAGE).min(file.len())]
            .iter()
            .any(|&b| b != 0)
        {
            offsets.extend([0, 1, 2, 4, 6, 8, 12, 16, 24, 40].map(|k| page + k));
        }
    }
    offsets.extend(
        records
            .iter()
            .step_by(records.len() / 40 + 1)
            .map(|&r| r + 3),
    );
    offsets.retain(|&o| o < file.len());

    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        pristine.path().join(IDENTITY_FILE_NAME),
        dir.path().join(IDENTITY_FILE_NAME),
    )
    .unwrap();
    let db = dir.path().join(DB_FILE_NAME);
    let (mut refused, mut harmless) = (0, 0);
    for &at in &offsets {
        let mut damaged = file.clone();
        for b in &mut damaged[at..(at + 4).min(file.len())] {
            *b ^= 0xA5;
        }
        std::fs::write(&db, &damaged).unwrap();
        match catch_unwind(AssertUnwindSafe(|| start(dir.path()))) {
            Err(_) => panic!("damage at byte {at}: a panic escaped"),
            Ok(Ok(())) => harmless += 1,
            Ok(Err(text)) => {
                assert!(
                    text.contains(DB_FILE_NAME) || text.contains("table `"),
                    "damage at byte {at}: the error names the file: {text}"
                );
                refused += 1;
            }
        }
        let report = catch_unwind(AssertUnwindSafe(|| verify(dir.path())))
            .unwrap_or_else(|_| panic!("damage at byte {at}: verify let a panic escape"))
            .unwrap();
        for problem in &report.problems {
            assert!(!problem.is_empty());
        }
        assert_eq!(
            reported.load(Ordering::SeqCst),
            0,
            "damage at byte {at}: a panic reached the panic hook (printed to stderr)"
        );
    }
    assert!(
        refused >= offsets.len() / 4,
        "{refused} refused, {harmless} harmless"
    );
    eprintln!(
        "{} offsets: {refused} refused, {harmless} harmless",
        offsets.len()
    );
}
