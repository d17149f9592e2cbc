//! kacl's etcd backend: several `kacl serve` nodes share one state (ACLs, topics, SCRAM
//! credentials, topic configs) through etcd's v3 API, and kacl grows no consensus of its own.
//!
//! * [`client`]: a small blocking etcd v3 client over etcd's gRPC-JSON gateway (no `protoc`,
//!   no gRPC stack; in every build).
//! * [`EtcdStore`]: the [`kacl_store::MetadataStore`] — one etcd transaction per write, with the
//!   compares that keep it right against other nodes; the key layout is in `layout`.
//! * The change feed (list at revision R, watch from R+1, re-list after a compaction) delivers
//!   every node's changes to the in-memory state through [`kacl_store::ChangeSink`]; a write
//!   returns once its own revision was applied (read-your-writes).
//! * Membership: node registration under a lease (duplicate `node.id` refused), the live set,
//!   and the controller election, through [`kacl_store::ClusterMembership`].

pub mod client;
mod decode;
mod feed;
mod http;
mod layout;
mod listing;
mod membership;
mod metrics;
mod progress;
mod setup;
mod store;
mod tls;

pub use client::{ClientOptions, EtcdClient, EtcdError};
pub use metrics::EtcdMetrics;
pub use setup::{seed_cluster_id, stored_cluster_id};
pub use store::{EtcdOptions, EtcdStore, EXTRA_TXN_OPS, REQUIRED_REQUEST_BYTES};
pub use tls::{EtcdTls, TlsFileError, TlsFiles};
