//! DeleteTopics v1-6 over TCP: by name and by id, the refusals with the text a client shows,
//! authorization in Kafka's order, ACLs left alone, and restarts.

mod common;
mod topics_support;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::metadata::MetadataRequest;
use topics_support::*;

type Outcome = (Option<String>, i16, Option<String>);

fn outcome(name: Option<&str>, code: i16, message: Option<&str>) -> Outcome {
    (name.map(str::to_owned), code, message.map(str::to_owned))
}

async fn topic_id(client: &mut Client, name: &str) -> Uuid {
    let resp = metadata(
        client,
        12,
        &MetadataRequest {
            topics: names(&[name]),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(resp.topics[0].error_code, 0, "{name} exists");
    resp.topics[0].topic_id
}

#[tokio::test]
async fn deletes_by_name_in_every_version_and_leaves_acls() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let names: Vec<String> = (1..=6).map(|v| format!("gone-v{v}")).collect();
    create_ok(&mut client, names.iter().map(|n| topic(n, 2, 1)).collect()).await;
    grant(
        &server,
        "User:alice",
        ResourceType::Topic,
        "gone-v1",
        PatternType::Literal,
        AclOperation::Read,
    );
    for version in 1..=6i16 {
        let name = format!("gone-v{version}");
        let resp = delete_by_name(&mut client, version, &[&name, "never-was"]).await;
        let message = |m: &str| (version >= 5).then(|| m.to_owned());
        assert_eq!(
            delete_outcomes(&resp),
            vec![
                (Some(name.clone()), 0, None),
                (
                    Some("never-was".to_owned()),
                    3,
                    message("This server does not host this topic-partition.")
                ),
            ],
            "v{version}"
        );
    }
    assert!(all_topics(&mut client).await.topics.is_empty());
    let acls = client.describe(3, &describe_all()).await;
    assert_eq!(acl_count(&acls), 1, "a deleted topic's ACLs stay");
    // The name is free again, with a new id.
    create_ok(&mut client, vec![topic("gone-v1", 1, 1)]).await;
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![("gone-v1".to_owned(), 1)],
        "deletions survive a restart"
    );
}

#[tokio::test]
async fn v6_by_id_and_the_invalid_combinations() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![
            topic("by-id", 1, 1),
            topic("both", 1, 1),
            topic("dup-name", 1, 1),
            topic("dup-id", 1, 1),
            topic("claimed", 1, 1),
            topic("__consumer_offsets", 1, 1),
        ],
    )
    .await;
    let by_id = topic_id(&mut client, "by-id").await;
    let both = topic_id(&mut client, "both").await;
    let dup_id = topic_id(&mut client, "dup-id").await;
    let claimed = topic_id(&mut client, "claimed").await;
    let internal = topic_id(&mut client, "__consumer_offsets").await;
    let ghost = Uuid([9; 16]);
    let resp = delete_v6(
        &mut client,
        vec![
            state(None, by_id),
            state(None, ghost),
            state(None, Uuid::ZERO),
            state(Some("both"), both),
            state(Some("dup-name"), Uuid::ZERO),
            state(Some("dup-name"), Uuid::ZERO),
            state(None, dup_id),
            state(None, dup_id),
            state(None, claimed),
            state(Some("claimed"), Uuid::ZERO),
            state(None, internal),
        ],
    )
    .await;
    let ids: Vec<Uuid> = resp.responses.iter().map(|r| r.topic_id).collect();
    assert_eq!(
        delete_outcomes(&resp),
        vec![
            outcome(Some("by-id"), 0, None),
            outcome(None, 100, Some("This server does not host this topic ID.")),
            outcome(None, 42, Some("Neither topic name nor id were specified.")),
            outcome(
                Some("both"),
                42,
                Some("You may not specify both topic name and topic id.")
            ),
            outcome(Some("dup-name"), 42, Some("Duplicate topic name.")),
            outcome(None, 42, Some("Duplicate topic id.")),
            outcome(
                Some("claimed"),
                42,
                Some("The provided topic name maps to an ID that was already supplied.")
            ),
            outcome(Some("__consumer_offsets"), 0, None),
        ],
        "the id given with its own name has no result of its own"
    );
    assert_eq!(
        ids,
        vec![
            by_id,
            ghost,
            Uuid::ZERO,
            both,
            Uuid::ZERO,
            dup_id,
            claimed,
            internal
        ]
    );
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![
            ("both".to_owned(), 1),
            ("claimed".to_owned(), 1),
            ("dup-id".to_owned(), 1),
            ("dup-name".to_owned(), 1),
        ],
        "internal topics may be deleted; refused entries stay"
    );
}

#[tokio::test]
async fn deletion_needs_delete_and_refusals_reveal_only_what_describe_allows() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![
            topic("secret", 1, 1),
            topic("visible", 1, 1),
            topic("mine", 1, 1),
        ],
    )
    .await;
    let secret = topic_id(&mut client, "secret").await;
    let visible = topic_id(&mut client, "visible").await;
    let server = restart(server, NOT_SUPER).await;
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "visible",
        PatternType::Literal,
        AclOperation::Describe,
    );
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "mine",
        PatternType::Literal,
        AclOperation::Delete,
    );
    let mut client = server.client().await;
    let denied = "Topic authorization failed.";
    let resp = delete_by_name(&mut client, 5, &["secret", "no-such", "visible", "mine"]).await;
    assert_eq!(
        delete_outcomes(&resp),
        vec![
            outcome(Some("secret"), 29, Some(denied)),
            outcome(Some("no-such"), 29, Some(denied)),
            outcome(Some("visible"), 29, Some(denied)),
            outcome(Some("mine"), 0, None),
        ],
        "without DESCRIBE a missing topic is refused like an existing one"
    );
    let resp = delete_v6(&mut client, vec![state(None, secret), state(None, visible)]).await;
    assert_eq!(
        delete_outcomes(&resp),
        vec![
            outcome(None, 29, Some(denied)),
            outcome(Some("visible"), 29, Some(denied)),
        ],
        "by id, the name is shown only to who may describe it"
    );
    // DESCRIBE on a missing topic: UNKNOWN_TOPIC_OR_PARTITION.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "no-",
        PatternType::Prefixed,
        AclOperation::Describe,
    );
    let resp = delete_by_name(&mut client, 6, &["no-such"]).await;
    assert_eq!(resp.responses[0].error_code, 3);
    // DELETE on the cluster deletes anything.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::Delete,
    );
    let resp = delete_v6(
        &mut client,
        vec![state(None, secret), state(Some("visible"), Uuid::ZERO)],
    )
    .await;
    assert_eq!(
        delete_outcomes(&resp),
        vec![
            outcome(Some("secret"), 0, None),
            outcome(Some("visible"), 0, None)
        ]
    );
    assert!(server
        .server
        .state()
        .store
        .load_topics()
        .unwrap()
        .is_empty());
}
