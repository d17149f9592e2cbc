//! The placement admin APIs over TCP: DescribeTopicPartitions (KIP-966) paged through its
//! cursor and checked against Metadata, its per-topic authorization; AlterPartitionReassignments
//! refusing what Kafka refuses (a move between live nodes is in `cluster_etcd_placement.rs`);
//! ListPartitionReassignments; and DescribeLogDirs.

mod common;
mod topics_support;

use std::borrow::Cow;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::messages::alter_partition_reassignments::{
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ReassignablePartition,
    ReassignableTopic,
};
use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::describe_log_dirs::{DescribeLogDirsRequest, DescribeLogDirsResponse};
use kacl_protocol::messages::describe_topic_partitions::{
    Cursor, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, TopicRequest,
};
use kacl_protocol::messages::list_partition_reassignments::{
    ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse,
};
use kacl_protocol::{ApiKey, IntoStatic};
use topics_support::*;

async fn describe(
    client: &mut Client,
    request: &DescribeTopicPartitionsRequest<'_>,
) -> DescribeTopicPartitionsResponse<'static> {
    let payload = client.call(0, request).await;
    decode::<DescribeTopicPartitionsResponse>(&payload, 0).into_static()
}

fn request<'a>(
    names: &[&'a str],
    limit: i32,
    cursor: Option<(&'a str, i32)>,
) -> DescribeTopicPartitionsRequest<'a> {
    DescribeTopicPartitionsRequest {
        topics: names
            .iter()
            .map(|n| TopicRequest {
                name: Cow::Borrowed(*n),
                ..Default::default()
            })
            .collect(),
        response_partition_limit: limit,
        cursor: cursor.map(|(topic, index)| Cursor {
            topic_name: Cow::Borrowed(topic),
            partition_index: index,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `(topic, error, partition indexes)` of each topic of a page.
fn shape(response: &DescribeTopicPartitionsResponse<'_>) -> Vec<(String, i16, Vec<i32>)> {
    response
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_deref().unwrap_or("").to_owned(),
                t.error_code,
                t.partitions.iter().map(|p| p.partition_index).collect(),
            )
        })
        .collect()
}

#[tokio::test]
async fn pages_walk_every_partition_once_and_agree_with_metadata() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![topic("c", 1, 1), topic("a", 3, 1), topic("b", 2, 1)],
    )
    .await;
    // The advertised range: v0, as Kafka 3.8-4.x.
    let payload = client.call(2, &ApiVersionsRequest::default()).await;
    let versions = decode::<ApiVersionsResponse>(&payload, 2);
    for (api, max) in [
        (ApiKey::DescribeTopicPartitions, 0),
        (ApiKey::AlterPartitionReassignments, 1),
        (ApiKey::ListPartitionReassignments, 0),
        (ApiKey::DescribeLogDirs, 4),
    ] {
        let entry = versions.api_keys.iter().find(|k| k.api_key == api.key());
        assert_eq!(entry.map(|k| k.max_version), Some(max), "{api}");
    }

    let mut cursor: Option<(String, i32)> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = describe(
            &mut client,
            &request(&[], 2, cursor.as_ref().map(|(t, i)| (t.as_str(), *i))),
        )
        .await;
        pages += 1;
        assert!(pages <= 10, "the cursor must advance");
        let partitions: usize = page.topics.iter().map(|t| t.partitions.len()).sum();
        assert!(
            partitions <= 2,
            "page {pages} holds {partitions} partitions"
        );
        for t in &page.topics {
            assert_eq!(t.error_code, 0);
            // Asked or not, every described topic carries the caller's operations.
            assert_ne!(t.topic_authorized_operations, i32::MIN);
            for p in &t.partitions {
                seen.push((t.name.as_deref().unwrap().to_owned(), p.partition_index));
                assert_eq!((p.leader_id, &p.isr_nodes), (1, &vec![1]));
            }
        }
        match page.next_cursor {
            Some(next) => cursor = Some((next.topic_name.into_owned(), next.partition_index)),
            None => break,
        }
    }
    let metadata = all_topics(&mut client).await;
    let mut expected: Vec<(String, i32)> = metadata
        .topics
        .iter()
        .flat_map(|t| {
            let name = t.name.as_deref().unwrap().to_owned();
            t.partitions
                .iter()
                .map(move |p| (name.clone(), p.partition_index))
        })
        .collect();
    expected.sort();
    assert_eq!(seen, expected, "every partition once, in name order");
    assert_eq!(pages, 3, "a:0-1 | a:2 b:0 | b:1 c:0");

    // The whole of it in one page at the default limit; ids match Metadata's.
    let one = describe(&mut client, &request(&[], 2000, None)).await;
    assert!(one.next_cursor.is_none());
    for t in &one.topics {
        let listed = metadata.topics.iter().find(|m| m.name == t.name).unwrap();
        assert_eq!(t.topic_id, listed.topic_id);
    }
    // A cursor naming a topic the request does not name is INVALID_REQUEST on every topic.
    let invalid = describe(&mut client, &request(&["b"], 10, Some(("a", 0)))).await;
    assert_eq!(shape(&invalid), [("b".to_owned(), 42, vec![])]);
}

