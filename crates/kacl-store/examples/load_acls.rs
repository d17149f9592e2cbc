//! Measures how long a server start takes to load its ACLs from the redb store.
//!
//! `cargo run --release -p kacl-store --example load_acls -- [COUNT] [--crash]`
//!
//! Writes COUNT (default 1,000,000) distinct ACLs in batches of 100,000, closes the
//! store, then times `RedbStore::open` and `load_acls`. With `--crash` the writer is a
//! child process that exits without closing the store, as a SIGKILL would leave it, so
//! the open includes redb's crash recovery.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_store::{MetadataStore, RedbStore};

const BATCH: usize = 100_000;

fn binding(i: usize) -> AclBinding {
    let pattern = if i % 4 == 0 {
        PatternType::Prefixed
    } else {
        PatternType::Literal
    };
    let operation = [
        AclOperation::Read,
        AclOperation::Write,
        AclOperation::Describe,
    ][i % 3];
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::Topic,
            format!("team-{}.events.v{}", i / 3, i % 7),
            pattern,
        ),
        AccessControlEntry::new(
            format!("User:service-account-{}", i % 5000),
            "*",
            operation,
            AclPermissionType::Allow,
        ),
    )
}

/// Writes the ACLs and returns the still-open store.
fn write(dir: &Path, count: usize) -> Result<RedbStore, Box<dyn std::error::Error>> {
    let store = RedbStore::open(dir)?;
    let started = Instant::now();
    let mut start = 0;
    while start < count {
        let end = (start + BATCH).min(count);
        let batch: Vec<AclBinding> = (start..end).map(binding).collect();
        store.commit_acl_changes(&batch, &[])?;
        start = end;
    }
    eprintln!("wrote {count} ACLs in {:.2?}", started.elapsed());
    Ok(store)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, dir, count] = args.as_slice() {
        if flag == "--child-write" {
            let _open_store = write(Path::new(dir), count.parse()?)?;
            // Leave without closing the database (no destructors run), as a killed server
            // would.
            std::process::exit(0);
        }
    }
    let crash = args.iter().any(|a| a == "--crash");
    let count: usize = match args.iter().find(|a| !a.starts_with("--")) {
        Some(n) => n.parse()?,
        None => 1_000_000,
    };

    let dir = tempfile::tempdir()?;
    if crash {
        let status = Command::new(std::env::current_exe()?)
            .args([
                "--child-write",
                &dir.path().display().to_string(),
                &count.to_string(),
            ])
            .status()?;
        if !status.success() {
            return Err(format!("writer failed: {status}").into());
        }
    } else {
        drop(write(dir.path(), count)?);
    }
    let file_len = std::fs::metadata(dir.path().join(kacl_store::DB_FILE_NAME))?.len();

    let started = Instant::now();
    let store = RedbStore::open(dir.path())?;
    let opened = started.elapsed();
    let started = Instant::now();
    let acls = store.load_acls()?;
    let loaded = started.elapsed();
    assert_eq!(acls.len(), count);
    println!(
        "{count} ACLs ({} MiB file){}: open {opened:.2?}, load_acls {loaded:.2?} ({:.0} ns/ACL)",
        file_len / (1 << 20),
        if crash { " after a crash" } else { "" },
        loaded.as_nanos() as f64 / count as f64
    );
    Ok(())
}
