//! The KIP-951 `node_endpoints` of Produce and Fetch answers (where a partition's leader moved
//! to), shown at the gateway endpoints like every other broker address.

use std::borrow::Cow;

use crate::Shared;

/// A `NodeEndpoint` of any answer: each API declares its own struct with the same fields.
pub(crate) trait NodeEndpointFields {
    fn node_id(&self) -> i32;
    fn set_address(&mut self, host: String, port: i32);
}

macro_rules! node_endpoint {
    ($($ty:path),*) => {$(
        impl NodeEndpointFields for $ty {
            fn node_id(&self) -> i32 {
                self.node_id
            }
            fn set_address(&mut self, host: String, port: i32) {
                self.host = Cow::Owned(host);
                self.port = port;
            }
        }
    )*};
}
node_endpoint!(
    kacl_protocol::messages::produce::NodeEndpoint<'_>,
    kacl_protocol::messages::fetch::NodeEndpoint<'_>
);

/// Rewrites each endpoint to the gateway's; drops one the gateway has no port for.
pub(crate) fn rewrite_endpoints<E: NodeEndpointFields>(shared: &Shared, endpoints: &mut Vec<E>) {
    endpoints.retain_mut(|endpoint| match shared.addresses.get(endpoint.node_id()) {
        Some(gateway) => {
            endpoint.set_address(gateway.host, i32::from(gateway.port));
            true
        }
        None => false,
    });
}
