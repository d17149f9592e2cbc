//! Partition counts, replication factors and replica placement for CreateTopics and
//! CreatePartitions, with the checks and messages of Kafka's
//! `ReplicationControlManager.createTopic` / `createPartitions` and `StripedReplicaPlacer`.
//!
//! Placement is a plain stripe: partition `p` takes the sorted broker ids starting at
//! position `p mod n`. Kafka's placer also stripes, but from a random start and across
//! racks; kacl is deterministic so tests and restarts see the same layout.

use std::collections::BTreeMap;

use super::TopicError;

mod racks;
pub use racks::{leader_order, place_racked, RackedBroker};

/// Kafka's `MAX_PARTITIONS_PER_BATCH`: the most partitions one CreateTopics may create.
pub const MAX_PARTITIONS_PER_REQUEST: i32 = 10_000;

const TOO_MANY_PARTITIONS: &str = "Excessively large number of partitions per request.";

/// `num.partitions` and `default.replication.factor`: what -1 in CreateTopics means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicDefaults {
    /// Partitions of a topic created with `num_partitions = -1`.
    pub num_partitions: i32,
    /// Replicas per partition for `replication_factor = -1`.
    pub replication_factor: i16,
}

/// One of CreateTopics' manual assignments: a partition and its replicas, leader first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManualAssignment<'a> {
    /// The partition the replicas are for.
    pub partition_index: i32,
    /// The brokers holding it, preferred leader first.
    pub broker_ids: &'a [i32],
}

/// The partitions of a topic about to be created: `replicas[p]` is partition `p`'s
/// replica list, preferred leader first. Never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPlan {
    /// Replica lists, indexed by partition id.
    pub replicas: Vec<Vec<i32>>,
}

impl TopicPlan {
    /// The partition count CreateTopics v5+ reports.
    pub fn num_partitions(&self) -> i32 {
        i32::try_from(self.replicas.len()).unwrap_or(i32::MAX)
    }

    /// The replication factor CreateTopics v5+ reports: partition 0's replica count.
    pub fn replication_factor(&self) -> i16 {
        self.replicas.first().map_or(0, |replicas| {
            i16::try_from(replicas.len()).unwrap_or(i16::MAX)
        })
    }
}

/// How many partitions Kafka counts for one CreateTopics entry when it bounds a request
/// (`validateTotalNumberOfPartitions`): the assignments if any, else the count, the
/// default for -1, and nothing for other non-positive counts.
pub fn requested_partition_count(
    num_partitions: i32,
    assignments: usize,
    default_partitions: i32,
) -> i64 {
    if assignments > 0 {
        i64::try_from(assignments).unwrap_or(i64::MAX)
    } else if num_partitions == -1 {
        default_partitions.into()
    } else {
        num_partitions.max(0).into()
    }
}

/// Kafka's first check on a whole CreateTopics request, before any name: more than
/// [`MAX_PARTITIONS_PER_REQUEST`] in total fails every topic of the request with
/// POLICY_VIOLATION `Excessively large number of partitions per request.`
pub fn check_request_partition_total<I>(counts: I) -> Result<(), TopicError>
where
    I: IntoIterator<Item = i64>,
{
    let total = counts.into_iter().fold(0i64, i64::saturating_add);
    if total > i64::from(MAX_PARTITIONS_PER_REQUEST) {
        return Err(TopicError::PolicyViolation(TOO_MANY_PARTITIONS.to_owned()));
    }
    Ok(())
}

