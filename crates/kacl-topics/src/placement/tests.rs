use super::*;

const DEFAULTS: TopicDefaults = TopicDefaults {
    num_partitions: 1,
    replication_factor: 1,
};

fn assignment(partition_index: i32, broker_ids: &[i32]) -> ManualAssignment<'_> {
    ManualAssignment {
        partition_index,
        broker_ids,
    }
}

fn create(
    num_partitions: i32,
    replication_factor: i16,
    brokers: &[i32],
) -> Result<TopicPlan, TopicError> {
    plan_new_topic(num_partitions, replication_factor, &[], DEFAULTS, brokers)
}

fn manual(assignments: &[ManualAssignment<'_>], brokers: &[i32]) -> Result<TopicPlan, TopicError> {
    plan_new_topic(-1, -1, assignments, DEFAULTS, brokers)
}

#[test]
fn counts_resolve_defaults_and_place_round_robin() {
    let plan = create(-1, -1, &[1]);
    assert_eq!(
        plan,
        Ok(TopicPlan {
            replicas: vec![vec![1]]
        })
    );
    let defaults = TopicDefaults {
        num_partitions: 3,
        replication_factor: 2,
    };
    let plan = plan_new_topic(-1, -1, &[], defaults, &[3, 1, 2, 2]);
    assert_eq!(
        plan,
        Ok(TopicPlan {
            replicas: vec![vec![1, 2], vec![2, 3], vec![3, 1]]
        })
    );
    let plan = create(4, 3, &[10, 20, 30]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plan.replicas,
        vec![
            vec![10, 20, 30],
            vec![20, 30, 10],
            vec![30, 10, 20],
            vec![10, 20, 30]
        ]
    );
    assert_eq!((plan.num_partitions(), plan.replication_factor()), (4, 3));
}

#[test]
fn non_positive_counts_are_refused_replication_factor_first() {
    let rf = TopicError::InvalidReplicationFactor(
        "Replication factor must be larger than 0, or -1 to use the default value.".into(),
    );
    let partitions = TopicError::InvalidPartitions(
        "Number of partitions was set to an invalid non-positive value.".into(),
    );
    assert_eq!(create(1, 0, &[1]), Err(rf.clone()));
    assert_eq!(create(1, -2, &[1]), Err(rf.clone()));
    assert_eq!(create(0, 0, &[1]), Err(rf));
    assert_eq!(create(0, 1, &[1]), Err(partitions.clone()));
    assert_eq!(create(-2, -1, &[1]), Err(partitions.clone()));
    assert_eq!(create(i32::MIN, 1, &[1]), Err(partitions));
}

#[test]
fn too_few_brokers_is_kafkas_message() {
    assert_eq!(
        create(1, 3, &[1]),
        Err(TopicError::InvalidReplicationFactor(
            "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned."
                .into()
        ))
    );
    let defaults = TopicDefaults {
        num_partitions: 1,
        replication_factor: 2,
    };
    assert_eq!(
        plan_new_topic(1, -1, &[], defaults, &[7]),
        Err(TopicError::InvalidReplicationFactor(
            "Unable to replicate the partition 2 time(s): The target replication factor of 2 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned."
                .into()
        ))
    );
    assert_eq!(
        create(1, 1, &[]),
        Err(TopicError::InvalidReplicationFactor(
            "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all their log directories cordoned.".into()
        ))
    );
    let zero_default = TopicDefaults {
        num_partitions: 1,
        replication_factor: 0,
    };
    assert_eq!(
        plan_new_topic(1, -1, &[], zero_default, &[1]),
        Err(TopicError::InvalidReplicationFactor(
            "Unable to replicate the partition 0 time(s): Invalid replication factor 0: the replication factor must be positive."
                .into()
        ))
    );
}

#[test]
fn oversized_topics_are_a_policy_violation() {
    let too_many = Err(TopicError::PolicyViolation(
        "Excessively large number of partitions per request.".into(),
    ));
    assert_eq!(create(10_001, 1, &[1]), too_many);
    assert_eq!(create(i32::MAX, 1, &[1]), too_many);
    assert_eq!(
        create(10_000, 1, &[1]).map(|plan| plan.replicas.len()),
        Ok(10_000)
    );
}

#[test]
fn request_totals_follow_kafkas_count() {
    assert_eq!(requested_partition_count(5, 0, 3), 5);
    assert_eq!(requested_partition_count(-1, 0, 3), 3);
    assert_eq!(requested_partition_count(0, 0, 3), 0);
    assert_eq!(requested_partition_count(-7, 0, 3), 0);
    assert_eq!(requested_partition_count(-1, 4, 3), 4);
    assert_eq!(check_request_partition_total([5_000, 5_000]), Ok(()));
    assert_eq!(
        check_request_partition_total([5_000, 5_001]),
        Err(TopicError::PolicyViolation(
            "Excessively large number of partitions per request.".into()
        ))
    );
    assert!(check_request_partition_total([i64::MAX, i64::MAX]).is_err());
}

#[test]
fn manual_assignments_need_minus_one_counts() {
    let one = [assignment(0, &[1])];
    assert_eq!(
        plan_new_topic(-1, 1, &one, DEFAULTS, &[1]),
        Err(TopicError::InvalidRequest(
            "A manual partition assignment was specified, but replication factor was not set to -1.".into()
        ))
    );
    assert_eq!(
        plan_new_topic(1, 1, &one, DEFAULTS, &[1]),
        Err(TopicError::InvalidRequest(
            "A manual partition assignment was specified, but replication factor was not set to -1.".into()
        ))
    );
    assert_eq!(
        plan_new_topic(2, -1, &one, DEFAULTS, &[1]),
        Err(TopicError::InvalidRequest(
            "A manual partition assignment was specified, but numPartitions was not set to -1."
                .into()
        ))
    );
}

#[test]
fn manual_assignments_are_taken_in_partition_order() {
    let brokers = [1, 2, 3];
    let plan = manual(&[assignment(1, &[3, 1]), assignment(0, &[2, 1])], &brokers);
    assert_eq!(
        plan,
        Ok(TopicPlan {
            replicas: vec![vec![2, 1], vec![3, 1]]
        })
    );
}

#[test]
fn manual_assignment_errors_are_kafkas() {
    let brokers = [1, 2, 3];
    let error = |message: &str| Err(TopicError::InvalidReplicaAssignment(message.into()));
    assert_eq!(
        manual(&[assignment(0, &[1]), assignment(0, &[2])], &brokers),
        error("Found multiple manual partition assignments for partition 0")
    );
    assert_eq!(
        manual(&[assignment(0, &[])], &brokers),
        error("The manual partition assignment includes an empty replica list.")
    );
    assert_eq!(
        manual(&[assignment(0, &[9, 1])], &brokers),
        error(
            "The manual partition assignment includes broker 9, but no such broker is registered."
        )
    );
    assert_eq!(
        manual(&[assignment(0, &[2, 1, 2])], &brokers),
        error("The manual partition assignment includes the broker 2 more than once.")
    );
    // Brokers are checked in ascending order, so the unknown 0 is found before the repeated 2.
    assert_eq!(
        manual(&[assignment(0, &[2, 2, 0])], &brokers),
        error(
            "The manual partition assignment includes broker 0, but no such broker is registered."
        )
    );
    assert_eq!(
        manual(&[assignment(0, &[1, 2]), assignment(1, &[3])], &brokers),
        error(
            "The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s)."
        )
    );
    for gap in [
        &[assignment(1, &[1])][..],
        &[assignment(0, &[1]), assignment(2, &[2])],
        &[assignment(-1, &[1])],
    ] {
        assert_eq!(
            manual(gap, &brokers),
            error("partitions should be a consecutive 0-based integer sequence")
        );
    }
}

#[test]
fn partition_increase_places_after_existing_partitions() {
    let existing = vec![vec![1, 2], vec![2, 3]];
    assert_eq!(
        plan_partition_increase("t", &existing, 4, None, &[1, 2, 3]),
        Ok(vec![vec![3, 1], vec![1, 2]])
    );
    let assignments: [&[i32]; 1] = [&[3, 2]];
    assert_eq!(
        plan_partition_increase("t", &existing, 3, Some(&assignments), &[1, 2, 3]),
        Ok(vec![vec![3, 2]])
    );
}

#[test]
fn partition_increase_errors_are_kafkas() {
    let existing = vec![vec![1], vec![1]];
    let brokers = [1];
    assert_eq!(
        plan_partition_increase("orders", &existing, 2, None, &brokers),
        Err(TopicError::InvalidPartitions(
            "Topic already has 2 partition(s).".into()
        ))
    );
    for smaller in [1, 0, -1, i32::MIN] {
        assert_eq!(
            plan_partition_increase("orders", &existing, smaller, None, &brokers),
            Err(TopicError::InvalidPartitions(format!(
                "The topic orders currently has 2 partition(s); {smaller} would not be an increase."
            )))
        );
    }
    let two: [&[i32]; 2] = [&[1], &[1]];
    assert_eq!(
        plan_partition_increase("orders", &existing, 3, Some(&two), &brokers),
        Err(TopicError::InvalidReplicaAssignment(
            "Attempted to add 1 additional partition(s), but only 2 assignment(s) were specified."
                .into()
        ))
    );
    let unknown: [&[i32]; 1] = [&[4]];
    assert_eq!(
        plan_partition_increase("orders", &existing, 3, Some(&unknown), &brokers),
        Err(TopicError::InvalidReplicaAssignment(
            "The manual partition assignment includes broker 4, but no such broker is registered."
                .into()
        ))
    );
    let wider: [&[i32]; 1] = [&[1, 2]];
    assert_eq!(
        plan_partition_increase("orders", &existing, 3, Some(&wider), &[1, 2]),
        Err(TopicError::InvalidReplicaAssignment(
            "The manual partition assignment includes a partition with 2 replica(s), but this is not consistent with previous partitions, which have 1 replica(s)."
                .into()
        ))
    );
    let empty: [&[i32]; 1] = [&[]];
    assert_eq!(
        plan_partition_increase("orders", &existing, 3, Some(&empty), &brokers),
        Err(TopicError::InvalidReplicaAssignment(
            "The manual partition assignment includes an empty replica list.".into()
        ))
    );
}

#[test]
fn partition_increase_placer_errors_are_unprefixed() {
    let existing = vec![vec![1, 2]];
    assert_eq!(
        plan_partition_increase("t", &existing, 2, None, &[1]),
        Err(TopicError::InvalidReplicationFactor(
            "The target replication factor of 2 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned.".into()
        ))
    );
}

#[test]
fn partition_increase_guards() {
    assert_eq!(
        plan_partition_increase("t", &[vec![1]], 10_002, None, &[1]),
        Err(TopicError::PolicyViolation(
            "Excessively large number of partitions per request.".into()
        ))
    );
    assert_eq!(
        plan_partition_increase("t", &[], 1, None, &[1]),
        Err(TopicError::UnknownServerError(
            "Invalid state: topic t appears to have no partitions.".into()
        ))
    );
    assert_eq!(
        plan_partition_increase("t", &[vec![1]], i32::MAX, None, &[1]).map(|p| p.len()),
        Err(TopicError::PolicyViolation(
            "Excessively large number of partitions per request.".into()
        ))
        .map(|p: Vec<Vec<i32>>| p.len())
    );
}

#[test]
fn placement_is_bounded_and_total() {
    assert_eq!(place_replicas(&[1], 0, 0, 1), Ok(vec![]));
    assert_eq!(place_replicas(&[1], 0, -5, 1), Ok(vec![]));
    assert_eq!(place_replicas(&[5, 6], 3, 2, 1), Ok(vec![vec![6], vec![5]]));
    assert!(matches!(
        place_replicas(&[1], 0, 1, -1),
        Err(TopicError::InvalidReplicationFactor(_))
    ));
}

#[test]
fn placement_invariants_hold_for_small_clusters() {
    for broker_count in 1..=5 {
        let brokers: Vec<i32> = (0..broker_count).map(|b| 100 - 7 * b).collect();
        for factor in 1..=broker_count {
            for start in 0..=3 {
                for partitions in 0..=12 {
                    let factor_i16 = i16::try_from(factor).unwrap_or(i16::MAX);
                    let placed = place_replicas(&brokers, start, partitions, factor_i16)
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(placed.len(), usize::try_from(partitions).unwrap_or(0));
                    let mut leaders = vec![0usize; brokers.len()];
                    for replicas in &placed {
                        let mut distinct = replicas.clone();
                        distinct.sort_unstable();
                        distinct.dedup();
                        assert_eq!(distinct.len(), replicas.len(), "{replicas:?}");
                        assert_eq!(replicas.len(), usize::try_from(factor).unwrap_or(0));
                        assert!(replicas.iter().all(|r| brokers.contains(r)));
                        if let Some(slot) = brokers.iter().position(|b| Some(b) == replicas.first())
                        {
                            leaders[slot] += 1;
                        }
                    }
                    let (most, least) = (leaders.iter().max(), leaders.iter().min());
                    assert!(
                        most.zip(least).is_some_and(|(m, l)| m - l <= 1),
                        "{leaders:?}"
                    );
                }
            }
        }
    }
}
