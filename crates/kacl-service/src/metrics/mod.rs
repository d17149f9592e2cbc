//! Prometheus metrics: what the server counts while it serves, and the `/metrics` endpoint on
//! `kacl.metrics.listen` that exposes them in Prometheus' text format.
//!
//! Every series is a fixed array of atomics indexed by API, version or error code, so recording
//! is a few relaxed atomic additions and never allocates or takes a lock; only a scrape formats
//! text. What is recorded where:
//!
//! - requests and requests that were not routed: [`router::dispatch`]; their latency from the
//!   frame read to the last byte of the answer written (a streamed answer's last piece, a
//!   forwarded request's answer from the upstream): the connection loop, through the
//!   [`RequestTimer`] the router hands it;
//! - error codes: every response a handler encodes through
//!   [`RequestContext::respond`](crate::context::RequestContext::respond) ([`ResponseErrors`]);
//! - authorizer decisions: every check of [`AuditedSession::allows`](crate::context::AuditedSession::allows),
//!   the one audited path every handler decides through (authorized-operations bit fields are not
//!   counted);
//! - connections: the accept loop; authentication failures: the connection loop;
//! - store commits: [`MeteredStore`], wrapped around the store at start.
//!
//! [`router::dispatch`]: crate::router::dispatch

mod histogram;
mod metered_store;
mod render;
mod response_errors;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use kacl_acl::AuthorizationResult;
use kacl_protocol::header::RequestPrefix;
use kacl_protocol::ApiKey;

use crate::request_memory::RequestMemoryPool;
pub use histogram::{Histogram, HistogramSnapshot, BUCKET_BOUNDS_SECONDS};
pub use metered_store::MeteredStore;
pub use render::Gauges;
pub use response_errors::ResponseErrors;

/// How many APIs the server serves: one slot per entry of [`ApiKey::KNOWN`].
const API_SLOTS: usize = ApiKey::KNOWN.len();
/// Request versions counted per API (0..=18; every known range ends below 19).
const VERSION_SLOTS: usize = 19;
/// Error codes counted per API: -1 ..= `ERROR_SLOTS - 3`, and one slot for any other code.
const ERROR_SLOTS: usize = 160;

/// A store operation whose commits are timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOperation {
    /// `commit_acl_changes`.
    Acls,
    /// `create_topics`, `delete_topics`, `add_partitions`.
    Topics,
    /// `upsert_scram_credential`, `delete_scram_credential`.
    Scram,
    /// `alter_client_quotas`.
    Quotas,
}

impl StoreOperation {
    /// Every operation, in slot order.
    pub const ALL: [StoreOperation; 4] = [
        StoreOperation::Acls,
        StoreOperation::Topics,
        StoreOperation::Scram,
        StoreOperation::Quotas,
    ];

    /// The `operation` label.
    pub const fn label(self) -> &'static str {
        match self {
            StoreOperation::Acls => "acls",
            StoreOperation::Topics => "topics",
            StoreOperation::Scram => "scram",
            StoreOperation::Quotas => "quotas",
        }
    }

    const fn slot(self) -> usize {
        self as usize
    }
}

/// A routed request's clock, from its frame read until the last byte of its answer is
/// written: the router starts it, the connection hands it back to
/// [`Metrics::request_answered`] once the answer is out (after the last piece of a streamed
/// answer, after a forwarded request's answer arrived and was written), so the slowest
/// answers are not recorded as the fastest.
#[derive(Debug, Clone, Copy)]
#[must_use = "the latency is recorded only when the timer is handed to Metrics::request_answered"]
pub struct RequestTimer {
    /// The API's latency slot; `None`: not timed.
    slot: Option<usize>,
    started: Instant,
}

impl RequestTimer {
    /// A timer that records nothing (a rejected frame, or a raw SASL token, which is no
    /// Kafka request).
    pub fn untimed(started: Instant) -> RequestTimer {
        RequestTimer {
            slot: None,
            started,
        }
    }
}

