//! Gateway mode of `kacl serve`: an authorizing Kafka proxy. Clients authenticate to kacl as
//! they always do; every request that is not kacl's own (the ACL, SCRAM, SASL and ApiVersions
//! APIs) is decoded as far as its authorization and address rewriting need, authorized with
//! kacl's authorizer through the one audited path, and what is allowed is forwarded to the
//! upstream cluster as kacl's single service identity. Record batches pass through as bytes.
//!
//! - [`Gateway`]: the node's [`Forwarder`]: which APIs and versions are offered (the
//!   intersection of the upstream's ApiVersions and what [`rules`] can authorize), and one
//!   [`link`] per client connection.
//! - `upstream`: the service identity's connections to the upstream brokers.
//! - `addresses`: upstream broker id → the gateway endpoint that routes to it (one port per
//!   upstream broker), so a client never learns an upstream address.
//! - `rules`: one module per API family, each a pure planning step (typed request in:
//!   forward as is, forward a reduced request, or answer) and the rewrite of the upstream's
//!   answer.
//! - `topic_ids`: topic id → name, learnt from the Metadata answers that pass, for the APIs
//!   that name topics by id.
//! - `quota`: client quotas enforced with Kafka's throttle semantics (rates over Kafka's sample
//!   windows, `throttle_time_ms` in the answer, the connection muted for that time).

mod addresses;
mod link;
mod plan;
mod quota;
mod rules;
mod topic_ids;
mod upstream;

use std::sync::Arc;

use kacl_protocol::{ApiKey, VersionRange};
use kacl_server_config::gateway::GatewayConfig;
use kacl_service::forward::{CutThrough, Forwarder, Link};
use kacl_service::BoundListener;
use tokio::sync::mpsc;

/// How much of a large Produce must have arrived before it is offered for cut-through: its
/// header, the fields before the record data and the first batch's 61-byte header fit in it
/// unless the client id, transactional id or topic name are unusually long (such a request is
/// then read whole).
const CUT_THROUGH_FIRST_PART: usize = 1024;

pub use addresses::Endpoint;
pub use upstream::GatewayError;

use addresses::Addresses;
use topic_ids::TopicIds;
use upstream::Upstream;

/// A gateway node's forwarding side, shared by all its connections.
#[derive(Debug, Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
}

/// What every link of a gateway reads.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) upstream: Upstream,
    pub(crate) addresses: Addresses,
    pub(crate) topic_ids: TopicIds,
    /// The node's client quota sensors, shared by the connections each measures.
    pub(crate) quota_sensors: Arc<quota::Sensors>,
    /// Offered versions by position in [`ApiKey::KNOWN`].
    offered: Vec<Option<VersionRange>>,
    /// `kacl.gateway.splice.enable`: large Fetch answers to plain TCP clients are spliced.
    splice: bool,
    /// Whether Fetch v15 is offered (so the upstream takes it): the fast path then sends a
    /// v16/v17 Fetch up as v15 (`rules::fetch`). Known at start, read on every Fetch.
    pub(crate) fetch_as_v15: bool,
    /// Where brokers first seen after start are announced (to the server, which binds a
    /// port for each: [`Gateway::joined_brokers`]).
    joined: mpsc::UnboundedSender<i32>,
    /// The receiving end, until the server takes it.
    joined_receiver: parking_lot::Mutex<Option<mpsc::UnboundedReceiver<i32>>>,
}

impl Shared {
    /// Announces brokers the upstream named for the first time.
    pub(crate) fn brokers_joined(&self, nodes: Vec<i32>) {
        for node in nodes {
            tracing::info!(node, "a broker joined the upstream cluster");
            let _ = self.joined.send(node);
        }
    }
}

impl Gateway {
    /// Connects to the upstream cluster as the service identity, learns its ApiVersions and
    /// brokers. Fails with a message naming the upstream and the mechanism when the upstream
    /// cannot be reached or refuses the identity (`kacl serve` exits on it).
    pub async fn connect(config: &GatewayConfig) -> Result<Gateway, GatewayError> {
        Ok(Gateway::over(
            Upstream::connect(config).await?,
            config.splice,
        ))
    }

    /// A gateway whose upstream cannot be reached and claims every API kacl knows at its full
    /// range, with brokers `brokers`: everything the gateway can authorize is offered, every
    /// request is decoded and planned as it would be, and every forward fails (the client's
    /// connection closes). For the fuzzer and for tests of the request path.
    pub fn offline(brokers: &[i32]) -> Gateway {
        let versions = kacl_client::net::ApiVersionsTable::from_ranges(
            ApiKey::KNOWN.iter().map(|api| (*api, api.versions())),
        );
        Gateway::over(Upstream::offline(versions, brokers), true)
    }

