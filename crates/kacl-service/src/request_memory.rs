//! `queued.max.request.bytes`: a bound on the request bytes the server holds at once, across
//! every connection, as Kafka's network memory pool bounds them.
//!
//! A connection takes a [`MemoryLease`] for a frame's declared size as soon as it has read the
//! size prefix, before it reads (and buffers) the body, and gives it back once the request has
//! been handled, before the response is written (Kafka releases the buffer at the same point).
//! When the pool is depleted the connection simply stops reading until some lease is returned:
//! backpressure, as Kafka mutes a channel, never an error. Other connections' requests that
//! already hold a lease go on, so memory always comes back.
//!
//! As in Kafka's `SimpleMemoryPool` built for the socket server (not strict), a lease is granted
//! whenever any memory is left, so the pool may go below zero by at most one frame: the bytes
//! held never exceed `queued.max.request.bytes + socket.request.max.bytes`, and a frame as large
//! as `socket.request.max.bytes` can always be served.
//!
//! Frames read on a SASL listener before authentication are not charged (Kafka's authenticator
//! reads them outside the pool too): they are bounded by `sasl.server.max.receive.size`, and
//! unauthenticated clients must not be able to starve authenticated ones by draining the pool.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// The shared pool of request bytes. Built only when `queued.max.request.bytes` is positive.
#[derive(Debug)]
pub struct RequestMemoryPool {
    capacity: i64,
    available: AtomicI64,
    /// Woken whenever a lease is returned.
    returned: Notify,
    /// Frames whose connection found the pool depleted and had to wait.
    waits: AtomicU64,
}

/// Bytes taken from a [`RequestMemoryPool`] for one frame; returned when dropped.
#[derive(Debug)]
#[must_use = "the memory is returned as soon as the lease is dropped"]
pub struct MemoryLease {
    pool: Arc<RequestMemoryPool>,
    bytes: i64,
}

impl RequestMemoryPool {
    /// A pool of `capacity` bytes, all available.
    pub fn new(capacity: u64) -> RequestMemoryPool {
        let capacity = i64::try_from(capacity).unwrap_or(i64::MAX);
        RequestMemoryPool {
            capacity,
            available: AtomicI64::new(capacity),
            returned: Notify::new(),
            waits: AtomicU64::new(0),
        }
    }

    /// A lease of `bytes` if any memory is available now (the pool may then go negative, by
    /// at most one frame). An empty frame needs no memory and is always granted.
    pub fn try_lease(self: &Arc<Self>, bytes: usize) -> Option<MemoryLease> {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        if bytes > 0 {
            self.available
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |available| {
                    (available > 0).then(|| available.saturating_sub(bytes))
                })
                .ok()?;
        }
        Some(MemoryLease {
            pool: Arc::clone(self),
            bytes,
        })
    }

    /// A lease of `bytes`, waiting for other leases to be returned while the pool is depleted.
    /// Cancel-safe: a cancelled wait holds nothing.
    pub async fn lease(self: &Arc<Self>, bytes: usize) -> MemoryLease {
        let mut counted = false;
        loop {
            // Register for the wake-up before looking, so a return between the look and the
            // wait is not missed.
            let returned = self.returned.notified();
            tokio::pin!(returned);
            returned.as_mut().enable();
            if let Some(lease) = self.try_lease(bytes) {
                return lease;
            }
            if !counted {
                counted = true;
                self.waits.fetch_add(1, Ordering::Relaxed);
            }
            returned.await;
        }
    }

    /// `queued.max.request.bytes`.
    pub fn capacity(&self) -> i64 {
        self.capacity
    }

    /// Bytes not leased now; below zero while one frame overdraws the pool.
    pub fn available(&self) -> i64 {
        self.available.load(Ordering::Acquire)
    }

    /// Bytes leased now.
    pub fn used(&self) -> i64 {
        self.capacity.saturating_sub(self.available())
    }

    /// How many frames had to wait for memory since the server started.
    pub fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }
}

impl MemoryLease {
    /// The bytes this lease holds.
    pub fn bytes(&self) -> usize {
        usize::try_from(self.bytes).unwrap_or(usize::MAX)
    }
}

impl Drop for MemoryLease {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.pool.available.fetch_add(self.bytes, Ordering::AcqRel);
            self.pool.returned.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn leases_are_granted_while_any_memory_is_left_and_returned_on_drop() {
        let pool = Arc::new(RequestMemoryPool::new(100));
        let a = pool.try_lease(60).expect("60 of 100");
        let b = pool
            .try_lease(60)
            .expect("40 left: not strict, so 60 more is granted");
        assert_eq!(pool.available(), -20);
        assert_eq!(pool.used(), 120);
        assert!(pool.try_lease(1).is_none(), "nothing left");
        assert!(pool.try_lease(0).is_some(), "an empty frame needs nothing");
        drop(a);
        assert_eq!(pool.available(), 40);
        let c = pool.try_lease(100).expect("memory came back");
        drop((b, c));
        assert_eq!(pool.available(), 100);
    }

    #[tokio::test]
    async fn a_waiting_lease_is_granted_when_another_is_returned() {
        let pool = Arc::new(RequestMemoryPool::new(10));
        let held = pool.try_lease(10).expect("the whole pool");
        let waiter = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.lease(5).await.bytes() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !waiter.is_finished(),
            "the pool is depleted: the lease must wait"
        );
        assert_eq!(pool.waits(), 1);
        drop(held);
        let granted = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("granted once memory was returned")
            .expect("the task ran");
        assert_eq!(granted, 5);
        assert_eq!(
            pool.available(),
            10,
            "the granted lease was dropped in the task"
        );
    }

    #[tokio::test]
    async fn a_cancelled_wait_holds_nothing() {
        let pool = Arc::new(RequestMemoryPool::new(10));
        let held = pool.try_lease(10).expect("the whole pool");
        let cancelled = tokio::time::timeout(Duration::from_millis(20), pool.lease(5)).await;
        assert!(cancelled.is_err());
        drop(held);
        assert_eq!(pool.available(), 10);
    }
}