/// Every counter, gauge and histogram of one server. Shared through the server state.
#[derive(Debug)]
pub struct Metrics {
    requests: [[AtomicU64; VERSION_SLOTS]; API_SLOTS],
    errors: [[AtomicU64; ERROR_SLOTS]; API_SLOTS],
    latency: [Histogram; API_SLOTS],
    rejected_requests: AtomicU64,
    open_connections: AtomicI64,
    accepted_connections: AtomicU64,
    refused_connections: AtomicU64,
    spliced_bytes: AtomicU64,
    cut_through_bytes: AtomicU64,
    expired_connections: AtomicU64,
    reauthentications: AtomicU64,
    authentication_failures: AtomicU64,
    authorizer_allowed: AtomicU64,
    authorizer_denied: AtomicU64,
    store_commits: [Histogram; StoreOperation::ALL.len()],
    store_failures: [AtomicU64; StoreOperation::ALL.len()],
    listen_addr: OnceLock<SocketAddr>,
    request_memory: OnceLock<Arc<RequestMemoryPool>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every series at zero.
    pub const fn new() -> Metrics {
        Metrics {
            requests: [const { [const { AtomicU64::new(0) }; VERSION_SLOTS] }; API_SLOTS],
            errors: [const { [const { AtomicU64::new(0) }; ERROR_SLOTS] }; API_SLOTS],
            latency: [const { Histogram::new() }; API_SLOTS],
            rejected_requests: AtomicU64::new(0),
            open_connections: AtomicI64::new(0),
            accepted_connections: AtomicU64::new(0),
            refused_connections: AtomicU64::new(0),
            spliced_bytes: AtomicU64::new(0),
            cut_through_bytes: AtomicU64::new(0),
            expired_connections: AtomicU64::new(0),
            reauthentications: AtomicU64::new(0),
            authentication_failures: AtomicU64::new(0),
            authorizer_allowed: AtomicU64::new(0),
            authorizer_denied: AtomicU64::new(0),
            store_commits: [const { Histogram::new() }; StoreOperation::ALL.len()],
            store_failures: [const { AtomicU64::new(0) }; StoreOperation::ALL.len()],
            listen_addr: OnceLock::new(),
            request_memory: OnceLock::new(),
        }
    }

    /// Counts one request the router answered (its header prefix as the router read it, `None`
    /// if unreadable), read at `started`; the timer records its latency once its answer has
    /// been written ([`Metrics::request_answered`]). Frames the router refused before a handler
    /// (unreadable header, an API key kacl does not serve, a version outside kacl's range)
    /// count as rejected and are not timed.
    pub fn request_routed(&self, prefix: Option<&RequestPrefix>, started: Instant) -> RequestTimer {
        let routed = prefix.and_then(|prefix| {
            let api = prefix
                .api()
                .filter(|api| api.supports(prefix.request_api_version))?;
            Some((
                api_slot(api)?,
                usize::try_from(prefix.request_api_version).ok()?,
            ))
        });
        match routed {
            Some((api, version)) => {
                if let Some(counter) = self.requests[api].get(version) {
                    counter.fetch_add(1, Relaxed);
                }
                RequestTimer {
                    slot: Some(api),
                    started,
                }
            }
            None => {
                self.rejected_requests.fetch_add(1, Relaxed);
                RequestTimer::untimed(started)
            }
        }
    }

    /// Records the latency of a request whose answer has been written (or that needed none):
    /// from the frame read to now.
    pub fn request_answered(&self, timer: RequestTimer) {
        if let Some(slot) = timer.slot {
            self.latency[slot].record(timer.started.elapsed());
        }
    }

    /// A request counted as routed and taking exactly `elapsed`, for tests of the exposition.
    #[cfg(test)]
    pub(crate) fn request_took(&self, prefix: Option<&RequestPrefix>, elapsed: Duration) {
        if let Some(slot) = self.request_routed(prefix, Instant::now()).slot {
            self.latency[slot].record(elapsed);
        }
    }

    /// The latency histogram of `api` (`None` for an API kacl does not count).
    pub fn request_latency(&self, api: ApiKey) -> Option<HistogramSnapshot> {
        api_slot(api).map(|slot| self.latency[slot].snapshot())
    }

    /// Counts every non-zero error code `response` (of `api`) carries.
    pub fn count_errors<R: ResponseErrors + ?Sized>(&self, api: ApiKey, response: &R) {
        let Some(api) = api_slot(api) else {
            return;
        };
        let counters = &self.errors[api];
        response.for_each_error(&mut |code| {
            if code != 0 {
                counters[error_slot(code)].fetch_add(1, Relaxed);
            }
        });
    }

    /// Counts one authorizer decision.
    pub fn authorization(&self, result: AuthorizationResult) {
        match result {
            AuthorizationResult::Allowed => self.authorizer_allowed.fetch_add(1, Relaxed),
            AuthorizationResult::Denied => self.authorizer_denied.fetch_add(1, Relaxed),
        };
    }

