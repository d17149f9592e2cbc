//! Topic administration: `create_topics`, `delete_topics`, `create_partitions` (sent to the
//! controller) and `list_topics` (Metadata), `describe_topics` (DescribeTopicPartitions paged
//! by its cursor when the broker offers it, else Metadata; any broker). Per-topic results come
//! back by input position; a name given twice is sent once.

mod paged;

use std::borrow::Cow;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
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
use kacl_protocol::{ApiKey, ErrorCode, Message, Uuid};

use super::dedupe::Deduped;
use super::{Admin, Target};
use crate::error::AdminError;

/// A topic to create (Kafka's `NewTopic`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewTopic {
    /// The topic name.
    pub name: String,
    /// Partition count; `None` uses the broker's `num.partitions` (needs CreateTopics v4+).
    pub num_partitions: Option<i32>,
    /// Replication factor; `None` uses `default.replication.factor` (needs v4+).
    pub replication_factor: Option<i16>,
    /// Explicit replicas per partition (partition `i` gets `replica_assignment[i]`); when set,
    /// partition count and replication factor must be `None`.
    pub replica_assignment: Option<Vec<Vec<i32>>>,
    /// Topic configs.
    pub configs: Vec<(String, String)>,
}

impl NewTopic {
    /// A topic with broker-default partitions and replication, and no configs.
    pub fn new(name: impl Into<String>) -> Self {
        NewTopic {
            name: name.into(),
            num_partitions: None,
            replication_factor: None,
            replica_assignment: None,
            configs: Vec::new(),
        }
    }
}

/// New total partition count for a topic (Kafka's `NewPartitions`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewPartitions {
    /// The partition count after the change.
    pub total_count: i32,
    /// Replicas of each new partition, or `None` for automatic placement.
    pub new_assignments: Option<Vec<Vec<i32>>>,
}

/// Options for the topic calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TopicOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
    /// Check only; change nothing (create topics, create partitions).
    pub validate_only: bool,
    /// Include internal topics (list topics).
    pub list_internal: bool,
    /// Most partitions per DescribeTopicPartitions answer (describe topics); `None`: Kafka's
    /// 2000. Kafka's `DescribeTopicsOptions.partitionSizeLimitPerResponse`.
    pub partition_size_limit_per_response: Option<i32>,
}

/// A topic as `list_topics` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicListing {
    /// The topic name.
    pub name: String,
    /// The topic id in Kafka's text form (URL-safe base64), if the broker reported one.
    pub topic_id: Option<String>,
    /// Whether the topic is internal.
    pub is_internal: bool,
}

/// One partition of a described topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// The partition index.
    pub partition: i32,
    /// The leader's node id, if there is a leader.
    pub leader: Option<i32>,
    /// All replicas.
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
}

/// A topic as `describe_topics` shows it (Kafka's `TopicDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicDescription {
    /// The topic name.
    pub name: String,
    /// The topic id in Kafka's text form, if reported.
    pub topic_id: Option<String>,
    /// Whether the topic is internal.
    pub is_internal: bool,
    /// Partitions in index order.
    pub partitions: Vec<PartitionInfo>,
}

fn topic_id_text(id: Uuid) -> Option<String> {
    (id != Uuid::ZERO).then(|| URL_SAFE_NO_PAD.encode(id.0))
}

/// Joins per-name results with the deduplicated input, reporting names the broker skipped.
fn by_name(
    names: &[String],
    results: Vec<(String, Result<(), AdminError>)>,
    what: &str,
) -> Vec<Result<(), AdminError>> {
    names
        .iter()
        .map(|name| {
            results
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, r)| r.clone())
                .unwrap_or_else(|| {
                    Err(AdminError::server(
                        ErrorCode::UnknownServerError,
                        Some(&format!(
                            "The server response did not contain a {what} for topic {name}"
                        )),
                    ))
                })
        })
        .collect()
}

fn all_failed<T>(count: usize, err: &AdminError) -> Vec<Result<T, AdminError>> {
    (0..count).map(|_| Err(err.clone())).collect()
}

/// One topic's result as the broker named it.
type NamedResult = (String, Result<(), AdminError>);

