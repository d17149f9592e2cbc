//! The interface the server programs against, so that the embedded redb store, the
//! in-memory store (tests, fuzzing) and the etcd store are interchangeable: one trait, one
//! path from a commit to memory (the [`ChangeSink`]), and optional capabilities asked for by
//! method (`acl_snapshots`, `cluster`, `feed_stats`) rather than known by backend.

use kacl_acl::AclBinding;

use crate::error::StoreError;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};

use crate::acl_keys::AclKeySink;
use crate::acl_snapshot::{AclSnapshot, AclVersion, SnapshotRejected};
use crate::feed::ChangeSink;
use crate::records::{
    AclChunkSink, AclCommit, PartitionRecord, StoredScramCredential, TopicRecord,
};

/// Durable cluster metadata: ACLs, topics, SCRAM credentials, client quotas and the cluster id.
///
/// Every method that changes something is one atomic transaction: when it returns
/// `Ok`, all of the change is durable (for a durable backend); when it returns `Err`,
/// none of it happened. Implementations are safe to share between threads; calls are
/// blocking (the server runs them on a blocking-capable thread).
pub trait MetadataStore: Send + Sync {
    /// The cluster id, generated on first open and the same ever after: 22 characters
    /// of URL-safe base64, as Kafka's `Uuid.toString()`.
    fn cluster_id(&self) -> String;

    /// Every ACL, to build the in-memory index at start.
    fn load_acls(&self) -> Result<Vec<AclBinding>, StoreError>;

    /// Every stored ACL, in key order, handed to `sink` in chunks of at most `chunk_len`, so
    /// that a caller can index the first chunks while the rest is still being read, and never
    /// holds every binding at once (a server restarting with millions of ACLs).
    fn load_acls_chunked(
        &self,
        chunk_len: usize,
        sink: &mut AclChunkSink<'_>,
    ) -> Result<(), StoreError>;

    /// Removes `removes`, then adds `adds`, atomically. Adding a stored binding and
    /// removing an absent one do nothing; the result says what actually changed. Fails
    /// with [`StoreError::InvalidAcl`] (changing nothing) if an added binding holds a
    /// filter value (ANY, MATCH) or UNKNOWN.
    fn commit_acl_changes(
        &self,
        adds: &[AclBinding],
        removes: &[AclBinding],
    ) -> Result<AclCommit, StoreError>;

    /// Every topic, in creation order.
    fn load_topics(&self) -> Result<Vec<TopicRecord>, StoreError>;

    /// Creates all the topics or none; returns them as stored, with the creation
    /// sequence numbers the store assigned. Fails with
    /// [`StoreError::TopicAlreadyExists`] if a name exists or repeats, and with
    /// [`StoreError::InvalidPartitions`] unless partitions are numbered 0, 1, ...
    fn create_topics(&self, topics: &[TopicRecord]) -> Result<Vec<TopicRecord>, StoreError>;

    /// Deletes the named topics that exist, atomically; returns the names deleted.
    /// Topics' ACLs are untouched, as in Kafka.
    fn delete_topics(&self, names: &[String]) -> Result<Vec<String>, StoreError>;

    /// Appends partitions numbered from the topic's current count; returns the topic.
    fn add_partitions(
        &self,
        name: &str,
        new_partitions: &[PartitionRecord],
    ) -> Result<TopicRecord, StoreError>;

    /// Replaces the replicas of some of a topic's existing partitions atomically (a partition
    /// reassignment, which kacl completes at once: it moves no data); returns the topic. Fails
    /// with [`StoreError::UnknownTopic`] if it does not exist and with
    /// [`StoreError::InvalidPartitions`] for a partition it does not have or an empty list.
    fn reassign_partitions(
        &self,
        name: &str,
        replicas: &[(i32, Vec<i32>)],
    ) -> Result<TopicRecord, StoreError>;

    /// Replaces a topic's configs (the keys set on it; defaults are not stored) atomically;
    /// returns the topic. Fails with [`StoreError::UnknownTopic`] if it does not exist.
    fn set_topic_configs(
        &self,
        name: &str,
        configs: &std::collections::BTreeMap<String, String>,
    ) -> Result<TopicRecord, StoreError>;

