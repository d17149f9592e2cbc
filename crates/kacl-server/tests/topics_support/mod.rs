//! Shared by the topic tests: request builders and calls for CreateTopics, DeleteTopics,
//! CreatePartitions and Metadata, and ACL grants made straight through the server's writer.
#![allow(dead_code)]

use std::borrow::Cow;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::create_partitions::{
    CreatePartitionsAssignment, CreatePartitionsRequest, CreatePartitionsResponse,
    CreatePartitionsTopic,
};
use kacl_protocol::messages::create_topics::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig, CreateTopicsRequest,
    CreateTopicsResponse,
};
use kacl_protocol::messages::delete_topics::{
    DeleteTopicState, DeleteTopicsRequest, DeleteTopicsResponse,
};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic, MetadataResponse};
use kacl_protocol::IntoStatic;

use crate::common::{decode, Client, TestServer};

/// A topic with a partition count and replication factor (-1: the broker's default).
pub(crate) fn topic(
    name: &str,
    partitions: i32,
    replication_factor: i16,
) -> CreatableTopic<'static> {
    CreatableTopic {
        name: Cow::Owned(name.to_owned()),
        num_partitions: partitions,
        replication_factor,
        ..Default::default()
    }
}

/// `topic` with configs (`None` values are sent as null).
pub(crate) fn with_configs(
    mut topic: CreatableTopic<'static>,
    configs: &[(&str, Option<&str>)],
) -> CreatableTopic<'static> {
    topic.configs = configs
        .iter()
        .map(|(name, value)| CreatableTopicConfig {
            name: Cow::Owned((*name).to_owned()),
            value: value.map(|v| Cow::Owned(v.to_owned())),
            ..Default::default()
        })
        .collect();
    topic
}

/// A topic with manual assignments `(partition, brokers)` and the given counts.
pub(crate) fn assigned(
    name: &str,
    partitions: i32,
    replication_factor: i16,
    assignments: &[(i32, &[i32])],
) -> CreatableTopic<'static> {
    let mut topic = topic(name, partitions, replication_factor);
    topic.assignments = assignments
        .iter()
        .map(|(partition, brokers)| CreatableReplicaAssignment {
            partition_index: *partition,
            broker_ids: brokers.to_vec(),
            ..Default::default()
        })
        .collect();
    topic
}

pub(crate) async fn create_topics(
    client: &mut Client,
    version: i16,
    topics: Vec<CreatableTopic<'static>>,
    validate_only: bool,
) -> CreateTopicsResponse<'static> {
    let request = CreateTopicsRequest {
        topics,
        timeout_ms: 30_000,
        validate_only,
        ..Default::default()
    };
    let payload = client.call(version, &request).await;
    decode::<CreateTopicsResponse>(&payload, version).into_static()
}

/// Creates the topics at v7 and asserts every one succeeded.
pub(crate) async fn create_ok(client: &mut Client, topics: Vec<CreatableTopic<'static>>) {
    let resp = create_topics(client, 7, topics, false).await;
    for result in &resp.topics {
        assert_eq!(
            (result.error_code, result.error_message.as_deref()),
            (0, None),
            "creating {}",
            result.name
        );
    }
}

/// `(name, code, message)` of each CreateTopics result.
pub(crate) fn create_outcomes(
    resp: &CreateTopicsResponse<'_>,
) -> Vec<(String, i16, Option<String>)> {
    resp.topics
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.error_code,
                t.error_message.as_deref().map(str::to_owned),
            )
        })
        .collect()
}

pub(crate) async fn delete_by_name(
    client: &mut Client,
    version: i16,
    names: &[&str],
) -> DeleteTopicsResponse<'static> {
    let request = if version >= 6 {
        DeleteTopicsRequest {
            topics: names
                .iter()
                .map(|n| DeleteTopicState {
                    name: Some(Cow::Owned((*n).to_owned())),
                    ..Default::default()
                })
                .collect(),
            timeout_ms: 30_000,
            ..Default::default()
        }
    } else {
        DeleteTopicsRequest {
            topic_names: names.iter().map(|n| Cow::Owned((*n).to_owned())).collect(),
            timeout_ms: 30_000,
            ..Default::default()
        }
    };
    delete_topics(client, version, &request).await
}

/// A v6 entry: by name, by id, both or neither.
pub(crate) fn state(name: Option<&str>, id: Uuid) -> DeleteTopicState<'static> {
    DeleteTopicState {
        name: name.map(|n| Cow::Owned(n.to_owned())),
        topic_id: id,
        ..Default::default()
    }
}

pub(crate) async fn delete_v6(
    client: &mut Client,
    topics: Vec<DeleteTopicState<'static>>,
) -> DeleteTopicsResponse<'static> {
    let request = DeleteTopicsRequest {
        topics,
        timeout_ms: 30_000,
        ..Default::default()
    };
    delete_topics(client, 6, &request).await
}

