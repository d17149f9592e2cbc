//! The records the store keeps besides ACLs and SCRAM credentials (whose type is
//! `kacl_sasl::ScramCredential`, the one the server authenticates with): topics with their
//! partitions; and the outcome of an ACL commit.

use std::collections::BTreeMap;

use kacl_acl::AclBinding;

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
