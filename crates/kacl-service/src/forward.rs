//! The seam between the request path and a gateway (`kacl-gateway`): in gateway mode every API
//! whose [`ApiRole`] is not [`ApiRole::Own`] goes to the node's [`Forwarder`] instead of a
//! local handler. The request path knows only these traits, so it never depends on the
//! gateway, and a standalone node has no forwarder at all.
//!
//! A connection's forwarding state (its upstream connections) is a [`Link`], made by the
//! forwarder on the connection's first forwarded request and kept in the connection's
//! [`Session`](crate::context::Session).
//!
//! The traits are declared in [`state`](crate::state), beside the [`ServerState`] that holds
//! the forwarder and the [`RequestContext`] a link serves (the three refer to each other);
//! this module names them for the gateway.
//!
//! [`ServerState`]: crate::state::ServerState
//! [`RequestContext`]: crate::context::RequestContext

use kacl_protocol::{ApiKey, ApiRole};

pub use crate::outcome::PendingOutcome;
pub use crate::state::{CutThrough, Forwarder, FrameRest, Link};

/// Whether a node with or without a forwarder answers `api` itself.
pub fn answered_locally(api: ApiKey, gateway: bool) -> bool {
    match api.role() {
        ApiRole::Own => true,
        ApiRole::AnsweredOrForwarded => !gateway,
        ApiRole::ForwardedOnly => false,
    }
}
