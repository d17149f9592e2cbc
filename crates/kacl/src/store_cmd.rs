//! `kacl store verify --data-dir DIR`: checks a server's data directory offline (no server may
//! be running on it): the identity file, every record's checksum and decoding, and the counts.
//! Prints what it found; exits 0 when everything is sound and 1 when anything is wrong, so a
//! backup job or a restore procedure can check a directory before using it.
//!
//! `kacl store copy --from <DIR|etcd> --to <DIR|etcd>`: see [`crate::cli::store_copy`].

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

/// Flags of `kacl store`.
#[derive(Debug, clap::Args)]
pub(crate) struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(Debug, clap::Subcommand)]
enum StoreCommand {
    /// Check a data directory offline: identity, every record's checksum, counts. Exit 0 if
    /// sound, 1 if not.
    Verify {
        /// The server's data directory (`metadata.log.dir`).
        #[arg(long, value_name = "DIR")]
        data_dir: PathBuf,
    },
    /// Copy a store between a data directory and etcd (migration to cluster mode, and back),
    /// offline and idempotently; see docs/operations.md, "Moving between redb and etcd".
    Copy(crate::cli::store_copy::CopyArgs),
}

/// Runs `kacl store ...`.
pub(crate) fn run(args: StoreArgs) -> anyhow::Result<ExitCode> {
    let data_dir = match args.command {
        StoreCommand::Verify { data_dir } => data_dir,
        StoreCommand::Copy(copy) => return crate::cli::store_copy::run(copy),
    };
    let report = kacl_store::verify(&data_dir)
        .with_context(|| format!("cannot check {}", data_dir.display()))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "data directory: {}", report.dir.display())?;
    match &report.identity {
        Some(id) => writeln!(
            out,
            "identity: cluster.id={} node.id={} format={}",
            id.cluster_id,
            id.node_id.map_or_else(|| "-".to_owned(), |n| n.to_string()),
            id.format_version
        )?,
        None => writeln!(out, "identity: none")?,
    }
    if let Some(version) = report.format_version {
        writeln!(out, "store format: {version}")?;
    }
    if let Some(cluster_id) = &report.cluster_id {
        writeln!(out, "store cluster id: {cluster_id}")?;
    }
    for (table, count) in &report.counts {
        writeln!(out, "{table}: {count} records")?;
    }
    if report.is_ok() {
        writeln!(out, "OK")?;
        return Ok(ExitCode::SUCCESS);
    }
    for problem in &report.problems {
        writeln!(out, "PROBLEM: {problem}")?;
    }
    if report.more_problems > 0 {
        writeln!(out, "... and {} more problems", report.more_problems)?;
    }
    writeln!(
        out,
        "DAMAGED: restore this directory from a backup (docs/operations.md, \"Damaged disks \
         and recovery\")"
    )?;
    Ok(ExitCode::FAILURE)
}
