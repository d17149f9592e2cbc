//! CreatePartitions (37), v0-3: raise topics' partition counts (KIP-4's AlterTopic), optionally
//! with the new partitions' replicas given.
//!
//! Order, as Kafka's `ControllerApis.createPartitions` and `ReplicationControlManager`:
//! a name given more than once: INVALID_REQUEST `Duplicate topic name.` (one result per name);
//! no ALTER on the topic: TOPIC_AUTHORIZATION_FAILED (no message), whether it exists or not;
//! then per topic: missing → UNKNOWN_TOPIC_OR_PARTITION (no message), and the count and
//! assignment checks of [`kacl_topics::plan_partition_increase`]. Unless `validate_only`,
//! the increases are stored before the response is sent. Results come in Kafka's order:
//! duplicates, refused topics, then the checked ones.
//!
//! Deliberate difference from Kafka: each topic's increase is its own store commit (Kafka
//! commits a request's increases together). If the store fails on one, that topic and the
//! ones after it answer the failure's code (REQUEST_TIMED_OUT, naming etcd, when etcd did not
//! answer; else UNKNOWN_SERVER_ERROR) and the ones before it keep their partitions.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::create_partitions::{
    CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopic,
    CreatePartitionsTopicResult,
};
use kacl_protocol::ErrorCode;
use kacl_store::PartitionRecord;

use super::brokers::{live_brokers, place_rack_aware, racked_brokers};
use super::topic_commit::{commit_topics_coded, topic_store_failure};
use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::topic_registry::{PartitionsOutcome, TopicChange, TopicCommit, TopicTable};
use kacl_topics::{plan_partition_increase, TopicError};

/// CreatePartitions: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct CreatePartitions;

impl Handler for CreatePartitions {
    type Request<'r> = CreatePartitionsRequest<'r>;
    type Response<'r> = CreatePartitionsResponse<'r>;

    /// Answers one CreatePartitions request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: CreatePartitionsRequest<'r>,
    ) -> Result<CreatePartitionsResponse<'r>, Outcome> {
        let state = ctx.state;
        let mut occurrences: HashMap<&str, usize> = HashMap::new();
        for topic in &request.topics {
            *occurrences.entry(&topic.name).or_default() += 1;
        }
        let mut seen = HashSet::new();
        let unique: Vec<&CreatePartitionsTopic<'_>> = request
            .topics
            .iter()
            .filter(|t| seen.insert(&*t.name))
            .collect();
        let is_duplicate = |name: &str| occurrences.get(name).copied().unwrap_or(0) > 1;

        let mut results: Vec<CreatePartitionsTopicResult<'static>> = unique
            .iter()
            .filter(|t| is_duplicate(&t.name))
            .map(|t| {
                result(
                    &t.name,
                    ErrorCode::InvalidRequest.code(),
                    Some(TopicError::duplicate_name().message()),
                )
            })
            .collect();
        let authorized: Vec<&CreatePartitionsTopic<'_>> = {
            let session = ctx.authorizer();
            let mut authorized = Vec::new();
            for topic in unique.iter().filter(|t| !is_duplicate(&t.name)) {
                if session.allows(
                    AclOperation::Alter,
                    ResourceType::Topic,
                    &topic.name,
                    AuditPolicy::ENFORCED,
                ) {
                    authorized.push(*topic);
                } else {
                    results.push(result(
                        &topic.name,
                        ErrorCode::TopicAuthorizationFailed.code(),
                        None,
                    ));
                }
            }
            authorized
        };

        let guard = state.topics.begin_write().await;
        let planned: Vec<(&str, Result<Vec<PartitionRecord>, Refusal>)> = {
            let table = state.topics.read();
            let brokers = live_brokers(state);
            let racked = racked_brokers(state);
            authorized
                .iter()
                .map(|topic| {
                    let mut plan = plan_topic(topic, &table, &brokers);
                    if let (Ok(new), None) = (&mut plan, &topic.assignments) {
                        let previous_leader = table
                            .get(&topic.name)
                            .and_then(|t| t.partitions.last())
                            .and_then(|p| p.replicas.first().copied());
                        place_rack_aware(&racked, previous_leader, new);
                    }
                    (&*topic.name, plan)
                })
                .collect()
        };
        let increases: Vec<(String, Vec<PartitionRecord>)> = planned
            .iter()
            .filter_map(|(name, plan)| Some((name.to_string(), plan.as_ref().ok()?.clone())))
            .collect();
        // For each planned increase, in order: stored, or the code and message to answer.
        let stored: Vec<Result<(), (i16, Option<String>)>> =
            if request.validate_only || increases.is_empty() {
                drop(guard);
                vec![Ok(()); increases.len()]
            } else {
                let count = increases.len();
                let change = TopicChange::AddPartitions(increases);
                match commit_topics_coded(state, guard, change).await {
                    Ok(TopicCommit::PartitionsAdded(outcomes)) => {
                        tracing::info!(
                            principal = %kacl_logsafe::safe(ctx.principal),
                            topics = count,
                            "added partitions"
                        );
                        stored_outcomes(outcomes)
                    }
                    Ok(other) => {
                        tracing::error!(outcome = ?other, "CreatePartitions could not be stored");
                        let unknown = (ErrorCode::UnknownServerError.code(), None);
                        vec![Err(unknown); count]
                    }
                    Err(failure) => {
                        tracing::error!(?failure, "CreatePartitions could not be stored");
                        vec![Err(failure.answer()); count]
                    }
                }
            };
        let mut stored = stored.into_iter();
        for (name, plan) in planned {
            results.push(match plan {
                Ok(_) => match stored.next() {
                    Some(Ok(())) => result(name, 0, None),
                    Some(Err((code, message))) => result(name, code, message.as_deref()),
                    None => result(name, ErrorCode::UnknownServerError.code(), None),
                },
                Err(Refusal::UnknownTopic) => {
                    result(name, ErrorCode::UnknownTopicOrPartition.code(), None)
                }
                // Kafka hides the text of an UNKNOWN_SERVER_ERROR.
                Err(Refusal::Rule(TopicError::UnknownServerError(_))) => {
                    result(name, ErrorCode::UnknownServerError.code(), None)
                }
                Err(Refusal::Rule(error)) => result(name, error.code(), Some(error.message())),
            });
        }
        Ok(CreatePartitionsResponse {
            throttle_time_ms: 0,
            results,
            unknown_tagged_fields: Default::default(),
        })
    }
}

