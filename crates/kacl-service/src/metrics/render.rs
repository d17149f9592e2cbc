//! Prometheus' text exposition format (version 0.0.4) for [`Metrics`]: `# HELP` and `# TYPE`
//! lines, then one sample per line. Series that never moved are left out, except the plain
//! counters and gauges, which are always present (the `queued.max.request.bytes` pool's ones
//! whenever the pool is set).

use std::fmt::Write;
use std::sync::atomic::Ordering::Relaxed;

use kacl_protocol::{ApiKey, ErrorCode};

use super::histogram::{HistogramSnapshot, BUCKET_BOUNDS_SECONDS};
use super::{slot_code, Metrics, StoreOperation};

/// The values a scrape reads from the server state rather than from counters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gauges {
    /// ACLs in the index.
    pub acls: usize,
    /// Topics in the registry.
    pub topics: usize,
    /// The shared store's feed (etcd), if there is one.
    pub feed: Option<kacl_store::FeedStats>,
}

impl Metrics {
    /// The whole exposition, with the gauges read from the server state.
    pub fn render(&self, gauges: Gauges) -> String {
        let mut out = String::with_capacity(8192);
        // Writing to a String cannot fail.
        let _ = self.write_all(&mut out, gauges);
        out
    }

    fn write_all(&self, out: &mut String, gauges: Gauges) -> std::fmt::Result {
        header(
            out,
            "kacl_requests_total",
            "counter",
            "Requests answered, by API and version.",
        )?;
        for (api, versions) in ApiKey::KNOWN.iter().zip(&self.requests) {
            for (version, counter) in versions.iter().enumerate() {
                let n = counter.load(Relaxed);
                if n > 0 {
                    writeln!(
                        out,
                        "kacl_requests_total{{api=\"{api}\",version=\"{version}\"}} {n}"
                    )?;
                }
            }
        }
        header(
            out,
            "kacl_request_errors_total",
            "counter",
            "Error codes in responses, by API and code: top-level codes, and per-entry codes \
             for APIs that answer per entry (ACL, topic and SCRAM writes).",
        )?;
        for (api, codes) in ApiKey::KNOWN.iter().zip(&self.errors) {
            for (slot, counter) in codes.iter().enumerate() {
                let n = counter.load(Relaxed);
                if n == 0 {
                    continue;
                }
                let (code, name) = match slot_code(slot) {
                    Some(code) => (code.to_string(), ErrorCode::from_code(code).name()),
                    None => ("other".to_owned(), "UNKNOWN_ERROR_CODE"),
                };
                writeln!(
                    out,
                    "kacl_request_errors_total{{api=\"{api}\",code=\"{code}\",error=\"{name}\"}} {n}"
                )?;
            }
        }
        header(
            out,
            "kacl_request_duration_seconds",
            "histogram",
            "Time from reading a request to the last byte of its answer written, by API.",
        )?;
        for (api, histogram) in ApiKey::KNOWN.iter().zip(&self.latency) {
            if histogram.count() > 0 {
                let label = format!("api=\"{api}\"");
                write_histogram(
                    out,
                    "kacl_request_duration_seconds",
                    &label,
                    &histogram.snapshot(),
                )?;
            }
        }
        counter(
            out,
            "kacl_requests_rejected_total",
            "Request frames closed before a handler: unreadable header, unknown API key or \
             unsupported version.",
            self.rejected_requests.load(Relaxed),
        )?;
        gauge(
            out,
            "kacl_connections_open",
            "Client connections open now.",
            self.open_connections.load(Relaxed),
        )?;
        counter(
            out,
            "kacl_connections_accepted_total",
            "Client connections accepted.",
            self.accepted_connections.load(Relaxed),
        )?;
        counter(
            out,
            "kacl_connections_refused_total",
            "Connections closed on accept for max.connections or max.connections.per.ip.",
            self.refused_connections.load(Relaxed),
        )?;
        counter(
            out,
            "kacl_gateway_spliced_bytes_total",
            "Bytes of Fetch answers a gateway relayed from the upstream's socket into a client's \
             through a kernel pipe (splice), never copied through its memory.",
            self.spliced_bytes.load(Relaxed),
        )?;
        counter(
            out,
            "kacl_gateway_cut_through_bytes_total",
            "Bytes of Produce requests a gateway relayed from the client's socket into the \
             upstream's as they arrived (cut-through, splice), never read into its memory.",
            self.cut_through_bytes.load(Relaxed),
        )?;
        counter(
            out,
            "kacl_connections_expired_total",
            "Connections closed because their SASL session outlived connections.max.reauth.ms \
             without re-authentication.",
            self.expired_connections.load(Relaxed),
        )?;
        counter(
            out,
            "kacl_reauthentications_total",
            "SASL sessions renewed by re-authentication on their connection (KIP-368).",
            self.reauthentications.load(Relaxed),
        )?;
        if let Some(pool) = self.request_memory.get() {
            gauge(
                out,
                "kacl_request_memory_used_bytes",
                "Request bytes held now against queued.max.request.bytes (Kafka's \
                 MemoryPoolUsed).",
                pool.used(),
            )?;
            gauge(
                out,
                "kacl_request_memory_available_bytes",
                "Request bytes left in queued.max.request.bytes; below zero while one frame \
                 overdraws it (Kafka's MemoryPoolAvailable).",
                pool.available(),
            )?;
            counter(
                out,
                "kacl_request_memory_waits_total",
                "Request frames whose connection stopped reading until memory was returned.",
                pool.waits(),
            )?;
        }
        counter(
            out,
            "kacl_authentication_failures_total",
            "Failed SASL authentications (wrong credentials, unsupported mechanism).",
            self.authentication_failures.load(Relaxed),
        )?;
        header(
            out,
            "kacl_authorizer_decisions_total",
            "counter",
            "Audited authorizer decisions, by result.",
        )?;
        writeln!(
            out,
            "kacl_authorizer_decisions_total{{result=\"allowed\"}} {}",
            self.authorizer_allowed.load(Relaxed)
        )?;
        writeln!(
            out,
            "kacl_authorizer_decisions_total{{result=\"denied\"}} {}",
            self.authorizer_denied.load(Relaxed)
        )?;
        gauge(out, "kacl_acls", "ACLs held.", gauges.acls as i64)?;
        gauge(out, "kacl_topics", "Topics held.", gauges.topics as i64)?;
        header(
            out,
            "kacl_store_commit_duration_seconds",
            "histogram",
            "Durable store writes (fsync included), by operation.",
        )?;
        for (operation, histogram) in StoreOperation::ALL.iter().zip(&self.store_commits) {
            if histogram.count() > 0 {
                let label = format!("operation=\"{}\"", operation.label());
                write_histogram(
                    out,
                    "kacl_store_commit_duration_seconds",
                    &label,
                    &histogram.snapshot(),
                )?;
            }
        }
        header(
            out,
            "kacl_store_commit_failures_total",
            "counter",
            "Store writes that failed for a storage reason (disk full, read-only, I/O error).",
        )?;
        for (operation, counter) in StoreOperation::ALL.iter().zip(&self.store_failures) {
            writeln!(
                out,
                "kacl_store_commit_failures_total{{operation=\"{}\"}} {}",
                operation.label(),
                counter.load(Relaxed)
            )?;
        }
        if let Some(feed) = gauges.feed {
            write_feed(out, &feed)?;
        }
        Ok(())
    }
}

