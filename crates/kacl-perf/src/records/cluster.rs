//! Where a topic's partitions live: Metadata from a bootstrap server (creating the topic first
//! with CreateTopics when `produce` finds it missing), and each partition's leader as the
//! address its broker advertises. Through a kacl gateway these are the gateway's own
//! endpoints, as they should be.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kacl_client::net::{self, BrokerConnection};
use kacl_client::{Admin, AdminConfig, NewTopic, TopicOptions};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic, MetadataResponse};
use kacl_protocol::{ApiKey, ErrorCode, Message, Uuid};

/// How long to wait for a topic's partitions to have leaders (after creating it).
const LEADERS_WAIT: Duration = Duration::from_secs(15);

/// A topic and the leader of each partition.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The topic name.
    pub topic: String,
    /// The topic id, or [`Uuid::ZERO`] when the broker reported none (Metadata v9 or older).
    pub topic_id: Uuid,
    /// Partition index to the leader's address (`host:port`), in index order.
    pub leaders: BTreeMap<i32, String>,
}

impl Layout {
    /// The partitions of each leader, leaders in address order.
    pub fn by_leader(&self) -> Vec<(String, Vec<i32>)> {
        let mut grouped: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (partition, leader) in &self.leaders {
            grouped.entry(leader).or_default().push(*partition);
        }
        grouped
            .into_iter()
            .map(|(leader, partitions)| (leader.to_owned(), partitions))
            .collect()
    }
}

/// `host:port`, with brackets around an IPv6 host.
pub fn address(host: &str, port: i32) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Opens a connection to the first bootstrap server that answers.
pub async fn bootstrap(config: &AdminConfig) -> anyhow::Result<Arc<BrokerConnection>> {
    let mut last = None;
    for addr in &config.bootstrap_servers {
        match net::open(addr, config).await {
            Ok(broker) => return Ok(broker),
            Err(err) => last = Some(format!("{addr}: {err}")),
        }
    }
    Err(anyhow::anyhow!(
        "no bootstrap server answered ({})",
        last.unwrap_or_else(|| "none given".into())
    ))
}

/// What one Metadata answer said about the topic.
enum Lookup {
    Missing,
    /// Some partition has no leader (yet) or an error.
    NotReady(String),
    Ready(Layout),
}

async fn lookup(broker: &BrokerConnection, topic: &str) -> anyhow::Result<Lookup> {
    let version = broker
        .versions
        .pick(ApiKey::Metadata, MetadataRequest::VERSIONS)?;
    let request = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic {
            name: Some(Cow::Borrowed(topic)),
            ..Default::default()
        }]),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let response = broker.conn.send(version, &request).await?;
    let body: MetadataResponse<'_> = response.decode()?;
    let brokers: HashMap<i32, String> = body
        .brokers
        .iter()
        .map(|b| (b.node_id, address(&b.host, b.port)))
        .collect();
    let Some(found) = body
        .topics
        .iter()
        .find(|t| t.name.as_deref() == Some(topic))
    else {
        return Ok(Lookup::Missing);
    };
    match ErrorCode::from_code(found.error_code) {
        ErrorCode::None => {}
        ErrorCode::UnknownTopicOrPartition => return Ok(Lookup::Missing),
        ErrorCode::LeaderNotAvailable => {
            return Ok(Lookup::NotReady("LEADER_NOT_AVAILABLE".into()))
        }
        code => anyhow::bail!("Metadata for topic {topic}: {}", code.name()),
    }
    if found.partitions.is_empty() {
        return Ok(Lookup::NotReady("no partitions yet".into()));
    }
    let mut leaders = BTreeMap::new();
    for partition in &found.partitions {
        let code = ErrorCode::from_code(partition.error_code);
        if !code.is_ok() && code != ErrorCode::ReplicaNotAvailable {
            return Ok(Lookup::NotReady(format!(
                "partition {}: {}",
                partition.partition_index,
                code.name()
            )));
        }
        let Some(leader) = brokers.get(&partition.leader_id) else {
            return Ok(Lookup::NotReady(format!(
                "partition {} has no known leader (node {})",
                partition.partition_index, partition.leader_id
            )));
        };
        leaders.insert(partition.partition_index, leader.clone());
    }
    Ok(Lookup::Ready(Layout {
        topic: topic.to_owned(),
        topic_id: found.topic_id,
        leaders,
    }))
}