/// Stripes `partitions` new partitions, numbered from `start_partition`, over `brokers`.
/// The errors are `StripedReplicaPlacer`'s, unprefixed (CreatePartitions sends them so).
pub fn place_replicas(
    brokers: &[i32],
    start_partition: i32,
    partitions: i32,
    replication_factor: i16,
) -> Result<Vec<Vec<i32>>, TopicError> {
    let mut brokers = brokers.to_vec();
    brokers.sort_unstable();
    brokers.dedup();
    if replication_factor <= 0 {
        return Err(TopicError::InvalidReplicationFactor(format!(
            "Invalid replication factor {replication_factor}: the replication factor must be positive."
        )));
    }
    if brokers.is_empty() {
        return Err(TopicError::InvalidReplicationFactor(
            "All brokers are currently fenced, or have all their log directories cordoned."
                .to_owned(),
        ));
    }
    let factor = usize::try_from(replication_factor).unwrap_or(usize::MAX);
    if factor > brokers.len() {
        return Err(TopicError::InvalidReplicationFactor(format!(
            "The target replication factor of {replication_factor} cannot be reached because only {} broker(s) are registered or some brokers have all their log directories cordoned.",
            brokers.len()
        )));
    }
    if partitions > MAX_PARTITIONS_PER_REQUEST {
        return Err(TopicError::PolicyViolation(TOO_MANY_PARTITIONS.to_owned()));
    }
    let start = usize::try_from(start_partition).unwrap_or(0);
    let count = usize::try_from(partitions).unwrap_or(0);
    Ok((start..start.saturating_add(count))
        .map(|partition| {
            (0..factor)
                .filter_map(|replica| brokers.get((partition + replica) % brokers.len()).copied())
                .collect()
        })
        .collect())
}

/// `ReplicationControlManager.validateManualPartitionAssignment`: non-empty, every broker
/// registered and listed once (checked in ascending id order, as Kafka does), and the same
/// replica count as the partitions before it.
fn validate_manual_assignment(
    broker_ids: &[i32],
    expected_replicas: Option<usize>,
    registered: &[i32],
) -> Result<(), TopicError> {
    if broker_ids.is_empty() {
        return Err(TopicError::InvalidReplicaAssignment(
            "The manual partition assignment includes an empty replica list.".to_owned(),
        ));
    }
    let mut sorted = broker_ids.to_vec();
    sorted.sort_unstable();
    let mut previous = None;
    for broker in &sorted {
        if !registered.contains(broker) {
            return Err(TopicError::InvalidReplicaAssignment(format!(
                "The manual partition assignment includes broker {broker}, but no such broker is registered."
            )));
        }
        if previous == Some(broker) {
            return Err(TopicError::InvalidReplicaAssignment(format!(
                "The manual partition assignment includes the broker {broker} more than once."
            )));
        }
        previous = Some(broker);
    }
    match expected_replicas {
        Some(expected) if expected != sorted.len() => Err(TopicError::InvalidReplicaAssignment(format!(
            "The manual partition assignment includes a partition with {} replica(s), but this is not \
             consistent with previous partitions, which have {expected} replica(s).",
            sorted.len()
        ))),
        _ => Ok(()),
    }
}

