//! What a run measured, and how it is shown: per operation (DescribeAcls, CreateAcls, ...)
//! the requests, ACLs and errors counted and a latency histogram; printed as text, or as one
//! JSON document for scripts (`--output json`); plus the progress line on a terminal.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

/// Latencies are recorded in nanoseconds, from 1 ns to 10 minutes at 3 significant digits.
const HIGHEST_NS: u64 = 600_000_000_000;

/// The counts and latencies of one kind of request.
#[derive(Debug, Clone)]
pub struct OpStats {
    /// The operation's name (`describeAcls`, `createAcls`, ...).
    pub name: &'static str,
    /// Requests that completed without error.
    pub requests: u64,
    /// ACLs those requests carried (created, deleted or received).
    pub acls: u64,
    /// Requests (or single ACLs within them) that failed.
    pub errors: u64,
    /// The first failure, to show what went wrong.
    pub first_error: Option<String>,
    histogram: Histogram<u64>,
}

impl OpStats {
    /// Empty statistics for `name`.
    pub fn new(name: &'static str) -> anyhow::Result<OpStats> {
        Ok(OpStats {
            name,
            requests: 0,
            acls: 0,
            errors: 0,
            first_error: None,
            histogram: Histogram::new_with_bounds(1, HIGHEST_NS, 3)?,
        })
    }

    /// One successful request that took `latency` and carried `acls` ACLs.
    pub fn record(&mut self, latency: Duration, acls: u64) {
        self.requests += 1;
        self.acls += acls;
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        self.histogram.saturating_record(ns.max(1));
    }

    /// One failure.
    pub fn error(&mut self, error: impl std::fmt::Display) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(error.to_string());
        }
    }

    /// Adds another worker's statistics of the same operation.
    pub fn merge(&mut self, other: &OpStats) {
        self.requests += other.requests;
        self.acls += other.acls;
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
        // Same bounds on both sides, and saturating: cannot fail in practice; a failure
        // would only lose latency samples, never counts.
        let _ = self.histogram.add(&other.histogram);
    }

    /// Latency at quantile `q` in milliseconds.
    fn quantile_ms(&self, q: f64) -> f64 {
        ns_to_ms(self.histogram.value_at_quantile(q))
    }

    /// The latency percentiles recorded so far.
    pub fn latency(&self) -> Latency {
        Latency {
            p50: self.quantile_ms(0.50),
            p99: self.quantile_ms(0.99),
            p999: self.quantile_ms(0.999),
            max: ns_to_ms(self.histogram.max()),
            mean: self.histogram.mean() / 1e6,
        }
    }

    fn summary(&self, elapsed: Duration) -> OpSummary {
        let seconds = elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
        OpSummary {
            name: self.name,
            requests: self.requests,
            requests_per_s: self.requests as f64 / seconds,
            acls: self.acls,
            acls_per_s: self.acls as f64 / seconds,
            errors: self.errors,
            first_error: self.first_error.clone(),
            latency_ms: self.latency(),
        }
    }
}

fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Latency percentiles of one operation, in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Slowest request.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

/// One operation's figures as printed.
#[derive(Debug, Clone, Serialize)]
pub struct OpSummary {
    /// `describeAcls`, `createAcls`, `deleteAcls`, `metadata`, or a phase name.
    pub name: &'static str,
    /// Successful requests.
    pub requests: u64,
    /// Successful requests per second of the measured time.
    pub requests_per_s: f64,
    /// ACLs carried.
    pub acls: u64,
    /// ACLs per second.
    pub acls_per_s: f64,
    /// Failures.
    pub errors: u64,
    /// The first failure's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// Latency percentiles.
    pub latency_ms: Latency,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The workload's name as given on the command line.
    pub workload: &'static str,
    /// Connections that ran it.
    pub connections: usize,
    /// ACLs in the data set the run assumed (or loaded).
    pub data_set_acls: u64,
    /// Measured wall time, seconds.
    pub elapsed_s: f64,
    /// Per operation.
    pub operations: Vec<OpSummary>,
}

impl Report {
    /// Builds the report from merged statistics.
    pub fn new(
        workload: &'static str,
        connections: usize,
        data_set_acls: u64,
        elapsed: Duration,
        ops: &[OpStats],
    ) -> Report {
        Report {
            workload,
            connections,
            data_set_acls,
            elapsed_s: elapsed.as_secs_f64(),
            operations: ops.iter().map(|op| op.summary(elapsed)).collect(),
        }
    }

