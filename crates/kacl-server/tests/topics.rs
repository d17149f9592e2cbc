//! CreateTopics v2-7 over TCP: creation with counts, defaults, assignments and configs, every
//! refusal code with the text a client shows, `validate_only`, the v5+ fields, restarts and
//! authorization.

mod common;
mod topics_support;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::metadata::MetadataRequest;
use kacl_topics::TOPIC_CONFIGS;
use topics_support::*;

fn outcome(name: &str, code: i16, message: &str) -> (String, i16, Option<String>) {
    (name.to_owned(), code, Some(message.to_owned()))
}

#[tokio::test]
async fn creates_with_counts_defaults_and_reports_v5_fields() {
    let server = start(&[("num.partitions", "4")]).await;
    let mut client = server.client().await;
    let resp = create_topics(
        &mut client,
        7,
        vec![
            with_configs(
                topic("orders", 3, 1),
                &[
                    ("retention.ms", Some("86400000")),
                    ("cleanup.policy", Some("compact")),
                ],
            ),
            topic("defaulted", -1, -1),
        ],
        false,
    )
    .await;
    assert_eq!(resp.topics.len(), 2);
    let orders = &resp.topics[0];
    assert_eq!((orders.name.as_ref(), orders.error_code), ("orders", 0));
    assert_eq!(orders.error_message, None);
    assert_ne!(orders.topic_id, Uuid::ZERO);
    assert_eq!((orders.num_partitions, orders.replication_factor), (3, 1));
    assert_eq!(orders.topic_config_error_code, 0);
    let configs = orders.configs.as_ref().expect("configs");
    assert_eq!(configs.len(), TOPIC_CONFIGS.len(), "every topic config");
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_ref()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "sorted by name");
    let retention = configs.iter().find(|c| c.name == "retention.ms").unwrap();
    assert_eq!(retention.value.as_deref(), Some("86400000"));
    assert_eq!(retention.config_source, 1, "DYNAMIC_TOPIC_CONFIG");
    assert!(!retention.read_only && !retention.is_sensitive);
    let segment = configs.iter().find(|c| c.name == "segment.bytes").unwrap();
    assert_eq!(segment.value.as_deref(), Some("1073741824"));
    assert_eq!(segment.config_source, 5, "DEFAULT_CONFIG");
    let defaulted = &resp.topics[1];
    assert_eq!(defaulted.error_code, 0);
    assert_eq!(
        (defaulted.num_partitions, defaulted.replication_factor),
        (4, 1),
        "-1 takes num.partitions and default.replication.factor"
    );

    let listed_now = all_topics(&mut client).await;
    assert_eq!(
        listed(&listed_now),
        vec![("defaulted".to_owned(), 4), ("orders".to_owned(), 3)]
    );
    let orders_meta = listed_now
        .topics
        .iter()
        .find(|t| t.name.as_deref() == Some("orders"))
        .unwrap();
    assert_eq!(orders_meta.topic_id, orders.topic_id);
    let stored = server.server.state().store.load_topics().unwrap();
    let stored_orders = stored.iter().find(|t| t.name == "orders").unwrap();
    assert_eq!(
        stored_orders
            .configs
            .get("cleanup.policy")
            .map(String::as_str),
        Some("compact")
    );
}

#[tokio::test]
async fn every_version_from_2_to_7() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    for version in 2..=7i16 {
        let name = format!("v{version}");
        let resp = create_topics(&mut client, version, vec![topic(&name, 2, 1)], false).await;
        let result = &resp.topics[0];
        assert_eq!(
            (result.name.as_ref(), result.error_code),
            (name.as_str(), 0)
        );
        if version >= 5 {
            assert_eq!(result.num_partitions, 2, "v{version}");
            assert!(result.configs.as_ref().is_some_and(|c| !c.is_empty()));
        }
        assert_eq!(result.topic_id != Uuid::ZERO, version >= 7, "v{version}");
        let again = create_topics(&mut client, version, vec![topic(&name, 2, 1)], false).await;
        assert_eq!(again.topics[0].error_code, 36, "v{version}");
    }
    assert_eq!(all_topics(&mut client).await.topics.len(), 6);
}