/// Resolves one CreateTopics entry to its partitions, as `ReplicationControlManager.createTopic`
/// does after the name and config checks: manual assignments (which require -1 for both
/// counts), or counts with -1 meaning `defaults`, placed over `brokers` (the registered
/// broker ids).
pub fn plan_new_topic(
    num_partitions: i32,
    replication_factor: i16,
    assignments: &[ManualAssignment<'_>],
    defaults: TopicDefaults,
    brokers: &[i32],
) -> Result<TopicPlan, TopicError> {
    if !assignments.is_empty() {
        if replication_factor != -1 {
            return Err(TopicError::InvalidRequest(
                "A manual partition assignment was specified, but replication factor was not set to -1."
                    .to_owned(),
            ));
        }
        if num_partitions != -1 {
            return Err(TopicError::InvalidRequest(
                "A manual partition assignment was specified, but numPartitions was not set to -1."
                    .to_owned(),
            ));
        }
        if assignments.len() > MAX_PARTITIONS_PER_REQUEST as usize {
            return Err(TopicError::PolicyViolation(TOO_MANY_PARTITIONS.to_owned()));
        }
        let mut partitions: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        let mut replicas_per_partition = None;
        for assignment in assignments {
            if partitions.contains_key(&assignment.partition_index) {
                return Err(TopicError::InvalidReplicaAssignment(format!(
                    "Found multiple manual partition assignments for partition {}",
                    assignment.partition_index
                )));
            }
            validate_manual_assignment(assignment.broker_ids, replicas_per_partition, brokers)?;
            replicas_per_partition = Some(assignment.broker_ids.len());
            partitions.insert(assignment.partition_index, assignment.broker_ids.to_vec());
        }
        let consecutive = partitions
            .keys()
            .zip(0..)
            .all(|(index, expected)| *index == expected);
        if !consecutive {
            return Err(TopicError::InvalidReplicaAssignment(
                "partitions should be a consecutive 0-based integer sequence".to_owned(),
            ));
        }
        return Ok(TopicPlan {
            replicas: partitions.into_values().collect(),
        });
    }
    if replication_factor < -1 || replication_factor == 0 {
        return Err(TopicError::InvalidReplicationFactor(
            "Replication factor must be larger than 0, or -1 to use the default value.".to_owned(),
        ));
    }
    if num_partitions < -1 || num_partitions == 0 {
        return Err(TopicError::InvalidPartitions(
            "Number of partitions was set to an invalid non-positive value.".to_owned(),
        ));
    }
    let partitions = if num_partitions == -1 {
        defaults.num_partitions
    } else {
        num_partitions
    };
    let factor = if replication_factor == -1 {
        defaults.replication_factor
    } else {
        replication_factor
    };
    match place_replicas(brokers, 0, partitions, factor) {
        Ok(replicas) => Ok(TopicPlan { replicas }),
        Err(TopicError::InvalidReplicationFactor(reason)) => {
            Err(TopicError::InvalidReplicationFactor(format!(
                "Unable to replicate the partition {factor} time(s): {reason}"
            )))
        }
        Err(other) => Err(other),
    }
}

/// Resolves one CreatePartitions entry for topic `topic` whose partitions today are
/// `existing` (replica lists by partition id): the replica lists of the new partitions,
/// numbered from `existing.len()`. `assignments`, when given, lists the new partitions'
/// replicas in order. The checks and messages are `ReplicationControlManager.createPartitions`'.
///
/// Deliberate difference: adding more than [`MAX_PARTITIONS_PER_REQUEST`] partitions fails
/// with POLICY_VIOLATION, where Kafka fails later on its records-per-operation bound.
pub fn plan_partition_increase(
    topic: &str,
    existing: &[Vec<i32>],
    requested_count: i32,
    assignments: Option<&[&[i32]]>,
    brokers: &[i32],
) -> Result<Vec<Vec<i32>>, TopicError> {
    let current = existing.len();
    let requested = usize::try_from(requested_count).ok();
    if requested == Some(current) {
        return Err(TopicError::InvalidPartitions(format!(
            "Topic already has {current} partition(s)."
        )));
    }
    let additional = match requested {
        Some(requested) if requested > current => requested - current,
        _ => {
            return Err(TopicError::InvalidPartitions(format!(
                "The topic {topic} currently has {current} partition(s); {requested_count} would not be an increase."
            )))
        }
    };
    if let Some(assignments) = assignments {
        if assignments.len() != additional {
            return Err(TopicError::InvalidReplicaAssignment(format!(
                "Attempted to add {additional} additional partition(s), but only {} assignment(s) were specified.",
                assignments.len()
            )));
        }
    }
    if additional > MAX_PARTITIONS_PER_REQUEST as usize {
        return Err(TopicError::PolicyViolation(TOO_MANY_PARTITIONS.to_owned()));
    }
    let Some(first) = existing.first() else {
        return Err(TopicError::UnknownServerError(format!(
            "Invalid state: topic {topic} appears to have no partitions."
        )));
    };
    let Ok(factor) = i16::try_from(first.len()) else {
        return Err(TopicError::UnknownServerError(format!(
            "Invalid replication factor {}: expected a number equal to less than 32767",
            first.len()
        )));
    };
    match assignments {
        Some(assignments) => {
            for broker_ids in assignments {
                validate_manual_assignment(broker_ids, Some(first.len()), brokers)?;
            }
            Ok(assignments
                .iter()
                .map(|broker_ids| broker_ids.to_vec())
                .collect())
        }
        None => {
            let start = i32::try_from(current).unwrap_or(i32::MAX);
            let count = i32::try_from(additional).unwrap_or(i32::MAX);
            place_replicas(brokers, start, count, factor)
        }
    }
}

#[cfg(test)]
mod tests;