    fn over(upstream: Upstream, splice: bool) -> Gateway {
        let offered: Vec<Option<VersionRange>> = ApiKey::KNOWN
            .iter()
            .map(|api| {
                let ours = rules::enforceable(*api)?;
                let theirs = upstream.versions(*api)?;
                let min = ours.min.max(theirs.min);
                let max = ours.max.min(theirs.max);
                (min <= max).then(|| VersionRange::between(min, max))
            })
            .collect();
        let fetch_as_v15 = ApiKey::KNOWN
            .iter()
            .position(|known| *known == ApiKey::Fetch)
            .and_then(|slot| offered.get(slot).copied().flatten())
            .is_some_and(|range| range.min <= 15 && 15 <= range.max);
        let (joined, joined_receiver) = mpsc::unbounded_channel();
        Gateway {
            shared: Arc::new(Shared {
                upstream,
                addresses: Addresses::default(),
                topic_ids: TopicIds::default(),
                quota_sensors: Arc::default(),
                offered,
                splice,
                fetch_as_v15,
                joined,
                joined_receiver: parking_lot::Mutex::new(Some(joined_receiver)),
            }),
        }
    }

    /// The node ids of upstream brokers the gateway sees for the first time after it started
    /// (in a passing Metadata answer), for the server to bind a port for each and
    /// [`expose`](Gateway::expose) it; until then such a broker is left out of the broker
    /// lists clients see. `None` once taken: there is one receiver.
    pub fn joined_brokers(&self) -> Option<mpsc::UnboundedReceiver<i32>> {
        self.shared.joined_receiver.lock().take()
    }

    /// The upstream brokers known now, by node id: the gateway exposes one port for each.
    pub fn upstream_node_ids(&self) -> Vec<i32> {
        self.shared.upstream.node_ids()
    }

    /// Where clients reach upstream broker `node` through this gateway node.
    pub fn expose(&self, node: i32, endpoint: Endpoint) {
        self.shared.addresses.set(node, endpoint);
    }

    /// Whether upstream broker `node` already has a gateway endpoint.
    pub fn exposes(&self, node: i32) -> bool {
        self.shared.addresses.get(node).is_some()
    }

    /// The planning step alone for one request of an offered API — decode, authorize through
    /// the audited path, reduce or answer — without sending anything: `true` when the request
    /// would be forwarded (whole or reduced), `false` when the gateway answers it or closes.
    /// For measuring what authorization costs a forwarded request.
    pub fn plans_forward(
        &self,
        ctx: &kacl_service::context::RequestContext<'_>,
        frame: &kacl_protocol::frame::RequestFrame<'_>,
    ) -> bool {
        matches!(
            rules::plan(&self.shared, ctx, frame),
            plan::Plan::Forward { .. }
        )
    }

    /// The upstream address of broker `node`, for logs and tests.
    pub fn upstream_address(&self, node: i32) -> Option<String> {
        self.shared.upstream.address(node)
    }
}

impl Forwarder for Gateway {
    fn offered_versions(&self, api: ApiKey) -> Option<VersionRange> {
        let slot = ApiKey::KNOWN.iter().position(|known| *known == api)?;
        self.shared.offered.get(slot).copied().flatten()
    }

    fn cut_through(&self, listener: &BoundListener) -> Option<CutThrough> {
        // Relayed by splicing out of the client's socket: plain TCP only, like Fetch answers.
        (self.shared.splice && !listener.protocol.uses_tls()).then_some(CutThrough {
            api: ApiKey::Produce,
            min_frame: kacl_client::net::SPLICE_MIN_BODY,
            first_part: CUT_THROUGH_FIRST_PART,
        })
    }

    fn link(&self, listener: &BoundListener) -> Box<dyn Link> {
        // Only a plain TCP client socket can be spliced into.
        let splice = self.shared.splice && !listener.protocol.uses_tls();
        Box::new(link::ClientLink::new(
            self.shared.clone(),
            listener.upstream_node,
            splice,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_client::net::ApiVersionsTable;
    use kacl_protocol::messages::api_versions::{ApiVersion, ApiVersionsResponse};

    /// Vendors' brokers list private API keys (and may list odd ranges): the gateway offers
    /// only keys it knows and can authorize, and never fails on the others.
    #[test]
    fn an_upstreams_unknown_api_keys_are_dropped() {
        let range = |api_key: i16, min_version: i16, max_version: i16| ApiVersion {
            api_key,
            min_version,
            max_version,
            ..Default::default()
        };
        let answer = ApiVersionsResponse {
            api_keys: vec![
                range(ApiKey::Produce.key(), 3, 12),
                range(ApiKey::Metadata.key(), 0, 13),
                range(1000, 0, 3),
                range(i16::MAX, 5, 1),
                range(-7, 0, 0),
                // Known to kacl but without a gateway rule: never offered.
                range(ApiKey::DescribeTopicPartitions.key(), 0, 0),
            ],
            ..Default::default()
        };
        let upstream = Upstream::offline(ApiVersionsTable::from_response(&answer), &[1]);
        let gateway = Gateway::over(upstream, false);
        let offered: Vec<(ApiKey, VersionRange)> = ApiKey::KNOWN
            .iter()
            .filter_map(|api| Some((*api, gateway.offered_versions(*api)?)))
            .collect();
        let ours = |api: ApiKey, min: i16, max: i16| {
            let declared = api.versions();
            (
                api,
                VersionRange::between(declared.min.max(min), declared.max.min(max)),
            )
        };
        assert_eq!(
            offered,
            vec![ours(ApiKey::Produce, 3, 12), ours(ApiKey::Metadata, 4, 13)]
        );
    }
}