    /// Counts one failed authentication (a SASL failure or an unsupported mechanism).
    pub fn authentication_failed(&self) {
        self.authentication_failures.fetch_add(1, Relaxed);
    }

    /// Counts an accepted connection as open until the returned guard is dropped.
    pub fn connection_opened(self: &Arc<Self>) -> OpenConnection {
        self.accepted_connections.fetch_add(1, Relaxed);
        self.open_connections.fetch_add(1, Relaxed);
        OpenConnection(self.clone())
    }

    /// Counts bytes of a forwarded answer spliced into a client's socket (gateway mode).
    pub fn bytes_spliced(&self, bytes: usize) {
        self.spliced_bytes.fetch_add(bytes as u64, Relaxed);
    }

    /// Counts bytes of a request a gateway relayed from the client's socket into the upstream's
    /// as they arrived (cut-through Produce), never read into its memory.
    pub fn bytes_cut_through(&self, bytes: usize) {
        self.cut_through_bytes.fetch_add(bytes as u64, Relaxed);
    }

    /// Counts a connection closed at once for `max.connections` or `max.connections.per.ip`.
    pub fn connection_refused(&self) {
        self.refused_connections.fetch_add(1, Relaxed);
    }

    /// Counts a connection closed because its session expired without re-authentication
    /// (Kafka's `expired-connections-killed-count`).
    pub fn connection_expired(&self) {
        self.expired_connections.fetch_add(1, Relaxed);
    }

    /// Counts a successful re-authentication (Kafka's `successful-reauthentication-total`).
    pub fn reauthenticated(&self) {
        self.reauthentications.fetch_add(1, Relaxed);
    }

    /// How many sessions were renewed by re-authentication.
    pub fn reauthentications(&self) -> u64 {
        self.reauthentications.load(Relaxed)
    }

    /// How many connections were closed for an expired session.
    pub fn expired_connections(&self) -> u64 {
        self.expired_connections.load(Relaxed)
    }

    /// Records one store commit of `operation`: its duration, and whether the storage failed.
    pub fn store_commit(&self, operation: StoreOperation, elapsed: Duration, storage_failed: bool) {
        self.store_commits[operation.slot()].record(elapsed);
        if storage_failed {
            self.store_failures[operation.slot()].fetch_add(1, Relaxed);
        }
    }

    /// How many store commits of `operation` were made (for tests and embedders).
    pub fn store_commits(&self, operation: StoreOperation) -> u64 {
        self.store_commits[operation.slot()].count()
    }

    /// The address `/metrics` is served on, once the endpoint is bound.
    pub fn listen_addr(&self) -> Option<SocketAddr> {
        self.listen_addr.get().copied()
    }

    /// Records where `/metrics` is served, once the shell has bound it.
    pub fn set_listen_addr(&self, addr: SocketAddr) {
        let _ = self.listen_addr.set(addr);
    }

    /// Exposes the `queued.max.request.bytes` pool's gauges (only a server with a bound has
    /// them).
    pub fn set_request_memory(&self, pool: Arc<RequestMemoryPool>) {
        let _ = self.request_memory.set(pool);
    }

    /// How many requests of `api` at `version` were answered (for tests and embedders).
    pub fn requests(&self, api: ApiKey, version: i16) -> u64 {
        api_slot(api)
            .zip(usize::try_from(version).ok())
            .and_then(|(api, version)| self.requests[api].get(version))
            .map_or(0, |c| c.load(Relaxed))
    }

    /// How many times `api` responses carried error `code`.
    pub fn errors(&self, api: ApiKey, code: i16) -> u64 {
        api_slot(api).map_or(0, |api| self.errors[api][error_slot(code)].load(Relaxed))
    }

    /// Connections open now.
    pub fn open_connections(&self) -> i64 {
        self.open_connections.load(Relaxed)
    }
}

/// An open connection, counted in `kacl_connections_open` until dropped.
#[derive(Debug)]
pub struct OpenConnection(Arc<Metrics>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.open_connections.fetch_sub(1, Relaxed);
    }
}

/// The slot of a served API: its position in [`ApiKey::KNOWN`].
fn api_slot(api: ApiKey) -> Option<usize> {
    ApiKey::KNOWN.iter().position(|served| *served == api)
}

/// The slot of an error code: code + 1 for -1 ..= `ERROR_SLOTS - 3`, else the last slot.
fn error_slot(code: i16) -> usize {
    usize::try_from(i32::from(code) + 1)
        .ok()
        .filter(|slot| *slot < ERROR_SLOTS - 1)
        .unwrap_or(ERROR_SLOTS - 1)
}

