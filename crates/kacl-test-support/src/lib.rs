//! What kacl's integration tests share, so that each test starts its servers, its etcd and
//! its stores one way: a [`ServerBuilder`] (`.etcd(..)`, `.sasl(..)`, `.tls(..)`; started in
//! this process or as the `kacl` binary in a child process), a real etcd starter
//! ([`etcd::Etcd`], [`etcd::EtcdCluster`]), the parser of the `listening` lines a started
//! binary prints ([`listening`]), and the behaviour every `MetadataStore` must show
//! ([`store_contract`], run against redb, memory and etcd).
//!
//! A dev-dependency only (`publish = false`): it depends on the crates it starts, and the crates
//! whose tests use it list it under `[dev-dependencies]` (docs/architecture.md).

pub mod etcd;
pub mod listening;
mod server;
pub mod store_contract;

pub use server::{init_logs, ChildServer, InProcessServer, ServerBuilder, PLAIN_JAAS};
