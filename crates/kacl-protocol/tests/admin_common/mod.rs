//! Proptest strategies for the topic, cluster and SCRAM messages, per version: fields a version
//! lacks hold their schema default and unknown tagged fields appear only in flexible versions,
//! so every generated value is encodable at the version it was generated for. Builds on the
//! primitive strategies of `common`.
#![allow(dead_code)]

use kacl_protocol::messages::alter_user_scram_credentials::*;
use kacl_protocol::messages::create_partitions::*;
use kacl_protocol::messages::create_topics::*;
use kacl_protocol::messages::delete_topics::*;
use kacl_protocol::messages::describe_cluster::*;
use kacl_protocol::messages::describe_user_scram_credentials::*;
use kacl_protocol::messages::metadata::*;
use kacl_protocol::Uuid;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use crate::common::{bytes, nullable_string, string, unknown_tags, when};

pub(crate) fn uuid() -> BoxedStrategy<Uuid> {
    prop_oneof![Just(Uuid::ZERO), any::<[u8; 16]>().prop_map(Uuid)].boxed()
}

fn ids() -> BoxedStrategy<Vec<i32>> {
    vec(any::<i32>(), 0..4).boxed()
}

// ---- Metadata -------------------------------------------------------------------------------

fn metadata_request_topic(v: i16) -> BoxedStrategy<MetadataRequestTopic<'static>> {
    (
        when(v >= 10, uuid(), Uuid::ZERO),
        if v >= 10 {
            nullable_string()
        } else {
            string().prop_map(Some).boxed()
        },
        unknown_tags(v >= 9),
    )
        .prop_map(|(topic_id, name, tags)| MetadataRequestTopic {
            topic_id,
            name,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn metadata_request(v: i16) -> BoxedStrategy<MetadataRequest<'static>> {
    let topics = vec(metadata_request_topic(v), 0..4);
    (
        if v >= 1 {
            option::of(topics).boxed()
        } else {
            topics.prop_map(Some).boxed()
        },
        when(v >= 4, any::<bool>(), true),
        when((8..=10).contains(&v), any::<bool>(), false),
        when(v >= 8, any::<bool>(), false),
        unknown_tags(v >= 9),
    )
        .prop_map(
            |(topics, auto, cluster_ops, topic_ops, tags)| MetadataRequest {
                topics,
                allow_auto_topic_creation: auto,
                include_cluster_authorized_operations: cluster_ops,
                include_topic_authorized_operations: topic_ops,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn metadata_response_broker(v: i16) -> BoxedStrategy<MetadataResponseBroker<'static>> {
    (
        any::<i32>(),
        string(),
        any::<i32>(),
        when(v >= 1, nullable_string(), None),
        unknown_tags(v >= 9),
    )
        .prop_map(|(node_id, host, port, rack, tags)| MetadataResponseBroker {
            node_id,
            host,
            port,
            rack,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn metadata_response_partition(v: i16) -> BoxedStrategy<MetadataResponsePartition<'static>> {
    (
        any::<i16>(),
        any::<i32>(),
        any::<i32>(),
        when(v >= 7, any::<i32>(), -1),
        ids(),
        ids(),
        when(v >= 5, ids(), Vec::new()),
        unknown_tags(v >= 9),
    )
        .prop_map(|(ec, index, leader, epoch, replicas, isr, offline, tags)| {
            MetadataResponsePartition {
                error_code: ec,
                partition_index: index,
                leader_id: leader,
                leader_epoch: epoch,
                replica_nodes: replicas,
                isr_nodes: isr,
                offline_replicas: offline,
                unknown_tagged_fields: tags,
            }
        })
        .boxed()
}

fn metadata_response_topic(v: i16) -> BoxedStrategy<MetadataResponseTopic<'static>> {
    (
        any::<i16>(),
        if v >= 12 {
            nullable_string()
        } else {
            string().prop_map(Some).boxed()
        },
        when(v >= 10, uuid(), Uuid::ZERO),
        when(v >= 1, any::<bool>(), false),
        vec(metadata_response_partition(v), 0..3),
        when(v >= 8, any::<i32>(), i32::MIN),
        unknown_tags(v >= 9),
    )
        .prop_map(
            |(ec, name, topic_id, internal, partitions, ops, tags)| MetadataResponseTopic {
                error_code: ec,
                name,
                topic_id,
                is_internal: internal,
                partitions,
                topic_authorized_operations: ops,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn metadata_response(v: i16) -> BoxedStrategy<MetadataResponse<'static>> {
    (
        when(v >= 3, any::<i32>(), 0),
        vec(metadata_response_broker(v), 0..3),
        when(v >= 2, nullable_string(), None),
        when(v >= 1, any::<i32>(), -1),
        vec(metadata_response_topic(v), 0..3),
        when((8..=10).contains(&v), any::<i32>(), i32::MIN),
        when(v >= 13, any::<i16>(), 0),
        unknown_tags(v >= 9),
    )
        .prop_map(
            |(throttle, brokers, cluster_id, controller, topics, ops, ec, tags)| MetadataResponse {
                throttle_time_ms: throttle,
                brokers,
                cluster_id,
                controller_id: controller,
                topics,
                cluster_authorized_operations: ops,
                error_code: ec,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

// ---- CreateTopics ---------------------------------------------------------------------------

fn creatable_replica_assignment(v: i16) -> BoxedStrategy<CreatableReplicaAssignment<'static>> {
    (any::<i32>(), ids(), unknown_tags(v >= 5))
        .prop_map(
            |(partition_index, broker_ids, tags)| CreatableReplicaAssignment {
                partition_index,
                broker_ids,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn creatable_topic_config(v: i16) -> BoxedStrategy<CreatableTopicConfig<'static>> {
    (string(), nullable_string(), unknown_tags(v >= 5))
        .prop_map(|(name, value, tags)| CreatableTopicConfig {
            name,
            value,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn creatable_topic(v: i16) -> BoxedStrategy<CreatableTopic<'static>> {
    (
        string(),
        any::<i32>(),
        any::<i16>(),
        vec(creatable_replica_assignment(v), 0..3),
        vec(creatable_topic_config(v), 0..3),
        unknown_tags(v >= 5),
    )
        .prop_map(
            |(name, num_partitions, replication_factor, assignments, configs, tags)| {
                CreatableTopic {
                    name,
                    num_partitions,
                    replication_factor,
                    assignments,
                    configs,
                    unknown_tagged_fields: tags,
                }
            },
        )
        .boxed()
}

pub(crate) fn create_topics_request(v: i16) -> BoxedStrategy<CreateTopicsRequest<'static>> {
    (
        vec(creatable_topic(v), 0..3),
        any::<i32>(),
        when(v >= 1, any::<bool>(), false),
        unknown_tags(v >= 5),
    )
        .prop_map(
            |(topics, timeout_ms, validate_only, tags)| CreateTopicsRequest {
                topics,
                timeout_ms,
                validate_only,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn creatable_topic_configs(v: i16) -> BoxedStrategy<CreatableTopicConfigs<'static>> {
    (
        string(),
        nullable_string(),
        any::<bool>(),
        any::<i8>(),
        any::<bool>(),
        unknown_tags(v >= 5),
    )
        .prop_map(
            |(name, value, read_only, config_source, is_sensitive, tags)| CreatableTopicConfigs {
                name,
                value,
                read_only,
                config_source,
                is_sensitive,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn creatable_topic_result(v: i16) -> BoxedStrategy<CreatableTopicResult<'static>> {
    (
        string(),
        when(v >= 7, uuid(), Uuid::ZERO),
        any::<i16>(),
        when(v >= 1, nullable_string(), None),
        when(v >= 5, any::<i16>(), 0),
        when(v >= 5, any::<i32>(), -1),
        when(v >= 5, any::<i16>(), -1),
        when(
            v >= 5,
            option::of(vec(creatable_topic_configs(v), 0..3)),
            Some(Vec::new()),
        ),
        unknown_tags(v >= 5),
    )
        .prop_map(
            |(name, topic_id, ec, em, config_ec, partitions, rf, configs, tags)| {
                CreatableTopicResult {
                    name,
                    topic_id,
                    error_code: ec,
                    error_message: em,
                    topic_config_error_code: config_ec,
                    num_partitions: partitions,
                    replication_factor: rf,
                    configs,
                    unknown_tagged_fields: tags,
                }
            },
        )
        .boxed()
}

pub(crate) fn create_topics_response(v: i16) -> BoxedStrategy<CreateTopicsResponse<'static>> {
    (
        when(v >= 2, any::<i32>(), 0),
        vec(creatable_topic_result(v), 0..3),
        unknown_tags(v >= 5),
    )
        .prop_map(|(throttle_time_ms, topics, tags)| CreateTopicsResponse {
            throttle_time_ms,
            topics,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

// ---- DeleteTopics ---------------------------------------------------------------------------

fn delete_topic_state(v: i16) -> BoxedStrategy<DeleteTopicState<'static>> {
    (nullable_string(), uuid(), unknown_tags(v >= 4))
        .prop_map(|(name, topic_id, tags)| DeleteTopicState {
            name,
            topic_id,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn delete_topics_request(v: i16) -> BoxedStrategy<DeleteTopicsRequest<'static>> {
    (
        when(v >= 6, vec(delete_topic_state(v), 0..3), Vec::new()),
        when(v <= 5, vec(string(), 0..4), Vec::new()),
        any::<i32>(),
        unknown_tags(v >= 4),
    )
        .prop_map(
            |(topics, topic_names, timeout_ms, tags)| DeleteTopicsRequest {
                topics,
                topic_names,
                timeout_ms,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn deletable_topic_result(v: i16) -> BoxedStrategy<DeletableTopicResult<'static>> {
    (
        if v >= 6 {
            nullable_string()
        } else {
            string().prop_map(Some).boxed()
        },
        when(v >= 6, uuid(), Uuid::ZERO),
        any::<i16>(),
        when(v >= 5, nullable_string(), None),
        unknown_tags(v >= 4),
    )
        .prop_map(|(name, topic_id, ec, em, tags)| DeletableTopicResult {
            name,
            topic_id,
            error_code: ec,
            error_message: em,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn delete_topics_response(v: i16) -> BoxedStrategy<DeleteTopicsResponse<'static>> {
    (
        when(v >= 1, any::<i32>(), 0),
        vec(deletable_topic_result(v), 0..3),
        unknown_tags(v >= 4),
    )
        .prop_map(|(throttle_time_ms, responses, tags)| DeleteTopicsResponse {
            throttle_time_ms,
            responses,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

// ---- CreatePartitions -----------------------------------------------------------------------

fn create_partitions_assignment(v: i16) -> BoxedStrategy<CreatePartitionsAssignment<'static>> {
    (ids(), unknown_tags(v >= 2))
        .prop_map(|(broker_ids, tags)| CreatePartitionsAssignment {
            broker_ids,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn create_partitions_topic(v: i16) -> BoxedStrategy<CreatePartitionsTopic<'static>> {
    (
        string(),
        any::<i32>(),
        option::of(vec(create_partitions_assignment(v), 0..3)),
        unknown_tags(v >= 2),
    )
        .prop_map(|(name, count, assignments, tags)| CreatePartitionsTopic {
            name,
            count,
            assignments,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn create_partitions_request(v: i16) -> BoxedStrategy<CreatePartitionsRequest<'static>> {
    (
        vec(create_partitions_topic(v), 0..3),
        any::<i32>(),
        any::<bool>(),
        unknown_tags(v >= 2),
    )
        .prop_map(
            |(topics, timeout_ms, validate_only, tags)| CreatePartitionsRequest {
                topics,
                timeout_ms,
                validate_only,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn create_partitions_topic_result(v: i16) -> BoxedStrategy<CreatePartitionsTopicResult<'static>> {
    (
        string(),
        any::<i16>(),
        nullable_string(),
        unknown_tags(v >= 2),
    )
        .prop_map(|(name, ec, em, tags)| CreatePartitionsTopicResult {
            name,
            error_code: ec,
            error_message: em,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn create_partitions_response(
    v: i16,
) -> BoxedStrategy<CreatePartitionsResponse<'static>> {
    (
        any::<i32>(),
        vec(create_partitions_topic_result(v), 0..3),
        unknown_tags(v >= 2),
    )
        .prop_map(
            |(throttle_time_ms, results, tags)| CreatePartitionsResponse {
                throttle_time_ms,
                results,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

// ---- DescribeCluster ------------------------------------------------------------------------

pub(crate) fn describe_cluster_request(v: i16) -> BoxedStrategy<DescribeClusterRequest<'static>> {
    (
        any::<bool>(),
        when(v >= 1, any::<i8>(), 1),
        when(v >= 2, any::<bool>(), false),
        unknown_tags(true),
    )
        .prop_map(
            |(ops, endpoint_type, fenced, tags)| DescribeClusterRequest {
                include_cluster_authorized_operations: ops,
                endpoint_type,
                include_fenced_brokers: fenced,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn describe_cluster_broker(v: i16) -> BoxedStrategy<DescribeClusterBroker<'static>> {
    (
        any::<i32>(),
        string(),
        any::<i32>(),
        nullable_string(),
        when(v >= 2, any::<bool>(), false),
        unknown_tags(true),
    )
        .prop_map(
            |(broker_id, host, port, rack, is_fenced, tags)| DescribeClusterBroker {
                broker_id,
                host,
                port,
                rack,
                is_fenced,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn describe_cluster_response(v: i16) -> BoxedStrategy<DescribeClusterResponse<'static>> {
    (
        any::<i32>(),
        any::<i16>(),
        nullable_string(),
        when(v >= 1, any::<i8>(), 1),
        string(),
        any::<i32>(),
        vec(describe_cluster_broker(v), 0..3),
        any::<i32>(),
        unknown_tags(true),
    )
        .prop_map(
            |(throttle, ec, em, endpoint_type, cluster_id, controller, brokers, ops, tags)| {
                DescribeClusterResponse {
                    throttle_time_ms: throttle,
                    error_code: ec,
                    error_message: em,
                    endpoint_type,
                    cluster_id,
                    controller_id: controller,
                    brokers,
                    cluster_authorized_operations: ops,
                    unknown_tagged_fields: tags,
                }
            },
        )
        .boxed()
}

// ---- SCRAM credentials ----------------------------------------------------------------------

pub(crate) fn describe_user_scram_credentials_request(
    _v: i16,
) -> BoxedStrategy<DescribeUserScramCredentialsRequest<'static>> {
    let user = (string(), unknown_tags(true)).prop_map(|(name, tags)| UserName {
        name,
        unknown_tagged_fields: tags,
    });
    (option::of(vec(user, 0..4)), unknown_tags(true))
        .prop_map(|(users, tags)| DescribeUserScramCredentialsRequest {
            users,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn describe_user_scram_credentials_response(
    _v: i16,
) -> BoxedStrategy<DescribeUserScramCredentialsResponse<'static>> {
    let info = (any::<i8>(), any::<i32>(), unknown_tags(true)).prop_map(
        |(mechanism, iterations, tags)| CredentialInfo {
            mechanism,
            iterations,
            unknown_tagged_fields: tags,
        },
    );
    let result = (
        string(),
        any::<i16>(),
        nullable_string(),
        vec(info, 0..3),
        unknown_tags(true),
    )
        .prop_map(|(user, ec, em, credential_infos, tags)| {
            DescribeUserScramCredentialsResult {
                user,
                error_code: ec,
                error_message: em,
                credential_infos,
                unknown_tagged_fields: tags,
            }
        });
    (
        any::<i32>(),
        any::<i16>(),
        nullable_string(),
        vec(result, 0..3),
        unknown_tags(true),
    )
        .prop_map(
            |(throttle, ec, em, results, tags)| DescribeUserScramCredentialsResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                error_message: em,
                results,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn alter_user_scram_credentials_request(
    _v: i16,
) -> BoxedStrategy<AlterUserScramCredentialsRequest<'static>> {
    let deletion =
        (string(), any::<i8>(), unknown_tags(true)).prop_map(|(name, mechanism, tags)| {
            ScramCredentialDeletion {
                name,
                mechanism,
                unknown_tagged_fields: tags,
            }
        });
    let upsertion = (
        string(),
        any::<i8>(),
        any::<i32>(),
        bytes(),
        bytes(),
        unknown_tags(true),
    )
        .prop_map(
            |(name, mechanism, iterations, salt, salted_password, tags)| ScramCredentialUpsertion {
                name,
                mechanism,
                iterations,
                salt,
                salted_password,
                unknown_tagged_fields: tags,
            },
        );
    (
        vec(deletion, 0..3),
        vec(upsertion, 0..3),
        unknown_tags(true),
    )
        .prop_map(
            |(deletions, upsertions, tags)| AlterUserScramCredentialsRequest {
                deletions,
                upsertions,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn alter_user_scram_credentials_response(
    _v: i16,
) -> BoxedStrategy<AlterUserScramCredentialsResponse<'static>> {
    let result = (
        string(),
        any::<i16>(),
        nullable_string(),
        unknown_tags(true),
    )
        .prop_map(|(user, ec, em, tags)| AlterUserScramCredentialsResult {
            user,
            error_code: ec,
            error_message: em,
            unknown_tagged_fields: tags,
        });
    (any::<i32>(), vec(result, 0..3), unknown_tags(true))
        .prop_map(
            |(throttle_time_ms, results, tags)| AlterUserScramCredentialsResponse {
                throttle_time_ms,
                results,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}
