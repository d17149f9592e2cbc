//! Node liveness and the controller election. Each node puts `node/<node.id>` under its own
//! lease (a compare that the key is absent, so a second live node with the same id is refused,
//! naming both) and renews the lease every third of `kacl.etcd.lease.ttl.ms`; a node that dies
//! disappears when its lease expires. The controller is whoever put `controller` first under
//! its lease; it stays controller while it lives, and when its key goes the other nodes race
//! to put theirs (one compare again). The live set is learnt from the same watch as the data.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kacl_store::{ClusterMembership, NodeInfo, StoreError};
use parking_lot::{Mutex, RwLock};
use serde_json::{json, Value};

use crate::client::{cmp_absent, op_get, op_put, EtcdClient, Kv};
use crate::decode::{etcd_error, parse_node};
use crate::layout::{self, KeyKind, Layout};

/// The live nodes and the controller as this node knows them.
pub(crate) struct Membership {
    client: Arc<EtcdClient>,
    layout: Layout,
    ttl: Duration,
    nodes: RwLock<BTreeMap<i32, NodeInfo>>,
    controller: RwLock<Option<i32>>,
    me: Mutex<Option<(NodeInfo, i64)>>,
    stop: Arc<AtomicBool>,
}

impl std::fmt::Debug for Membership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Membership")
            .field("nodes", &self.nodes.read().keys().collect::<Vec<_>>())
            .field("controller", &*self.controller.read())
            .finish_non_exhaustive()
    }
}

/// A node's registration as JSON.
fn node_json(node: &NodeInfo) -> Vec<u8> {
    let listeners: Vec<Value> = node
        .listeners
        .iter()
        .map(|(name, host, port)| json!({"name": name, "host": host, "port": port}))
        .collect();
    json!({"node_id": node.node_id, "rack": node.rack, "listeners": listeners})
        .to_string()
        .into_bytes()
}

fn describe(node: &NodeInfo) -> String {
    let listeners: Vec<String> = node
        .listeners
        .iter()
        .map(|(name, host, port)| format!("{name}://{host}:{port}"))
        .collect();
    format!(
        "listeners {}, rack {}",
        listeners.join(","),
        node.rack.as_deref().unwrap_or("none")
    )
}

