//! The seed corpus of the `fuzz/` crate: a few valid requests per target, generated here so that
//! they always match the codec. Without `KACL_WRITE_FUZZ_SEEDS=1` this test checks that every
//! committed seed is byte-identical to what it would generate and decodes cleanly; with it, it
//! (re)writes `fuzz/corpus/<target>/<name>`.
//!
//! Seed layout: per-decoder targets (`decode_<api>`) take one selector byte, `version - min`
//! of the message's declared range, then the body; `decode_request_frame` takes a whole
//! size-prefixed request frame.

use std::borrow::Cow;
use std::path::PathBuf;

use kacl_protocol::frame::{encode_request_frame, split_frame, RequestFrame};
use kacl_protocol::messages::alter_client_quotas::{self, AlterClientQuotasRequest};
use kacl_protocol::messages::alter_configs::*;
use kacl_protocol::messages::alter_partition_reassignments::*;
use kacl_protocol::messages::alter_user_scram_credentials::*;
use kacl_protocol::messages::api_versions::*;
use kacl_protocol::messages::consumer_group_describe::*;
use kacl_protocol::messages::create_acls::*;
use kacl_protocol::messages::create_partitions::*;
use kacl_protocol::messages::create_topics::*;
use kacl_protocol::messages::delete_acls::*;
use kacl_protocol::messages::delete_groups::*;
use kacl_protocol::messages::delete_topics::*;
use kacl_protocol::messages::describe_acls::*;
use kacl_protocol::messages::describe_client_quotas::{self, DescribeClientQuotasRequest};
use kacl_protocol::messages::describe_cluster::*;
use kacl_protocol::messages::describe_configs::*;
use kacl_protocol::messages::describe_groups::*;
use kacl_protocol::messages::describe_log_dirs::*;
use kacl_protocol::messages::describe_topic_partitions::*;
use kacl_protocol::messages::describe_transactions::*;
use kacl_protocol::messages::describe_user_scram_credentials::*;
use kacl_protocol::messages::find_coordinator::*;
use kacl_protocol::messages::incremental_alter_configs::{
    self as iac, IncrementalAlterConfigsRequest,
};
use kacl_protocol::messages::list_groups::*;
use kacl_protocol::messages::list_partition_reassignments::*;
use kacl_protocol::messages::list_transactions::*;
use kacl_protocol::messages::metadata::*;
use kacl_protocol::messages::sasl_authenticate::*;
use kacl_protocol::messages::sasl_handshake::*;
use kacl_protocol::{ApiKey, Message, RequestHeader, Uuid};

struct Seed {
    target: String,
    name: String,
    bytes: Vec<u8>,
}

fn target_name<'a, M: Message<'a>>() -> String {
    let api = M::API_KEY.name();
    let mut snake = String::new();
    for (i, c) in api.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    format!("decode_{snake}")
}

/// A body seed for the target of `M`, and the same request as a whole frame.
fn seeds_of<'a, M: Message<'a>>(label: &str, version: i16, value: &M, out: &mut Vec<Seed>) {
    let mut bytes = vec![u8::try_from(version - M::VERSIONS.min).unwrap()];
    value.encode(&mut bytes, version).unwrap();
    let target = target_name::<M>();
    out.push(Seed {
        name: format!("v{version}-{label}"),
        target: target.clone(),
        bytes,
    });
    let header = RequestHeader {
        correlation_id: 7,
        client_id: Some(Cow::Borrowed("fuzz-seed")),
        ..RequestHeader::default()
    };
    let mut frame = Vec::new();
    encode_request_frame(&mut frame, &header, version, value).unwrap();
    out.push(Seed {
        target: "decode_request_frame".into(),
        name: format!("{}-v{version}-{label}", &target["decode_".len()..]),
        bytes: frame,
    });
}

