//! CreateTopics (19), v2-7: create topics, all valid ones of a request in one durable commit.
//!
//! Order, as Kafka's `ControllerApis.createTopics` then `ReplicationControlManager.createTopics`:
//! 1. a name given more than once: INVALID_REQUEST `Duplicate topic name.` (one result per name);
//!    `__cluster_metadata`: INVALID_REQUEST `Creation of internal topic __cluster_metadata is
//!    prohibited.`;
//! 2. CREATE on the cluster, or else CREATE on the topic: TOPIC_AUTHORIZATION_FAILED
//!    `Authorization failed.` otherwise; DESCRIBE_CONFIGS on the topic decides whether a v5+
//!    success carries the configs, partition count and replication factor (else
//!    `topic_config_error_code` 29);
//! 3. over the remaining topics: more than 10,000 partitions in total fails every topic of the
//!    request with POLICY_VIOLATION;
//! 4. per topic: existing name (36), `.`/`_` collision (17), name rules (17); null, unknown or
//!    ill-typed configs (40); then partitions, replication factor and manual assignments
//!    (37, 38, 39, 42), all through [`kacl_topics`];
//! 5. unless `validate_only`, the topics that passed are committed to the store before the
//!    response is sent.
//!
//! Results come in Kafka's order: the checked topics in request order, then the duplicates,
//! then the refused ones. A `validate_only` success carries a fresh topic id that is not kept,
//! as in Kafka.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::create_topics::{
    CreatableTopic, CreatableTopicConfigs, CreatableTopicResult, CreateTopicsRequest,
    CreateTopicsResponse,
};
use kacl_protocol::ErrorCode;
use kacl_store::{PartitionRecord, TopicRecord};

use super::brokers::{live_brokers, place_rack_aware, racked_brokers};
use super::topic_commit::{commit_topics_coded, CommitFailure};
use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::topic_registry::{TopicChange, TopicCommit, TopicTable};
use kacl_topics::{
    check_new_topic_name, check_request_partition_total, effective_topic_configs, plan_new_topic,
    requested_partition_count, validate_topic_configs, ManualAssignment, TopicDefaults, TopicError,
    CLUSTER_METADATA_TOPIC_NAME,
};

/// Kafka's text for a topic the caller may not create.
const NOT_AUTHORIZED: &str = "Authorization failed.";

/// A topic that passed every check.
struct NewTopic {
    record: TopicRecord,
    /// DESCRIBE_CONFIGS on the topic: the v5+ result may show its configs.
    show_configs: bool,
}

/// CreateTopics: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct CreateTopics;

impl Handler for CreateTopics {
    type Request<'r> = CreateTopicsRequest<'r>;
    type Response<'r> = CreateTopicsResponse<'r>;

