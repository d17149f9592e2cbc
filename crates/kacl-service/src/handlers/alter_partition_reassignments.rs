//! AlterPartitionReassignments (45), v0-1 (KIP-455, KIP-860): give partitions new replicas in
//! kacl's placement, as Kafka's `ControllerApis` and `ReplicationControlManager
//! .alterPartitionReassignments` decide it.
//!
//! Kafka's rules kept: ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED at the top and on
//! every partition; then each partition in request order: a missing topic or partition is
//! UNKNOWN_TOPIC_OR_PARTITION (`Unable to find a topic named X.` / `Unable to find partition
//! X:N.`); a target with no replica, a broker that is not a live node, or a broker named twice
//! is INVALID_REPLICA_ASSIGNMENT with Kafka's texts; with v1's
//! `allow_replication_factor_change` false, a target of another size is
//! INVALID_REPLICATION_FACTOR (`The replication factor is changed from A to B`); a null target
//! (cancel) is NO_REASSIGNMENT_IN_PROGRESS, since none is ever in progress (below).
//!
//! Deliberate difference from Kafka: a reassignment completes at once. Kafka adds the new
//! replicas, waits until they caught up with the leader's log and only then drops the old
//! ones; kacl keeps no partition data (there is nothing to copy), so the accepted targets
//! become the partitions' replicas in the store before the answer is sent, and
//! ListPartitionReassignments never lists one in progress. Each topic entry is one store
//! commit (Kafka commits a request's changes together); a store failure answers that topic's
//! accepted partitions with its code and leaves the other topics' commits in place.

use std::borrow::Cow;

use kacl_acl::AclOperation;
use kacl_protocol::messages::alter_partition_reassignments::{
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ReassignablePartition,
    ReassignablePartitionResponse, ReassignableTopicResponse,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::topic_registry::{Reassignment, TopicChange, TopicCommit, TopicTable};

/// AlterPartitionReassignments: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct AlterPartitionReassignments;

impl Handler for AlterPartitionReassignments {
    type Request<'r> = AlterPartitionReassignmentsRequest<'r>;
    type Response<'r> = AlterPartitionReassignmentsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: AlterPartitionReassignmentsRequest<'r>,
    ) -> Result<AlterPartitionReassignmentsResponse<'r>, Outcome> {
        Ok(answer(ctx, request).await)
    }
}

