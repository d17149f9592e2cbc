//! What a records run measured: records, record-batch bytes and requests, their rates, the
//! request latency percentiles, and every non-zero error code seen, by Kafka's name; as text
//! or as one JSON document.

use std::collections::BTreeMap;
use std::time::Duration;

use kacl_protocol::ErrorCode;
use serde::Serialize;

use crate::report::{Latency, OpStats};

/// Kafka's perf tools' megabyte: 2^20 bytes.
const MB: f64 = 1024.0 * 1024.0;

/// What one worker counted.
#[derive(Debug, Clone)]
pub struct Tally {
    /// Requests answered without any error, their latency, the records they carried (as
    /// `acls`).
    pub ops: OpStats,
    /// Record-batch bytes of those records.
    pub bytes: u64,
    /// Error codes seen (top-level or per partition), by name.
    pub error_codes: BTreeMap<&'static str, u64>,
    /// Requests that failed without an answer (connection lost, timeout), by message.
    pub failures: u64,
    /// The first failure's text.
    pub first_failure: Option<String>,
}

impl Tally {
    /// An empty tally for `op` (`produce`, `fetch`).
    pub fn new(op: &'static str) -> anyhow::Result<Tally> {
        Ok(Tally {
            ops: OpStats::new(op)?,
            bytes: 0,
            error_codes: BTreeMap::new(),
            failures: 0,
            first_failure: None,
        })
    }

    /// A non-zero error code in an answer.
    pub fn code(&mut self, code: i16) {
        let name = match ErrorCode::from_code(code) {
            ErrorCode::Other(_) => "UNKNOWN_ERROR_CODE",
            known => known.name(),
        };
        *self.error_codes.entry(name).or_default() += 1;
    }

    /// A request that got no answer.
    pub fn failure(&mut self, error: impl std::fmt::Display) {
        self.failures += 1;
        if self.first_failure.is_none() {
            self.first_failure = Some(error.to_string());
        }
    }