    /// Answers one CreateTopics request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: CreateTopicsRequest<'r>,
    ) -> Result<CreateTopicsResponse<'r>, Outcome> {
        let state = ctx.state;

        let mut occurrences: HashMap<&str, usize> = HashMap::new();
        for topic in &request.topics {
            *occurrences.entry(&topic.name).or_default() += 1;
        }
        let mut seen = HashSet::new();
        let unique: Vec<&str> = request
            .topics
            .iter()
            .map(|t| &*t.name)
            .filter(|name| seen.insert(*name))
            .collect();
        let duplicates: Vec<&str> = unique
            .iter()
            .copied()
            .filter(|name| occurrences.get(name).copied().unwrap_or(0) > 1)
            .collect();
        let candidates: Vec<&str> = unique
            .iter()
            .copied()
            .filter(|name| !duplicates.contains(name) && *name != CLUSTER_METADATA_TOPIC_NAME)
            .collect();

        let (authorized, describable): (HashSet<&str>, HashSet<&str>) = {
            // Kafka's ControllerApis: the cluster-wide CREATE is asked without logging a denial
            // (each topic's own CREATE is asked next, and audited); DESCRIBE_CONFIGS only decides
            // whether configs are shown, so only its denials are logged.
            let session = ctx.authorizer();
            let cluster_create = session.allows(
                AclOperation::Create,
                ResourceType::Cluster,
                CLUSTER_NAME,
                AuditPolicy::FILTERING,
            );
            let authorized = candidates
                .iter()
                .copied()
                .filter(|name| {
                    cluster_create
                        || session.allows(
                            AclOperation::Create,
                            ResourceType::Topic,
                            name,
                            AuditPolicy::ENFORCED,
                        )
                })
                .collect();
            let describable = candidates
                .iter()
                .copied()
                .filter(|name| {
                    session.allows(
                        AclOperation::DescribeConfigs,
                        ResourceType::Topic,
                        name,
                        AuditPolicy::DENIALS_ONLY,
                    )
                })
                .collect();
            (authorized, describable)
        };
        let effective: Vec<&CreatableTopic<'_>> = request
            .topics
            .iter()
            .filter(|t| authorized.contains(&*t.name))
            .collect();

        let defaults = TopicDefaults {
            num_partitions: state.config.num_partitions,
            replication_factor: state.config.default_replication_factor,
        };
        if let Err(error) = check_request_partition_total(effective.iter().map(|t| {
            requested_partition_count(
                t.num_partitions,
                t.assignments.len(),
                defaults.num_partitions,
            )
        })) {
            // Kafka fails the whole request: every entry gets the error.
            let results = request
                .topics
                .iter()
                .map(|t| error_result(&t.name, error.code(), Some(error.message().to_owned())))
                .collect();
            return Ok(response(results));
        }

        let guard = state.topics.begin_write().await;
        let outcomes: Vec<(&str, Result<NewTopic, TopicError>)> = {
            let table = state.topics.read();
            let brokers = live_brokers(state);
            let racked = racked_brokers(state);
            effective
                .iter()
                .map(|topic| {
                    let outcome =
                        check_topic(topic, &table, defaults, &brokers).map(|mut record| {
                            if topic.assignments.is_empty() {
                                place_rack_aware(&racked, None, &mut record.partitions);
                            }
                            NewTopic {
                                show_configs: describable.contains(&*topic.name),
                                record,
                            }
                        });
                    (&*topic.name, outcome)
                })
                .collect()
        };
        let records: Vec<TopicRecord> = outcomes
            .iter()
            .filter_map(|(_, outcome)| outcome.as_ref().ok().map(|t| t.record.clone()))
            .collect();
        // Per topic: the code and message when the commit refused it (another node won a race
        // for its name or its collision group), or the failure of the whole commit.
        let mut refused: HashMap<String, (i16, String)> = HashMap::new();
        let stored = if request.validate_only || records.is_empty() {
            drop(guard);
            Ok(())
        } else {
            commit_new_topics(ctx, state, guard, records, &mut refused).await
        };
        if let Err(err) = &stored {
            tracing::error!(error = %err.1, "CreateTopics could not be stored");
        }

        let mut results: Vec<CreatableTopicResult<'static>> = outcomes
            .into_iter()
            .map(|(name, outcome)| match (outcome, &stored) {
                (Ok(_), _) if refused.contains_key(name) => {
                    let (code, message) = refused[name].clone();
                    error_result(name, code, Some(message))
                }
                (Ok(topic), Ok(())) => success_result(topic),
                // Kafka sends no text with UNKNOWN_SERVER_ERROR; the cause is in the log. A store
                // that did not answer in time (etcd) gets REQUEST_TIMED_OUT with its cause.
                (Ok(_), Err((code, message))) => error_result(
                    name,
                    *code,
                    (*code != ErrorCode::UnknownServerError.code()).then(|| message.clone()),
                ),
                (Err(error), _) => {
                    error_result(name, error.code(), Some(error.message().to_owned()))
                }
            })
            .collect();
        results.extend(duplicates.iter().map(|name| {
            error_result(
                name,
                ErrorCode::InvalidRequest.code(),
                Some(TopicError::duplicate_name().message().to_owned()),
            )
        }));
        results.extend(
            unique
                .iter()
                .filter(|name| !duplicates.contains(name) && !authorized.contains(*name))
                .map(|name| {
                    if *name == CLUSTER_METADATA_TOPIC_NAME {
                        error_result(
                            name,
                            ErrorCode::InvalidRequest.code(),
                            Some(format!(
                                "Creation of internal topic {CLUSTER_METADATA_TOPIC_NAME} is prohibited."
                            )),
                        )
                    } else {
                        error_result(
                            name,
                            ErrorCode::TopicAuthorizationFailed.code(),
                            Some(NOT_AUTHORIZED.to_owned()),
                        )
                    }
                }),
        );
        Ok(response(results))
    }
}