/// What to do about a missing topic.
#[derive(Debug, Clone, Copy)]
pub enum IfMissing {
    /// Fail: nothing to consume.
    Fail,
    /// Create it with this many partitions and this replication factor (`None`: the broker's
    /// default).
    Create(i32, Option<i16>),
}

/// The topic's layout once every partition has a leader; creates the topic first if missing
/// and `if_missing` says so.
pub async fn layout(
    config: &AdminConfig,
    topic: &str,
    if_missing: IfMissing,
) -> anyhow::Result<Layout> {
    let broker = bootstrap(config).await?;
    let deadline = tokio::time::Instant::now() + LEADERS_WAIT;
    let mut created = false;
    loop {
        let why = match lookup(&broker, topic).await? {
            Lookup::Ready(layout) => return Ok(layout),
            Lookup::Missing => match if_missing {
                IfMissing::Fail => anyhow::bail!("topic {topic} does not exist"),
                IfMissing::Create(partitions, replication) if !created => {
                    create(config, topic, partitions, replication).await?;
                    created = true;
                    continue;
                }
                IfMissing::Create(..) => "the topic is not in Metadata yet".to_owned(),
            },
            Lookup::NotReady(why) => why,
        };
        if tokio::time::Instant::now() >= deadline {
            anyhow::bail!(
                "topic {topic} not ready after {} s: {why}",
                LEADERS_WAIT.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn create(
    config: &AdminConfig,
    topic: &str,
    partitions: i32,
    replication: Option<i16>,
) -> anyhow::Result<()> {
    let admin = Admin::connect(config.clone())
        .await
        .context("cannot connect to create the topic")?;
    let new = NewTopic {
        num_partitions: Some(partitions),
        replication_factor: replication,
        ..NewTopic::new(topic)
    };
    let results = admin
        .create_topics(vec![new], TopicOptions::default())
        .await;
    for result in results {
        match result {
            Ok(()) => {}
            Err(err) if err.code() == Some(ErrorCode::TopicAlreadyExists) => {}
            Err(err) => return Err(err).with_context(|| format!("cannot create topic {topic}")),
        }
    }
    eprintln!("created topic {topic} ({partitions} partition(s))");
    Ok(())
}

/// Opens `count` connections to `leader`.
pub async fn connect(
    config: &AdminConfig,
    leader: &str,
    count: usize,
) -> anyhow::Result<Vec<Arc<BrokerConnection>>> {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..count {
        let config = config.clone();
        let leader = leader.to_owned();
        tasks.spawn(async move {
            net::open(&leader, &config)
                .await
                .with_context(|| format!("cannot connect to the leader {leader}"))
        });
    }
    let mut connections = Vec::with_capacity(count);
    while let Some(joined) = tasks.join_next().await {
        connections.push(joined??);
    }
    Ok(connections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_grouping() {
        assert_eq!(address("broker-1", 9092), "broker-1:9092");
        assert_eq!(address("::1", 9092), "[::1]:9092");
        assert_eq!(address("[::1]", 9092), "[::1]:9092");
        let layout = Layout {
            topic: "t".into(),
            topic_id: Uuid::ZERO,
            leaders: [(0, "b:1"), (1, "a:1"), (2, "b:1")]
                .into_iter()
                .map(|(p, l)| (p, l.to_owned()))
                .collect(),
        };
        assert_eq!(
            layout.by_leader(),
            vec![("a:1".to_owned(), vec![1]), ("b:1".to_owned(), vec![0, 2])]
        );
    }
}
