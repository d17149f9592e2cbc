//! The brokers a request sees: those Metadata and DescribeCluster list (this node and, on a
//! shared store, every other live node reachable through the request's listener), and those
//! new partitions are placed on, rack-aware when the nodes name their racks.

use crate::state::{BoundListener, ServerState};

/// One broker as Metadata lists it: node id, host, port, rack.
pub(crate) type ListedBroker = (i32, String, u16, Option<String>);

/// The brokers Metadata and DescribeCluster list for a request on `listener`: this node as
/// bound, and every other live node of a shared store's cluster that has a listener of the
/// same name (Kafka lists only the brokers reachable through the request's listener); and
/// the controller (the elected one, else this node).
pub(crate) fn cluster_brokers(
    state: &ServerState,
    listener: &BoundListener,
) -> (Vec<ListedBroker>, i32) {
    let me = (
        state.node_id(),
        listener.advertised_host.clone(),
        listener.advertised_port,
        state.config.broker_rack.clone(),
    );
    let Some(cluster) = state.store.cluster() else {
        return (vec![me], state.node_id());
    };
    let mut brokers = vec![me];
    for node in cluster.live_nodes() {
        if node.node_id == state.node_id() {
            continue;
        }
        if let Some((_, host, port)) = node
            .listeners
            .iter()
            .find(|(name, _, _)| name.eq_ignore_ascii_case(&listener.name))
        {
            brokers.push((node.node_id, host.clone(), *port, node.rack.clone()));
        }
    }
    brokers.sort_by_key(|b| b.0);
    (brokers, cluster.controller_id().unwrap_or(state.node_id()))
}

/// Every live node with its `broker.rack` (this node included), for rack-aware placement.
pub(crate) fn racked_brokers(state: &ServerState) -> Vec<(i32, Option<String>)> {
    let mut brokers: Vec<(i32, Option<String>)> = state
        .store
        .cluster()
        .map(|c| {
            c.live_nodes()
                .into_iter()
                .map(|n| (n.node_id, n.rack))
                .collect()
        })
        .unwrap_or_default();
    if !brokers.iter().any(|(id, _)| *id == state.node_id()) {
        brokers.push((state.node_id(), state.config.broker_rack.clone()));
    }
    brokers
}

/// Re-places automatically assigned new partitions rack-aware with balanced leaders
/// ([`kacl_topics::place_racked`]); the checks and their messages stay those of the plan,
/// made over the same brokers. The first leader continues after `previous_leader` (a
/// partition increase, as Kafka's placer continues from the last partition), else starts at
/// a random broker, so that the leaders of many topics spread over the nodes.
pub(crate) fn place_rack_aware(
    racked: &[(i32, Option<String>)],
    previous_leader: Option<i32>,
    partitions: &mut [kacl_store::PartitionRecord],
) {
    let Some(factor) = partitions.first().map(|p| p.replicas.len()) else {
        return;
    };
    let brokers: Vec<kacl_topics::RackedBroker<'_>> = racked
        .iter()
        .map(|(id, rack)| (*id, rack.as_deref()))
        .collect();
    let order = kacl_topics::leader_order(&brokers);
    let first = match previous_leader.and_then(|l| order.iter().position(|b| *b == l)) {
        Some(at) => at + 1,
        None => usize::from(kacl_store::random_kafka_uuid()[0]),
    };
    let placed = kacl_topics::place_racked(&brokers, first, partitions.len(), factor);
    if placed.len() == partitions.len() {
        for (partition, replicas) in partitions.iter_mut().zip(placed) {
            partition.replicas = replicas;
        }
    }
}

/// The brokers topics may be placed on: every live node of a shared store's cluster (etcd),
/// else this node alone.
pub(crate) fn live_brokers(state: &ServerState) -> Vec<i32> {
    let mut brokers: Vec<i32> = state
        .store
        .cluster()
        .map(|c| c.live_nodes().into_iter().map(|n| n.node_id).collect())
        .unwrap_or_default();
    if !brokers.contains(&state.node_id()) {
        brokers.push(state.node_id());
    }
    brokers.sort_unstable();
    brokers
}
