//! The records the store keeps besides ACLs and SCRAM credentials (whose type is
//! `kacl_sasl::ScramCredential`, the one the server authenticates with): topics with their
//! partitions; the outcome of an ACL commit; and the shapes in which a store hands out ACLs
//! and credentials (here, not beside the trait, so that the operations every backend shares
//! can name them without importing the trait's module).

use std::collections::BTreeMap;

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};

use crate::error::StoreError;

/// Receives one chunk of stored ACLs; an error stops the load and is returned by it.
pub type AclChunkSink<'a> = dyn FnMut(Vec<AclBinding>) -> Result<(), StoreError> + 'a;

/// One stored SCRAM credential as a store lists it: the user's name, the mechanism (its hash)
/// and the credential (salt, iterations, keys).
pub type StoredScramCredential = (String, ScramMechanism, ScramCredential);

/// What an ACL commit actually changed: bindings that were already present (for adds)
/// or absent (for removes) are left out, so the caller can report exactly what it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclCommit {
    /// Bindings that were not stored before and now are, in request order.
    pub added: Vec<AclBinding>,
    /// Bindings that were stored before and now are not, in request order, each once.
    pub removed: Vec<AclBinding>,
}

/// One partition of a topic and the brokers that hold it, leader first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRecord {
    /// 0-based; a topic's partitions are numbered 0..n without gaps.
    pub partition_index: i32,
    /// Broker ids; the first is the preferred leader.
    pub replicas: Vec<i32>,
}

/// A topic as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicRecord {
    /// The topic's name, its key in the store.
    pub name: String,
    /// Kafka's topic id, a random UUID (see [`crate::random_kafka_uuid`]).
    pub topic_id: [u8; 16],
    /// Every partition, in index order.
    pub partitions: Vec<PartitionRecord>,
    /// Configs set explicitly at creation (or altered since); defaults are not stored.
    pub configs: BTreeMap<String, String>,
    /// Creation order, assigned by the store: topics load back in this order, as Kafka
    /// lists them. Whatever a caller puts here when creating a topic is replaced.
    pub created_seq: u64,
}
