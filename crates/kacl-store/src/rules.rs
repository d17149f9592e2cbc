//! The store's rules, written once: every backend (the embedded stores through `ops`, the etcd
//! store over its transactions) calls these, so a rule and its error text cannot drift apart
//! between backends.

use kacl_acl::AclBinding;

use crate::encoding::non_concrete_field;
use crate::error::StoreError;
use crate::records::{AclCommit, PartitionRecord};

/// Refuses (with [`StoreError::InvalidAcl`]) the first binding that cannot be stored: one
/// holding a filter value (ANY, MATCH) or UNKNOWN. Called before anything is written.
pub fn check_storable(adds: &[AclBinding]) -> Result<(), StoreError> {
    match adds
        .iter()
        .find_map(|b| non_concrete_field(b).map(|reason| (b, reason)))
    {
        Some((binding, reason)) => Err(StoreError::InvalidAcl {
            binding: binding.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Replaces the replicas of existing partitions of `topic` (a partition reassignment made
/// whole at once): refuses (with [`StoreError::InvalidPartitions`], nothing changed) a
/// partition the topic does not have or an empty replica list. The callers check brokers and
/// duplicates, as Kafka's controller does, before they get here.
pub fn apply_reassignment(
    topic: &mut crate::TopicRecord,
    replicas: &[(i32, Vec<i32>)],
) -> Result<(), StoreError> {
    for (index, target) in replicas {
        let exists = usize::try_from(*index)
            .ok()
            .and_then(|i| topic.partitions.get(i))
            .is_some_and(|p| p.partition_index == *index);
        if !exists || target.is_empty() {
            return Err(StoreError::InvalidPartitions {
                topic: topic.name.clone(),
                reason: format!("partition {index} cannot be reassigned to {target:?}"),
            });
        }
    }
    for (index, target) in replicas {
        // Checked above: the index is the partition's position.
        topic.partitions[*index as usize].replicas = target.clone();
    }
    Ok(())
}

/// Refuses (with [`StoreError::InvalidPartitions`]) partitions not numbered `first, first + 1,
/// ...` in order: a new topic's from 0, added ones from the topic's current count.
pub fn check_partition_numbering(
    topic: &str,
    first: usize,
    partitions: &[PartitionRecord],
) -> Result<(), StoreError> {
    for (offset, partition) in partitions.iter().enumerate() {
        let expected = first
            .checked_add(offset)
            .and_then(|n| i32::try_from(n).ok());
        if expected != Some(partition.partition_index) {
            return Err(StoreError::InvalidPartitions {
                topic: topic.to_string(),
                reason: format!(
                    "partition {} is out of order: partitions must be numbered {} onwards \
                     without gaps",
                    partition.partition_index, first
                ),
            });
        }
    }
    Ok(())
}

/// Whether each binding is stored, as a backend reads and changes it while committing: the
/// embedded stores inside their transaction, the etcd store from its transaction's answer.
pub trait AclPresence {
    /// Makes `binding` absent; true if it was stored.
    fn remove(&mut self, binding: &AclBinding) -> Result<bool, StoreError>;
    /// Makes `binding` stored; true if it was absent.
    fn add(&mut self, binding: &AclBinding) -> Result<bool, StoreError>;
}

/// What an ACL commit really changed: `removes` first, then `adds`, each binding counted once
/// however often it is named, in request order. A stored binding both removed and added is
/// reported as both (it was removed, then stored again). Check [`check_storable`] first.
pub fn commit_acls(
    adds: &[AclBinding],
    removes: &[AclBinding],
    presence: &mut impl AclPresence,
) -> Result<AclCommit, StoreError> {
    let mut commit = AclCommit::default();
    for binding in removes {
        if presence.remove(binding)? {
            commit.removed.push(binding.clone());
        }
    }
    for binding in adds {
        if presence.add(binding)? {
            commit.added.push(binding.clone());
        }
    }
    Ok(commit)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use kacl_acl::{
        AccessControlEntry, AclOperation, AclPermissionType, PatternType, ResourcePattern,
        ResourceType,
    };

    use super::*;

    fn acl(topic: &str) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, topic, PatternType::Literal),
            AccessControlEntry::new("User:a", "*", AclOperation::Read, AclPermissionType::Allow),
        )
    }

    struct Set(HashSet<AclBinding>);

    impl AclPresence for Set {
        fn remove(&mut self, binding: &AclBinding) -> Result<bool, StoreError> {
            Ok(self.0.remove(binding))
        }
        fn add(&mut self, binding: &AclBinding) -> Result<bool, StoreError> {
            Ok(self.0.insert(binding.clone()))
        }
    }

    #[test]
    fn each_binding_counts_once_removes_first() {
        let mut stored = Set([acl("a"), acl("b")].into_iter().collect());
        let commit = commit_acls(
            &[acl("b"), acl("c"), acl("c"), acl("a")],
            &[acl("a"), acl("a"), acl("x")],
            &mut stored,
        )
        .unwrap();
        assert_eq!(commit.removed, vec![acl("a")]);
        assert_eq!(commit.added, vec![acl("c"), acl("a")]);
    }

    #[test]
    fn numbering_is_checked_from_the_first_index() {
        let parts = |ids: &[i32]| -> Vec<PartitionRecord> {
            ids.iter()
                .map(|&i| PartitionRecord {
                    partition_index: i,
                    replicas: vec![1],
                })
                .collect()
        };
        assert!(check_partition_numbering("t", 0, &parts(&[0, 1])).is_ok());
        assert!(check_partition_numbering("t", 2, &parts(&[2, 3])).is_ok());
        assert!(matches!(
            check_partition_numbering("t", 2, &parts(&[3])),
            Err(StoreError::InvalidPartitions { .. })
        ));
    }
}
