//! A cached search result's share of the sessions' cache budget
//! ([`crate::session::CACHE_BUDGET`]), given back when the result is dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// `n` ACLs counted in `total` for as long as this lives.
pub(crate) struct CacheTicket {
    total: Arc<AtomicUsize>,
    n: usize,
}

impl CacheTicket {
    /// A ticket for `n` ACLs already added to `total` by the caller.
    pub(crate) fn new(total: Arc<AtomicUsize>, n: usize) -> CacheTicket {
        CacheTicket { total, n }
    }
}

impl Drop for CacheTicket {
    fn drop(&mut self) {
        self.total.fetch_sub(self.n, Ordering::Relaxed);
    }
}
