//! Rack-aware placement with balanced leaders, for the live nodes of a cluster (`broker.rack`).
//!
//! The goals are those of Kafka's `StripedReplicaPlacer` (KRaft), in its order: spread each
//! partition's replicas over as many racks as the replication factor allows, then spread
//! replicas and leaders evenly over the brokers. As in KRaft, brokers without a rack form one
//! rack of their own (KRaft places over mixed racked and unracked brokers; only the old
//! ZooKeeper-era `AdminUtils` refused that mix).
//!
//! Deliberate difference from Kafka: the leaders follow one fixed order that takes each rack's
//! first broker, then each rack's second, and so on (`A0 B0 C0 A1 B1 C1 ...`), so consecutive
//! partitions have their leaders on every broker once before any broker leads twice (Kafka
//! starts each rack and broker list at random offsets and only balances on average). The
//! followers of a partition come from the racks after the leader's, one rack at a time, each
//! rack handing out its brokers in turn.

use std::collections::BTreeMap;

/// One placeable broker: its id and rack.
pub type RackedBroker<'a> = (i32, Option<&'a str>);

/// The leader order over `brokers` (deduplicated by id): racks sorted (no rack first, as
/// Kafka sorts an empty rack name), brokers sorted by id within each, interleaved by rank.
pub fn leader_order(brokers: &[RackedBroker<'_>]) -> Vec<i32> {
    let racks = racks(brokers);
    let deepest = racks.values().map(Vec::len).max().unwrap_or(0);
    (0..deepest)
        .flat_map(|rank| racks.values().filter_map(move |ids| ids.get(rank).copied()))
        .collect()
}

fn racks<'a>(brokers: &[RackedBroker<'a>]) -> BTreeMap<Option<&'a str>, Vec<i32>> {
    let mut racks: BTreeMap<Option<&str>, Vec<i32>> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for (id, rack) in brokers {
        if seen.insert(*id) {
            racks.entry(*rack).or_default().push(*id);
        }
    }
    for ids in racks.values_mut() {
        ids.sort_unstable();
    }
    racks
}