#[tokio::test]
async fn manual_assignments_place_the_given_replicas() {
    let server = start(&[("node.id", "5")]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![assigned("manual", -1, -1, &[(1, &[5]), (0, &[5])])],
    )
    .await;
    let resp = metadata(
        &mut client,
        12,
        &MetadataRequest {
            topics: names(&["manual"]),
            ..Default::default()
        },
    )
    .await;
    let partitions = &resp.topics[0].partitions;
    assert_eq!(partitions.len(), 2);
    assert!(partitions
        .iter()
        .all(|p| p.leader_id == 5 && p.replica_nodes == vec![5] && p.isr_nodes == vec![5]));
}

#[tokio::test]
async fn name_errors_carry_kafkas_messages() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(
        &mut client,
        vec![topic("orders", 1, 1), topic("metrics.cpu", 1, 1)],
    )
    .await;
    let long = "x".repeat(250);
    let resp = create_topics(
        &mut client,
        7,
        vec![
            topic("orders", 1, 1),
            topic("", 1, 1),
            topic(".", 1, 1),
            topic("..", 1, 1),
            topic(&long, 1, 1),
            topic("bad/name", 1, 1),
            topic("metrics_cpu", 1, 1),
        ],
        false,
    )
    .await;
    assert_eq!(
        create_outcomes(&resp),
        vec![
            outcome("orders", 36, "Topic 'orders' already exists."),
            outcome("", 17, "Topic name is invalid: the empty string is not allowed"),
            outcome(".", 17, "Topic name is invalid: '.' is not allowed"),
            outcome("..", 17, "Topic name is invalid: '..' is not allowed"),
            outcome(
                &long,
                17,
                &format!(
                    "Topic name is invalid: the length of '{long}' is longer than the max allowed length 249"
                )
            ),
            outcome(
                "bad/name",
                17,
                "Topic name is invalid: 'bad/name' contains one or more characters other than \
                 ASCII alphanumerics, '.', '_' and '-'"
            ),
            outcome("metrics_cpu", 17, "Topic 'metrics_cpu' collides with existing topic: metrics.cpu"),
        ]
    );
    // v5+ error results carry no topic details.
    let refused = &resp.topics[0];
    assert_eq!(
        (
            refused.topic_id,
            refused.num_partitions,
            refused.replication_factor
        ),
        (Uuid::ZERO, -1, -1)
    );
    assert_eq!(refused.configs.as_deref().map(<[_]>::len), Some(0));
}

#[tokio::test]
async fn partition_replication_and_assignment_errors() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let resp = create_topics(
        &mut client,
        7,
        vec![
            topic("zero-partitions", 0, 1),
            topic("minus-two", -2, 1),
            topic("zero-factor", 1, 0),
            topic("factor-two", 1, 2),
            assigned("unknown-broker", -1, -1, &[(0, &[2])]),
            assigned("twice", -1, -1, &[(0, &[1, 1])]),
            assigned("empty", -1, -1, &[(0, &[])]),
            assigned("gap", -1, -1, &[(0, &[1]), (2, &[1])]),
            assigned("repeat", -1, -1, &[(0, &[1]), (0, &[1])]),
            assigned("counted", 1, -1, &[(0, &[1])]),
            assigned("factored", -1, 1, &[(0, &[1])]),
        ],
        false,
    )
    .await;
    assert_eq!(
        create_outcomes(&resp),
        vec![
            outcome("zero-partitions", 37, "Number of partitions was set to an invalid non-positive value."),
            outcome("minus-two", 37, "Number of partitions was set to an invalid non-positive value."),
            outcome(
                "zero-factor",
                38,
                "Replication factor must be larger than 0, or -1 to use the default value."
            ),
            outcome(
                "factor-two",
                38,
                "Unable to replicate the partition 2 time(s): The target replication factor of 2 \
                 cannot be reached because only 1 broker(s) are registered or some brokers have \
                 all their log directories cordoned."
            ),
            outcome(
                "unknown-broker",
                39,
                "The manual partition assignment includes broker 2, but no such broker is registered."
            ),
            outcome(
                "twice",
                39,
                "The manual partition assignment includes the broker 1 more than once."
            ),
            outcome("empty", 39, "The manual partition assignment includes an empty replica list."),
            outcome("gap", 39, "partitions should be a consecutive 0-based integer sequence"),
            outcome("repeat", 39, "Found multiple manual partition assignments for partition 0"),
            outcome(
                "counted",
                42,
                "A manual partition assignment was specified, but numPartitions was not set to -1."
            ),
            outcome(
                "factored",
                42,
                "A manual partition assignment was specified, but replication factor was not set to -1."
            ),
        ]
    );
    assert!(all_topics(&mut client).await.topics.is_empty());
}