    /// Adds another worker's tally.
    pub fn merge(&mut self, other: &Tally) {
        self.ops.merge(&other.ops);
        self.bytes += other.bytes;
        for (name, count) in &other.error_codes {
            *self.error_codes.entry(name).or_default() += count;
        }
        self.failures += other.failures;
        if self.first_failure.is_none() {
            self.first_failure.clone_from(&other.first_failure);
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// `--count` records were reached.
    Count,
    /// `--duration` ran out first.
    Duration,
    /// Every worker gave up (connections lost, every partition failing).
    Failures,
}

/// The setting of a run, as reported beside the figures.
#[derive(Debug, Clone, Serialize)]
pub struct Setting {
    /// The topic.
    pub topic: String,
    /// Its partitions.
    pub partitions: usize,
    /// Distinct leaders the partitions are spread over.
    pub leaders: usize,
    /// Connections opened in all.
    pub connections: usize,
    /// Requests outstanding per connection.
    pub in_flight: usize,
    /// The Produce or Fetch version spoken (the highest both sides know, of the first leader).
    pub api_version: i16,
    /// `produce`: value bytes per record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_size: Option<usize>,
    /// `produce`: records per batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_records: Option<u32>,
    /// `produce`: acks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acks: Option<i16>,
    /// `produce`: the requested pace, requests/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

/// A whole records run.
#[derive(Debug, Clone, Serialize)]
pub struct RecordsReport {
    /// `produce` or `consume`.
    pub workload: &'static str,
    /// What ran.
    #[serde(flatten)]
    pub setting: Setting,
    /// Wall time from the first request to the last answer, seconds.
    pub elapsed_s: f64,
    /// How it ended.
    pub stopped_by: Stopped,
    /// Requests answered without error.
    pub requests: u64,
    /// Requests per second.
    pub requests_per_s: f64,
    /// Records produced (acknowledged without error; with acks=0: sent) or consumed.
    pub records: u64,
    /// Records per second.
    pub records_per_s: f64,
    /// Record-batch bytes of those records (what the log stores, framing aside).
    pub bytes: u64,
    /// Record-batch MB (2^20 bytes) per second.
    pub mb_per_s: f64,
    /// `produce`: record value bytes per second, in MB (Kafka's producer-perf-test figure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_mb_per_s: Option<f64>,
    /// Request latency (Produce: sent, or scheduled with --rate, to answered; Fetch: sent to
    /// answered, including the broker's wait for data). All zero with acks 0.
    pub latency_ms: Latency,
    /// Every non-zero error code seen, by name, with how often.
    pub error_codes: BTreeMap<&'static str, u64>,
    /// Requests that got no answer.
    pub failures: u64,
    /// The first of those failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<String>,
    /// `consume`: the sum over partitions of the last high watermark seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high_watermarks: Option<i64>,
}

impl RecordsReport {
    /// Builds the report from the merged tally.
    pub fn new(
        workload: &'static str,
        setting: Setting,
        elapsed: Duration,
        stopped_by: Stopped,
        tally: &Tally,
    ) -> RecordsReport {
        let seconds = elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
        let records = tally.ops.acls;
        let payload_mb_per_s = setting
            .record_size
            .map(|size| records as f64 * size as f64 / MB / seconds);
        RecordsReport {
            workload,
            setting,
            elapsed_s: elapsed.as_secs_f64(),
            stopped_by,
            requests: tally.ops.requests,
            requests_per_s: tally.ops.requests as f64 / seconds,
            records,
            records_per_s: records as f64 / seconds,
            bytes: tally.bytes,
            mb_per_s: tally.bytes as f64 / MB / seconds,
            payload_mb_per_s,
            latency_ms: tally.ops.latency(),
            error_codes: tally.error_codes.clone(),
            failures: tally.failures,
            first_failure: tally.first_failure.clone(),
            high_watermarks: None,
        }
    }

    /// Whether any error code or failure was seen.
    pub fn has_errors(&self) -> bool {
        self.failures > 0 || !self.error_codes.is_empty()
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        let s = &self.setting;
        let mut out = format!(
            "workload {}: topic {} ({} partition(s), {} leader(s)), {} connection(s) x {} in flight, {} v{}, {:.2} s, stopped by {}\n",
            self.workload,
            s.topic,
            s.partitions,
            s.leaders,
            s.connections,
            s.in_flight,
            if self.workload == "produce" { "Produce" } else { "Fetch" },
            s.api_version,
            self.elapsed_s,
            match self.stopped_by {
                Stopped::Count => "count",
                Stopped::Duration => "duration",
                Stopped::Failures => "failures",
            }
        );
        if let (Some(size), Some(batch), Some(acks)) = (s.record_size, s.batch_records, s.acks) {
            out.push_str(&format!(
                "  records of {size} bytes, {batch} per batch, acks {acks}{}\n",
                s.rate
                    .map(|r| format!(", paced at {r} requests/s"))
                    .unwrap_or_default()
            ));
        }
        out.push_str(&format!(
            "  {} records  {:.1} records/s  {:.2} MB/s",
            self.records, self.records_per_s, self.mb_per_s
        ));
        if let Some(payload) = self.payload_mb_per_s {
            out.push_str(&format!(" ({payload:.2} MB/s of values)"));
        }
        out.push_str(&format!(
            "  {} requests  {:.1} requests/s\n",
            self.requests, self.requests_per_s
        ));
        let l = &self.latency_ms;
        if s.acks == Some(0) {
            out.push_str("  latency: none (acks 0: the broker answers nothing)\n");
        } else {
            out.push_str(&format!(
                "  latency ms: p50 {:.3}  p99 {:.3}  p999 {:.3}  max {:.3}  mean {:.3}\n",
                l.p50, l.p99, l.p999, l.max, l.mean
            ));
        }
        if let Some(total) = self.high_watermarks {
            out.push_str(&format!("  high watermarks (sum): {total}\n"));
        }
        if self.error_codes.is_empty() {
            out.push_str("  error codes: none\n");
        } else {
            let codes: Vec<String> = self
                .error_codes
                .iter()
                .map(|(name, count)| format!("{name} x{count}"))
                .collect();
            out.push_str(&format!("  error codes: {}\n", codes.join(", ")));
        }
        if self.failures > 0 {
            out.push_str(&format!(
                "  failed requests: {} (first: {})\n",
                self.failures,
                self.first_failure.as_deref().unwrap_or("?")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_text_and_json() -> anyhow::Result<()> {
        let mut a = Tally::new("produce")?;
        a.ops.record(Duration::from_millis(2), 16);
        a.bytes = 16 * 1024;
        a.code(6);
        let mut b = Tally::new("produce")?;
        b.ops.record(Duration::from_millis(4), 16);
        b.bytes = 16 * 1024;
        b.code(6);
        b.code(-1);
        b.code(9999);
        b.failure("NETWORK_EXCEPTION: gone");
        a.merge(&b);
        let setting = Setting {
            topic: "t".into(),
            partitions: 2,
            leaders: 1,
            connections: 1,
            in_flight: 5,
            api_version: 9,
            record_size: Some(1024),
            batch_records: Some(16),
            acks: Some(-1),
            rate: None,
        };
        let report = RecordsReport::new(
            "produce",
            setting,
            Duration::from_secs(2),
            Stopped::Count,
            &a,
        );
        assert_eq!(report.records, 32);
        assert_eq!(report.records_per_s, 16.0);
        assert_eq!(report.mb_per_s, 32.0 * 1024.0 / MB / 2.0);
        assert!(report.has_errors());
        let json = serde_json::to_value(&report)?;
        assert_eq!(json["workload"], "produce");
        assert_eq!(json["topic"], "t");
        assert_eq!(json["stopped_by"], "count");
        assert_eq!(json["error_codes"]["NOT_LEADER_OR_FOLLOWER"], 2);
        assert_eq!(json["error_codes"]["UNKNOWN_SERVER_ERROR"], 1);
        assert_eq!(json["error_codes"]["UNKNOWN_ERROR_CODE"], 1);
        assert_eq!(json["failures"], 1);
        assert!(json["latency_ms"]["p999"].as_f64().is_some());
        assert!(json.get("high_watermarks").is_none());
        let text = report.text();
        assert!(text.contains("NOT_LEADER_OR_FOLLOWER x2"), "{text}");
        assert!(text.contains("records/s"), "{text}");
        Ok(())
    }
}
