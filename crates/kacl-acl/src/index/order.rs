//! The order a describe of every pattern (no resource name, no principal in the filter) visits
//! patterns in: by resource type, name, then pattern type, the order `kafka-acls.sh`-style
//! listings and the console display. A client that shows the first page of a listing can then
//! show it as soon as its first resources arrive, instead of after the whole answer. Kafka
//! answers in hash order, so with Kafka it must wait: a deliberate difference from Kafka,
//! listed in `kacl_server::DIFFERENCES_FROM_KAFKA`.
//!
//! Slots are kept in id order, which is insertion order with reuse, so the display order is a
//! sorted list of ids, computed by the first such walk after a change and shared by the walks
//! that follow until the next change (`AclIndex::changes`). Computing it costs one sort of the
//! patterns (~50 ms at 200,000 patterns); a walk that finds it current pays nothing.

use std::sync::Arc;

use parking_lot::Mutex;

use super::AclIndex;

/// The cached display order and the change count it was computed at.
#[derive(Debug, Default)]
pub(super) struct DisplayOrder(Mutex<Option<(u64, Arc<[u32]>)>>);

impl AclIndex {
    /// The ids of every pattern in display order: (resource type, name, pattern type).
    pub(super) fn display_order(&self) -> Arc<[u32]> {
        // Held while computing: concurrent walks wait for one sort instead of each sorting.
        let mut cached = self.display_order.0.lock();
        if let Some((changes, ids)) = cached.as_ref() {
            if *changes == self.changes {
                return Arc::clone(ids);
            }
        }
        let mut ids: Vec<u32> = (0..self.patterns.len() as u32)
            .filter(|&id| self.slot(id).is_some())
            .collect();
        ids.sort_unstable_by(|&a, &b| {
            let key = |id| {
                self.slot(id)
                    .map(|slot| (slot.resource_type, &*slot.name, slot.pattern_type))
            };
            key(a).cmp(&key(b))
        });
        let ids: Arc<[u32]> = ids.into();
        *cached = Some((self.changes, Arc::clone(&ids)));
        ids
    }
}

#[cfg(test)]
mod tests {
    use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};
    use crate::filter::AclBindingFilter;
    use crate::index::{AclChanges, AclIndex};
    use crate::types::{AccessControlEntry, AclBinding, ResourcePattern};

    fn acl(resource_type: ResourceType, name: &str, pattern_type: PatternType) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(resource_type, name, pattern_type),
            AccessControlEntry::new("User:a", "*", AclOperation::Read, AclPermissionType::Allow),
        )
    }

    fn visited(
        index: &AclIndex,
        filter: &AclBindingFilter,
    ) -> Vec<(ResourceType, String, PatternType)> {
        let mut out = Vec::new();
        index.for_each_group(filter, |group| {
            out.push((
                group.pattern.resource_type,
                group.pattern.name.to_owned(),
                group.pattern.pattern_type,
            ));
        });
        out
    }

    /// Patterns added in a scrambled order, some removed and others added (reusing freed
    /// slots), come out of a walk of every pattern sorted, each once, after every change.
    #[test]
    fn a_walk_of_every_pattern_is_in_display_order_after_each_change() {
        let types = [ResourceType::Topic, ResourceType::Group, ResourceType::User];
        let kinds = [PatternType::Literal, PatternType::Prefixed];
        let mut index = AclIndex::new();
        let mut live = std::collections::BTreeSet::new();
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for round in 0..6 {
            let mut changes = AclChanges::default();
            for _ in 0..300 {
                let pattern = (
                    types[next(3) as usize],
                    format!("n{}", next(500)),
                    kinds[next(2) as usize],
                );
                let binding = acl(pattern.0, &pattern.1, pattern.2);
                // A batch removes before it adds: only what was there before it can go.
                if round > 0
                    && next(3) == 0
                    && !changes.adds.contains(&binding)
                    && live.remove(&pattern)
                {
                    changes.removes.push(binding);
                } else if !changes.removes.contains(&binding) {
                    live.insert(pattern);
                    changes.adds.push(binding);
                }
            }
            index.apply(&changes).unwrap();
            let all = visited(&index, &AclBindingFilter::ANY);
            let expected: Vec<_> = live.iter().cloned().collect();
            let first_difference = all.iter().zip(&expected).position(|(a, b)| a != b);
            assert!(
                all.len() == expected.len() && first_difference.is_none(),
                "round {round}: {} visited, {} expected, first difference at {first_difference:?}",
                all.len(),
                expected.len()
            );
            // A second walk without a change reuses the order.
            assert!(
                visited(&index, &AclBindingFilter::ANY) == all,
                "round {round}"
            );
            let mut groups_only = AclBindingFilter::ANY;
            groups_only.pattern.resource_type = ResourceType::Group;
            let groups: Vec<_> = all
                .iter()
                .filter(|p| p.0 == ResourceType::Group)
                .cloned()
                .collect();
            assert!(visited(&index, &groups_only) == groups, "round {round}");
        }
    }
}
