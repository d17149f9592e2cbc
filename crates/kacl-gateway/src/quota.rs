//! Client quotas enforced by a gateway node, with Kafka's throttle semantics
//! (`ClientQuotaManager`, `ClientRequestQuotaManager`, KIP-219):
//!
//! - which quota applies to a request is Kafka's rule over the stored quotas
//!   ([`kacl_service::client_quotas::resolve`]): per key, per (user, client id), and the level
//!   that set it says who shares the measured rate;
//! - a rate is Kafka's `Rate` over `quota.window.num` = 11 samples of
//!   `quota.window.size.seconds` = 1 s: the sum of the live samples divided by the time they
//!   span, counted as at least 10 whole windows (so a new sensor does not read a burst as a huge
//!   rate);
//! - the value is recorded first, then compared with the bound; over it, the throttle time is
//!   `(rate - bound) / bound × window span`, the time until the rate is back at the bound with
//!   nothing more recorded (`QuotaUtils.throttleTime`);
//! - the answer leaves at once with `throttle_time_ms` set (the larger of the upstream's and
//!   the gateway's), and the client's connection is muted for that time: no further request is
//!   read from it (KIP-219), which the connection asks of [`ConnectionQuota::muted_until`];
//! - while a request under a quota is unanswered the connection reads no further request
//!   ([`ConnectionQuota::awaits_metered`]): Kafka serves each connection one request at a time,
//!   so each is measured, and its throttle applied, before the next is read. Pipelined
//!   requests read ahead of a throttled answer would all pass unmeasured (a librdkafka producer
//!   with 4 MB queued overshot a 1 MiB/s cap by 11%).
//!
//! What is measured: `producer_byte_rate` the size of each Produce request (as Kafka's
//! `request.sizeInBytes`), `consumer_byte_rate` the size of each Fetch answer,
//! `request_percentage` the time each forwarded request took from the gateway to the upstream
//! and back, as a percentage of one second (Kafka measures its request threads' time; a
//! gateway cannot see the upstream's threads, and the round trip is an upper bound of it).
//! Quotas are per gateway node, as Kafka's are per broker. `controller_mutation_rate` is
//! stored and described but not enforced (the upstream's controller answers those requests).
//! Each is listed in `DIFFERENCES_FROM_KAFKA`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_protocol::frame::{decode_broker_response_frame, encode_response_frame};
use kacl_protocol::messages::produce::ProduceResponse;
use kacl_protocol::ApiKey;
use kacl_service::client_quotas::{
    quota_user, resolve, QuotaTags, CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE, REQUEST_PERCENTAGE,
};
use kacl_service::context::RequestContext;
use kacl_service::Outcome;
use parking_lot::Mutex;

/// `quota.window.num`: Kafka's default number of samples.
pub(crate) const SAMPLES: u64 = 11;
/// `quota.window.size.seconds`: Kafka's default sample length.
pub(crate) const WINDOW_MS: u64 = 1000;
/// A sensor whose last sample ended this long ago measures zero: it can be dropped.
const IDLE_MS: u64 = SAMPLES * WINDOW_MS;
/// Sensors kept before idle ones are swept (a sweep only drops sensors that measure zero).
const SWEEP_AT: usize = 4096;

/// Kafka's `Rate` over a `SampledStat`: the value recorded in each of up to [`SAMPLES`]
/// samples of [`WINDOW_MS`], each starting when the first value after the previous one's end
/// was recorded.
#[derive(Debug, Default)]
pub(crate) struct Rate {
    /// (start, value) of each sample, oldest first.
    samples: Vec<(u64, f64)>,
}

impl Rate {
    /// Adds `value` at `now_ms` (milliseconds on any monotonic clock).
    pub(crate) fn record(&mut self, value: f64, now_ms: u64) {
        self.purge(now_ms);
        match self.samples.last_mut() {
            Some((start, sum)) if now_ms.saturating_sub(*start) < WINDOW_MS => *sum += value,
            _ => {
                if self.samples.len() as u64 >= SAMPLES {
                    self.samples.remove(0);
                }
                self.samples.push((now_ms, value));
            }
        }
    }

