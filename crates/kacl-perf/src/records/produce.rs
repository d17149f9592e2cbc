//! `produce`: Produce requests of one RecordBatch v2 each, to each partition's leader,
//! `--in-flight` outstanding on each of `--connections` per leader.
//!
//! Every in-flight slot of a connection is a task of its own that sends one request and waits
//! for its answer (the connection pipelines them: one writer, answers matched by correlation
//! id), so exactly `in_flight` requests are outstanding while the run lasts. A slot keeps one
//! encoded batch and re-sends it with a fresh timestamp (and CRC) each time; the broker
//! assigns the offsets. Slots take the partitions of their leader in turn.
//!
//! With `--rate`, slots draw evenly spaced send times from one shared schedule and each
//! request's latency is counted from its scheduled time, so a broker that falls behind the
//! schedule shows as latency rather than as a slower schedule (no coordinated omission).

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kacl_client::net::{encode_request, BrokerConnection, OutgoingFrame};
use kacl_client::AdminConfig;
use kacl_protocol::messages::produce::{
    PartitionProduceData, ProduceRequest, ProduceResponse, TopicProduceData,
};
use kacl_protocol::{ApiKey, Message, Uuid, VersionRange};
use tokio::time::Instant;

use super::batch;
use super::cluster::{self, IfMissing, Layout};
use super::report::{RecordsReport, Setting, Stopped, Tally};
use super::Budget;
use crate::args::RecordsPerfArgs;
use crate::report::{self, Progress};

/// Evenly spaced send times shared by every slot (`--rate`).
#[derive(Debug)]
struct Pacer {
    start: Instant,
    rate: f64,
    next: AtomicU64,
}

impl Pacer {
    /// The next free send time.
    fn next(&self) -> Instant {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        self.start + Duration::from_secs_f64(k as f64 / self.rate)
    }
}

/// What every slot shares.
struct Shared {
    topic: String,
    topic_id: Uuid,
    client_id: String,
    acks: i16,
    timeout_ms: i32,
    batch_records: u64,
    value: Vec<u8>,
    end: Instant,
    budget: Budget,
    pacer: Option<Pacer>,
    progress: Arc<Progress>,
}

/// Record values: pseudo-random capital letters, as Kafka's producer-perf-test makes them.
fn payload(size: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b'A' + (state % 26) as u8
        })
        .collect()
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The Produce version for `layout`: v13 names topics by id, so without one v12 at most.
fn produce_version(broker: &BrokerConnection, layout: &Layout) -> anyhow::Result<i16> {
    let ours = ProduceRequest::VERSIONS;
    let max = if layout.topic_id == Uuid::ZERO {
        ours.max.min(12)
    } else {
        ours.max
    };
    Ok(broker
        .versions
        .pick(ApiKey::Produce, VersionRange::between(ours.min, max))?)
}

/// Runs `produce`.
pub async fn run(args: &RecordsPerfArgs, config: &AdminConfig) -> anyhow::Result<RecordsReport> {
    let layout = cluster::layout(
        config,
        &args.topic,
        IfMissing::Create(args.partitions, args.replication_factor),
    )
    .await?;
    let groups = layout.by_leader();
    let mut connections = Vec::new();
    for (leader, partitions) in &groups {
        let partitions: Arc<[i32]> = partitions.clone().into();
        for broker in cluster::connect(config, leader, args.connections).await? {
            let version = produce_version(&broker, &layout)?;
            connections.push((broker, Arc::clone(&partitions), version));
        }
    }
    let api_version = connections.first().map_or(-1, |(_, _, v)| *v);
    let progress = Arc::new(Progress::default());
    let start = Instant::now();
    let shared = Arc::new(Shared {
        topic: layout.topic.clone(),
        topic_id: layout.topic_id,
        client_id: config.client_id.clone(),
        acks: args.acks,
        timeout_ms: args.timeout_ms,
        batch_records: u64::from(args.batch_records),
        value: payload(args.record_size),
        end: start + args.duration,
        budget: Budget::new(args.count),
        pacer: args.rate.map(|rate| Pacer {
            start,
            rate,
            next: AtomicU64::new(0),
        }),
        progress: Arc::clone(&progress),
    });
    let _line = report::spawn_progress_line_of(Arc::clone(&progress), args.count, "records");
    let mut slots = tokio::task::JoinSet::new();
    for (c, (broker, partitions, version)) in connections.iter().enumerate() {
        for s in 0..args.in_flight {
            let first = c * args.in_flight + s;
            slots.spawn(slot(
                Arc::clone(&shared),
                Arc::clone(broker),
                Arc::clone(partitions),
                first,
                *version,
            ));
        }
    }
    let mut merged = Tally::new("produce")?;
    let mut gave_up = 0;
    let total = slots.len();
    while let Some(joined) = slots.join_next().await {
        let (tally, lost) = joined??;
        merged.merge(&tally);
        gave_up += usize::from(lost);
    }
    let elapsed = start.elapsed();
    let stopped_by = if shared.budget.spent() {
        Stopped::Count
    } else if gave_up == total {
        Stopped::Failures
    } else {
        Stopped::Duration
    };
    let setting = Setting {
        topic: layout.topic.clone(),
        partitions: layout.leaders.len(),
        leaders: groups.len(),
        connections: connections.len(),
        in_flight: args.in_flight,
        api_version,
        record_size: Some(args.record_size),
        batch_records: Some(args.batch_records),
        acks: Some(args.acks),
        rate: args.rate,
    };
    Ok(RecordsReport::new(
        "produce", setting, elapsed, stopped_by, &merged,
    ))
}