/// Kafka's rules for one authorized topic's increase, against the topics as they stand: the new
/// partitions to store, or why not. Pure, so the rules are tested without a store or a socket.
fn plan_topic(
    topic: &CreatePartitionsTopic<'_>,
    table: &TopicTable,
    brokers: &[i32],
) -> Result<Vec<PartitionRecord>, Refusal> {
    let name: &str = &topic.name;
    let Some(record) = table.get(name) else {
        return Err(Refusal::UnknownTopic);
    };
    let existing: Vec<Vec<i32>> = record
        .partitions
        .iter()
        .map(|p| p.replicas.clone())
        .collect();
    let assignments: Option<Vec<&[i32]>> = topic
        .assignments
        .as_ref()
        .map(|list| list.iter().map(|a| a.broker_ids.as_slice()).collect());
    plan_partition_increase(
        name,
        &existing,
        topic.count,
        assignments.as_deref(),
        brokers,
    )
    .map_err(Refusal::Rule)
    .map(|new_replicas| {
        new_replicas
            .into_iter()
            .zip(record.partitions.len()..)
            .map(|(replicas, index)| PartitionRecord {
                partition_index: i32::try_from(index).unwrap_or(i32::MAX),
                replicas,
            })
            .collect()
    })
}

/// Why a topic's increase is refused.
enum Refusal {
    /// No such topic: UNKNOWN_TOPIC_OR_PARTITION without a message, as Kafka sends it.
    UnknownTopic,
    /// One of Kafka's partition rules.
    Rule(TopicError),
}

/// Each topic's store outcome as its answer: a topic not attempted because an earlier one
/// failed answers what that one answered.
fn stored_outcomes(outcomes: Vec<PartitionsOutcome>) -> Vec<Result<(), (i16, Option<String>)>> {
    let mut first_failure = (ErrorCode::UnknownServerError.code(), None);
    outcomes
        .into_iter()
        .map(|outcome| match outcome {
            PartitionsOutcome::Added(_) => Ok(()),
            PartitionsOutcome::Failed(err) => {
                tracing::error!(%err, "CreatePartitions could not be stored");
                first_failure = topic_store_failure(err).answer();
                Err(first_failure.clone())
            }
            PartitionsOutcome::NotAttempted => Err(first_failure.clone()),
        })
        .collect()
}

fn result(name: &str, code: i16, message: Option<&str>) -> CreatePartitionsTopicResult<'static> {
    CreatePartitionsTopicResult {
        name: Cow::Owned(name.to_owned()),
        error_code: code,
        error_message: message.map(|m| Cow::Owned(m.to_owned())),
        unknown_tagged_fields: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use kacl_protocol::messages::create_partitions::CreatePartitionsTopic;
    use kacl_store::{PartitionRecord, TopicRecord};

    use super::*;

    #[test]
    fn the_plan_follows_kafkas_rules_without_a_store() {
        let orders = TopicRecord {
            name: "orders".to_owned(),
            topic_id: [1; 16],
            partitions: vec![PartitionRecord {
                partition_index: 0,
                replicas: vec![1],
            }],
            configs: Default::default(),
            created_seq: 1,
        };
        let table = TopicTable::from_records(vec![orders]);
        let raise = |name: &'static str, count: i32| CreatePartitionsTopic {
            name: name.into(),
            count,
            assignments: None,
            ..Default::default()
        };
        let added = match plan_topic(&raise("orders", 3), &table, &[1]) {
            Ok(added) => added,
            Err(Refusal::Rule(e)) => panic!("{}", e.message()),
            Err(Refusal::UnknownTopic) => panic!("unknown"),
        };
        assert_eq!(
            added.iter().map(|p| p.partition_index).collect::<Vec<_>>(),
            [1, 2]
        );
        assert!(matches!(
            plan_topic(&raise("absent", 3), &table, &[1]),
            Err(Refusal::UnknownTopic)
        ));
        // Kafka refuses a count that does not grow the topic.
        assert!(matches!(
            plan_topic(&raise("orders", 1), &table, &[1]),
            Err(Refusal::Rule(_))
        ));
    }
}