/// Answers one AlterPartitionReassignments request.
async fn answer<'r>(
    ctx: &RequestContext<'_>,
    request: AlterPartitionReassignmentsRequest<'r>,
) -> AlterPartitionReassignmentsResponse<'r> {
    let allow_rf_change = request.allow_replication_factor_change;
    if !ctx.cluster_allows(AclOperation::Alter) {
        return refused(request, ctx.cluster_denied_message());
    }
    let state = ctx.state;
    let guard = state.topics.begin_write().await;
    // Per topic entry, per partition: the planned target, or the refusal to answer.
    let planned: Vec<Vec<Result<Vec<i32>, Refusal>>> = {
        let table = state.topics.read();
        let brokers = super::brokers::live_brokers(state);
        request
            .topics
            .iter()
            .map(|topic| {
                topic
                    .partitions
                    .iter()
                    .map(|p| plan(&table, &topic.name, p, &brokers, allow_rf_change))
                    .collect()
            })
            .collect()
    };
    let changes: Vec<Reassignment> = request
        .topics
        .iter()
        .zip(&planned)
        .map(|(topic, plans)| {
            let targets = topic
                .partitions
                .iter()
                .zip(plans)
                .filter_map(|(p, plan)| Some((p.partition_index, plan.as_ref().ok()?.clone())))
                .collect();
            (topic.name.to_string(), targets)
        })
        .collect();
    // Per topic entry: stored, or the code and message for its accepted partitions.
    let stored: Vec<Result<(), (i16, Option<String>)>> = if changes
        .iter()
        .all(|(_, targets)| targets.is_empty())
    {
        drop(guard);
        vec![Ok(()); changes.len()]
    } else {
        let count = changes.len();
        let moved: usize = changes.iter().map(|(_, targets)| targets.len()).sum();
        match super::topic_commit::commit_topics_coded(state, guard, TopicChange::Reassign(changes))
            .await
        {
            Ok(TopicCommit::Reassigned(outcomes)) => {
                tracing::info!(
                    principal = %kacl_logsafe::safe(ctx.principal),
                    partitions = moved,
                    "reassigned partitions"
                );
                outcomes
                    .into_iter()
                    .map(|outcome| {
                        outcome.map(|_| ()).map_err(|err| {
                            tracing::error!(%err, "a partition reassignment could not be stored");
                            super::topic_commit::topic_store_failure(err).answer()
                        })
                    })
                    .collect()
            }
            Ok(other) => {
                tracing::error!(outcome = ?other, "AlterPartitionReassignments could not be stored");
                vec![Err((ErrorCode::UnknownServerError.code(), None)); count]
            }
            Err(failure) => {
                tracing::error!(?failure, "AlterPartitionReassignments could not be stored");
                vec![Err(failure.answer()); count]
            }
        }
    };
    let responses = request
        .topics
        .into_iter()
        .zip(planned)
        .zip(stored)
        .map(|((topic, plans), stored)| ReassignableTopicResponse {
            partitions: topic
                .partitions
                .iter()
                .zip(plans)
                .map(|(p, plan)| {
                    let (code, message) = match (plan, &stored) {
                        (Ok(_), Ok(())) => (0, None),
                        (Ok(_), Err((code, message))) => (*code, message.clone()),
                        (Err(refusal), _) => (refusal.code.code(), Some(refusal.message)),
                    };
                    ReassignablePartitionResponse {
                        partition_index: p.partition_index,
                        error_code: code,
                        error_message: message.map(Cow::Owned),
                        unknown_tagged_fields: Default::default(),
                    }
                })
                .collect(),
            name: topic.name,
            unknown_tagged_fields: Default::default(),
        })
        .collect();
    AlterPartitionReassignmentsResponse {
        allow_replication_factor_change: allow_rf_change,
        responses,
        ..Default::default()
    }
}

/// Why one partition's reassignment is refused.
#[derive(Debug, Clone, PartialEq)]
struct Refusal {
    code: ErrorCode,
    message: String,
}