/// One in-flight slot: request, answer, next request, until the end, the budget, or the loss
/// of the connection (then the second value is true).
async fn slot(
    shared: Arc<Shared>,
    broker: Arc<BrokerConnection>,
    partitions: Arc<[i32]>,
    first: usize,
    version: i16,
) -> anyhow::Result<(Tally, bool)> {
    let mut tally = Tally::new("produce")?;
    let mut buffer = Vec::new();
    let mut encoded = 0u64;
    let mut turn = first;
    loop {
        if Instant::now() >= shared.end {
            return Ok((tally, false));
        }
        let count = shared.budget.claim(shared.batch_records);
        if count == 0 {
            return Ok((tally, false));
        }
        let scheduled = match &shared.pacer {
            Some(pacer) => {
                let at = pacer.next();
                if at >= shared.end {
                    return Ok((tally, false));
                }
                tokio::time::sleep_until(at).await;
                at
            }
            None => Instant::now(),
        };
        if encoded == count {
            batch::restamp(&mut buffer, now_ms());
        } else {
            buffer.clear();
            batch::encode_batch(
                &mut buffer,
                i32::try_from(count).unwrap_or(i32::MAX),
                &shared.value,
                now_ms(),
            );
            encoded = count;
        }
        let partition = partitions[turn % partitions.len()];
        turn += 1;
        let request = ProduceRequest {
            transactional_id: None,
            acks: shared.acks,
            timeout_ms: shared.timeout_ms,
            topic_data: vec![TopicProduceData {
                name: Cow::Borrowed(shared.topic.as_str()),
                topic_id: shared.topic_id,
                partition_data: vec![PartitionProduceData {
                    index: partition,
                    records: Some(Cow::Borrowed(&buffer)),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        if shared.acks == 0 {
            // No answer will come: the request counts once it is queued.
            let frame = encode_request(&shared.client_id, 0, version, &request)?;
            match broker
                .conn
                .send_frame(OutgoingFrame::whole(frame), false)
                .await
            {
                Ok(_) => {
                    tally.ops.record(Duration::ZERO, count);
                    tally.bytes += buffer.len() as u64;
                    shared.progress.add(count);
                }
                Err(err) => {
                    tally.failure(err);
                    return Ok((tally, true));
                }
            }
            continue;
        }
        match broker.conn.send(version, &request).await {
            Ok(response) => {
                let body: ProduceResponse<'_> = match response.decode() {
                    Ok(body) => body,
                    Err(err) => {
                        tally.failure(err);
                        continue;
                    }
                };
                let latency = scheduled.elapsed();
                let mut answered = false;
                let mut failed = false;
                for topic in &body.responses {
                    for p in &topic.partition_responses {
                        answered |= p.index == partition;
                        if p.error_code != 0 {
                            tally.code(p.error_code);
                            failed = true;
                        }
                    }
                }
                if !answered {
                    tally.failure(format!(
                        "the Produce answer does not mention partition {partition}"
                    ));
                } else if !failed {
                    tally.ops.record(latency, count);
                    tally.bytes += buffer.len() as u64;
                    shared.progress.add(count);
                }
            }
            Err(err) => {
                tally.failure(err);
                if broker.conn.is_closed() {
                    return Ok((tally, true));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_is_letters_of_the_size_asked() {
        let value = payload(1024);
        assert_eq!(value.len(), 1024);
        assert!(value.iter().all(u8::is_ascii_uppercase));
        assert!(value.iter().any(|b| *b != value[0]));
    }

    #[tokio::test]
    async fn pacer_spaces_send_times() {
        let start = Instant::now();
        let pacer = Pacer {
            start,
            rate: 1000.0,
            next: AtomicU64::new(0),
        };
        assert_eq!(pacer.next(), start);
        assert_eq!(pacer.next(), start + Duration::from_millis(1));
        assert_eq!(pacer.next(), start + Duration::from_millis(2));
    }
}