/// Cluster mode: how far this node's in-memory state is behind etcd, and etcd's health.
fn write_feed(out: &mut String, feed: &kacl_store::FeedStats) -> std::fmt::Result {
    gauge(
        out,
        "kacl_etcd_applied_revision",
        "The etcd revision whose changes are all in memory.",
        feed.applied_revision,
    )?;
    gauge(
        out,
        "kacl_etcd_lag_revisions",
        "Revisions etcd is known to be ahead of memory.",
        feed.lag_revisions,
    )?;
    header(
        out,
        "kacl_etcd_lag_seconds",
        "gauge",
        "Seconds memory has been behind the newest etcd revision seen.",
    )?;
    writeln!(
        out,
        "kacl_etcd_lag_seconds {:.3}",
        feed.lag_millis as f64 / 1e3
    )?;
    counter(
        out,
        "kacl_etcd_watch_restarts_total",
        "Times the etcd watch was re-opened after it failed (errors, disconnects).",
        feed.watch_restarts,
    )?;
    counter(
        out,
        "kacl_etcd_watch_idle_reopens_total",
        "Times an idle etcd watch (nothing for 5 s) was re-opened to check its connection.",
        feed.watch_idle_reopens,
    )?;
    counter(
        out,
        "kacl_etcd_relists_total",
        "Times the state was re-listed after an etcd compaction.",
        feed.relists,
    )?;
    counter(
        out,
        "kacl_etcd_requests_total",
        "Requests to etcd.",
        feed.requests,
    )?;
    counter(
        out,
        "kacl_etcd_request_errors_total",
        "Requests to etcd that failed.",
        feed.request_errors,
    )?;
    header(
        out,
        "kacl_etcd_request_seconds_total",
        "counter",
        "Time spent in requests to etcd (over kacl_etcd_requests_total: the mean latency).",
    )?;
    writeln!(
        out,
        "kacl_etcd_request_seconds_total {:.6}",
        feed.request_micros as f64 / 1e6
    )
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) -> std::fmt::Result {
    writeln!(out, "# HELP {name} {help}")?;
    writeln!(out, "# TYPE {name} {kind}")
}

