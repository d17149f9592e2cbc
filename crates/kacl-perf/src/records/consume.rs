//! `consume`: sessionless Fetch requests (session 0, epoch -1: every fetch names all its
//! partitions, as a kacl gateway forwards them) for every partition of the topic, each leader
//! asked for its own partitions, split over `--connections` per leader, one fetch at a time
//! per connection. Records are counted from the batch headers ([`batch::walk`]), never
//! decoded; the next offset of each partition is the one after its last complete batch. A
//! broker answers with whole batches, so the first may begin before the fetch offset: its
//! records before that offset are not counted (as a consumer skips them).
//!
//! A partition answering with a retriable error is asked again after a short pause; one
//! answering with any other error is no longer fetched. Both are counted by name.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kacl_client::net::BrokerConnection;
use kacl_client::AdminConfig;
use kacl_protocol::messages::fetch::{FetchPartition, FetchRequest, FetchResponse, FetchTopic};
use kacl_protocol::messages::list_offsets::{
    ListOffsetsPartition, ListOffsetsRequest, ListOffsetsResponse, ListOffsetsTopic,
};
use kacl_protocol::{ApiKey, ErrorCode, Message, Uuid, VersionRange};
use tokio::time::Instant;

use super::batch;
use super::cluster::{self, IfMissing, Layout};
use super::report::{RecordsReport, Setting, Stopped, Tally};
use super::Budget;
use crate::args::{RecordsPerfArgs, StartAt};
use crate::report::{self, Progress};

/// The pause before asking again after a retriable error.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// The Fetch version for `layout`: v13+ names topics by id, so without one v12 at most.
fn fetch_version(broker: &BrokerConnection, layout: &Layout) -> anyhow::Result<i16> {
    let ours = FetchRequest::VERSIONS;
    let max = if layout.topic_id == Uuid::ZERO {
        ours.max.min(12)
    } else {
        ours.max
    };
    Ok(broker
        .versions
        .pick(ApiKey::Fetch, VersionRange::between(ours.min, max))?)
}

/// Splits `partitions` over at most `connections` sets, round robin.
fn split(partitions: &[i32], connections: usize) -> Vec<Vec<i32>> {
    let sets = connections.min(partitions.len()).max(1);
    let mut out = vec![Vec::new(); sets];
    for (i, partition) in partitions.iter().enumerate() {
        out[i % sets].push(*partition);
    }
    out
}