    /// Whether any request failed.
    pub fn has_errors(&self) -> bool {
        self.operations.iter().any(|op| op.errors > 0)
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        let mut out = format!(
            "workload {}: {} connection(s), {:.2} s, data set {} ACLs\n",
            self.workload, self.connections, self.elapsed_s, self.data_set_acls
        );
        for op in &self.operations {
            out.push_str(&format!(
                "  {:<14} {:>10} requests {:>12.1} requests/s {:>12} ACLs {:>14.1} ACLs/s  errors {}\n",
                op.name, op.requests, op.requests_per_s, op.acls, op.acls_per_s, op.errors
            ));
            let l = &op.latency_ms;
            out.push_str(&format!(
                "  {:<14} latency ms: p50 {:.3}  p99 {:.3}  p999 {:.3}  max {:.3}  mean {:.3}\n",
                "", l.p50, l.p99, l.p999, l.max, l.mean
            ));
            if let Some(error) = &op.first_error {
                out.push_str(&format!("  {:<14} first error: {error}\n", ""));
            }
        }
        out
    }
}

/// Counters the workers bump as they go, read by the progress line.
#[derive(Debug, Default)]
pub struct Progress {
    /// Requests completed.
    pub requests: AtomicU64,
    /// ACLs carried.
    pub acls: AtomicU64,
}

impl Progress {
    /// Counts one request carrying `acls` ACLs.
    pub fn add(&self, acls: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.acls.fetch_add(acls, Ordering::Relaxed);
    }
}

/// Prints `elapsed, requests, rate` once a second on stderr while `progress` runs, if stderr
/// is a terminal; the returned guard clears the line when dropped.
pub fn spawn_progress_line(progress: Arc<Progress>, total_acls: Option<u64>) -> ProgressLine {
    spawn_progress_line_of(progress, total_acls, "ACLs")
}

/// [`spawn_progress_line`] counting `unit` (ACLs, records) instead of ACLs.
pub fn spawn_progress_line_of(
    progress: Arc<Progress>,
    total: Option<u64>,
    unit: &'static str,
) -> ProgressLine {
    let total_acls = total;
    if !std::io::stderr().is_terminal() {
        return ProgressLine { task: None };
    }
    let task = tokio::spawn(async move {
        let start = Instant::now();
        let mut last = (0u64, 0u64);
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        ticker.tick().await;
        loop {
            ticker.tick().await;
            let now = (
                progress.requests.load(Ordering::Relaxed),
                progress.acls.load(Ordering::Relaxed),
            );
            let of_total = match total_acls {
                Some(total) if total > 0 => {
                    format!(" ({:.1}%)", now.1 as f64 * 100.0 / total as f64)
                }
                _ => String::new(),
            };
            let line = format!(
                "\r{:>6.0} s  {} requests  {} {unit}{}  last second: {} requests/s, {} {unit}/s   ",
                start.elapsed().as_secs_f64(),
                now.0,
                now.1,
                of_total,
                now.0 - last.0,
                now.1 - last.1
            );
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(line.as_bytes());
            let _ = stderr.flush();
            last = now;
        }
    });
    ProgressLine { task: Some(task) }
}

/// Stops the progress line (and wipes it) when dropped.
#[derive(Debug)]
pub struct ProgressLine {
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(b"\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_counts_and_samples() -> anyhow::Result<()> {
        let mut a = OpStats::new("describeAcls")?;
        let mut b = OpStats::new("describeAcls")?;
        for ms in 1..=99 {
            a.record(Duration::from_millis(ms), 10);
        }
        b.record(Duration::from_millis(1000), 10);
        b.error("NETWORK_EXCEPTION: gone");
        a.merge(&b);
        assert_eq!(a.requests, 100);
        assert_eq!(a.acls, 1000);
        assert_eq!(a.errors, 1);
        assert_eq!(a.first_error.as_deref(), Some("NETWORK_EXCEPTION: gone"));
        let summary = a.summary(Duration::from_secs(2));
        assert_eq!(summary.requests_per_s, 50.0);
        assert_eq!(summary.acls_per_s, 500.0);
        assert!(
            (49.9..50.1).contains(&summary.latency_ms.p50),
            "{summary:?}"
        );
        assert!(
            (999.0..1001.0).contains(&summary.latency_ms.max),
            "{summary:?}"
        );
        Ok(())
    }

    #[test]
    fn json_names_every_figure() -> anyhow::Result<()> {
        let mut op = OpStats::new("metadata")?;
        op.record(Duration::from_micros(250), 0);
        let report = Report::new("metadata", 4, 0, Duration::from_secs(1), &[op]);
        let json = serde_json::to_value(&report)?;
        assert_eq!(json["workload"], "metadata");
        assert_eq!(json["connections"], 4);
        assert_eq!(json["operations"][0]["requests"], 1);
        assert!(json["operations"][0]["latency_ms"]["p999"]
            .as_f64()
            .is_some());
        assert!(json["operations"][0].get("first_error").is_none());
        assert!(report.text().contains("p99"));
        Ok(())
    }
}
