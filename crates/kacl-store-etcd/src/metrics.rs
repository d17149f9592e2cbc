//! What the etcd backend counts: the revision applied to memory and the newest revision seen
//! from etcd (their difference is the lag), watch restarts and re-lists, and the latency and
//! failures of requests to etcd.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Counters of one [`crate::EtcdStore`]; read them for `/metrics`.
#[derive(Debug, Default)]
pub struct EtcdMetrics {
    applied_revision: AtomicI64,
    etcd_revision: AtomicI64,
    watch_restarts: AtomicU64,
    watch_idle_reopens: AtomicU64,
    relists: AtomicU64,
    requests: AtomicU64,
    request_errors: AtomicU64,
    request_micros: AtomicU64,
    /// Since when memory has been behind the newest revision seen (`None`: caught up).
    behind_since: Mutex<Option<Instant>>,
}

impl EtcdMetrics {
    pub(crate) fn request(&self, took: Duration, failed: bool) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.request_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
        if failed {
            self.request_errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn applied(&self, applied: i64, seen: i64) {
        self.applied_revision.fetch_max(applied, Ordering::Relaxed);
        self.etcd_revision
            .fetch_max(seen.max(applied), Ordering::Relaxed);
        let mut behind = self.behind_since.lock();
        if self.lag_revisions() == 0 {
            *behind = None;
        } else if behind.is_none() {
            *behind = Some(Instant::now());
        }
    }

    /// Everything, for `/metrics`.
    pub fn stats(&self) -> kacl_store::FeedStats {
        let (requests, request_errors, request_micros) = self.requests();
        kacl_store::FeedStats {
            applied_revision: self.applied_revision(),
            lag_revisions: self.lag_revisions(),
            lag_millis: self
                .behind_since
                .lock()
                .map_or(0, |since| since.elapsed().as_millis() as u64),
            watch_restarts: self.watch_restarts(),
            watch_idle_reopens: self.watch_idle_reopens(),
            relists: self.relists(),
            requests,
            request_errors,
            request_micros,
        }
    }

    pub(crate) fn watch_restart(&self) {
        self.watch_restarts.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn watch_idle_reopen(&self) {
        self.watch_idle_reopens.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn relist(&self) {
        self.relists.fetch_add(1, Ordering::Relaxed);
    }

    /// The revision whose changes are all in memory.
    pub fn applied_revision(&self) -> i64 {
        self.applied_revision.load(Ordering::Relaxed)
    }

    /// Revisions etcd is known to be ahead of memory.
    pub fn lag_revisions(&self) -> i64 {
        (self.etcd_revision.load(Ordering::Relaxed) - self.applied_revision()).max(0)
    }

    /// Times the watch was re-opened after it failed (etcd restarted, a member failed, a
    /// broken connection); not the re-open after silence.
    pub fn watch_restarts(&self) -> u64 {
        self.watch_restarts.load(Ordering::Relaxed)
    }

    /// Times an idle watch (nothing for 5 s) was re-opened to check its connection.
    pub fn watch_idle_reopens(&self) -> u64 {
        self.watch_idle_reopens.load(Ordering::Relaxed)
    }

    /// Times the whole state was re-listed (the watch fell behind a compaction).
    pub fn relists(&self) -> u64 {
        self.relists.load(Ordering::Relaxed)
    }

    /// Requests to etcd, failed ones, and their total time in microseconds.
    pub fn requests(&self) -> (u64, u64, u64) {
        (
            self.requests.load(Ordering::Relaxed),
            self.request_errors.load(Ordering::Relaxed),
            self.request_micros.load(Ordering::Relaxed),
        )
    }
}
