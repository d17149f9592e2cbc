//! Metadata with topics over TCP, as `KafkaApis.handleTopicMetadataRequest` answers with
//! auto-creation off: filtering by DESCRIBE, named and by-id lookups in Kafka's order,
//! internal topics, authorized-operation bit fields, and v10-11 refusals.

mod common;
mod topics_support;

use std::borrow::Cow;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic};
use topics_support::*;

fn by_id(id: Uuid) -> MetadataRequestTopic<'static> {
    MetadataRequestTopic {
        topic_id: id,
        name: None,
        ..Default::default()
    }
}

/// A server holding `orders` (3), `audit` (1), `team-a` (2), `__consumer_offsets` (1), with
/// `User:ANONYMOUS` an ordinary user allowed READ on `orders` and DESCRIBE on `team-*`.
async fn server_with_grants() -> TestServer {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![
            topic("orders", 3, 1),
            topic("audit", 1, 1),
            topic("team-a", 2, 1),
            topic("__consumer_offsets", 1, 1),
        ],
    )
    .await;
    let server = restart(server, NOT_SUPER).await;
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "orders",
        PatternType::Literal,
        AclOperation::Read,
    );
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "team-",
        PatternType::Prefixed,
        AclOperation::Describe,
    );
    server
}

#[tokio::test]
async fn all_topics_lists_only_what_may_be_described() {
    let server = server_with_grants().await;
    let mut client = server.client().await;
    for version in [0i16, 1, 4, 9, 12, 13] {
        let request = MetadataRequest {
            topics: if version == 0 { Some(Vec::new()) } else { None },
            allow_auto_topic_creation: version < 4,
            ..Default::default()
        };
        let resp = metadata(&mut client, version, &request).await;
        assert_eq!(
            listed(&resp),
            vec![("orders".to_owned(), 3), ("team-a".to_owned(), 2)],
            "v{version}"
        );
    }
    // A super user sees every topic, the internal one flagged.
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    let resp = all_topics(&mut client).await;
    let flags: Vec<(&str, bool)> = resp
        .topics
        .iter()
        .map(|t| (t.name.as_deref().unwrap(), t.is_internal))
        .collect();
    assert_eq!(
        flags,
        vec![
            ("__consumer_offsets", true),
            ("audit", false),
            ("orders", false),
            ("team-a", false),
        ]
    );
}

#[tokio::test]
async fn named_topics_in_kafkas_order_and_codes() {
    let server = server_with_grants().await;
    let mut client = server.client().await;
    let resp = metadata(
        &mut client,
        12,
        &MetadataRequest {
            topics: names(&[
                "audit",
                "team-ghost",
                "orders",
                "ghost",
                "team-bad/name",
                "orders",
            ]),
            allow_auto_topic_creation: true,
            include_topic_authorized_operations: true,
            ..Default::default()
        },
    )
    .await;
    let got: Vec<(&str, i16, bool, i32)> = resp
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_deref().unwrap(),
                t.error_code,
                t.topic_id == Uuid::ZERO,
                t.topic_authorized_operations,
            )
        })
        .collect();
    let describe = 1 << 8;
    assert_eq!(
        got,
        vec![
            // Found, then missing (never created), then refused.
            ("orders", 0, false, (1 << 3) | describe),
            ("team-ghost", 3, true, describe),
            ("team-bad/name", 17, true, describe),
            ("audit", 29, true, i32::MIN),
            ("ghost", 29, true, i32::MIN),
        ]
    );
    assert!(resp.topics[1].partitions.is_empty());
    assert!(server
        .server
        .state()
        .store
        .load_topics()
        .unwrap()
        .iter()
        .all(|t| t.name != "team-ghost"));
}