impl Membership {
    pub(crate) fn new(client: Arc<EtcdClient>, layout: Layout, ttl: Duration) -> Membership {
        Membership {
            client,
            layout,
            ttl,
            nodes: RwLock::new(BTreeMap::new()),
            controller: RwLock::new(None),
            me: Mutex::new(None),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Replaces what is known with a listing.
    pub(crate) fn seed(&self, nodes: &[NodeInfo], controller: Option<i32>) {
        *self.nodes.write() = nodes.iter().map(|n| (n.node_id, n.clone())).collect();
        *self.controller.write() = controller;
    }

    /// A watch event on `node/...` or `controller`.
    pub(crate) fn on_event(&self, kv: &Kv, deleted: bool) {
        match self.layout.kind(&kv.key) {
            KeyKind::Node(id) => {
                let Some(id) = std::str::from_utf8(id).ok().and_then(|t| t.parse().ok()) else {
                    return;
                };
                if deleted {
                    self.nodes.write().remove(&id);
                } else if let Some(node) = parse_node(&kv.value) {
                    self.nodes.write().insert(id, node);
                }
            }
            KeyKind::Controller => {
                *self.controller.write() = if deleted {
                    None
                } else {
                    std::str::from_utf8(&kv.value)
                        .ok()
                        .and_then(|v| v.parse().ok())
                };
            }
            _ => {}
        }
    }

    fn ttl_secs(&self) -> i64 {
        ((self.ttl.as_millis() as i64 + 999) / 1000).max(2)
    }

    /// Puts this node's key under a new lease; refuses if another live node holds the id.
    fn put_node(&self, node: &NodeInfo) -> Result<i64, StoreError> {
        let lease = self
            .client
            .lease_grant(self.ttl_secs())
            .map_err(etcd_error)?;
        let key = self.layout.node(node.node_id);
        let txn = self
            .client
            .txn(
                vec![cmp_absent(&key)],
                vec![op_put(&key, &node_json(node), lease, false)],
                vec![op_get(&key)],
            )
            .map_err(etcd_error)?;
        if txn.succeeded {
            self.nodes.write().insert(node.node_id, node.clone());
            return Ok(lease);
        }
        let _ = self.client.lease_revoke(lease);
        let holder = txn
            .responses
            .first()
            .and_then(|r| r.range_kvs().first())
            .and_then(|kv| parse_node(&kv.value));
        Err(StoreError::Refused {
            detail: format!(
                "node.id {} is held by a live node ({}); this node ({}) refuses to start \
                 with the same node.id: give every node its own node.id (a node that just \
                 died frees its id within kacl.etcd.lease.ttl.ms, {} ms)",
                node.node_id,
                holder
                    .as_ref()
                    .map_or_else(|| "unreadable".to_owned(), describe),
                describe(node),
                self.ttl.as_millis()
            ),
        })
    }

    /// Tries to become controller under `lease` (nothing happens if one is elected).
    fn claim_controller(&self, node_id: i32, lease: i64) {
        let key = self.layout.key(layout::CONTROLLER);
        match self.client.txn(
            vec![cmp_absent(&key)],
            vec![op_put(&key, node_id.to_string().as_bytes(), lease, false)],
            vec![op_get(&key)],
        ) {
            Ok(txn) if txn.succeeded => {
                tracing::info!(node_id, "this node is now the controller");
                *self.controller.write() = Some(node_id);
            }
            Ok(_) => {}
            Err(err) => tracing::debug!(%err, "controller election attempt failed"),
        }
    }

    /// Registers this node and keeps its lease alive on a thread until [`Membership::leave`].
    pub(crate) fn join(self: &Arc<Self>, node: NodeInfo) -> Result<(), StoreError> {
        let lease = self.put_node(&node)?;
        self.claim_controller(node.node_id, lease);
        *self.me.lock() = Some((node, lease));
        let this = Arc::clone(self);
        std::thread::Builder::new()
            .name("kacl-etcd-lease".to_owned())
            .spawn(move || this.keep_alive())
            .map_err(|e| StoreError::Refused {
                detail: format!("cannot start the lease thread: {e}"),
            })?;
        Ok(())
    }

    fn keep_alive(&self) {
        let tick = (self.ttl / 3).max(Duration::from_millis(500));
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(tick);
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let Some((node, lease)) = self.me.lock().clone() else {
                return;
            };
            match self.client.lease_keepalive(lease) {
                Ok(ttl) if ttl > 0 => {
                    if self.controller.read().is_none() {
                        self.claim_controller(node.node_id, lease);
                    }
                }
                Ok(_) => {
                    // The lease expired (etcd was unreachable for longer than the TTL): join
                    // again with a new one.
                    tracing::warn!(
                        node_id = node.node_id,
                        "the node's etcd lease expired; registering again"
                    );
                    match self.put_node(&node) {
                        Ok(new_lease) => {
                            *self.me.lock() = Some((node.clone(), new_lease));
                            self.claim_controller(node.node_id, new_lease);
                        }
                        Err(err) => tracing::error!(%err, "cannot register this node again"),
                    }
                }
                Err(err) => tracing::warn!(%err, "cannot renew the node's etcd lease"),
            }
        }
    }

    /// Revokes the lease: this node and (if it was) the controller leave at once.
    pub(crate) fn leave(&self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some((_, lease)) = self.me.lock().take() {
            let _ = self.client.lease_revoke(lease);
        }
    }
}

/// The [`ClusterMembership`] the store hands out.
#[derive(Debug)]
pub(crate) struct MembershipHandle(pub(crate) Arc<Membership>);

impl ClusterMembership for MembershipHandle {
    fn live_nodes(&self) -> Vec<NodeInfo> {
        self.0.nodes.read().values().cloned().collect()
    }

    fn controller_id(&self) -> Option<i32> {
        *self.0.controller.read()
    }

    fn register(&self, node: NodeInfo) -> Result<(), StoreError> {
        self.0.join(node)
    }
}