/// The earliest (-2) or latest (-1) offset of each of `partitions`.
async fn list_offsets(
    broker: &BrokerConnection,
    topic: &str,
    partitions: &[i32],
    timestamp: i64,
) -> anyhow::Result<BTreeMap<i32, i64>> {
    let version = broker
        .versions
        .pick(ApiKey::ListOffsets, ListOffsetsRequest::VERSIONS)?;
    let request = ListOffsetsRequest {
        replica_id: -1,
        isolation_level: 0,
        topics: vec![ListOffsetsTopic {
            name: Cow::Borrowed(topic),
            partitions: partitions
                .iter()
                .map(|p| ListOffsetsPartition {
                    partition_index: *p,
                    current_leader_epoch: -1,
                    timestamp,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        timeout_ms: 30_000,
        ..Default::default()
    };
    let response = broker.conn.send(version, &request).await?;
    let body: ListOffsetsResponse<'_> = response.decode()?;
    let mut offsets = BTreeMap::new();
    for t in &body.topics {
        for p in &t.partitions {
            let code = ErrorCode::from_code(p.error_code);
            if !code.is_ok() {
                anyhow::bail!(
                    "ListOffsets for {topic}-{}: {}",
                    p.partition_index,
                    code.name()
                );
            }
            offsets.insert(p.partition_index, p.offset);
        }
    }
    for p in partitions {
        if !offsets.contains_key(p) {
            anyhow::bail!("ListOffsets did not answer for {topic}-{p}");
        }
    }
    Ok(offsets)
}

/// One connection's fetcher.
struct Fetcher {
    broker: Arc<BrokerConnection>,
    version: i16,
    offsets: BTreeMap<i32, i64>,
}

/// What every fetcher shares.
struct Shared {
    topic: String,
    topic_id: Uuid,
    max_wait_ms: i32,
    max_bytes: i32,
    partition_max_bytes: i32,
    end: Instant,
    budget: Budget,
    progress: Arc<Progress>,
    /// Turns true once `--count` records arrived: fetches still waiting for data are
    /// abandoned rather than held for `max_wait_ms`.
    done: tokio::sync::watch::Sender<bool>,
}

/// Runs `consume`.
pub async fn run(args: &RecordsPerfArgs, config: &AdminConfig) -> anyhow::Result<RecordsReport> {
    let layout = cluster::layout(config, &args.topic, IfMissing::Fail).await?;
    let groups = layout.by_leader();
    let mut fetchers = Vec::new();
    for (leader, partitions) in &groups {
        let sets = split(partitions, args.connections);
        let brokers = cluster::connect(config, leader, sets.len()).await?;
        for (broker, set) in brokers.into_iter().zip(sets) {
            let offsets = match args.from {
                StartAt::Offset(offset) => set.iter().map(|p| (*p, offset)).collect(),
                StartAt::Earliest => list_offsets(&broker, &layout.topic, &set, -2).await?,
                StartAt::Latest => list_offsets(&broker, &layout.topic, &set, -1).await?,
            };
            let version = fetch_version(&broker, &layout)?;
            fetchers.push(Fetcher {
                broker,
                version,
                offsets,
            });
        }
    }
    let api_version = fetchers.first().map_or(-1, |f| f.version);
    let connections = fetchers.len();
    let progress = Arc::new(Progress::default());
    let start = Instant::now();
    let shared = Arc::new(Shared {
        topic: layout.topic.clone(),
        topic_id: layout.topic_id,
        max_wait_ms: args.max_wait_ms,
        max_bytes: args.max_bytes,
        partition_max_bytes: args.partition_max_bytes,
        end: start + args.duration,
        budget: Budget::new(args.count),
        progress: Arc::clone(&progress),
        done: tokio::sync::watch::Sender::new(false),
    });
    let _line = report::spawn_progress_line_of(Arc::clone(&progress), args.count, "records");
    let mut tasks = tokio::task::JoinSet::new();
    for fetcher in fetchers {
        tasks.spawn(fetch_loop(Arc::clone(&shared), fetcher));
    }
    let mut merged = Tally::new("fetch")?;
    let mut high_watermarks = 0i64;
    let mut gave_up = 0;
    while let Some(joined) = tasks.join_next().await {
        let (tally, marks, lost) = joined??;
        merged.merge(&tally);
        high_watermarks += marks.values().sum::<i64>();
        gave_up += usize::from(lost);
    }
    let elapsed = start.elapsed();
    let stopped_by = if shared.budget.spent() {
        Stopped::Count
    } else if gave_up == connections {
        Stopped::Failures
    } else {
        Stopped::Duration
    };
    let setting = Setting {
        topic: layout.topic.clone(),
        partitions: layout.leaders.len(),
        leaders: groups.len(),
        connections,
        in_flight: 1,
        api_version,
        record_size: None,
        batch_records: None,
        acks: None,
        rate: None,
    };
    let mut report = RecordsReport::new("consume", setting, elapsed, stopped_by, &merged);
    report.high_watermarks = Some(high_watermarks);
    Ok(report)
}

/// Fetches until the end, the budget, or nothing is left to fetch (every partition failed,
/// or the connection was lost: then the last value is true). Returns the tally and the last
/// high watermark of each partition.
async fn fetch_loop(
    shared: Arc<Shared>,
    mut fetcher: Fetcher,
) -> anyhow::Result<(Tally, BTreeMap<i32, i64>, bool)> {
    let mut tally = Tally::new("fetch")?;
    let mut marks = BTreeMap::new();
    loop {
        let now = Instant::now();
        if now >= shared.end || shared.budget.spent() {
            return Ok((tally, marks, false));
        }
        if fetcher.offsets.is_empty() {
            return Ok((tally, marks, true));
        }
        let request = FetchRequest {
            replica_id: -1,
            max_wait_ms: shared
                .max_wait_ms
                .min(i32::try_from((shared.end - now).as_millis()).unwrap_or(i32::MAX)),
            min_bytes: 1,
            max_bytes: shared.max_bytes,
            isolation_level: 0,
            session_id: 0,
            session_epoch: -1,
            topics: vec![FetchTopic {
                topic: Cow::Borrowed(shared.topic.as_str()),
                topic_id: shared.topic_id,
                partitions: fetcher
                    .offsets
                    .iter()
                    .map(|(partition, offset)| FetchPartition {
                        partition: *partition,
                        current_leader_epoch: -1,
                        fetch_offset: *offset,
                        last_fetched_epoch: -1,
                        log_start_offset: -1,
                        partition_max_bytes: shared.partition_max_bytes,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            forgotten_topics_data: Vec::new(),
            rack_id: Cow::Borrowed(""),
            ..Default::default()
        };
        let sent = Instant::now();
        let mut done = shared.done.subscribe();
        let answer = tokio::select! {
            answer = fetcher.broker.conn.send(fetcher.version, &request) => answer,
            _ = done.wait_for(|done| *done) => return Ok((tally, marks, false)),
        };
        let response = match answer {
            Ok(response) => response,
            Err(err) => {
                tally.failure(err);
                if fetcher.broker.conn.is_closed() {
                    return Ok((tally, marks, true));
                }
                tokio::time::sleep(RETRY_BACKOFF).await;
                continue;
            }
        };
        let latency = sent.elapsed();
        let body: FetchResponse<'_> = response
            .decode()
            .with_context(|| format!("Fetch v{} answer", fetcher.version))?;
        if body.error_code != 0 {
            tally.code(body.error_code);
            if !ErrorCode::from_code(body.error_code).is_retriable() {
                return Ok((tally, marks, true));
            }
            tokio::time::sleep(RETRY_BACKOFF).await;
            continue;
        }
        let mut records = 0u64;
        let mut bytes = 0u64;
        let mut retry = false;
        for topic in &body.responses {
            for p in &topic.partitions {
                if !fetcher.offsets.contains_key(&p.partition_index) {
                    continue;
                }
                if p.error_code != 0 {
                    tally.code(p.error_code);
                    if ErrorCode::from_code(p.error_code).is_retriable() {
                        retry = true;
                    } else {
                        fetcher.offsets.remove(&p.partition_index);
                    }
                    continue;
                }
                marks.insert(p.partition_index, p.high_watermark);
                let Some(data) = p.records.as_deref() else {
                    continue;
                };
                let from = fetcher
                    .offsets
                    .get(&p.partition_index)
                    .copied()
                    .unwrap_or(0);
                let walk = batch::walk(data, from);
                records += walk.records;
                bytes += walk.bytes;
                if let Some(next) = walk.next_offset {
                    fetcher.offsets.insert(p.partition_index, next);
                }
            }
        }
        tally.ops.record(latency, records);
        tally.bytes += bytes;
        shared.progress.add(records);
        if shared.budget.add(records) {
            shared.done.send_replace(true);
        }
        if retry {
            tokio::time::sleep(RETRY_BACKOFF).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_split_round_robin() {
        assert_eq!(split(&[0, 1, 2, 3, 4], 2), vec![vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(split(&[0, 1], 8), vec![vec![0], vec![1]]);
        assert_eq!(split(&[7], 1), vec![vec![7]]);
    }
}
