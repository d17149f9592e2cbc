//! kacl's request path, without sockets: everything between a whole request frame and the
//! response frame (or the decision to close) — the part the I/O shell (`kacl-server`), the
//! fuzzer and tests drive alike.
//!
//! - [`router`]: the one place that routes by API key (version checks, SASL gate); it decodes
//!   each request and encodes each response, so a handler takes a typed request and returns a
//!   typed response.
//! - [`handlers`]: one module per API.
//! - [`state`], [`context`]: what every connection shares, and who is asking (the [`Session`]
//!   of a connection, the [`RequestContext`] of a request, with the one audited authorization
//!   path).
//! - Writers: [`acl_writer`] (serialized, durable ACL changes), [`topic_registry`] (topics),
//!   [`credentials`] (SCRAM credentials in memory), [`client_quotas`] (client quotas in
//!   memory and Kafka's rule for which one applies) and [`scram_bootstrap`] (the first admin):
//!   they commit and answer with what the store committed; the store's feed lands in
//!   [`feed_sink`], the one path from any backend's commit to memory.
//! - [`audit`] (the `kacl::authorizer` log) and [`metrics`] (Prometheus counters).
//! - [`forward`]: the seam a gateway node (`kacl-gateway`) plugs into: the APIs it forwards
//!   and each connection's upstream side.
//! - [`request_memory`]: `queued.max.request.bytes`, which the shell leases frames from.
//!
//! [`Session`]: context::Session
//! [`RequestContext`]: context::RequestContext
#![forbid(unsafe_code)]

pub mod acl_writer;
pub mod audit;
pub mod authorized_ops;
pub mod client_quotas;
pub mod context;
pub mod credentials;
pub mod feed_sink;
pub mod forward;
pub mod handlers;
pub mod metrics;
pub mod outcome;
pub mod request_memory;
pub mod router;
pub mod scram_bootstrap;
pub mod state;
pub mod topic_registry;

pub use outcome::Outcome;
pub use state::{BoundListener, ServerState};