/// Replicas for `partitions` partitions with `factor` replicas each over `brokers`, the first
/// partition's leader at position `first_leader` of [`leader_order`] (the caller picks it: a
/// random one for a new topic, the one after the last partition's leader for new partitions).
/// `factor` must be between 1 and the number of distinct brokers (the caller checks, with
/// Kafka's messages); otherwise the result is empty.
pub fn place_racked(
    brokers: &[RackedBroker<'_>],
    first_leader: usize,
    partitions: usize,
    factor: usize,
) -> Vec<Vec<i32>> {
    let racks: Vec<Vec<i32>> = racks(brokers).into_values().collect();
    let order = leader_order(brokers);
    if factor == 0 || factor > order.len() {
        return Vec::new();
    }
    let rack_of: BTreeMap<i32, (usize, usize)> = racks
        .iter()
        .enumerate()
        .flat_map(|(r, ids)| ids.iter().enumerate().map(move |(i, id)| (*id, (r, i))))
        .collect();
    // Where each rack's next follower comes from; advanced by every follower it gives.
    let mut cursors = vec![0usize; racks.len()];
    (0..partitions)
        .map(|p| {
            let leader = order[(first_leader + p) % order.len()];
            let (leader_rack, leader_index) = rack_of[&leader];
            let mut replicas = vec![leader];
            // The leader's own rack continues after the leader, so that one rack (no racks
            // configured) stripes exactly as `place_replicas`.
            cursors[leader_rack] = leader_index + 1;
            let mut step = 1;
            while replicas.len() < factor {
                let rack = (leader_rack + step) % racks.len();
                step += 1;
                let ids = &racks[rack];
                if let Some(next) = (0..ids.len())
                    .map(|k| ids[(cursors[rack] + k) % ids.len()])
                    .find(|id| !replicas.contains(id))
                {
                    let at = ids.iter().position(|id| *id == next).unwrap_or(0);
                    cursors[rack] = at + 1;
                    replicas.push(next);
                }
            }
            replicas
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn racked<'a>(spec: &[(i32, &'a str)]) -> Vec<RackedBroker<'a>> {
        spec.iter()
            .map(|(id, rack)| (*id, (!rack.is_empty()).then_some(*rack)))
            .collect()
    }

    #[test]
    fn the_leader_order_interleaves_racks() {
        let brokers = racked(&[(1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "c"), (6, "")]);
        assert_eq!(leader_order(&brokers), vec![6, 1, 3, 5, 2, 4]);
    }

    #[test]
    fn without_racks_it_stripes_as_before() {
        let brokers = racked(&[(3, ""), (1, ""), (2, "")]);
        assert_eq!(
            place_racked(&brokers, 0, 4, 2),
            vec![vec![1, 2], vec![2, 3], vec![3, 1], vec![1, 2]]
        );
    }

    #[test]
    fn replicas_spread_over_racks_and_leaders_over_brokers() {
        // Three zones of two brokers, replication factor 3: every partition in all three zones.
        let brokers = racked(&[(1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "c"), (6, "c")]);
        let placed = place_racked(&brokers, 0, 6, 3);
        for replicas in &placed {
            let zones: std::collections::HashSet<_> =
                replicas.iter().map(|b| (b - 1) / 2).collect();
            assert_eq!(zones.len(), 3, "{placed:?}");
        }
        let mut leaders: Vec<i32> = placed.iter().map(|r| r[0]).collect();
        leaders.sort_unstable();
        assert_eq!(leaders, vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_factor_out_of_range_places_nothing() {
        let brokers = racked(&[(1, "a")]);
        assert!(place_racked(&brokers, 0, 3, 2).is_empty());
        assert!(place_racked(&brokers, 0, 3, 0).is_empty());
    }

    fn cluster() -> impl Strategy<Value = Vec<(i32, Option<String>)>> {
        prop::collection::vec((0i32..40, prop::option::of(0u8..4)), 1..16).prop_map(|brokers| {
            brokers
                .into_iter()
                .map(|(id, rack)| (id, rack.map(|r| format!("zone-{r}"))))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn replicas_are_distinct_spread_over_racks_and_leaders_balanced(
            brokers in cluster(),
            first in 0usize..50,
            partitions in 1usize..60,
            factor in 1usize..6,
        ) {
            let brokers: Vec<RackedBroker<'_>> =
                brokers.iter().map(|(id, rack)| (*id, rack.as_deref())).collect();
            let order = leader_order(&brokers);
            let placed = place_racked(&brokers, first, partitions, factor);
            if factor > order.len() {
                prop_assert!(placed.is_empty());
                return Ok(());
            }
            prop_assert_eq!(placed.len(), partitions);
            // A repeated id keeps its first rack, as the placer does.
            let mut rack_of: BTreeMap<i32, Option<&str>> = BTreeMap::new();
            for (id, rack) in &brokers {
                rack_of.entry(*id).or_insert(*rack);
            }
            let rack_count = rack_of.values().collect::<std::collections::HashSet<_>>().len();
            let mut led: BTreeMap<i32, usize> = order.iter().map(|b| (*b, 0)).collect();
            for replicas in &placed {
                prop_assert_eq!(replicas.len(), factor);
                let distinct: std::collections::HashSet<_> = replicas.iter().collect();
                prop_assert_eq!(distinct.len(), factor, "{:?}", replicas);
                let racks: std::collections::HashSet<_> =
                    replicas.iter().map(|b| rack_of[b]).collect();
                prop_assert_eq!(racks.len(), factor.min(rack_count), "{:?}", replicas);
                *led.get_mut(&replicas[0]).unwrap() += 1;
            }
            let most = led.values().max().unwrap();
            let least = led.values().min().unwrap();
            prop_assert!(most - least <= 1, "{:?}", led);
        }
    }
}
