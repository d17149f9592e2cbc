//! SIGKILL durability: a child process commits ACL batches and reports each one as it
//! is acknowledged; it is killed mid-stream. After reopening, every acknowledged batch
//! must be there, and no batch may be half there.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_store::{MetadataStore, RedbStore};

const DIR_VAR: &str = "KACL_STORE_CRASH_TEST_DIR";
const BATCH: usize = 25;

fn batch(index: usize) -> Vec<AclBinding> {
    (0..BATCH)
        .map(|i| {
            AclBinding::new(
                ResourcePattern::new(
                    ResourceType::Topic,
                    format!("b{index}-{i}"),
                    PatternType::Literal,
                ),
                AccessControlEntry::new(
                    "User:crash",
                    "*",
                    AclOperation::Write,
                    AclPermissionType::Allow,
                ),
            )
        })
        .collect()
}

/// The child's side: only does anything when the parent test starts it.
#[test]
fn crash_child_writer() {
    let Some(dir) = std::env::var_os(DIR_VAR) else {
        return;
    };
    let store = RedbStore::open(std::path::Path::new(&dir)).unwrap();
    for index in 0.. {
        store.commit_acl_changes(&batch(index), &[]).unwrap();
        println!("acked {index}");
    }
}

#[test]
fn sigkill_keeps_every_acknowledged_batch_and_no_half_batch() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DIR_VAR, dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut last_acked = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("acked ") {
            last_acked = Some(n.parse::<usize>().unwrap());
            if last_acked >= Some(40) {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    let last_acked = last_acked.expect("the child acknowledged batches");

    let store = RedbStore::open(dir.path()).unwrap();
    let mut per_batch: BTreeMap<usize, usize> = BTreeMap::new();
    for acl in store.load_acls().unwrap() {
        let index: usize = acl
            .pattern
            .name
            .strip_prefix('b')
            .and_then(|rest| rest.split('-').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        *per_batch.entry(index).or_default() += 1;
    }
    for index in 0..=last_acked {
        assert_eq!(
            per_batch.get(&index),
            Some(&BATCH),
            "acknowledged batch {index}"
        );
    }
    for (index, count) in &per_batch {
        assert_eq!(*count, BATCH, "batch {index} is whole");
    }
    // The store takes writes again after recovery.
    let next = per_batch.keys().last().unwrap() + 1;
    assert_eq!(
        store
            .commit_acl_changes(&batch(next), &[])
            .unwrap()
            .added
            .len(),
        BATCH
    );
}