    /// Stores a user's credential for a mechanism, replacing any earlier one.
    fn upsert_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
        credential: &ScramCredential,
    ) -> Result<(), StoreError>;

    /// Deletes a user's credential for a mechanism; true if there was one.
    fn delete_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<bool, StoreError>;

    /// A user's credential for a mechanism, if stored.
    fn scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<Option<ScramCredential>, StoreError>;

    /// Every credential with its user and mechanism, ordered by user, then mechanism.
    fn list_scram_credentials(&self) -> Result<Vec<StoredScramCredential>, StoreError>;

    /// Every client quota value (entity, key, value).
    fn load_client_quotas(&self) -> Result<Vec<crate::quotas::QuotaEntry>, StoreError>;

    /// Sets or removes client quota keys (`None` removes), all or none, in one transaction.
    /// Removing an absent key does nothing. The caller validates entities, keys and values.
    fn alter_client_quotas(&self, changes: &[crate::quotas::QuotaOp]) -> Result<(), StoreError>;

    /// True once [`MetadataStore::bootstrap_scram_credentials`] has run on this store.
    fn scram_bootstrapped(&self) -> Result<bool, StoreError>;

    /// The secret the SCRAM stand-in credentials of unknown users are derived from: 32 random
    /// bytes created with the store (or by the first build that keeps one), the same on every
    /// node and after every restart, so an unknown user's salt never changes. `None`: the
    /// store could not keep one (opened read-only), and the caller uses a per-process secret.
    fn scram_stand_in_secret(&self) -> Result<Option<[u8; 32]>, StoreError>;

    /// The SCRAM bootstrap of the store (`kacl.scram.bootstrap.credentials`), which happens
    /// once per store, like Kafka's `kafka-storage.sh format --add-scram`: atomically stores
    /// `credentials` and records that the bootstrap happened, and returns true. Stores nothing
    /// and returns false when the bootstrap was recorded before, or when the store already
    /// holds a SCRAM credential (a store from before the record existed, bootstrapped by the
    /// old rule or by hand; the record is written then, so the answer stays the same).
    fn bootstrap_scram_credentials(
        &self,
        credentials: &[StoredScramCredential],
    ) -> Result<bool, StoreError>;

    /// Delivers every change committed from now on (this node's, and other nodes' for a
    /// shared store) to `sink`, starting from the state the `load_*` methods returned. From
    /// then on each write method returns only after its change reached `sink`: callers never
    /// apply changes to memory themselves. Embedded stores deliver inside the commit; after a
    /// storage failure they hand `sink` the whole state read back. Attach the sink before the
    /// first write memory must see: earlier commits reach no sink.
    fn start_feed(&self, sink: std::sync::Arc<dyn ChangeSink>) -> Result<(), StoreError>;

    /// The most ACL changes one [`MetadataStore::commit_acl_changes`] may carry, for writers
    /// that commit several requests together (etcd bounds a transaction's operations).
    fn max_acl_changes_per_commit(&self) -> usize {
        usize::MAX
    }

    /// Waits until the feed has delivered everything the store had committed when this was
    /// called (a linearizable read point for `kacl.describe.consistent`). Immediate for an
    /// embedded store, whose commits reach the sink inside the commit. Blocking.
    fn catch_up(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// The feed's and the client's counters, for a shared store; `None` otherwise.
    fn feed_stats(&self) -> Option<crate::feed::FeedStats> {
        None
    }

    /// The live nodes of the cluster and the controller, for a store shared by several nodes;
    /// `None` for a single-node store.
    fn cluster(&self) -> Option<std::sync::Arc<dyn ClusterMembership>> {
        None
    }

    /// The ACL snapshot beside the store and the fast read of its ACL keys, for a store that
    /// keeps one (redb); `None` otherwise.
    fn acl_snapshots(&self) -> Option<&dyn AclSnapshots> {
        None
    }
}

/// A store that keeps an ACL snapshot beside it (see [`crate::acl_snapshot`]), so that a restart
/// with millions of ACLs loads the index instead of scanning the store; and, when none is
/// current, reads its ACL keys for an index builder that decodes them without allocating.
pub trait AclSnapshots: Send + Sync {
    /// The store's ACL version now. Take it before serializing an index that holds exactly
    /// the store's ACLs (no ACL commit may run in between), and pass it to
    /// [`AclSnapshots::write_acl_snapshot`].
    fn acl_version(&self) -> Result<AclVersion, StoreError>;

    /// Writes the snapshot atomically, for the ACL version `version` (refused if the store has
    /// moved past it meanwhile).
    fn write_acl_snapshot(
        &self,
        version: AclVersion,
        acl_count: u64,
        payload: &[u8],
    ) -> Result<(), StoreError>;

    /// The snapshot, if it holds exactly the store's ACLs now; else why not.
    fn read_acl_snapshot(&self) -> Result<AclSnapshot, SnapshotRejected>;

    /// Every stored ACL's key, in key order (each pattern's ACLs together), in chunks of at
    /// most `chunk_len` keys, from one consistent read.
    fn load_acl_keys_chunked(
        &self,
        chunk_len: usize,
        sink: &mut AclKeySink<'_>,
    ) -> Result<(), StoreError>;
}

/// A live node as registered in a shared store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeInfo {
    /// `node.id`.
    pub node_id: i32,
    /// `broker.rack`.
    pub rack: Option<String>,
    /// Advertised listeners: name, host, port.
    pub listeners: Vec<(String, String, u16)>,
}

/// Which nodes are alive and which of them is the controller.
pub trait ClusterMembership: Send + Sync + std::fmt::Debug {
    /// Every live node, by node id.
    fn live_nodes(&self) -> Vec<NodeInfo>;
    /// The controller's node id, if one is elected.
    fn controller_id(&self) -> Option<i32>;
    /// Registers this node (its lease is kept alive until the store is dropped); refuses
    /// when a live node holds the same `node.id`, naming both.
    fn register(&self, node: NodeInfo) -> Result<(), StoreError>;
}
