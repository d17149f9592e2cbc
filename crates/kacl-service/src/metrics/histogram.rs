//! A latency histogram with fixed buckets, recorded with relaxed atomic additions.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Upper bounds of the buckets, in nanoseconds: 50 µs to 10 s, roughly ×2.5 apart. They span a
/// DescribeAcls served from memory (tens of µs) to an fsync on a slow disk (seconds).
const BOUNDS_NANOS: [u64; 17] = [
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
];

/// The same bounds as Prometheus `le` labels, in seconds.
pub const BUCKET_BOUNDS_SECONDS: [&str; 17] = [
    "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
    "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
];

/// Observations per bucket (not cumulative; the scrape accumulates), their count and sum.
#[derive(Debug)]
pub struct Histogram {
    buckets: [AtomicU64; BOUNDS_NANOS.len()],
    count: AtomicU64,
    sum_nanos: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

/// A consistent-enough copy of a histogram for one scrape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// Cumulative counts, one per bound of [`BUCKET_BOUNDS_SECONDS`].
    pub cumulative: [u64; BOUNDS_NANOS.len()],
    /// Every observation (the `+Inf` bucket); never below the last cumulative count.
    pub count: u64,
    /// Sum of the observations, in nanoseconds.
    pub sum_nanos: u64,
}

impl Histogram {
    /// An empty histogram.
    pub const fn new() -> Histogram {
        Histogram {
            buckets: [const { AtomicU64::new(0) }; BOUNDS_NANOS.len()],
            count: AtomicU64::new(0),
            sum_nanos: AtomicU64::new(0),
        }
    }

    /// Records one observation. The bucket is counted before the total, so a concurrent scrape
    /// (which reads buckets first) never sees a bucket above `+Inf`.
    pub fn record(&self, elapsed: Duration) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let bucket = BOUNDS_NANOS.partition_point(|bound| *bound < nanos);
        if let Some(counter) = self.buckets.get(bucket) {
            counter.fetch_add(1, Relaxed);
        }
        self.sum_nanos.fetch_add(nanos, Relaxed);
        self.count.fetch_add(1, Relaxed);
    }

    /// Observations so far.
    pub fn count(&self) -> u64 {
        self.count.load(Relaxed)
    }

    /// The cumulative view a scrape prints.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut cumulative = [0u64; BOUNDS_NANOS.len()];
        let mut running = 0u64;
        for (out, bucket) in cumulative.iter_mut().zip(&self.buckets) {
            running = running.saturating_add(bucket.load(Relaxed));
            *out = running;
        }
        let sum_nanos = self.sum_nanos.load(Relaxed);
        let count = self.count.load(Relaxed).max(running);
        HistogramSnapshot {
            cumulative,
            count,
            sum_nanos,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_labels_agree() {
        for (nanos, label) in BOUNDS_NANOS.iter().zip(BUCKET_BOUNDS_SECONDS) {
            let seconds: f64 = label.parse().unwrap();
            assert_eq!((seconds * 1e9).round() as u64, *nanos, "{label}");
        }
        assert!(BOUNDS_NANOS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn observations_land_in_the_first_bucket_that_holds_them() {
        let h = Histogram::new();
        h.record(Duration::from_micros(50)); // on the first bound: le="0.00005"
        h.record(Duration::from_micros(51)); // le="0.0001"
        h.record(Duration::from_millis(3)); // le="0.005"
        h.record(Duration::from_secs(60)); // only +Inf
        let s = h.snapshot();
        assert_eq!(s.cumulative[0], 1);
        assert_eq!(s.cumulative[1], 2);
        assert_eq!(s.cumulative[5], 2);
        assert_eq!(s.cumulative[6], 3);
        assert_eq!(s.cumulative[16], 3);
        assert_eq!(s.count, 4);
        assert_eq!(s.sum_nanos, 50_000 + 51_000 + 3_000_000 + 60_000_000_000);
    }
}
