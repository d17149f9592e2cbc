//! Upstream broker id → the gateway endpoint that routes to it. The gateway exposes one port
//! per upstream broker (`kacl.gateway.broker.port.base` + node id): a connection's port alone
//! says which broker it is for, so the gateway needs no per-request routing state, and the
//! mapping is the same on every gateway node and across restarts, which clients that cache
//! broker addresses rely on.

use std::collections::HashMap;

use parking_lot::RwLock;

/// Where a client reaches one upstream broker through this gateway node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The host clients connect to (the listener's advertised host).
    pub host: String,
    /// The port bound for that broker.
    pub port: u16,
}

/// The endpoints, by upstream node id.
#[derive(Debug, Default)]
pub(crate) struct Addresses(RwLock<HashMap<i32, Endpoint>>);

impl Addresses {
    pub(crate) fn set(&self, node: i32, endpoint: Endpoint) {
        self.0.write().insert(node, endpoint);
    }

    /// The endpoint of `node`, or `None` for a broker the gateway has no port for yet (one that
    /// joined the upstream after the gateway started, until its port is bound): it is left out of the broker lists a
    /// client sees, never shown with its upstream address.
    pub(crate) fn get(&self, node: i32) -> Option<Endpoint> {
        self.0.read().get(&node).cloned()
    }
}