fn counter(out: &mut String, name: &str, help: &str, value: u64) -> std::fmt::Result {
    header(out, name, "counter", help)?;
    writeln!(out, "{name} {value}")
}

fn gauge(out: &mut String, name: &str, help: &str, value: i64) -> std::fmt::Result {
    header(out, name, "gauge", help)?;
    writeln!(out, "{name} {value}")
}

fn write_histogram(
    out: &mut String,
    name: &str,
    labels: &str,
    h: &HistogramSnapshot,
) -> std::fmt::Result {
    for (bound, count) in BUCKET_BOUNDS_SECONDS.iter().zip(h.cumulative) {
        writeln!(out, "{name}_bucket{{{labels},le=\"{bound}\"}} {count}")?;
    }
    writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {}", h.count)?;
    writeln!(out, "{name}_sum{{{labels}}} {}", h.sum_nanos as f64 / 1e9)?;
    writeln!(out, "{name}_count{{{labels}}} {}", h.count)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use kacl_acl::AuthorizationResult;
    use kacl_protocol::messages::create_acls::{AclCreationResult, CreateAclsResponse};

    use super::*;

    #[test]
    fn a_scrape_shows_what_was_recorded() {
        let metrics = Metrics::new();
        let mut frame = Vec::new();
        frame.extend_from_slice(&30i16.to_be_bytes());
        frame.extend_from_slice(&2i16.to_be_bytes());
        frame.extend_from_slice(&1i32.to_be_bytes());
        metrics.request_took(
            kacl_protocol::header::RequestPrefix::peek(&frame)
                .ok()
                .as_ref(),
            Duration::from_millis(2),
        );
        let response = CreateAclsResponse {
            results: vec![
                AclCreationResult {
                    error_code: 56,
                    ..Default::default()
                },
                AclCreationResult::default(),
                AclCreationResult {
                    error_code: 56,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        metrics.count_errors(ApiKey::CreateAcls, &response);
        metrics.authorization(AuthorizationResult::Denied);
        metrics.store_commit(StoreOperation::Acls, Duration::from_millis(7), true);
        let text = metrics.render(Gauges {
            feed: None,
            acls: 12,
            topics: 3,
        });
        for line in [
            "# TYPE kacl_requests_total counter",
            "kacl_requests_total{api=\"CreateAcls\",version=\"2\"} 1",
            "kacl_request_errors_total{api=\"CreateAcls\",code=\"56\",error=\"KAFKA_STORAGE_ERROR\"} 2",
            "kacl_request_duration_seconds_bucket{api=\"CreateAcls\",le=\"0.001\"} 0",
            "kacl_request_duration_seconds_bucket{api=\"CreateAcls\",le=\"0.0025\"} 1",
            "kacl_request_duration_seconds_bucket{api=\"CreateAcls\",le=\"+Inf\"} 1",
            "kacl_request_duration_seconds_sum{api=\"CreateAcls\"} 0.002",
            "kacl_request_duration_seconds_count{api=\"CreateAcls\"} 1",
            "kacl_authorizer_decisions_total{result=\"denied\"} 1",
            "kacl_authorizer_decisions_total{result=\"allowed\"} 0",
            "kacl_acls 12",
            "kacl_topics 3",
            "kacl_store_commit_duration_seconds_bucket{operation=\"acls\",le=\"0.01\"} 1",
            "kacl_store_commit_failures_total{operation=\"acls\"} 1",
            "kacl_store_commit_failures_total{operation=\"topics\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        assert!(!text.contains("api=\"DescribeAcls\""), "{text}");
        // Every sample line is `name{labels} value` or `name value` with a numeric value.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }
}