#[tokio::test]
async fn named_topics_are_authorized_one_by_one_and_the_listing_filtered() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![topic("open", 2, 1), topic("secret", 1, 1)],
    )
    .await;
    let server = restart(server, NOT_SUPER).await;
    let mut client = server.client().await;
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "open",
        PatternType::Literal,
        AclOperation::Describe,
    );
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "ghost",
        PatternType::Literal,
        AclOperation::Describe,
    );
    let named = describe(
        &mut client,
        &request(&["secret", "open", "ghost", "open", "bad/name"], 100, None),
    )
    .await;
    assert_eq!(
        shape(&named),
        [
            ("ghost".to_owned(), 3, vec![]),
            ("open".to_owned(), 0, vec![0, 1]),
            ("bad/name".to_owned(), 29, vec![]),
            ("secret".to_owned(), 29, vec![]),
        ]
    );
    let refused = named
        .topics
        .iter()
        .find(|t| t.name.as_deref() == Some("secret"));
    assert_eq!(
        refused.unwrap().topic_id.0,
        [0; 16],
        "a refusal carries no id"
    );
    let listing = describe(&mut client, &request(&[], 100, None)).await;
    assert_eq!(shape(&listing), [("open".to_owned(), 0, vec![0, 1])]);
}

fn reassign<'a>(
    topic: &'a str,
    partitions: &[(i32, Option<Vec<i32>>)],
    allow_rf_change: bool,
) -> AlterPartitionReassignmentsRequest<'a> {
    AlterPartitionReassignmentsRequest {
        allow_replication_factor_change: allow_rf_change,
        topics: vec![ReassignableTopic {
            name: Cow::Borrowed(topic),
            partitions: partitions
                .iter()
                .map(|(index, replicas)| ReassignablePartition {
                    partition_index: *index,
                    replicas: replicas.clone(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

async fn alter(
    client: &mut Client,
    version: i16,
    request: &AlterPartitionReassignmentsRequest<'_>,
) -> AlterPartitionReassignmentsResponse<'static> {
    let payload = client.call(version, request).await;
    decode::<AlterPartitionReassignmentsResponse>(&payload, version).into_static()
}

fn outcomes(response: &AlterPartitionReassignmentsResponse<'_>) -> Vec<(i32, i16)> {
    response
        .responses
        .iter()
        .flat_map(|t| &t.partitions)
        .map(|p| (p.partition_index, p.error_code))
        .collect()
}

#[tokio::test]
async fn targets_are_checked_and_a_valid_one_is_stored_at_once() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("placed", 2, 1)]).await;
    for version in [0i16, 1] {
        let refused = alter(
            &mut client,
            version,
            &reassign(
                "placed",
                &[
                    (0, Some(vec![2])),
                    (1, Some(vec![1, 1])),
                    (5, Some(vec![1])),
                ],
                true,
            ),
        )
        .await;
        assert_eq!(refused.error_code, 0);
        assert_eq!(outcomes(&refused), [(0, 39), (1, 39), (5, 3)], "v{version}");
        let message = &refused.responses[0].partitions[0].error_message;
        assert_eq!(
            message.as_deref(),
            Some(
                "The manual partition assignment includes broker 2, but no such broker is \
                 registered."
            )
        );
    }
    let unknown = alter(
        &mut client,
        1,
        &reassign("nowhere", &[(0, Some(vec![1]))], true),
    )
    .await;
    assert_eq!(outcomes(&unknown), [(0, 3)]);
    let rf = alter(
        &mut client,
        1,
        &reassign("placed", &[(0, Some(vec![]))], false),
    )
    .await;
    assert_eq!(outcomes(&rf), [(0, 39)]);
    let cancel = alter(&mut client, 1, &reassign("placed", &[(0, None)], true)).await;
    assert_eq!(outcomes(&cancel), [(0, 85)]);

    let kept = alter(
        &mut client,
        1,
        &reassign("placed", &[(0, Some(vec![1])), (1, Some(vec![1]))], false),
    )
    .await;
    assert_eq!(outcomes(&kept), [(0, 0), (1, 0)]);
    assert!(!kept.allow_replication_factor_change, "echoed");
    // Completed at once: nothing is listed as in progress, for all topics or named ones.
    for topics in [None, Some(Vec::new())] {
        let payload = client
            .call(
                0,
                &ListPartitionReassignmentsRequest {
                    topics,
                    ..Default::default()
                },
            )
            .await;
        let listed = decode::<ListPartitionReassignmentsResponse>(&payload, 0);
        assert_eq!((listed.error_code, listed.topics.len()), (0, 0));
    }
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    let restarted = all_topics(&mut client).await;
    assert!(restarted.topics[0]
        .partitions
        .iter()
        .all(|p| p.replica_nodes == vec![1] && p.leader_id == 1));
}

#[tokio::test]
async fn placement_and_log_dirs_need_the_cluster_permissions_kafka_asks_for() {
    let server = start(NOT_SUPER).await;
    let mut client = server.client().await;
    let alter_refused = alter(
        &mut client,
        1,
        &reassign("any", &[(0, Some(vec![1]))], true),
    )
    .await;
    assert_eq!(alter_refused.error_code, 31);
    assert_eq!(outcomes(&alter_refused), [(0, 31)]);
    let payload = client
        .call(0, &ListPartitionReassignmentsRequest::default())
        .await;
    assert_eq!(
        decode::<ListPartitionReassignmentsResponse>(&payload, 0).error_code,
        31
    );
    let payload = client.call(4, &DescribeLogDirsRequest::default()).await;
    let dirs = decode::<DescribeLogDirsResponse>(&payload, 4);
    assert_eq!((dirs.error_code, dirs.results.len()), (31, 0));

    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::Describe,
    );
    // DESCRIBE is enough to list, not to alter.
    let payload = client
        .call(0, &ListPartitionReassignmentsRequest::default())
        .await;
    assert_eq!(
        decode::<ListPartitionReassignmentsResponse>(&payload, 0).error_code,
        0
    );
    let still = alter(
        &mut client,
        0,
        &reassign("any", &[(0, Some(vec![1]))], true),
    )
    .await;
    assert_eq!(still.error_code, 31);
    let data_dir = std::fs::canonicalize(server.dir.path()).unwrap();
    for version in 1..=4i16 {
        let payload = client
            .call(
                version,
                &DescribeLogDirsRequest {
                    topics: None,
                    ..Default::default()
                },
            )
            .await;
        let dirs = decode::<DescribeLogDirsResponse>(&payload, version);
        assert_eq!(dirs.error_code, 0, "v{version}");
        assert_eq!(dirs.results.len(), 1);
        let dir = &dirs.results[0];
        assert_eq!(
            std::fs::canonicalize(&*dir.log_dir).unwrap(),
            data_dir,
            "the data directory"
        );
        assert!(dir.topics.is_empty(), "kacl keeps no partition logs");
        if version >= 4 {
            assert_eq!((dir.total_bytes, dir.usable_bytes), (-1, -1));
        }
    }
}