    /// Drops the samples that ended a whole sample span ago (Kafka resets them).
    fn purge(&mut self, now_ms: u64) {
        self.samples
            .retain(|(start, _)| now_ms.saturating_sub(*start) < SAMPLES * WINDOW_MS);
    }

    /// The time the live samples span, in milliseconds, counted as at least `SAMPLES - 1`
    /// whole windows (Kafka's `Rate.windowSize`).
    fn window_ms(&self, now_ms: u64) -> f64 {
        let oldest = self.samples.first().map_or(now_ms, |(start, _)| *start);
        let mut elapsed = now_ms.saturating_sub(oldest);
        let full = elapsed / WINDOW_MS;
        if full < SAMPLES - 1 {
            elapsed += (SAMPLES - 1 - full) * WINDOW_MS;
        }
        elapsed.max(1) as f64
    }

    /// The rate per second at `now_ms`.
    pub(crate) fn measure(&mut self, now_ms: u64) -> f64 {
        self.purge(now_ms);
        let total: f64 = self.samples.iter().map(|(_, v)| v).sum();
        total / (self.window_ms(now_ms) / 1000.0)
    }

    /// Records `value` and returns the throttle time in milliseconds against `bound` (0 within
    /// it), as Kafka's `recordAndGetThrottleTimeMs` does.
    pub(crate) fn record_and_throttle(&mut self, value: f64, bound: f64, now_ms: u64) -> u64 {
        self.record(value, now_ms);
        let rate = self.measure(now_ms);
        if rate <= bound {
            return 0;
        }
        if bound <= 0.0 {
            // Kafka divides by zero here (an unbounded throttle); one sample span is the most
            // a connection is muted for at once.
            return IDLE_MS;
        }
        let throttle = (rate - bound) / bound * self.window_ms(now_ms);
        // Kafka rounds and casts to an int; a throttle past one sample span is cut to it.
        (throttle.round() as u64).min(IDLE_MS)
    }

    fn last_ms(&self) -> u64 {
        self.samples
            .last()
            .map_or(0, |(start, _)| *start + WINDOW_MS)
    }
}

/// Which measured quota a sensor is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Produce,
    Fetch,
    Request,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Kind::Produce => PRODUCER_BYTE_RATE,
            Kind::Fetch => CONSUMER_BYTE_RATE,
            Kind::Request => REQUEST_PERCENTAGE,
        }
    }
}

type Sensor = Arc<Mutex<Rate>>;

/// Every sensor of a gateway node, by quota and Kafka's metric tags (shared by the connections
/// of one user, client id, or both, as the resolved level says).
#[derive(Debug)]
pub(crate) struct Sensors {
    sensors: Mutex<HashMap<(Kind, QuotaTags), Sensor>>,
    epoch: Instant,
}

impl Default for Sensors {
    fn default() -> Self {
        Sensors {
            sensors: Mutex::default(),
            epoch: Instant::now(),
        }
    }
}

impl Sensors {
    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn get(&self, kind: Kind, tags: QuotaTags) -> Sensor {
        let mut sensors = self.sensors.lock();
        if sensors.len() >= SWEEP_AT {
            // Only sensors that measure zero go: dropping them changes no throttle.
            let now = self.now_ms();
            sensors.retain(|_, rate| now.saturating_sub(rate.lock().last_ms()) < IDLE_MS);
        }
        sensors.entry((kind, tags)).or_default().clone()
    }
}

/// A quota that applies to a connection's requests: its bound and its shared sensor.
type Bound = Option<(f64, Sensor)>;

/// What one client connection resolved, kept until the quotas change or the client id does.
#[derive(Debug)]
struct Resolved {
    generation: u64,
    client_id: String,
    produce: Bound,
    fetch: Bound,
    request: Bound,
}

/// One client connection's quota side: what applies to it, and until when it is muted.
#[derive(Debug, Default)]
pub(crate) struct ConnectionQuota {
    resolved: Option<Resolved>,
    muted_until: Arc<Mutex<Option<Instant>>>,
    /// Metered requests forwarded and not yet answered.
    metered: Arc<AtomicUsize>,
}

