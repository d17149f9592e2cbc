//! `kacl store verify`: an offline check of a data directory, without changing it. Reads the
//! identity file and every record of every table, checking each checksum and decoding each
//! record the way a start would, and reports counts and every problem with what it affects.

use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::identity::{self, Identity};
use crate::kv::{KvGet, KvScan, Table};
use crate::ops;

/// At most this many problems are listed; the count of the rest is kept.
const MAX_LISTED: usize = 100;

/// What a check of a data directory found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// The data directory.
    pub dir: PathBuf,
    /// Its `meta.properties`, if any.
    pub identity: Option<Identity>,
    /// The cluster id in the store's meta table, if readable.
    pub cluster_id: Option<String>,
    /// The store's format version, if readable.
    pub format_version: Option<u32>,
    /// Records per table that decoded and whose checksum matched.
    pub counts: Vec<(&'static str, u64)>,
    /// Each problem, with the table and key (or file) it affects.
    pub problems: Vec<String>,
    /// Problems beyond those listed.
    pub more_problems: usize,
}

impl VerifyReport {
    /// True if nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    fn problem(&mut self, text: String) {
        if self.problems.len() < MAX_LISTED {
            self.problems.push(text);
        } else {
            self.more_problems += 1;
        }
    }
}

/// Checks the data directory `dir` offline (no server may hold it: its lock is taken).
/// Errors only when the check cannot run at all (the directory is locked or unreadable);
/// everything wrong with the data is in the report.
pub fn verify(dir: &Path) -> Result<VerifyReport, StoreError> {
    let mut report = VerifyReport {
        dir: dir.to_path_buf(),
        ..VerifyReport::default()
    };
    if !dir.is_dir() {
        report.problem(format!("{} is not a directory", dir.display()));
        return Ok(report);
    }
    let _lock = crate::redb_store::lock_dir(dir)?;
    match identity::read(dir) {
        Ok(Some(found)) => report.identity = Some(found),
        Ok(None) => report.problem(format!(
            "{} is missing (a store from before kacl kept it gets one at its next start)",
            identity::identity_path(dir).display()
        )),
        Err(e) => report.problem(e.to_string()),
    }
    let db_path = dir.join(crate::DB_FILE_NAME);
    match std::fs::metadata(&db_path) {
        Ok(m) if m.len() > 0 => {}
        Ok(_) => {
            report.problem(format!("{} is empty (0 bytes)", db_path.display()));
            return Ok(report);
        }
        Err(e) => {
            report.problem(format!("{}: {e}", db_path.display()));
            return Ok(report);
        }
    }
    if let Err(e) = crate::redb_store::read_offline(&db_path, &mut |t| {
        check_tables(t, &mut report);
        Ok(())
    }) {
        report.problem(e.to_string());
    }
    if let (Some(id), Some(cluster_id)) = (&report.identity, &report.cluster_id) {
        if &id.cluster_id != cluster_id {
            let text = format!(
                "{} names cluster {} but the store holds cluster {cluster_id}",
                identity::IDENTITY_FILE_NAME,
                id.cluster_id
            );
            report.problem(text);
        }
    }
    Ok(report)
}

fn check_tables<T: KvGet + KvScan>(t: &T, report: &mut VerifyReport) {
    match ops::read_meta(t) {
        Ok((format_version, cluster_id)) => {
            report.format_version = Some(format_version);
            report.cluster_id = cluster_id;
        }
        Err(e) => {
            report.problem(e.to_string());
            return;
        }
    }
    let sealed = report.format_version == Some(ops::FORMAT_VERSION);
    for table in Table::ALL {
        let mut good = 0u64;
        let mut seen = 0u64;
        let scanned = t.scan(table, &mut |key, value| {
            seen += 1;
            match ops::check_record(table, key, value, sealed) {
                Ok(()) => good += 1,
                Err(e) => report.problem(e.to_string()),
            }
            Ok(())
        });
        if let Err(e) = scanned {
            report.problem(format!("table `{}`: {e}", table.name()));
        }
        match t.len(table) {
            Ok(len) if len != seen => report.problem(format!(
                "table `{}` says it holds {len} records but {seen} could be read",
                table.name()
            )),
            Ok(_) => {}
            Err(e) => report.problem(format!("table `{}`: {e}", table.name())),
        }
        report.counts.push((table.name(), good));
    }
}
