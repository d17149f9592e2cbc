//! Metadata v0-13 and DescribeCluster v0-1 over TCP.

mod common;

use std::borrow::Cow;

use common::*;
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::describe_cluster::{DescribeClusterRequest, DescribeClusterResponse};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic, MetadataResponse};
use kacl_store::{PartitionRecord, TopicRecord};

fn topic(name: &str, partitions: i32) -> TopicRecord {
    TopicRecord {
        name: name.to_owned(),
        topic_id: kacl_store::random_kafka_uuid(),
        partitions: (0..partitions)
            .map(|i| PartitionRecord {
                partition_index: i,
                replicas: vec![1],
            })
            .collect(),
        configs: Default::default(),
        created_seq: 0,
    }
}

/// A server whose store holds topics `orders` (3 partitions) and `audit` (1).
async fn server_with_topics(properties: &[(&str, &str)]) -> TestServer {
    let server = start(&[]).await;
    server
        .server
        .state()
        .store
        .create_topics(&[topic("orders", 3), topic("audit", 1)])
        .unwrap();
    restart(server, properties).await
}

fn named(names: &[&str]) -> Option<Vec<MetadataRequestTopic<'static>>> {
    Some(
        names
            .iter()
            .map(|n| MetadataRequestTopic {
                name: Some(Cow::Owned(n.to_string())),
                ..Default::default()
            })
            .collect(),
    )
}

async fn metadata(
    client: &mut Client,
    version: i16,
    req: &MetadataRequest<'_>,
) -> MetadataResponse<'static> {
    let payload = client.call(version, req).await;
    kacl_protocol::IntoStatic::into_static(decode::<MetadataResponse>(&payload, version))
}

#[tokio::test]
async fn every_version_names_this_node_as_broker_and_controller() {
    let server = server_with_topics(&[("broker.rack", "rack-a")]).await;
    let addr = server.addr();
    let cluster_id = server.server.state().cluster_id.clone();
    let mut client = server.client().await;
    for version in 0..=13i16 {
        let req = MetadataRequest {
            topics: if version == 0 { Some(Vec::new()) } else { None },
            allow_auto_topic_creation: version < 4,
            ..Default::default()
        };
        let resp = metadata(&mut client, version, &req).await;
        assert_eq!(resp.brokers.len(), 1, "v{version}");
        let broker = &resp.brokers[0];
        assert_eq!(broker.node_id, 1);
        assert_eq!(broker.host, "127.0.0.1");
        assert_eq!(broker.port, i32::from(addr.port()));
        if version >= 1 {
            assert_eq!(resp.controller_id, 1);
            assert_eq!(broker.rack.as_deref(), Some("rack-a"));
        }
        if version >= 2 {
            assert_eq!(resp.cluster_id.as_deref(), Some(cluster_id.as_str()));
        }
        let mut names: Vec<&str> = resp
            .topics
            .iter()
            .map(|t| t.name.as_deref().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, vec!["audit", "orders"], "v{version}");
        let orders = resp
            .topics
            .iter()
            .find(|t| t.name.as_deref() == Some("orders"))
            .unwrap();
        assert_eq!(orders.partitions.len(), 3);
        assert!(orders
            .partitions
            .iter()
            .all(|p| p.leader_id == 1 && p.replica_nodes == vec![1] && p.isr_nodes == vec![1]));
        if version >= 8 {
            assert_eq!(orders.topic_authorized_operations, i32::MIN);
        }
    }
}

#[tokio::test]
async fn named_topics_unknown_topics_and_empty_lists() {
    let server = server_with_topics(&[]).await;
    let mut client = server.client().await;
    let resp = metadata(
        &mut client,
        12,
        &MetadataRequest {
            topics: named(&["orders", "nope", "orders"]),
            ..Default::default()
        },
    )
    .await;
    let got: Vec<(&str, i16)> = resp
        .topics
        .iter()
        .map(|t| (t.name.as_deref().unwrap(), t.error_code))
        .collect();
    assert_eq!(got, vec![("orders", 0), ("nope", 3)]);
    // v1+: an empty list asks for no topics.
    let resp = metadata(
        &mut client,
        1,
        &MetadataRequest {
            topics: Some(Vec::new()),
            ..Default::default()
        },
    )
    .await;
    assert!(resp.topics.is_empty());
    // v10+: by topic id.
    let orders_id = resp_topic_id(&mut client).await;
    let by_id = MetadataRequest {
        topics: Some(vec![
            MetadataRequestTopic {
                topic_id: orders_id,
                name: None,
                ..Default::default()
            },
            MetadataRequestTopic {
                topic_id: Uuid([7; 16]),
                name: None,
                ..Default::default()
            },
        ]),
        ..Default::default()
    };
    let resp = metadata(&mut client, 12, &by_id).await;
    // Kafka's order: unknown ids first, then the topics found.
    assert_eq!(
        (resp.topics[0].error_code, resp.topics[0].name.as_deref()),
        (100, None)
    );
    assert_eq!(resp.topics[1].name.as_deref(), Some("orders"));
}