impl ConnectionQuota {
    /// Whether a request under a quota is still unanswered: the connection reads nothing more
    /// until it is (Kafka's one request at a time per connection).
    pub(crate) fn awaits_metered(&self) -> bool {
        self.metered.load(Ordering::Acquire) > 0
    }

    /// Until when the connection reads no request (KIP-219 muting), if that is still ahead.
    pub(crate) fn muted_until(&self) -> Option<Instant> {
        let until = *self.muted_until.lock();
        until.filter(|t| *t > Instant::now())
    }

    /// The meter of one forwarded request, or `None` when no quota applies to it (the common
    /// case costs a generation check).
    pub(crate) fn meter(
        &mut self,
        sensors: &Arc<Sensors>,
        ctx: &RequestContext<'_>,
        client_id: &str,
        request_len: usize,
    ) -> Option<Meter> {
        let (state, principal, api, version) = (ctx.state, ctx.principal, ctx.api, ctx.version);
        let generation = state.quotas.generation();
        let fresh = self
            .resolved
            .as_ref()
            .is_some_and(|r| r.generation == generation && r.client_id == client_id);
        if !fresh {
            let map = state.quotas.snapshot();
            let user = quota_user(principal);
            let bound = |kind: Kind| {
                resolve(&map, kind.key(), user, client_id)
                    .map(|(limit, tags)| (limit, sensors.get(kind, tags)))
            };
            self.resolved = Some(Resolved {
                generation,
                client_id: client_id.to_owned(),
                produce: bound(Kind::Produce),
                fetch: bound(Kind::Fetch),
                request: bound(Kind::Request),
            });
        }
        let resolved = self.resolved.as_ref()?;
        let bandwidth = match api {
            ApiKey::Produce => resolved.produce.clone(),
            ApiKey::Fetch => resolved.fetch.clone(),
            _ => None,
        };
        if bandwidth.is_none() && resolved.request.is_none() {
            return None;
        }
        Some(Meter {
            sensors: sensors.clone(),
            bandwidth,
            request: resolved.request.clone(),
            api,
            version,
            request_len,
            started: Instant::now(),
            muted_until: self.muted_until.clone(),
            _unanswered: Unanswered::count(&self.metered),
        })
    }
}

/// One forwarded request under a quota, from its forwarding to its answer.
pub(crate) struct Meter {
    sensors: Arc<Sensors>,
    bandwidth: Bound,
    request: Bound,
    api: ApiKey,
    version: i16,
    request_len: usize,
    started: Instant,
    muted_until: Arc<Mutex<Option<Instant>>>,
    /// Counts this request as unanswered until the meter is finished or dropped.
    _unanswered: Unanswered,
}

/// One metered request counted in its connection's [`ConnectionQuota::metered`] while alive:
/// dropped with its meter, answered or not (a closed connection, an upstream failure).
struct Unanswered(Arc<AtomicUsize>);