#[tokio::test]
async fn config_errors_carry_kafkas_messages() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let resp = create_topics(
        &mut client,
        7,
        vec![
            with_configs(topic("unknown", 1, 1), &[("retention.weeks", Some("2"))]),
            with_configs(
                topic("not-a-number", 1, 1),
                &[("retention.ms", Some("soon"))],
            ),
            with_configs(
                topic("too-small", 1, 1),
                &[("min.insync.replicas", Some("0"))],
            ),
            with_configs(
                topic("not-a-policy", 1, 1),
                &[("cleanup.policy", Some("shred"))],
            ),
            with_configs(topic("null", 1, 1), &[("retention.bytes", None)]),
            with_configs(
                topic("max-bytes", 1, 1),
                &[("max.message.bytes", Some("-5"))],
            ),
            with_configs(topic("codec", 1, 1), &[("compression.type", Some("zip"))]),
            with_configs(topic("segment", 1, 1), &[("segment.bytes", Some("10"))]),
        ],
        false,
    )
    .await;
    assert_eq!(
        create_outcomes(&resp),
        vec![
            outcome("unknown", 40, "Unknown topic config name: retention.weeks"),
            outcome(
                "not-a-number",
                40,
                "Invalid value soon for configuration retention.ms: Not a number of type LONG"
            ),
            outcome(
                "too-small",
                40,
                "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"
            ),
            outcome(
                "not-a-policy",
                40,
                "Invalid value shred for configuration cleanup.policy: String must be one of: compact, delete"
            ),
            outcome("null", 40, "Null value not supported for topic configs: retention.bytes"),
            outcome(
                "max-bytes",
                40,
                "Invalid value -5 for configuration max.message.bytes: Value must be at least 0"
            ),
            outcome(
                "codec",
                40,
                "Invalid value zip for configuration compression.type: String must be one of: \
                 uncompressed, zstd, lz4, snappy, gzip, producer"
            ),
            outcome(
                "segment",
                40,
                "Invalid value 10 for configuration segment.bytes: Value must be at least 1048576"
            ),
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

#[tokio::test]
async fn request_level_refusals() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let resp = create_topics(
        &mut client,
        7,
        vec![
            topic("twice", 1, 1),
            topic("fine", 1, 1),
            topic("twice", 2, 1),
            topic("__cluster_metadata", 1, 1),
        ],
        false,
    )
    .await;
    assert_eq!(
        create_outcomes(&resp),
        vec![
            (String::from("fine"), 0, None),
            outcome("twice", 42, "Duplicate topic name."),
            outcome(
                "__cluster_metadata",
                42,
                "Creation of internal topic __cluster_metadata is prohibited."
            ),
        ],
        "one result per duplicated name, after the checked topics"
    );
    // More than 10,000 partitions in one request fails every topic of it.
    let resp = create_topics(
        &mut client,
        7,
        vec![topic("big-a", 6000, 1), topic("big-b", 5000, 1)],
        false,
    )
    .await;
    assert_eq!(
        create_outcomes(&resp),
        vec![
            outcome(
                "big-a",
                44,
                "Excessively large number of partitions per request."
            ),
            outcome(
                "big-b",
                44,
                "Excessively large number of partitions per request."
            ),
        ]
    );
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![("fine".to_owned(), 1)]
    );
}

