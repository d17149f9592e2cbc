//! The seam between the request path and a gateway (`kacl-gateway`): in gateway mode every API
//! whose [`ApiRole`] is not [`ApiRole::Own`] goes to the node's [`Forwarder`] instead of a
//! local handler. The request path knows only these traits, so it never depends on the
//! gateway, and a standalone node has no forwarder at all.
//!
//! A connection's forwarding state (its upstream connections) is a [`Link`], made by the
//! forwarder when the connection opens and kept in the connection's
//! [`Session`](crate::context::Session).

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::{ApiKey, ApiRole, VersionRange};

use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::state::BoundListener;

/// A response still on its way from the upstream: the connection writes it when it resolves,
/// in request order, and meanwhile reads and forwards the client's next requests (pipelining).
pub type PendingOutcome = Pin<Box<dyn Future<Output = Outcome> + Send + 'static>>;

/// A gateway: decides which APIs it forwards and makes one [`Link`] per client connection.
pub trait Forwarder: Send + Sync + std::fmt::Debug {
    /// The versions of `api` a client may use through this gateway: the intersection of the
    /// upstream's range and the range the gateway can authorize. `None`: not offered (left
    /// out of ApiVersions and refused), which is the answer for any API the gateway does not
    /// know how to authorize.
    fn offered_versions(&self, api: ApiKey) -> Option<VersionRange>;

    /// The forwarding side of a new client connection on `listener`.
    fn link(&self, listener: &BoundListener) -> Box<dyn Link>;
}

/// One client connection's forwarding side.
pub trait Link: Send + std::fmt::Debug {
    /// Authorizes one request (already version-checked against
    /// [`Forwarder::offered_versions`], header parsed) and forwards what is allowed. `payload`
    /// is the whole frame without its size prefix, in the buffer it was read into: a request
    /// forwarded as it came is sent from there, never copied.
    fn forward(
        &mut self,
        ctx: &RequestContext<'_>,
        frame: &RequestFrame<'_>,
        payload: &Bytes,
    ) -> Outcome;
}

/// Whether a node with or without a forwarder answers `api` itself.
pub fn answered_locally(api: ApiKey, gateway: bool) -> bool {
    match api.role() {
        ApiRole::Own => true,
        ApiRole::AnsweredOrForwarded => !gateway,
        ApiRole::ForwardedOnly => false,
    }
}