impl Unanswered {
    fn count(metered: &Arc<AtomicUsize>) -> Self {
        metered.fetch_add(1, Ordering::AcqRel);
        Unanswered(metered.clone())
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Meter {
    /// Records the request (and its answer's size), and when a quota is exceeded sets the
    /// answer's `throttle_time_ms` and mutes the connection for that time.
    pub(crate) fn finish(self, outcome: Outcome) -> Outcome {
        let now = self.sensors.now_ms();
        let mut throttle = 0;
        if let Some((bound, rate)) = &self.bandwidth {
            let value = match (&outcome, self.api) {
                (Outcome::Respond(frame), ApiKey::Fetch) => frame.len(),
                (Outcome::Spliced(frame), ApiKey::Fetch) => frame.len(),
                (Outcome::NoResponse | Outcome::Respond(_), ApiKey::Produce) => self.request_len,
                _ => 0,
            };
            throttle = rate.lock().record_and_throttle(value as f64, *bound, now);
        }
        if let Some((bound, rate)) = &self.request {
            // Percentage-seconds of one thread, as Kafka's `nanosToPercentage`.
            let percent = self.started.elapsed().as_secs_f64() * 100.0;
            throttle = throttle.max(rate.lock().record_and_throttle(percent, *bound, now));
        }
        if throttle == 0 {
            return outcome;
        }
        // Deliberate difference from Kafka: a throttled Fetch answer keeps its records (Kafka
        // answers it empty and takes its bytes back out of the rate). Measured against Kafka
        // 4.4's own consumer quota in tests/gateway/test_quotas.py, withholding the records this
        // way gave a librdkafka consumer two thirds of the rate Kafka gives it; delivering them
        // and muting for the throttle keeps it within a few percent of the cap.
        self.mute(throttle);
        tracing::debug!(api = %self.api, throttle_ms = throttle, "client quota exceeded; muting the connection");
        match outcome {
            Outcome::Respond(frame) => {
                Outcome::Respond(set_throttle(self.api, self.version, frame, throttle))
            }
            // Fetch's throttle_time_ms is in the head (the body's first bytes are read into it).
            Outcome::Spliced(mut frame) => {
                frame.head = set_throttle(self.api, self.version, frame.head, throttle);
                Outcome::Spliced(frame)
            }
            other => other,
        }
    }

    /// Mutes the connection for `throttle` ms from now (a longer mute already set stays).
    fn mute(&self, throttle: u64) {
        let until = Instant::now() + Duration::from_millis(throttle);
        let mut muted = self.muted_until.lock();
        if muted.is_none_or(|t| t < until) {
            *muted = Some(until);
        }
    }
}

/// The answer frame with `throttle_time_ms` at least `throttle` (the upstream's own throttle
/// is kept when larger). Fetch's is its first field, patched in place (the answer's megabytes
/// are not copied); Produce's follows its topics, so the (small) answer is re-encoded. Other
/// answers keep the upstream's value (they are muted all the same).
fn set_throttle(api: ApiKey, version: i16, mut frame: Vec<u8>, throttle: u64) -> Vec<u8> {
    let ms = i32::try_from(throttle).unwrap_or(i32::MAX);
    match api {
        ApiKey::Fetch => {
            let flexible = ApiKey::Fetch.response_header_version(version) >= 1;
            if let Some(at) = fetch_throttle_offset(&frame, flexible) {
                if let Some(field) = frame.get_mut(at..at + 4) {
                    let theirs = i32::from_be_bytes([field[0], field[1], field[2], field[3]]);
                    field.copy_from_slice(&theirs.max(ms).to_be_bytes());
                }
            }
            frame
        }
        ApiKey::Produce => {
            let Some(body) = frame.get(4..) else {
                return frame;
            };
            let Ok((header, mut response)) =
                decode_broker_response_frame::<ProduceResponse<'_>>(body, version)
            else {
                return frame;
            };
            response.throttle_time_ms = response.throttle_time_ms.max(ms);
            let mut out = Vec::with_capacity(frame.len());
            match encode_response_frame(&mut out, header.correlation_id, version, &response) {
                Ok(()) => out,
                Err(_) => frame,
            }
        }
        _ => frame,
    }
}

/// Where a Fetch answer's `throttle_time_ms` starts: after the size prefix, the correlation id
/// and (flexible header) the header's tagged fields.
fn fetch_throttle_offset(frame: &[u8], flexible: bool) -> Option<usize> {
    let mut at = 8;
    if flexible {
        let (count, used) = varint(frame.get(at..)?)?;
        at += used;
        for _ in 0..count {
            let (_tag, used) = varint(frame.get(at..)?)?;
            at += used;
            let (len, used) = varint(frame.get(at..)?)?;
            at += used + usize::try_from(len).ok()?;
        }
    }
    (frame.len() >= at + 4).then_some(at)
}

/// An unsigned varint and its length.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, byte) in bytes.iter().take(5).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_sensor_counts_ten_whole_windows() {
        let mut rate = Rate::default();
        rate.record(10_000.0, 0);
        // 10,000 over at least 10 s.
        assert_eq!(rate.measure(0), 1000.0);
        assert_eq!(rate.measure(500), 10_000.0 / 10.5);
    }