fn s(value: &'static str) -> Cow<'static, str> {
    Cow::Borrowed(value)
}

fn all_seeds() -> Vec<Seed> {
    let mut out = Vec::new();

    let metadata = |v: i16| MetadataRequest {
        topics: Some(vec![
            MetadataRequestTopic {
                name: Some(s("orders")),
                ..Default::default()
            },
            MetadataRequestTopic {
                topic_id: if v >= 10 { Uuid([7; 16]) } else { Uuid::ZERO },
                name: if v >= 10 { None } else { Some(s("payments")) },
                ..Default::default()
            },
        ]),
        include_topic_authorized_operations: v >= 8,
        ..Default::default()
    };
    for v in [0, 1, 4, 9, 12, 13] {
        seeds_of("two-topics", v, &metadata(v), &mut out);
    }
    let all_topics = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    seeds_of("all-topics", 1, &all_topics, &mut out);
    seeds_of("all-topics", 12, &all_topics, &mut out);

    let create_topics = |v: i16| CreateTopicsRequest {
        topics: vec![
            CreatableTopic {
                name: s("orders"),
                num_partitions: 3,
                replication_factor: 1,
                configs: vec![CreatableTopicConfig {
                    name: s("cleanup.policy"),
                    value: Some(s("compact")),
                    ..Default::default()
                }],
                ..Default::default()
            },
            CreatableTopic {
                name: s("manual"),
                num_partitions: -1,
                replication_factor: -1,
                assignments: vec![CreatableReplicaAssignment {
                    partition_index: 0,
                    broker_ids: vec![1],
                    ..Default::default()
                }],
                ..Default::default()
            },
        ],
        timeout_ms: 30_000,
        validate_only: v >= 1,
        ..Default::default()
    };
    for v in [2, 4, 5, 7] {
        seeds_of("two-topics", v, &create_topics(v), &mut out);
    }

    let delete_topics = |v: i16| DeleteTopicsRequest {
        topics: if v >= 6 {
            vec![
                DeleteTopicState {
                    name: Some(s("orders")),
                    ..Default::default()
                },
                DeleteTopicState {
                    name: None,
                    topic_id: Uuid([9; 16]),
                    ..Default::default()
                },
            ]
        } else {
            Vec::new()
        },
        topic_names: if v >= 6 {
            Vec::new()
        } else {
            vec![s("orders"), s("payments")]
        },
        timeout_ms: 30_000,
        ..Default::default()
    };
    for v in [1, 4, 6] {
        seeds_of("two-topics", v, &delete_topics(v), &mut out);
    }

    let create_partitions = CreatePartitionsRequest {
        topics: vec![
            CreatePartitionsTopic {
                name: s("orders"),
                count: 6,
                assignments: None,
                ..Default::default()
            },
            CreatePartitionsTopic {
                name: s("manual"),
                count: 2,
                assignments: Some(vec![CreatePartitionsAssignment {
                    broker_ids: vec![1],
                    ..Default::default()
                }]),
                ..Default::default()
            },
        ],
        timeout_ms: 30_000,
        validate_only: false,
        ..Default::default()
    };
    for v in [0, 2, 3] {
        seeds_of("two-topics", v, &create_partitions, &mut out);
    }

    for v in [0, 1] {
        let describe_cluster = DescribeClusterRequest {
            include_cluster_authorized_operations: true,
            ..Default::default()
        };
        seeds_of("with-ops", v, &describe_cluster, &mut out);
    }

    let describe_users = DescribeUserScramCredentialsRequest {
        users: Some(vec![UserName {
            name: s("alice"),
            ..Default::default()
        }]),
        ..Default::default()
    };
    seeds_of("one-user", 0, &describe_users, &mut out);
    let describe_all_users = DescribeUserScramCredentialsRequest {
        users: None,
        ..Default::default()
    };
    seeds_of("all-users", 0, &describe_all_users, &mut out);

    let alter_users = AlterUserScramCredentialsRequest {
        deletions: vec![ScramCredentialDeletion {
            name: s("bob"),
            mechanism: 2,
            ..Default::default()
        }],
        upsertions: vec![ScramCredentialUpsertion {
            name: s("alice"),
            mechanism: 1,
            iterations: 4096,
            salt: Cow::Borrowed(&[1, 2, 3, 4, 5, 6, 7, 8]),
            salted_password: Cow::Borrowed(&[0xab; 32]),
            ..Default::default()
        }],
        ..Default::default()
    };
    seeds_of("upsert-and-delete", 0, &alter_users, &mut out);

    let describe_configs = |v: i16| DescribeConfigsRequest {
        resources: vec![
            DescribeConfigsResource {
                resource_type: 2,
                resource_name: s("orders"),
                configuration_keys: Some(vec![s("cleanup.policy"), s("retention.ms")]),
                ..Default::default()
            },
            DescribeConfigsResource {
                resource_type: 4,
                resource_name: s("1"),
                configuration_keys: None,
                ..Default::default()
            },
        ],
        include_synonyms: v >= 1,
        include_documentation: v >= 3,
        ..Default::default()
    };
    for v in [0, 1, 3, 4] {
        seeds_of("topic-and-broker", v, &describe_configs(v), &mut out);
    }

    let alter_configs = AlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: 2,
            resource_name: s("orders"),
            configs: vec![
                AlterableConfig {
                    name: s("retention.ms"),
                    value: Some(s("86400000")),
                    ..Default::default()
                },
                AlterableConfig {
                    name: s("cleanup.policy"),
                    value: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        validate_only: true,
        ..Default::default()
    };
    for v in [0, 2] {
        seeds_of("one-topic", v, &alter_configs, &mut out);
    }

    let incremental = IncrementalAlterConfigsRequest {
        resources: vec![iac::AlterConfigsResource {
            resource_type: 2,
            resource_name: s("orders"),
            configs: vec![
                iac::AlterableConfig {
                    name: s("cleanup.policy"),
                    config_operation: 2,
                    value: Some(s("compact")),
                    ..Default::default()
                },
                iac::AlterableConfig {
                    name: s("retention.ms"),
                    config_operation: 1,
                    value: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        validate_only: false,
        ..Default::default()
    };
    for v in [0, 1] {
        seeds_of("append-and-delete", v, &incremental, &mut out);
    }

    let describe_acls = DescribeAclsRequest {
        resource_type_filter: 2,
        resource_name_filter: Some(s("orders")),
        pattern_type_filter: 3,
        principal_filter: None,
        host_filter: None,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    };
    for v in [0, 1, 2, 3] {
        seeds_of("topic-filter", v, &describe_acls, &mut out);
    }

    let create_acls = |v: i16| CreateAclsRequest {
        creations: vec![AclCreation {
            resource_type: 2,
            resource_name: s("orders"),
            resource_pattern_type: if v >= 1 { 4 } else { 3 },
            principal: s("User:alice"),
            host: s("*"),
            operation: 3,
            permission_type: 3,
            ..Default::default()
        }],
        ..Default::default()
    };
    for v in [0, 1, 3] {
        seeds_of("one-acl", v, &create_acls(v), &mut out);
    }

    let delete_acls = DeleteAclsRequest {
        filters: vec![DeleteAclsFilter {
            resource_type_filter: 1,
            resource_name_filter: None,
            pattern_type_filter: 3,
            principal_filter: Some(s("User:bob")),
            host_filter: None,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }],
        ..Default::default()
    };
    for v in [0, 1, 3] {
        seeds_of("one-filter", v, &delete_acls, &mut out);
    }

    seeds_of("empty", 0, &ApiVersionsRequest::default(), &mut out);
    let api_versions = ApiVersionsRequest {
        client_software_name: s("kacl-fuzz"),
        client_software_version: s("0.1.0"),
        ..Default::default()
    };
    seeds_of("named-client", 3, &api_versions, &mut out);
    seeds_of("named-client", 4, &api_versions, &mut out);

    let handshake = SaslHandshakeRequest {
        mechanism: s("SCRAM-SHA-256"),
        ..Default::default()
    };
    seeds_of("scram", 1, &handshake, &mut out);
    let authenticate = SaslAuthenticateRequest {
        auth_bytes: Cow::Borrowed(b"n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL"),
        ..Default::default()
    };
    seeds_of("client-first", 0, &authenticate, &mut out);
    seeds_of("client-first", 2, &authenticate, &mut out);

    // The admin APIs of newer tools (issue 29).
    let paged = DescribeTopicPartitionsRequest {
        topics: vec![TopicRequest {
            name: s("orders"),
            ..Default::default()
        }],
        response_partition_limit: 2,
        cursor: Some(Cursor {
            topic_name: s("orders"),
            partition_index: 2,
            ..Default::default()
        }),
        ..Default::default()
    };
    seeds_of("cursor", 0, &paged, &mut out);
    seeds_of(
        "all",
        0,
        &DescribeTopicPartitionsRequest::default(),
        &mut out,
    );
    let list_reassignments = ListPartitionReassignmentsRequest {
        topics: Some(vec![ListPartitionReassignmentsTopics {
            name: s("orders"),
            partition_indexes: vec![0, 1],
            ..Default::default()
        }]),
        ..Default::default()
    };
    seeds_of("one-topic", 0, &list_reassignments, &mut out);
    let alter_reassignments = |v: i16| AlterPartitionReassignmentsRequest {
        allow_replication_factor_change: v == 0,
        topics: vec![ReassignableTopic {
            name: s("orders"),
            partitions: vec![
                ReassignablePartition {
                    partition_index: 0,
                    replicas: Some(vec![2, 1]),
                    ..Default::default()
                },
                ReassignablePartition {
                    partition_index: 1,
                    replicas: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    for v in [0, 1] {
        seeds_of("move-and-cancel", v, &alter_reassignments(v), &mut out);
    }
    let log_dirs = DescribeLogDirsRequest {
        topics: None,
        ..Default::default()
    };
    seeds_of("all", 1, &log_dirs, &mut out);
    seeds_of("all", 4, &log_dirs, &mut out);
    let find = |v: i16| FindCoordinatorRequest {
        key: if v < 4 { s("group-1") } else { s("") },
        key_type: i8::from(v >= 1),
        coordinator_keys: if v >= 4 {
            vec![s("txn-1"), s("txn-2")]
        } else {
            vec![]
        },
        ..Default::default()
    };
    for v in [0, 3, 4, 6] {
        seeds_of("keys", v, &find(v), &mut out);
    }
    let list_groups = |v: i16| ListGroupsRequest {
        states_filter: if v >= 4 { vec![s("Stable")] } else { vec![] },
        types_filter: if v >= 5 { vec![s("consumer")] } else { vec![] },
        ..Default::default()
    };
    for v in [0, 3, 5] {
        seeds_of("filters", v, &list_groups(v), &mut out);
    }
    let describe_groups = |v: i16| DescribeGroupsRequest {
        groups: vec![s("group-1")],
        include_authorized_operations: v >= 3,
        ..Default::default()
    };
    for v in [0, 5, 6] {
        seeds_of("one-group", v, &describe_groups(v), &mut out);
    }
    let delete_groups = DeleteGroupsRequest {
        groups_names: vec![s("group-1"), s("group-2")],
        ..Default::default()
    };
    for v in [0, 2] {
        seeds_of("two-groups", v, &delete_groups, &mut out);
    }
    let consumer_groups = ConsumerGroupDescribeRequest {
        group_ids: vec![s("group-1")],
        include_authorized_operations: true,
        ..Default::default()
    };
    seeds_of("one-group", 1, &consumer_groups, &mut out);
    let list_txns = |v: i16| ListTransactionsRequest {
        state_filters: vec![s("Ongoing")],
        producer_id_filters: vec![7],
        duration_filter: if v >= 1 { 1000 } else { -1 },
        transactional_id_pattern: if v >= 2 { Some(s("txn-.*")) } else { None },
        ..Default::default()
    };
    for v in [0, 2] {
        seeds_of("filters", v, &list_txns(v), &mut out);
    }
    let describe_txns = DescribeTransactionsRequest {
        transactional_ids: vec![s("txn-1")],
        ..Default::default()
    };
    seeds_of("one-id", 0, &describe_txns, &mut out);
    let describe_quotas = DescribeClientQuotasRequest {
        components: vec![
            describe_client_quotas::ComponentData {
                entity_type: s("user"),
                match_type: 0,
                match_: Some(s("alice")),
                ..Default::default()
            },
            describe_client_quotas::ComponentData {
                entity_type: s("client-id"),
                match_type: 1,
                match_: None,
                ..Default::default()
            },
        ],
        strict: true,
        ..Default::default()
    };
    for v in [0, 1] {
        seeds_of("user-and-default-client", v, &describe_quotas, &mut out);
    }
    let alter_quotas = AlterClientQuotasRequest {
        entries: vec![alter_client_quotas::EntryData {
            entity: vec![alter_client_quotas::EntityData {
                entity_type: s("user"),
                entity_name: None,
                ..Default::default()
            }],
            ops: vec![
                alter_client_quotas::OpData {
                    key: s("producer_byte_rate"),
                    value: 1_048_576.0,
                    remove: false,
                    ..Default::default()
                },
                alter_client_quotas::OpData {
                    key: s("request_percentage"),
                    value: 0.0,
                    remove: true,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        validate_only: false,
        ..Default::default()
    };
    for v in [0, 1] {
        seeds_of("set-and-remove", v, &alter_quotas, &mut out);
    }

    out
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus")
}

/// Decodes a seed the way its fuzz target will, failing on any error.
fn decode_seed(target: &str, bytes: &[u8]) -> Result<(), String> {
    macro_rules! body {
        ($ty:ident) => {{
            let (&selector, body) = bytes.split_first().ok_or("empty seed")?;
            let version = $ty::VERSIONS.min + i16::from(selector);
            $ty::decode_exact(body, version)
                .map(drop)
                .map_err(|e| e.to_string())
        }};
    }
    match target {
        "decode_metadata" => body!(MetadataRequest),
        "decode_create_topics" => body!(CreateTopicsRequest),
        "decode_delete_topics" => body!(DeleteTopicsRequest),
        "decode_create_partitions" => body!(CreatePartitionsRequest),
        "decode_describe_cluster" => body!(DescribeClusterRequest),
        "decode_describe_configs" => body!(DescribeConfigsRequest),
        "decode_alter_configs" => body!(AlterConfigsRequest),
        "decode_incremental_alter_configs" => body!(IncrementalAlterConfigsRequest),
        "decode_describe_user_scram_credentials" => body!(DescribeUserScramCredentialsRequest),
        "decode_alter_user_scram_credentials" => body!(AlterUserScramCredentialsRequest),
        "decode_describe_acls" => body!(DescribeAclsRequest),
        "decode_create_acls" => body!(CreateAclsRequest),
        "decode_delete_acls" => body!(DeleteAclsRequest),
        "decode_api_versions" => body!(ApiVersionsRequest),
        "decode_sasl_handshake" => body!(SaslHandshakeRequest),
        "decode_sasl_authenticate" => body!(SaslAuthenticateRequest),
        "decode_describe_topic_partitions" => body!(DescribeTopicPartitionsRequest),
        "decode_list_partition_reassignments" => body!(ListPartitionReassignmentsRequest),
        "decode_alter_partition_reassignments" => body!(AlterPartitionReassignmentsRequest),
        "decode_describe_log_dirs" => body!(DescribeLogDirsRequest),
        "decode_describe_client_quotas" => body!(DescribeClientQuotasRequest),
        "decode_alter_client_quotas" => body!(AlterClientQuotasRequest),
        "decode_find_coordinator" => body!(FindCoordinatorRequest),
        "decode_list_groups" => body!(ListGroupsRequest),
        "decode_describe_groups" => body!(DescribeGroupsRequest),
        "decode_delete_groups" => body!(DeleteGroupsRequest),
        "decode_consumer_group_describe" => body!(ConsumerGroupDescribeRequest),
        "decode_list_transactions" => body!(ListTransactionsRequest),
        "decode_describe_transactions" => body!(DescribeTransactionsRequest),
        "decode_request_frame" => {
            let (payload, consumed) = split_frame(bytes, 1 << 20)
                .map_err(|e| e.to_string())?
                .ok_or("incomplete frame")?;
            if consumed != bytes.len() {
                return Err("bytes after the frame".into());
            }
            let frame = RequestFrame::parse(payload).map_err(|e| e.to_string())?;
            if !frame.api_key.supports(frame.version()) {
                return Err(format!(
                    "{} v{} is not served",
                    frame.api_key,
                    frame.version()
                ));
            }
            Ok(())
        }
        other => Err(format!("no fuzz target {other}")),
    }
}

#[test]
fn every_request_api_has_a_seeded_target() {
    let seeds = all_seeds();
    for api in ApiKey::ALL {
        let has_seed = seeds.iter().any(|seed| {
            seed.target != "decode_request_frame"
                && seed.target.replace('_', "") == format!("decode{}", api.name().to_lowercase())
        });
        assert!(has_seed, "no seed for {api}");
    }
}

#[test]
fn seeds_decode_with_their_targets() {
    for seed in all_seeds() {
        decode_seed(&seed.target, &seed.bytes)
            .unwrap_or_else(|e| panic!("{}/{}: {e}", seed.target, seed.name));
    }
}

#[test]
fn committed_corpus_matches_the_generator() {
    let dir = corpus_dir();
    let write = std::env::var_os("KACL_WRITE_FUZZ_SEEDS").is_some();
    for seed in all_seeds() {
        let path = dir.join(&seed.target).join(&seed.name);
        if write {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &seed.bytes).unwrap();
        } else {
            let committed = std::fs::read(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (regenerate with KACL_WRITE_FUZZ_SEEDS=1)",
                    path.display()
                )
            });
            assert_eq!(committed, seed.bytes, "{} is stale", path.display());
        }
    }
}