async fn resp_topic_id(client: &mut Client) -> Uuid {
    let resp = metadata(
        client,
        10,
        &MetadataRequest {
            topics: named(&["orders"]),
            ..Default::default()
        },
    )
    .await;
    resp.topics[0].topic_id
}

#[tokio::test]
async fn topics_are_filtered_by_describe_permission() {
    let server = server_with_topics(&[]).await;
    let mut client = server.client().await;
    client
        .create(
            3,
            vec![creation(
                TOPIC,
                "audit",
                LITERAL,
                "User:ANONYMOUS",
                "*",
                WRITE,
                ALLOW,
            )],
        )
        .await;
    let server = restart(server, &[("super.users", "User:admin")]).await;
    let mut client = server.client().await;
    let all = metadata(
        &mut client,
        9,
        &MetadataRequest {
            topics: None,
            include_topic_authorized_operations: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(all.topics.len(), 1, "WRITE implies DESCRIBE on audit only");
    let audit = &all.topics[0];
    assert_eq!(audit.name.as_deref(), Some("audit"));
    // WRITE (4) and the implied DESCRIBE (8).
    assert_eq!(audit.topic_authorized_operations, (1 << 4) | (1 << 8));
    let named = metadata(
        &mut client,
        9,
        &MetadataRequest {
            topics: named(&["orders", "ghost"]),
            ..Default::default()
        },
    )
    .await;
    let codes: Vec<i16> = named.topics.iter().map(|t| t.error_code).collect();
    assert_eq!(
        codes,
        vec![29, 29],
        "unauthorized, whether or not the topic exists"
    );
    let cluster_ops = metadata(
        &mut client,
        10,
        &MetadataRequest {
            topics: Some(Vec::new()),
            include_cluster_authorized_operations: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        cluster_ops.cluster_authorized_operations, 0,
        "no DESCRIBE on the cluster"
    );
}

#[tokio::test]
async fn advertised_listeners_are_what_clients_see() {
    let server = start(&[
        ("advertised.listeners", "PLAINTEXT://kafka.example:19092"),
        ("node.id", "7"),
    ])
    .await;
    let mut client = server.client().await;
    let resp = metadata(
        &mut client,
        13,
        &MetadataRequest {
            topics: None,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        (
            resp.brokers[0].host.as_ref(),
            resp.brokers[0].port,
            resp.brokers[0].node_id
        ),
        ("kafka.example", 19092, 7)
    );
    assert_eq!(resp.controller_id, 7);
    assert_eq!(resp.error_code, 0);
}

async fn describe_cluster(
    client: &mut Client,
    version: i16,
    req: &DescribeClusterRequest<'_>,
) -> DescribeClusterResponse<'static> {
    let payload = client.call(version, req).await;
    kacl_protocol::IntoStatic::into_static(decode::<DescribeClusterResponse>(&payload, version))
}

#[tokio::test]
async fn describe_cluster_v0_and_v1() {
    let server = start(&[]).await;
    let cluster_id = server.server.state().cluster_id.clone();
    let port = server.addr().port();
    let mut client = server.client().await;
    for version in 0..=1 {
        let resp = describe_cluster(&mut client, version, &DescribeClusterRequest::default()).await;
        assert_eq!(resp.error_code, 0);
        assert_eq!(resp.cluster_id, cluster_id);
        assert_eq!(resp.controller_id, 1);
        assert_eq!(resp.brokers.len(), 1);
        assert_eq!(resp.brokers[0].port, i32::from(port));
        assert_eq!(resp.cluster_authorized_operations, i32::MIN);
        let asked = describe_cluster(
            &mut client,
            version,
            &DescribeClusterRequest {
                include_cluster_authorized_operations: true,
                ..Default::default()
            },
        )
        .await;
        // A super user may do every cluster operation Kafka reports.
        let all: i32 = [5, 9, 10, 11, 12, 7, 8].iter().map(|op| 1 << op).sum();
        assert_eq!(asked.cluster_authorized_operations, all);
    }
    let controllers = describe_cluster(
        &mut client,
        1,
        &DescribeClusterRequest {
            endpoint_type: 2,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        (
            controllers.error_code,
            controllers.endpoint_type,
            controllers.brokers.len()
        ),
        (0, 2, 1)
    );
    let odd = describe_cluster(
        &mut client,
        1,
        &DescribeClusterRequest {
            endpoint_type: 3,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(odd.error_code, 115);

    let server = restart(server, &[("super.users", "User:admin")]).await;
    let mut client = server.client().await;
    let denied = describe_cluster(
        &mut client,
        1,
        &DescribeClusterRequest {
            include_cluster_authorized_operations: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        (denied.error_code, denied.cluster_authorized_operations),
        (0, 0)
    );
}