pub(crate) async fn delete_topics(
    client: &mut Client,
    version: i16,
    request: &DeleteTopicsRequest<'_>,
) -> DeleteTopicsResponse<'static> {
    let payload = client.call(version, request).await;
    decode::<DeleteTopicsResponse>(&payload, version).into_static()
}

/// `(name, code, message)` of each DeleteTopics result.
pub(crate) fn delete_outcomes(
    resp: &DeleteTopicsResponse<'_>,
) -> Vec<(Option<String>, i16, Option<String>)> {
    resp.responses
        .iter()
        .map(|r| {
            (
                r.name.as_deref().map(str::to_owned),
                r.error_code,
                r.error_message.as_deref().map(str::to_owned),
            )
        })
        .collect()
}

/// A CreatePartitions entry; `assignments` `None` sends null (automatic placement).
pub(crate) fn increase(
    name: &str,
    count: i32,
    assignments: Option<&[&[i32]]>,
) -> CreatePartitionsTopic<'static> {
    CreatePartitionsTopic {
        name: Cow::Owned(name.to_owned()),
        count,
        assignments: assignments.map(|list| {
            list.iter()
                .map(|brokers| CreatePartitionsAssignment {
                    broker_ids: brokers.to_vec(),
                    ..Default::default()
                })
                .collect()
        }),
        ..Default::default()
    }
}

pub(crate) async fn create_partitions(
    client: &mut Client,
    version: i16,
    topics: Vec<CreatePartitionsTopic<'static>>,
    validate_only: bool,
) -> CreatePartitionsResponse<'static> {
    let request = CreatePartitionsRequest {
        topics,
        timeout_ms: 30_000,
        validate_only,
        ..Default::default()
    };
    let payload = client.call(version, &request).await;
    decode::<CreatePartitionsResponse>(&payload, version).into_static()
}

/// `(name, code, message)` of each CreatePartitions result.
pub(crate) fn partition_outcomes(
    resp: &CreatePartitionsResponse<'_>,
) -> Vec<(String, i16, Option<String>)> {
    resp.results
        .iter()
        .map(|r| {
            (
                r.name.to_string(),
                r.error_code,
                r.error_message.as_deref().map(str::to_owned),
            )
        })
        .collect()
}

pub(crate) async fn metadata(
    client: &mut Client,
    version: i16,
    request: &MetadataRequest<'_>,
) -> MetadataResponse<'static> {
    let payload = client.call(version, request).await;
    decode::<MetadataResponse>(&payload, version).into_static()
}

/// Metadata v12 for every topic.
pub(crate) async fn all_topics(client: &mut Client) -> MetadataResponse<'static> {
    metadata(
        client,
        12,
        &MetadataRequest {
            topics: None,
            ..Default::default()
        },
    )
    .await
}

/// The request topics for these names.
pub(crate) fn names(names: &[&str]) -> Option<Vec<MetadataRequestTopic<'static>>> {
    Some(
        names
            .iter()
            .map(|n| MetadataRequestTopic {
                name: Some(Cow::Owned((*n).to_owned())),
                ..Default::default()
            })
            .collect(),
    )
}

/// `(name, partition count)` of every topic in a Metadata response, sorted by name.
pub(crate) fn listed(resp: &MetadataResponse<'_>) -> Vec<(String, usize)> {
    let mut topics: Vec<(String, usize)> = resp
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_deref().unwrap_or("").to_owned(),
                t.partitions.len(),
            )
        })
        .collect();
    topics.sort();
    topics
}

/// Grants `principal` an ALLOW of `operation` on a resource, from any host, through the
/// server's own ACL writer (the index and the store both see it at once).
pub(crate) fn grant(
    server: &TestServer,
    principal: &str,
    resource_type: ResourceType,
    name: &str,
    pattern_type: PatternType,
    operation: AclOperation,
) {
    let binding = AclBinding {
        pattern: ResourcePattern {
            resource_type,
            name: name.to_owned(),
            pattern_type,
        },
        entry: AccessControlEntry {
            principal: principal.to_owned(),
            host: "*".to_owned(),
            operation,
            permission_type: AclPermissionType::Allow,
        },
    };
    server
        .server
        .state()
        .acl_writer
        .create(&[binding], 10_000)
        .expect("ACL stored");
}

/// The principal of PLAINTEXT clients, made an ordinary user by `super.users=User:admin`.
pub(crate) const ANONYMOUS: &str = "User:ANONYMOUS";
/// Properties under which `User:ANONYMOUS` is not a super user.
pub(crate) const NOT_SUPER: &[(&str, &str)] = &[("super.users", "User:admin")];