/// Commits the planned topics. A shared store (etcd) may refuse one because another node
/// created its name (or one of its collision group) meanwhile: that topic is answered
/// TOPIC_ALREADY_EXISTS (or INVALID_TOPIC_EXCEPTION) and the rest are committed again.
async fn commit_new_topics(
    ctx: &RequestContext<'_>,
    state: &std::sync::Arc<crate::state::ServerState>,
    mut guard: crate::topic_registry::TopicWriteGuard,
    mut records: Vec<TopicRecord>,
    refused: &mut HashMap<String, (i16, String)>,
) -> Result<(), (i16, String)> {
    loop {
        let count = records.len();
        let change = TopicChange::Create(records.clone());
        match commit_topics_coded(state, guard, change).await {
            Ok(TopicCommit::Created(_)) => {
                tracing::info!(principal = %kacl_logsafe::safe(ctx.principal), topics = count, "created topics");
                return Ok(());
            }
            Ok(other) => {
                return Err((
                    ErrorCode::UnknownServerError.code(),
                    format!("unexpected commit outcome {other:?}"),
                ))
            }
            Err(CommitFailure::Topic {
                name,
                code,
                message,
            }) => {
                refused.insert(name.clone(), (code, message));
                records.retain(|r| r.name != name);
                if records.is_empty() {
                    return Ok(());
                }
                guard = state.topics.begin_write().await;
            }
            Err(CommitFailure::Whole { code, message }) => return Err((code, message)),
        }
    }
}

/// Every controller check on one topic, in Kafka's order; the record to store if it passes.
fn check_topic(
    topic: &CreatableTopic<'_>,
    table: &TopicTable,
    defaults: TopicDefaults,
    brokers: &[i32],
) -> Result<TopicRecord, TopicError> {
    let name: &str = &topic.name;
    check_new_topic_name(name, table.contains(name), table.collision(name))?;
    validate_topic_configs(topic.configs.iter().map(|c| (&*c.name, c.value.as_deref())))?;
    let assignments: Vec<ManualAssignment<'_>> = topic
        .assignments
        .iter()
        .map(|a| ManualAssignment {
            partition_index: a.partition_index,
            broker_ids: &a.broker_ids,
        })
        .collect();
    let plan = plan_new_topic(
        topic.num_partitions,
        topic.replication_factor,
        &assignments,
        defaults,
        brokers,
    )?;
    // A name set twice keeps its last value, as Kafka's map does.
    let configs: BTreeMap<String, String> = topic
        .configs
        .iter()
        .filter_map(|c| Some((c.name.to_string(), c.value.as_deref()?.to_owned())))
        .collect();
    Ok(TopicRecord {
        name: name.to_owned(),
        topic_id: kacl_store::random_kafka_uuid(),
        partitions: plan
            .replicas
            .into_iter()
            .zip(0..)
            .map(|(replicas, partition_index)| PartitionRecord {
                partition_index,
                replicas,
            })
            .collect(),
        configs,
        created_seq: 0,
    })
}

fn success_result(topic: NewTopic) -> CreatableTopicResult<'static> {
    let record = topic.record;
    let mut result = CreatableTopicResult {
        name: Cow::Owned(record.name.clone()),
        topic_id: Uuid(record.topic_id),
        error_code: 0,
        error_message: None,
        ..Default::default()
    };
    if topic.show_configs {
        result.num_partitions = i32::try_from(record.partitions.len()).unwrap_or(i32::MAX);
        result.replication_factor = record
            .partitions
            .first()
            .map_or(-1, |p| i16::try_from(p.replicas.len()).unwrap_or(i16::MAX));
        result.configs = Some(
            effective_topic_configs(record.configs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .into_iter()
                .map(|config| CreatableTopicConfigs {
                    name: Cow::Borrowed(config.name),
                    value: (!config.is_sensitive).then_some(Cow::Owned(config.value)),
                    read_only: config.read_only,
                    config_source: config.source.id(),
                    is_sensitive: config.is_sensitive,
                    unknown_tagged_fields: Default::default(),
                })
                .collect(),
        );
    } else {
        result.topic_config_error_code = ErrorCode::TopicAuthorizationFailed.code();
    }
    result
}

fn error_result(name: &str, code: i16, message: Option<String>) -> CreatableTopicResult<'static> {
    CreatableTopicResult {
        name: Cow::Owned(name.to_owned()),
        error_code: code,
        error_message: message.map(|m| Cow::Owned(super::bounded_message(m))),
        ..Default::default()
    }
}

fn response(topics: Vec<CreatableTopicResult<'static>>) -> CreateTopicsResponse<'static> {
    CreateTopicsResponse {
        throttle_time_ms: 0,
        topics,
        unknown_tagged_fields: Default::default(),
    }
}
