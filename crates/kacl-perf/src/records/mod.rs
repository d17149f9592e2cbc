//! `kacl perf records`: the data path of any Kafka bootstrap server (Apache Kafka, Tansu, a
//! kacl gateway) measured with kacl's own client stack: `produce` writes RecordBatch v2
//! batches it encodes itself ([`batch`]), `consume` fetches them back and counts records from
//! the batch headers. Both find each partition's leader through Metadata and talk to the
//! leader's advertised address, over connections opened by `kacl_client::net::open` (so
//! TLS and SASL come from the usual `--command-config` properties).
//!
//! - [`batch`]: the RecordBatch v2 encoder and the header walker;
//! - [`cluster`]: Metadata, topic creation, the leaders;
//! - [`produce`], [`consume`]: the workloads;
//! - [`report`]: figures, text and JSON.

pub mod batch;
pub mod cluster;
pub mod consume;
pub mod produce;
pub mod report;

use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use kacl_client::AdminConfig;

use crate::args::{RecordsPerfArgs, RecordsWorkload};
pub use report::RecordsReport;

/// Runs `kacl perf records` against the cluster `config` names, on a runtime of its own
/// (`--threads`), and returns the figures.
pub fn run_records(args: &RecordsPerfArgs, config: AdminConfig) -> anyhow::Result<RecordsReport> {
    check(args)?;
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads.max(1));
    }
    let runtime = runtime
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(run(args, config))
}

/// Runs the workload on the current runtime (the integration tests' entry).
pub async fn run(args: &RecordsPerfArgs, config: AdminConfig) -> anyhow::Result<RecordsReport> {
    check(args)?;
    match args.workload {
        RecordsWorkload::Produce => produce::run(args, &config).await,
        RecordsWorkload::Consume => consume::run(args, &config).await,
    }
}

fn check(args: &RecordsPerfArgs) -> anyhow::Result<()> {
    if args.connections == 0 {
        anyhow::bail!("--connections must be at least 1");
    }
    if args.in_flight == 0 {
        anyhow::bail!("--in-flight must be at least 1");
    }
    if args.batch_records == 0 || i32::try_from(args.batch_records).is_err() {
        anyhow::bail!("--batch-records must be between 1 and {}", i32::MAX);
    }
    if args.partitions < 1 {
        anyhow::bail!("--partitions must be at least 1");
    }
    if !matches!(args.acks, -1..=1) {
        anyhow::bail!("--acks must be -1 (all), 0 or 1");
    }
    if let Some(rate) = args.rate {
        if !(rate.is_finite() && rate > 0.0) {
            anyhow::bail!("--rate must be a positive number of requests per second");
        }
    }
    if args.count == Some(0) {
        anyhow::bail!("--count must be at least 1");
    }
    Ok(())
}

/// The records still to go under `--count`, shared by every worker.
#[derive(Debug)]
pub struct Budget {
    limit: Option<u64>,
    taken: AtomicU64,
}

impl Budget {
    /// At most `limit` records in all (`None`: no limit).
    pub fn new(limit: Option<u64>) -> Budget {
        Budget {
            limit,
            taken: AtomicU64::new(0),
        }
    }

    /// Claims up to `want` records; returns how many were granted (0: the budget is spent).
    pub fn claim(&self, want: u64) -> u64 {
        let Some(limit) = self.limit else {
            self.taken.fetch_add(want, Ordering::Relaxed);
            return want;
        };
        let before = self.taken.fetch_add(want, Ordering::Relaxed);
        want.min(limit.saturating_sub(before))
    }

    /// Counts `records` that arrived without a claim (consume); true once the limit is met.
    pub fn add(&self, records: u64) -> bool {
        let after = self.taken.fetch_add(records, Ordering::Relaxed) + records;
        self.limit.is_some_and(|limit| after >= limit)
    }

    /// Whether the limit has been met.
    pub fn spent(&self) -> bool {
        self.limit
            .is_some_and(|limit| self.taken.load(Ordering::Relaxed) >= limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_grants_exactly_the_limit() {
        let budget = Budget::new(Some(40));
        assert_eq!(budget.claim(16), 16);
        assert_eq!(budget.claim(16), 16);
        assert_eq!(budget.claim(16), 8);
        assert_eq!(budget.claim(16), 0);
        assert!(budget.spent());
        let unlimited = Budget::new(None);
        assert_eq!(unlimited.claim(16), 16);
        assert!(!unlimited.spent());
        let consumed = Budget::new(Some(20));
        assert!(!consumed.add(16));
        assert!(consumed.add(16));
    }
}