/// The per-topic results of one request, in input order: each unique name's result joined by
/// name (a name the broker did not answer is an error), or the request's error for all.
fn spread_results(
    deduped: &Deduped<String>,
    sent: Result<Vec<NamedResult>, AdminError>,
) -> Vec<Result<(), AdminError>> {
    let outcomes = match sent {
        Ok(results) => by_name(&deduped.unique, results, "result"),
        Err(err) => all_failed(deduped.unique.len(), &err),
    };
    deduped.spread(&outcomes)
}

impl Admin {
    /// The `timeout_ms` a topic request carries: the call's timeout, else
    /// `default.api.timeout.ms`, in milliseconds (at most `i32::MAX`).
    fn timeout_ms(&self, options: &TopicOptions) -> i32 {
        let timeout = options.timeout.unwrap_or(self.config().default_api_timeout);
        i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX)
    }

    /// Creates topics; one result per input position.
    pub async fn create_topics(
        &self,
        topics: Vec<NewTopic>,
        options: TopicOptions,
    ) -> Vec<Result<(), AdminError>> {
        let deduped = Deduped::new(topics.iter().map(|t| t.name.clone()).collect());
        let unique: Vec<&NewTopic> = deduped
            .unique
            .iter()
            .filter_map(|name| topics.iter().find(|t| t.name == *name))
            .collect();
        let timeout_ms = self.timeout_ms(&options);
        let sent = self
            .call(
                "createTopics",
                options.timeout,
                Target::Controller,
                |broker| {
                    let unique = &unique;
                    async move {
                        let version = broker
                            .versions
                            .pick(ApiKey::CreateTopics, CreateTopicsRequest::VERSIONS)?;
                        let needs_defaults = unique.iter().any(|t| {
                            t.replica_assignment.is_none()
                                && (t.num_partitions.is_none() || t.replication_factor.is_none())
                        });
                        if needs_defaults && version < 4 {
                            return Err(AdminError::UnsupportedVersion {
                                api: ApiKey::CreateTopics,
                                detail: "the broker needs an explicit partition count and \
                                     replication factor (CreateTopics v4 lets them default)"
                                    .into(),
                            });
                        }
                        let request = CreateTopicsRequest {
                            topics: unique.iter().map(|t| creatable(t)).collect(),
                            timeout_ms,
                            validate_only: options.validate_only,
                            ..Default::default()
                        };
                        let response = broker.conn.send(version, &request).await?;
                        let body: CreateTopicsResponse = response.decode()?;
                        Ok(body
                            .topics
                            .iter()
                            .map(|t| {
                                (
                                    t.name.to_string(),
                                    AdminError::check(t.error_code, t.error_message.as_deref()),
                                )
                            })
                            .collect::<Vec<_>>())
                    }
                },
            )
            .await;
        spread_results(&deduped, sent)
    }

    /// Deletes topics by name; one result per input position.
    pub async fn delete_topics(
        &self,
        names: Vec<String>,
        options: TopicOptions,
    ) -> Vec<Result<(), AdminError>> {
        let deduped = Deduped::new(names);
        let timeout_ms = self.timeout_ms(&options);
        let sent = self
            .call(
                "deleteTopics",
                options.timeout,
                Target::Controller,
                |broker| {
                    let names = &deduped.unique;
                    async move {
                        let version = broker
                            .versions
                            .pick(ApiKey::DeleteTopics, DeleteTopicsRequest::VERSIONS)?;
                        let mut request = DeleteTopicsRequest {
                            timeout_ms,
                            ..Default::default()
                        };
                        if version >= 6 {
                            request.topics = names
                                .iter()
                                .map(|n| DeleteTopicState {
                                    name: Some(Cow::Borrowed(n.as_str())),
                                    ..Default::default()
                                })
                                .collect();
                        } else {
                            request.topic_names =
                                names.iter().map(|n| Cow::Borrowed(n.as_str())).collect();
                        }
                        let response = broker.conn.send(version, &request).await?;
                        let body: DeleteTopicsResponse = response.decode()?;
                        Ok(body
                            .responses
                            .iter()
                            .map(|t| {
                                (
                                    t.name.as_deref().unwrap_or_default().to_owned(),
                                    AdminError::check(t.error_code, t.error_message.as_deref()),
                                )
                            })
                            .collect::<Vec<_>>())
                    }
                },
            )
            .await;
        spread_results(&deduped, sent)
    }

    /// Raises partition counts; one result per input position.
    pub async fn create_partitions(
        &self,
        changes: Vec<(String, NewPartitions)>,
        options: TopicOptions,
    ) -> Vec<Result<(), AdminError>> {
        let deduped = Deduped::new(changes.iter().map(|(n, _)| n.clone()).collect());
        let unique: Vec<&(String, NewPartitions)> = deduped
            .unique
            .iter()
            .filter_map(|name| changes.iter().find(|(n, _)| n == name))
            .collect();
        let timeout_ms = self.timeout_ms(&options);
        let sent = self
            .call(
                "createPartitions",
                options.timeout,
                Target::Controller,
                |broker| {
                    let unique = &unique;
                    async move {
                        let version = broker
                            .versions
                            .pick(ApiKey::CreatePartitions, CreatePartitionsRequest::VERSIONS)?;
                        let request = CreatePartitionsRequest {
                            topics: unique
                                .iter()
                                .map(|(name, change)| CreatePartitionsTopic {
                                    name: Cow::Borrowed(name.as_str()),
                                    count: change.total_count,
                                    assignments: change.new_assignments.as_ref().map(|all| {
                                        all.iter()
                                            .map(|ids| CreatePartitionsAssignment {
                                                broker_ids: ids.clone(),
                                                ..Default::default()
                                            })
                                            .collect()
                                    }),
                                    ..Default::default()
                                })
                                .collect(),
                            timeout_ms,
                            validate_only: options.validate_only,
                            ..Default::default()
                        };
                        let response = broker.conn.send(version, &request).await?;
                        let body: CreatePartitionsResponse = response.decode()?;
                        Ok(body
                            .results
                            .iter()
                            .map(|t| {
                                (
                                    t.name.to_string(),
                                    AdminError::check(t.error_code, t.error_message.as_deref()),
                                )
                            })
                            .collect::<Vec<_>>())
                    }
                },
            )
            .await;
        spread_results(&deduped, sent)
    }

    /// Lists topics (Metadata for all topics), sorted by name; internal topics only when
    /// `options.list_internal`.
    pub async fn list_topics(
        &self,
        options: TopicOptions,
    ) -> Result<Vec<TopicListing>, AdminError> {
        let body = self.metadata(None, options.timeout).await?;
        let mut topics: Vec<TopicListing> = body
            .into_iter()
            .filter(|t| options.list_internal || !t.is_internal)
            .map(|t| TopicListing {
                name: t.name,
                topic_id: t.topic_id,
                is_internal: t.is_internal,
            })
            .collect();
        topics.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(topics)
    }

    /// Describes topics by name; one result per input position (UNKNOWN_TOPIC_OR_PARTITION for
    /// a topic that does not exist).
    pub async fn describe_topics(
        &self,
        names: Vec<String>,
        options: TopicOptions,
    ) -> Result<Vec<Result<TopicDescription, AdminError>>, AdminError> {
        let deduped = Deduped::new(names);
        if deduped.unique.is_empty() {
            // An empty DescribeTopicPartitions list would mean every topic.
            return Ok(Vec::new());
        }
        let limit = options
            .partition_size_limit_per_response
            .unwrap_or(paged::DEFAULT_PARTITION_LIMIT);
        let found = match self
            .describe_paged(&deduped.unique, limit, options.timeout)
            .await?
        {
            Some(found) => found,
            None => {
                self.metadata(Some(&deduped.unique), options.timeout)
                    .await?
            }
        };
        let outcomes: Vec<Result<TopicDescription, AdminError>> = deduped
            .unique
            .iter()
            .map(|name| match found.iter().find(|t| t.name == *name) {
                Some(t) => t.error.clone().map(|()| t.description()),
                None => Err(AdminError::server(ErrorCode::UnknownTopicOrPartition, None)),
            })
            .collect();
        Ok(deduped.spread(&outcomes))
    }

    /// Metadata for the named topics, or all topics for `None`.
    async fn metadata(
        &self,
        names: Option<&[String]>,
        timeout: Option<Duration>,
    ) -> Result<Vec<TopicMetadata>, AdminError> {
        self.call(
            "metadata",
            timeout,
            Target::AnyBroker,
            |broker| async move {
                let version = broker
                    .versions
                    .pick(ApiKey::Metadata, MetadataRequest::VERSIONS)?;
                if names.is_none() && version == 0 {
                    return Err(AdminError::UnsupportedVersion {
                        api: ApiKey::Metadata,
                        detail: "listing all topics needs Metadata v1".into(),
                    });
                }
                let request = MetadataRequest {
                    topics: names.map(|names| {
                        names
                            .iter()
                            .map(|n| MetadataRequestTopic {
                                name: Some(Cow::Borrowed(n.as_str())),
                                ..Default::default()
                            })
                            .collect()
                    }),
                    // v0-3 have no such field (true is implied there, and the encoder wants the default).
                    allow_auto_topic_creation: version < 4,
                    ..Default::default()
                };
                let response = broker.conn.send(version, &request).await?;
                let body: MetadataResponse = response.decode()?;
                AdminError::check(body.error_code, None)?;
                Ok(body
                    .topics
                    .iter()
                    .map(|t| {
                        let mut partitions: Vec<PartitionInfo> = t
                            .partitions
                            .iter()
                            .map(|p| PartitionInfo {
                                partition: p.partition_index,
                                leader: (p.leader_id >= 0).then_some(p.leader_id),
                                replicas: p.replica_nodes.clone(),
                                isr: p.isr_nodes.clone(),
                            })
                            .collect();
                        partitions.sort_by_key(|p| p.partition);
                        TopicMetadata {
                            name: t.name.as_deref().unwrap_or_default().to_owned(),
                            topic_id: topic_id_text(t.topic_id),
                            is_internal: t.is_internal,
                            partitions,
                            error: AdminError::check(t.error_code, None),
                        }
                    })
                    .collect())
            },
        )
        .await
    }
}

