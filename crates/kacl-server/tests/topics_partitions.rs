//! CreatePartitions v0-3 over TCP: increases with and without assignments, every refusal
//! with the text a client shows, `validate_only`, authorization and restarts.

mod common;
mod topics_support;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use topics_support::*;

fn outcome(name: &str, code: i16, message: Option<&str>) -> (String, i16, Option<String>) {
    (name.to_owned(), code, message.map(str::to_owned))
}

#[tokio::test]
async fn increases_in_every_version_and_survive_a_restart() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        (0..=3)
            .map(|v| topic(&format!("grow-v{v}"), 1, 1))
            .collect(),
    )
    .await;
    for version in 0..=3i16 {
        let name = format!("grow-v{version}");
        let resp =
            create_partitions(&mut client, version, vec![increase(&name, 3, None)], false).await;
        assert_eq!(
            partition_outcomes(&resp),
            vec![outcome(&name, 0, None)],
            "v{version}"
        );
    }
    let resp = create_partitions(
        &mut client,
        3,
        vec![increase("grow-v0", 5, Some(&[&[1], &[1]]))],
        false,
    )
    .await;
    assert_eq!(partition_outcomes(&resp), vec![outcome("grow-v0", 0, None)]);
    let expected = vec![
        ("grow-v0".to_owned(), 5),
        ("grow-v1".to_owned(), 3),
        ("grow-v2".to_owned(), 3),
        ("grow-v3".to_owned(), 3),
    ];
    let now = all_topics(&mut client).await;
    assert_eq!(listed(&now), expected);
    let indexes: Vec<i32> = now.topics[0]
        .partitions
        .iter()
        .map(|p| p.partition_index)
        .collect();
    assert_eq!(indexes, vec![0, 1, 2, 3, 4]);
    assert!(now.topics[0]
        .partitions
        .iter()
        .all(|p| p.leader_id == 1 && p.replica_nodes == vec![1]));
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    assert_eq!(listed(&all_topics(&mut client).await), expected);
}

#[tokio::test]
async fn refusals_carry_kafkas_codes_and_messages() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![
            topic("three", 3, 1),
            topic("one", 1, 1),
            topic("two", 1, 1),
            topic("dup", 1, 1),
        ],
    )
    .await;
    let resp = create_partitions(
        &mut client,
        3,
        vec![
            increase("three", 3, None),
            increase("three-less", 2, None),
            increase("one", 3, Some(&[&[1]])),
            increase("two", 2, Some(&[&[2]])),
            increase("dup", 2, None),
            increase("ghost", 2, None),
            increase("dup", 3, None),
            increase("one", 2, Some(&[])),
        ],
        false,
    )
    .await;
    assert_eq!(
        partition_outcomes(&resp),
        vec![
            outcome("one", 42, Some("Duplicate topic name.")),
            outcome("dup", 42, Some("Duplicate topic name.")),
            outcome("three", 37, Some("Topic already has 3 partition(s).")),
            outcome("three-less", 3, None),
            outcome(
                "two",
                39,
                Some("The manual partition assignment includes broker 2, but no such broker is registered.")
            ),
            outcome("ghost", 3, None),
        ]
    );
    let resp = create_partitions(
        &mut client,
        3,
        vec![
            increase("three", 2, None),
            increase("one", 3, Some(&[&[1]])),
            increase("two", 2, Some(&[&[1, 1]])),
        ],
        false,
    )
    .await;
    assert_eq!(
        partition_outcomes(&resp),
        vec![
            outcome(
                "three",
                37,
                Some("The topic three currently has 3 partition(s); 2 would not be an increase.")
            ),
            outcome(
                "one",
                39,
                Some("Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.")
            ),
            outcome(
                "two",
                39,
                Some("The manual partition assignment includes the broker 1 more than once.")
            ),
        ]
    );
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![
            ("dup".to_owned(), 1),
            ("one".to_owned(), 1),
            ("three".to_owned(), 3),
            ("two".to_owned(), 1),
        ],
        "nothing changed"
    );
}

#[tokio::test]
async fn validate_only_changes_nothing() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("steady", 2, 1)]).await;
    let resp = create_partitions(
        &mut client,
        3,
        vec![increase("steady", 6, None), increase("steady-not", 6, None)],
        true,
    )
    .await;
    assert_eq!(
        partition_outcomes(&resp),
        vec![outcome("steady", 0, None), outcome("steady-not", 3, None)]
    );
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![("steady".to_owned(), 2)]
    );
    let stored = server.server.state().store.load_topics().unwrap();
    assert_eq!(stored[0].partitions.len(), 2);
}

#[tokio::test]
async fn increases_need_alter_on_the_topic() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![topic("locked", 1, 1), topic("open", 1, 1)],
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
        AclOperation::Alter,
    );
    // Cluster-wide ALTER is not what CreatePartitions checks.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::Alter,
    );
    let resp = create_partitions(
        &mut client,
        3,
        vec![
            increase("locked", 2, None),
            increase("nowhere", 2, None),
            increase("open", 2, None),
        ],
        false,
    )
    .await;
    assert_eq!(
        partition_outcomes(&resp),
        vec![
            outcome("locked", 29, None),
            outcome("nowhere", 29, None),
            outcome("open", 0, None),
        ],
        "refused whether the topic exists or not"
    );
}