#[tokio::test]
async fn validate_only_checks_everything_and_writes_nothing() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    create_ok(&mut client, vec![topic("exists", 1, 1)]).await;
    let resp = create_topics(
        &mut client,
        7,
        vec![
            with_configs(topic("would-be", 3, 1), &[("retention.ms", Some("1000"))]),
            topic("exists", 1, 1),
            topic("bad name", 1, 1),
        ],
        true,
    )
    .await;
    let would_be = &resp.topics[0];
    assert_eq!((would_be.error_code, would_be.num_partitions), (0, 3));
    assert_ne!(would_be.topic_id, Uuid::ZERO);
    assert_eq!(resp.topics[1].error_code, 36);
    assert_eq!(resp.topics[2].error_code, 17);
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![("exists".to_owned(), 1)]
    );
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    assert_eq!(
        listed(&all_topics(&mut client).await),
        vec![("exists".to_owned(), 1)]
    );
    // The name is still free.
    create_ok(&mut client, vec![topic("would-be", 1, 1)]).await;
}

#[tokio::test]
async fn restart_keeps_topics_ids_partitions_and_configs() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let created = create_topics(
        &mut client,
        7,
        vec![
            with_configs(topic("kept", 5, 1), &[("retention.ms", Some("1234"))]),
            topic("also.kept", 1, 1),
        ],
        false,
    )
    .await;
    let kept_id = created.topics[0].topic_id;
    let before = all_topics(&mut client).await;
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    let after = all_topics(&mut client).await;
    assert_eq!(listed(&after), listed(&before));
    let kept = after
        .topics
        .iter()
        .find(|t| t.name.as_deref() == Some("kept"))
        .unwrap();
    assert_eq!(kept.topic_id, kept_id);
    let stored = server.server.state().store.load_topics().unwrap();
    let kept_record = stored.iter().find(|t| t.name == "kept").unwrap();
    assert_eq!(
        kept_record.configs.get("retention.ms").map(String::as_str),
        Some("1234")
    );
    // The collision groups are rebuilt from the store too.
    let resp = create_topics(
        &mut client,
        7,
        vec![topic("also_kept", 1, 1), topic("kept", 1, 1)],
        false,
    )
    .await;
    assert_eq!(
        create_outcomes(&resp),
        vec![
            outcome(
                "also_kept",
                17,
                "Topic 'also_kept' collides with existing topic: also.kept"
            ),
            outcome("kept", 36, "Topic 'kept' already exists."),
        ]
    );
}

#[tokio::test]
async fn creation_needs_create_on_the_cluster_or_the_topic() {
    let server = start(NOT_SUPER).await;
    let mut client = server.client().await;
    let resp = create_topics(&mut client, 7, vec![topic("denied", 1, 1)], false).await;
    assert_eq!(
        create_outcomes(&resp),
        vec![outcome("denied", 29, "Authorization failed.")]
    );

    // CREATE on a prefix: created, but without DESCRIBE_CONFIGS the details are withheld.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "team-",
        PatternType::Prefixed,
        AclOperation::Create,
    );
    let resp = create_topics(
        &mut client,
        7,
        vec![topic("team-orders", 2, 1), topic("other", 1, 1)],
        false,
    )
    .await;
    let team = &resp.topics[0];
    assert_eq!((team.name.as_ref(), team.error_code), ("team-orders", 0));
    assert_ne!(team.topic_id, Uuid::ZERO);
    assert_eq!(team.topic_config_error_code, 29);
    assert_eq!((team.num_partitions, team.replication_factor), (-1, -1));
    assert_eq!(team.configs.as_deref().map(<[_]>::len), Some(0));
    assert_eq!(
        create_outcomes(&resp)[1],
        outcome("other", 29, "Authorization failed.")
    );

    // DESCRIBE_CONFIGS on the topic shows them.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Topic,
        "team-",
        PatternType::Prefixed,
        AclOperation::DescribeConfigs,
    );
    let resp = create_topics(&mut client, 7, vec![topic("team-audit", 3, 1)], false).await;
    let audit = &resp.topics[0];
    assert_eq!((audit.error_code, audit.topic_config_error_code), (0, 0));
    assert_eq!(audit.num_partitions, 3);

    // CREATE on the cluster allows any name.
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Cluster,
        "kafka-cluster",
        PatternType::Literal,
        AclOperation::Create,
    );
    let resp = create_topics(&mut client, 7, vec![topic("other", 1, 1)], false).await;
    assert_eq!(resp.topics[0].error_code, 0);
    let stored: Vec<String> = server
        .server
        .state()
        .store
        .load_topics()
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(stored, vec!["team-orders", "team-audit", "other"]);
}
