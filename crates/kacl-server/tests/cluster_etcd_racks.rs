//! Rack-aware placement in a cluster on real etcd: three nodes in two racks (`broker.rack`);
//! CreateTopics and CreatePartitions put every partition of replication factor 2 in both
//! racks and give each node the same number of leaders. Skipped (one line) when etcd is not
//! installed, unless KACL_REQUIRE_EXTERNAL=1.

mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{decode, ServerBuilder, TestServer};
use kacl_protocol::messages::create_partitions::{
    CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopic,
};
use kacl_protocol::messages::create_topics::{
    CreatableTopic, CreateTopicsRequest, CreateTopicsResponse,
};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataResponse};
use kacl_test_support::etcd::Etcd;

async fn node(etcd: &Etcd, node_id: i32, rack: &str) -> TestServer {
    ServerBuilder::plaintext()
        .etcd(&etcd.endpoint(), node_id)
        .property("broker.rack", rack)
        .start()
        .await
        .into()
}

/// Each partition's replicas, by partition index, as Metadata reports them.
async fn replicas(client: &mut common::Client) -> (Vec<i32>, Vec<Vec<i32>>) {
    let all_topics = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    let payload = client.call(12, &all_topics).await;
    let response = decode::<MetadataResponse>(&payload, 12);
    let brokers = response.brokers.iter().map(|b| b.node_id).collect();
    let topic = response
        .topics
        .iter()
        .find(|t| t.name.as_deref() == Some("zoned"))
        .expect("the topic");
    let mut partitions: Vec<_> = topic.partitions.iter().collect();
    partitions.sort_by_key(|p| p.partition_index);
    (
        brokers,
        partitions.iter().map(|p| p.replica_nodes.clone()).collect(),
    )
}

fn check(placed: &[Vec<i32>], count: usize) {
    let rack = |b: i32| if b == 3 { "b" } else { "a" };
    assert_eq!(placed.len(), count, "{placed:?}");
    let mut leaders: BTreeMap<i32, usize> = BTreeMap::new();
    for replicas in placed {
        assert_eq!(replicas.len(), 2, "{placed:?}");
        assert_ne!(rack(replicas[0]), rack(replicas[1]), "{placed:?}");
        *leaders.entry(replicas[0]).or_default() += 1;
    }
    let per_node = count / 3;
    assert_eq!(
        leaders.values().copied().collect::<Vec<_>>(),
        vec![per_node; 3],
        "{placed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn partitions_span_both_racks_and_leaders_are_balanced() {
    let Some(etcd) = Etcd::start() else { return };
    let a = node(&etcd, 1, "a").await;
    let _b = node(&etcd, 2, "a").await;
    let _c = node(&etcd, 3, "b").await;
    let mut client = a.client().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let payload = client.call(12, &MetadataRequest::default()).await;
        if decode::<MetadataResponse>(&payload, 12).brokers.len() == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "three live nodes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: Cow::Borrowed("zoned"),
            num_partitions: 6,
            replication_factor: 2,
            ..Default::default()
        }],
        timeout_ms: 5000,
        ..Default::default()
    };
    let payload = client.call(7, &request).await;
    let created = decode::<CreateTopicsResponse>(&payload, 7);
    assert_eq!(created.topics[0].error_code, 0, "{created:?}");
    let (brokers, placed) = replicas(&mut client).await;
    assert_eq!(brokers.len(), 3);
    check(&placed, 6);

    let request = CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: Cow::Borrowed("zoned"),
            count: 9,
            assignments: None,
            ..Default::default()
        }],
        timeout_ms: 5000,
        ..Default::default()
    };
    let payload = client.call(3, &request).await;
    let added = decode::<CreatePartitionsResponse>(&payload, 3);
    assert_eq!(added.results[0].error_code, 0, "{added:?}");
    let (_, placed) = replicas(&mut client).await;
    check(&placed, 9);
}