/// The error code of a slot; `None` for the slot of codes outside the table.
fn slot_code(slot: usize) -> Option<i16> {
    if slot >= ERROR_SLOTS - 1 {
        return None;
    }
    i16::try_from(slot).ok().map(|s| s - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_map_to_slots_and_back() {
        for code in [-1i16, 0, 1, 56, 133, (ERROR_SLOTS - 3) as i16] {
            assert_eq!(slot_code(error_slot(code)), Some(code));
        }
        for code in [i16::MIN, -2, (ERROR_SLOTS - 2) as i16, i16::MAX] {
            assert_eq!(error_slot(code), ERROR_SLOTS - 1);
            assert_eq!(slot_code(error_slot(code)), None);
        }
    }

    #[test]
    fn every_served_api_has_a_slot_and_versions_fit() {
        for api in ApiKey::KNOWN {
            assert!(api_slot(api).is_some());
            assert!((api.versions().max as usize) < VERSION_SLOTS, "{api}");
        }
    }

    #[test]
    fn requests_are_counted_by_api_and_version_and_refusals_apart() {
        let metrics = Metrics::new();
        let frame = |key: i16, version: i16| {
            let mut payload = Vec::new();
            payload.extend_from_slice(&key.to_be_bytes());
            payload.extend_from_slice(&version.to_be_bytes());
            payload.extend_from_slice(&7i32.to_be_bytes());
            payload
        };
        answered(
            &metrics,
            RequestPrefix::peek(&frame(29, 3)).ok().as_ref(),
            Duration::from_micros(300),
        );
        answered(
            &metrics,
            RequestPrefix::peek(&frame(29, 3)).ok().as_ref(),
            Duration::from_millis(3),
        );
        answered(
            &metrics,
            RequestPrefix::peek(&frame(29, 1)).ok().as_ref(),
            Duration::from_millis(3),
        );
        answered(
            &metrics,
            RequestPrefix::peek(&frame(29, 9)).ok().as_ref(),
            Duration::ZERO,
        ); // unsupported version
        answered(
            &metrics,
            RequestPrefix::peek(&frame(0, 0)).ok().as_ref(),
            Duration::ZERO,
        ); // Produce: not served
        answered(
            &metrics,
            RequestPrefix::peek(&[0, 1]).ok().as_ref(),
            Duration::ZERO,
        ); // unreadable header
        assert_eq!(metrics.requests(ApiKey::DescribeAcls, 3), 2);
        assert_eq!(metrics.requests(ApiKey::DescribeAcls, 1), 1);
        assert_eq!(metrics.requests(ApiKey::DescribeAcls, 9), 0);
        assert_eq!(metrics.rejected_requests.load(Relaxed), 3);
        let latency = metrics.request_latency(ApiKey::DescribeAcls).unwrap();
        assert_eq!(latency.count, 3);
        // Each from its frame read to its answer, at least the time given.
        assert!(latency.sum_nanos >= 6_300_000, "{latency:?}");
    }

    /// The router's timer of a request read `ago`, handed back at once.
    fn answered(metrics: &Metrics, prefix: Option<&RequestPrefix>, ago: Duration) {
        metrics.request_answered(metrics.request_routed(prefix, Instant::now() - ago));
    }

    #[test]
    fn the_open_connection_gauge_follows_the_guards() {
        let metrics = Arc::new(Metrics::new());
        let first = metrics.connection_opened();
        let second = metrics.connection_opened();
        assert_eq!(metrics.open_connections(), 2);
        drop(first);
        assert_eq!(metrics.open_connections(), 1);
        drop(second);
        assert_eq!(metrics.open_connections(), 0);
        assert_eq!(metrics.accepted_connections.load(Relaxed), 2);
    }

    #[test]
    fn the_request_memory_series_appear_only_with_a_pool() {
        let metrics = Metrics::new();
        assert!(!metrics
            .render(Default::default())
            .contains("kacl_request_memory"));
        let pool = Arc::new(RequestMemoryPool::new(1000));
        metrics.set_request_memory(Arc::clone(&pool));
        let _first = pool.try_lease(600).unwrap();
        let _second = pool.try_lease(600).unwrap();
        let text = metrics.render(Default::default());
        for line in [
            "kacl_request_memory_used_bytes 1200",
            "kacl_request_memory_available_bytes -200",
            "kacl_request_memory_waits_total 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
        }
    }
}