/// One topic from Metadata, with its error.
struct TopicMetadata {
    name: String,
    topic_id: Option<String>,
    is_internal: bool,
    partitions: Vec<PartitionInfo>,
    error: Result<(), AdminError>,
}

impl TopicMetadata {
    fn description(&self) -> TopicDescription {
        TopicDescription {
            name: self.name.clone(),
            topic_id: self.topic_id.clone(),
            is_internal: self.is_internal,
            partitions: self.partitions.clone(),
        }
    }
}

fn creatable(topic: &NewTopic) -> CreatableTopic<'_> {
    let assignments = topic
        .replica_assignment
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, ids)| CreatableReplicaAssignment {
            partition_index: i32::try_from(i).unwrap_or(i32::MAX),
            broker_ids: ids.clone(),
            ..Default::default()
        })
        .collect();
    CreatableTopic {
        name: Cow::Borrowed(&topic.name),
        num_partitions: topic.num_partitions.unwrap_or(-1),
        replication_factor: topic.replication_factor.unwrap_or(-1),
        assignments,
        configs: topic
            .configs
            .iter()
            .map(|(k, v)| CreatableTopicConfig {
                name: Cow::Borrowed(k),
                value: Some(Cow::Borrowed(v)),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_topics_default_to_minus_one_and_number_assignments() {
        let mut topic = NewTopic::new("t");
        let wire = creatable(&topic);
        assert_eq!((wire.num_partitions, wire.replication_factor), (-1, -1));
        topic.replica_assignment = Some(vec![vec![0, 1], vec![1, 2]]);
        topic.configs = vec![("cleanup.policy".into(), "compact".into())];
        let wire = creatable(&topic);
        assert_eq!(wire.assignments.len(), 2);
        assert_eq!(wire.assignments[1].partition_index, 1);
        assert_eq!(wire.assignments[1].broker_ids, [1, 2]);
        assert_eq!(wire.configs[0].value.as_deref(), Some("compact"));
    }

    #[test]
    fn topic_ids_print_as_kafka_does() {
        assert_eq!(topic_id_text(Uuid::ZERO), None);
        let id = Uuid([0xff; 16]);
        assert_eq!(topic_id_text(id).as_deref(), Some("_____________________w"));
    }

    #[test]
    fn results_join_by_name_and_report_missing_ones() {
        let names = vec!["a".to_owned(), "b".to_owned()];
        let results = vec![("b".to_owned(), Ok(()))];
        let joined = by_name(&names, results, "result");
        assert!(joined[0].is_err());
        assert_eq!(joined[1], Ok(()));
    }
}