#[tokio::test]
async fn by_topic_id_from_v12_and_refused_before() {
    let server = server_with_grants().await;
    let ids: Vec<(String, Uuid)> = server
        .server
        .state()
        .store
        .load_topics()
        .unwrap()
        .into_iter()
        .map(|t| (t.name, Uuid(t.topic_id)))
        .collect();
    let id_of = |name: &str| ids.iter().find(|(n, _)| n == name).unwrap().1;
    let mut client = server.client().await;
    let ghost = Uuid([3; 16]);
    let request = MetadataRequest {
        topics: Some(vec![
            by_id(id_of("audit")),
            by_id(id_of("orders")),
            by_id(ghost),
            MetadataRequestTopic {
                name: Some(Cow::Borrowed("team-a")),
                ..Default::default()
            },
        ]),
        ..Default::default()
    };
    let resp = metadata(&mut client, 12, &request).await;
    let got: Vec<(Option<&str>, i16, Uuid)> = resp
        .topics
        .iter()
        .map(|t| (t.name.as_deref(), t.error_code, t.topic_id))
        .collect();
    assert_eq!(
        got,
        vec![
            (None, 100, ghost),
            (Some("orders"), 0, id_of("orders")),
            (None, 29, id_of("audit")),
        ],
        "unknown ids, found, refused; a name beside ids is ignored, as in Kafka"
    );
    for version in [10i16, 11] {
        let resp = metadata(
            &mut client,
            version,
            &MetadataRequest {
                topics: Some(vec![by_id(id_of("orders"))]),
                ..Default::default()
            },
        )
        .await;
        assert!(resp.brokers.is_empty(), "v{version}");
        let got: Vec<(Option<&str>, i16)> = resp
            .topics
            .iter()
            .map(|t| (t.name.as_deref(), t.error_code))
            .collect();
        assert_eq!(got, vec![(Some(""), 42)], "v{version}");
    }
}

#[tokio::test]
async fn partitions_show_this_node_as_leader_and_replica() {
    let server = start(&[("node.id", "3")]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("placed", 4, -1)]).await;
    let resp = metadata(
        &mut client,
        13,
        &MetadataRequest {
            topics: names(&["placed"]),
            ..Default::default()
        },
    )
    .await;
    let partitions = &resp.topics[0].partitions;
    assert_eq!(partitions.len(), 4);
    for (index, partition) in partitions.iter().enumerate() {
        assert_eq!(partition.partition_index, index as i32);
        assert_eq!(
            (
                partition.error_code,
                partition.leader_id,
                partition.leader_epoch
            ),
            (0, 3, 0)
        );
        assert_eq!(partition.replica_nodes, vec![3]);
        assert_eq!(partition.isr_nodes, vec![3]);
        assert!(partition.offline_replicas.is_empty());
    }
    // The same data directory under another node.id is refused, as Kafka refuses a log
    // directory whose meta.properties names another node.
    let TestServer { server, dir } = server;
    server.shutdown().await;
    let refused = kacl_server::Server::start(config(dir.path(), &[("node.id", "4")])).await;
    assert!(
        matches!(&refused, Err(e) if e.refuses_data_dir() && e.to_string().contains("node.id 3")),
        "{:?}",
        refused.err()
    );
    // Moved to node 4 deliberately (its identity file dropped, as for a directory from before
    // kacl kept one), it is served, and the replicas are elsewhere.
    std::fs::remove_file(dir.path().join(kacl_store::IDENTITY_FILE_NAME)).unwrap();
    let server = TestServer {
        server: kacl_server::Server::start(config(dir.path(), &[("node.id", "4")]))
            .await
            .expect("served as node 4"),
        dir,
    };
    let mut client = server.client().await;
    let resp = all_topics(&mut client).await;
    let partition = &resp.topics[0].partitions[0];
    assert_eq!(
        (
            partition.error_code,
            partition.leader_id,
            partition.offline_replicas.clone()
        ),
        (5, -1, vec![3])
    );
}

#[tokio::test]
async fn librdkafka_all_topics_request_with_trailing_bytes_is_answered() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("seen", 2, 1)]).await;
    // confluent-kafka 2.16's `list_topics()`: Metadata v13, correlation id 3, client id
    // "rdkafka", then a body Kafka reads as "all topics" followed by three bytes it ignores
    // (librdkafka issue #5049).
    let payload: &[u8] = &[
        0, 3, 0, 13, 0, 0, 0, 3, 0, 7, b'r', b'd', b'k', b'a', b'f', b'k', b'a', 0, 0, 0, 0, 0, 1,
        0, 0,
    ];
    let mut frame = (payload.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(payload);
    client.send_raw(&frame).await;
    let response = client.read_frame().await.expect("answered, not closed");
    let resp: kacl_protocol::messages::metadata::MetadataResponse<'_> = decode(&response, 13);
    assert_eq!(listed(&resp), vec![("seen".to_owned(), 2)]);
}