    #[test]
    fn samples_older_than_the_span_are_forgotten() {
        let mut rate = Rate::default();
        rate.record(5_000.0, 0);
        rate.record(5_000.0, 3_000);
        assert_eq!(rate.measure(3_000), 1000.0);
        // At 11.5 s the first sample (started at 0) is gone; the second spans 8.5 s, counted
        // as 8 whole windows plus the 2 missing of the 10: 10.5 s.
        assert_eq!(rate.measure(11_500), 5_000.0 / 10.5);
        assert_eq!(rate.measure(20_000), 0.0);
    }

    #[test]
    fn the_throttle_is_the_time_back_to_the_bound() {
        let mut rate = Rate::default();
        // 20,000 bytes at once against 1,000/s: the rate reads 2,000/s over 10 s, twice the
        // bound, so 10 s of silence bring it back.
        assert_eq!(rate.record_and_throttle(20_000.0, 1000.0, 0), 10_000);
        let mut within = Rate::default();
        assert_eq!(within.record_and_throttle(9_000.0, 1000.0, 0), 0);
        let mut zero = Rate::default();
        assert_eq!(zero.record_and_throttle(1.0, 0.0, 0), IDLE_MS);
    }

    /// The bytes a producer gets through over three whole quota periods, measured from half
    /// a period in, when it sends `request` bytes, waits out each throttle, and sends again at
    /// least `gap_ms` later.
    fn produced_per_second(request: f64, gap_ms: u64, bound: f64) -> f64 {
        let mut rate = Rate::default();
        let mut now = 0u64;
        let (from, to) = (5_500, 5_500 + 3 * SAMPLES * WINDOW_MS);
        let mut within = 0.0;
        while now < to {
            let throttle = rate.record_and_throttle(request, bound, now);
            if now >= from {
                within += request;
            }
            now += throttle.max(gap_ms);
        }
        within / ((to - from) as f64 / 1000.0)
    }

    #[test]
    fn a_producer_offering_more_than_its_quota_gets_the_quota() {
        // Kafka's rate lets a fast producer send about ten samples' worth at once, then
        // throttles it until that sample expires: a sawtooth with an 11 s period, which a
        // window of whole periods with its edges between bursts measures as the bound.
        let bound = 1_048_576.0;
        for (request, gap_ms) in [
            (102_400.0, 50),
            (123_000.0, 5),
            (30_000.0, 5),
            (10_240.0, 2),
        ] {
            let per_second = produced_per_second(request, gap_ms, bound);
            assert!(
                (per_second / bound - 1.0).abs() < 0.03,
                "{request} B every {gap_ms} ms: {per_second} B/s against {bound}"
            );
        }
    }

    #[test]
    fn fetch_throttle_is_patched_in_place_after_the_header() {
        // size, correlation id, no tagged fields, throttle 7, then the rest.
        let mut frame = vec![0, 0, 0, 12, 0, 0, 0, 9, 0, 0, 0, 0, 7, 1, 2, 3];
        frame = set_throttle(ApiKey::Fetch, 12, frame, 250);
        assert_eq!(&frame[9..13], &250i32.to_be_bytes());
        // The upstream's larger throttle stays.
        frame[9..13].copy_from_slice(&900i32.to_be_bytes());
        frame = set_throttle(ApiKey::Fetch, 12, frame, 250);
        assert_eq!(&frame[9..13], &900i32.to_be_bytes());
        // Non-flexible (v11): right after the correlation id.
        let frame = set_throttle(
            ApiKey::Fetch,
            11,
            vec![0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0, 0],
            5,
        );
        assert_eq!(&frame[8..12], &5i32.to_be_bytes());
        // A header tagged field is skipped.
        let with_tag = vec![0, 0, 0, 0, 0, 0, 0, 9, 1, 3, 2, 0xaa, 0xbb, 0, 0, 0, 0];
        assert_eq!(fetch_throttle_offset(&with_tag, true), Some(13));
        assert_eq!(fetch_throttle_offset(&with_tag[..14], true), None);
    }
}
