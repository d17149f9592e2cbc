//! Durable metadata store for kacl: ACLs, topics, SCRAM credentials, client quotas and the
//! cluster id.
//!
//! The server programs against the [`MetadataStore`] trait. [`RedbStore`] is the
//! default, an embedded [redb] database in the data directory; [`MemoryStore`] runs the
//! same logic over the same encodings in memory, for tests and fuzzing; the etcd backend
//! (kacl-store-etcd) implements the same trait. Every backend hands its committed changes to
//! one [`ChangeSink`], and calls the same [`rules`].
//!
//! # Layout
//!
//! A data directory holds `LOCK` (an exclusive OS file lock, held while a store is
//! open, so two servers cannot share the directory) and `kacl.redb` with four tables:
//! `acls` (the binding's canonical 7-tuple → its 16-byte UUID), `topics` (name →
//! record), `scram_credentials` ((user, mechanism) → salted credential, never a
//! password), `client_quotas` ((entity, key) → value, see [`quotas`]; created on the first
//! open by a build that has it, so older stores need no migration) and `meta` (format version, cluster id, next topic sequence number). The
//! record formats are documented in [`encoding`]; since format version 2 every value ends
//! with a CRC32C over its key and value ([`checksum`]), checked whenever it is read, and a
//! scan checks its count against the table's. Beside them, `meta.properties` (Kafka's file
//! and keys) names the cluster, node and format the directory holds: a directory whose
//! database is missing, empty or another cluster's is refused, not started as a new cluster.
//! A version 1 store is migrated in one transaction when first opened.
//!
//! # Durability
//!
//! * Every method that changes something is one redb write transaction, committed with
//!   `Durability::Immediate` and redb's quick-repair mode, a two-phase commit: the
//!   changed pages (and redb's allocator state) are written and fsynced (`fdatasync`),
//!   then the header that makes them current is written and fsynced, all before the
//!   method returns `Ok`. An acknowledged change survives a process kill (SIGKILL) and a
//!   power loss on a disk that honours fsync.
//! * A crash at any moment leaves the previous commit or the new one, never part of a
//!   batch. Because every commit records the allocator state, reopening after a crash
//!   needs no repair walk: it takes about a millisecond whatever the store's size.
//! * Creating the database file also fsyncs its directory (and the directory's parent
//!   when the data directory is new), so a new store's file survives a power loss.
//! * An error returned before the commit point (a full disk, a read-only file system, a
//!   refused record) leaves the store exactly as it was. The one ambiguous case is an
//!   error from the second fsync itself: the new header may or may not have reached the
//!   disk, so the change may or may not survive. After any I/O error redb refuses further
//!   work on that handle, so the store reopens the file on the next call and later reads
//!   report what is really on disk; a caller that must know (the server after a failed
//!   ACL commit) can reload.
//! * If the file cannot be reopened for writing (a full disk refuses even the reopen's
//!   bookkeeping), it is opened through a view that keeps redb's writes in memory and
//!   never touches the file: reads keep working, and each write retries the writable
//!   open and fails with [`StoreError::StorageFull`] until space is freed.
//! * Reads see one consistent view and never wait for writers. Nothing outside
//!   `kacl.redb` is fsynced: the pid written into `LOCK` is for humans only.
//!
//! # Memory
//!
//! redb caches database pages in memory, up to [`StoreOptions::cache_bytes`] (default
//! [`DEFAULT_CACHE_BYTES`], 32 MiB, where redb's own default is 1 GiB). The server reads ACLs
//! from its in-memory index, so the cache serves writes only; a large one would just keep the
//! pages of the start-up scan.
#![forbid(unsafe_code)]

mod acl_keys;
pub mod acl_snapshot;
pub mod checksum;
mod codec;
pub mod encoding;
mod engine;
mod error;
mod feed;
mod fs_sync;
mod identity;
mod ids;
mod kv;
mod memory;
mod ops;
pub mod quotas;
mod records;
mod redb_store;
pub mod rules;
mod store;
mod verify;

pub use acl_keys::{AclKeyChunk, AclKeySink};
pub use codec::RecordDecodeError;
pub use error::StoreError;
pub use feed::{Change, ChangeSink, FeedStats, StoreContents};
pub use identity::{claim_node_dir, Identity, IDENTITY_FILE_NAME};
pub use ids::{kafka_uuid_string, parse_kafka_uuid, random_kafka_uuid, random_secret};
pub use memory::MemoryStore;
pub use ops::FORMAT_VERSION;
pub use quotas::{QuotaEntity, QuotaEntry, QuotaName, QuotaOp, QuotaValue};
pub use records::{AclChunkSink, AclCommit, PartitionRecord, StoredScramCredential, TopicRecord};
pub use redb_store::{RedbStore, StoreOptions, DB_FILE_NAME, DEFAULT_CACHE_BYTES};
pub use store::{AclSnapshots, ClusterMembership, MetadataStore, NodeInfo};
pub use verify::{verify, VerifyReport};

/// The exit code of `kacl serve` when it refuses its data directory (a store that is missing,
/// damaged, or of another cluster or node; see [`StoreError::refuses_data_dir`]), so that a
/// supervisor can tell it from other start failures (1) and not restart it in a loop.
pub const EXIT_DATA_DIR_REFUSED: u8 = 3;