fn refusal(code: ErrorCode, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

/// The target replicas of one partition, checked as Kafka's controller checks them.
fn plan(
    table: &TopicTable,
    topic: &str,
    partition: &ReassignablePartition<'_>,
    live_brokers: &[i32],
    allow_rf_change: bool,
) -> Result<Vec<i32>, Refusal> {
    let unknown = ErrorCode::UnknownTopicOrPartition;
    let record = table
        .get(topic)
        .ok_or_else(|| refusal(unknown, format!("Unable to find a topic named {topic}.")))?;
    let index = partition.partition_index;
    let current = usize::try_from(index)
        .ok()
        .and_then(|i| record.partitions.get(i))
        .ok_or_else(|| {
            refusal(
                unknown,
                format!("Unable to find partition {topic}:{index}."),
            )
        })?;
    let Some(target) = &partition.replicas else {
        // Nothing is ever in progress (every accepted reassignment completed at once).
        let code = ErrorCode::NoReassignmentInProgress;
        return Err(refusal(code, code.default_message()));
    };
    let invalid = ErrorCode::InvalidReplicaAssignment;
    if target.is_empty() {
        return Err(refusal(
            invalid,
            "The manual partition assignment includes an empty replica list.",
        ));
    }
    let mut sorted = target.clone();
    sorted.sort_unstable();
    for pair in sorted.windows(2) {
        if pair[0] == pair[1] && live_brokers.contains(&pair[0]) {
            return Err(refusal(
                invalid,
                format!(
                    "The manual partition assignment includes the broker {} more than once.",
                    pair[0]
                ),
            ));
        }
    }
    if let Some(missing) = sorted.iter().find(|b| !live_brokers.contains(b)) {
        return Err(refusal(
            invalid,
            format!(
                "The manual partition assignment includes broker {missing}, but no such broker \
                 is registered."
            ),
        ));
    }
    if !allow_rf_change && target.len() != current.replicas.len() {
        return Err(refusal(
            ErrorCode::InvalidReplicationFactor,
            format!(
                "The replication factor is changed from {} to {}",
                current.replicas.len(),
                target.len()
            ),
        ));
    }
    Ok(target.clone())
}

/// Kafka's answer without ALTER on the cluster (`AlterPartitionReassignmentsRequest
/// .getErrorResponse`): the error at the top and on every partition.
fn refused(
    request: AlterPartitionReassignmentsRequest<'_>,
    message: String,
) -> AlterPartitionReassignmentsResponse<'_> {
    let code = ErrorCode::ClusterAuthorizationFailed.code();
    AlterPartitionReassignmentsResponse {
        allow_replication_factor_change: request.allow_replication_factor_change,
        error_code: code,
        error_message: Some(Cow::Owned(message.clone())),
        responses: request
            .topics
            .into_iter()
            .map(|topic| ReassignableTopicResponse {
                partitions: topic
                    .partitions
                    .iter()
                    .map(|p| ReassignablePartitionResponse {
                        partition_index: p.partition_index,
                        error_code: code,
                        error_message: Some(Cow::Owned(message.clone())),
                        unknown_tagged_fields: Default::default(),
                    })
                    .collect(),
                name: topic.name,
                unknown_tagged_fields: Default::default(),
            })
            .collect(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_store::{PartitionRecord, TopicRecord};

    fn table() -> TopicTable {
        TopicTable::from_records(vec![TopicRecord {
            name: "orders".into(),
            topic_id: [1; 16],
            partitions: vec![PartitionRecord {
                partition_index: 0,
                replicas: vec![1],
            }],
            configs: Default::default(),
            created_seq: 0,
        }])
    }

    fn target(index: i32, replicas: Option<Vec<i32>>) -> ReassignablePartition<'static> {
        ReassignablePartition {
            partition_index: index,
            replicas,
            unknown_tagged_fields: Default::default(),
        }
    }

    fn code_of(result: Result<Vec<i32>, Refusal>) -> Result<Vec<i32>, (ErrorCode, String)> {
        result.map_err(|r| (r.code, r.message))
    }

    #[test]
    fn targets_are_checked_as_kafkas_controller_checks_them() {
        let t = table();
        let live = [1, 2];
        let check = |topic: &str, p, rf| code_of(plan(&t, topic, &p, &live, rf));
        assert_eq!(
            check("orders", target(0, Some(vec![2, 1])), true),
            Ok(vec![2, 1])
        );
        let unknown = ErrorCode::UnknownTopicOrPartition;
        assert_eq!(
            check("nope", target(0, Some(vec![1])), true),
            Err((unknown, "Unable to find a topic named nope.".into()))
        );
        assert_eq!(
            check("orders", target(3, Some(vec![1])), true),
            Err((unknown, "Unable to find partition orders:3.".into()))
        );
        assert_eq!(
            check("orders", target(-1, Some(vec![1])), true)
                .unwrap_err()
                .0,
            unknown
        );
        let invalid = ErrorCode::InvalidReplicaAssignment;
        assert_eq!(
            check("orders", target(0, Some(vec![])), true)
                .unwrap_err()
                .0,
            invalid
        );
        assert_eq!(
            check("orders", target(0, Some(vec![2, 2])), true),
            Err((
                invalid,
                "The manual partition assignment includes the broker 2 more than once.".into()
            ))
        );
        assert_eq!(
            check("orders", target(0, Some(vec![1, 9])), true),
            Err((
                invalid,
                "The manual partition assignment includes broker 9, but no such broker is \
                 registered."
                    .into()
            ))
        );
        assert_eq!(
            check("orders", target(0, Some(vec![1, 2])), false),
            Err((
                ErrorCode::InvalidReplicationFactor,
                "The replication factor is changed from 1 to 2".into()
            ))
        );
        assert_eq!(
            check("orders", target(0, Some(vec![2])), false),
            Ok(vec![2])
        );
        assert_eq!(
            check("orders", target(0, None), true),
            Err((
                ErrorCode::NoReassignmentInProgress,
                "No partition reassignment is in progress.".into()
            ))
        );
    }
}
