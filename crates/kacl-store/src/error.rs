//! Everything a store operation can fail with, and how storage-engine errors map onto
//! it, so that the server can answer KAFKA_STORAGE_ERROR (56) with a useful message or a
//! precise per-entry error.

use std::io;
use std::path::{Path, PathBuf};

use crate::codec::RecordDecodeError;

/// A failed store operation. After any error the store holds what it held before the
/// call (see the crate documentation for the one exception, a failed fsync).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Another store (in this or another process) holds the data directory's lock.
    #[error("data directory lock {} is held by another kacl store; is another server running on this directory?", path.display())]
    Locked {
        /// The lock file, `<dir>/LOCK`.
        path: PathBuf,
    },
    /// An operating-system error other than a full or read-only disk.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The disk (or the user's quota) is full; nothing was written.
    #[error("storage is full writing {}: {source}", path.display())]
    StorageFull {
        /// The file being written.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The file system refuses writes.
    #[error("storage is read-only at {}: {source}", path.display())]
    ReadOnly {
        /// The file being written.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// A stored record failed to decode.
    #[error("corrupt record in table `{table}` at key {key}: {reason}")]
    Corrupt {
        /// The table holding the record.
        table: &'static str,
        /// The record's key, as text when printable, else as hex.
        key: String,
        /// What was wrong with it.
        reason: RecordDecodeError,
    },
    /// The database file itself is damaged beyond what its own recovery repairs.
    #[error("database file {} is damaged: {detail}", path.display())]
    CorruptDatabase {
        /// The database file.
        path: PathBuf,
        /// The storage engine's description.
        detail: String,
    },
    /// The directory's identity (`meta.properties`) says a store was created here, but the
    /// database is missing, empty or holds no cluster id: it was lost or replaced. Starting
    /// would create a new, empty cluster, so the directory is refused.
    #[error(
        "the data directory {} was initialized for cluster {cluster_id} (see meta.properties), \
         but {detail}; refusing to start with an empty store. Restore the directory from a \
         backup (docs/operations.md, \"Damaged disks and recovery\")", path.display()
    )]
    StoreMissing {
        /// The data directory.
        path: PathBuf,
        /// The cluster the identity names.
        cluster_id: String,
        /// What is wrong with the database.
        detail: &'static str,
    },
    /// `meta.properties` cannot be read or parsed.
    #[error("the identity file {} is damaged: {detail}", path.display())]
    Identity {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// `meta.properties` disagrees with the database or the configuration (another cluster's
    /// database, another node's directory).
    #[error("refusing the data directory: {} does not match: {detail}", path.display())]
    IdentityMismatch {
        /// The identity file.
        path: PathBuf,
        /// What disagrees.
        detail: String,
    },
    /// A table yielded a different number of records than it says it holds: its B-tree is
    /// damaged, and a load would be short (or long).
    #[error("table `{table}` is damaged: it holds {expected} records but {found} could be read")]
    CountMismatch {
        /// The table.
        table: &'static str,
        /// The count the table records.
        expected: u64,
        /// The records the scan produced.
        found: u64,
    },
    /// The data directory was written by a newer (or unknown) kacl.
    #[error(
        "store format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedFormat {
        /// The version found in the store.
        found: u32,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// `create_topics` named a topic that exists (or named one twice).
    #[error("topic '{name}' already exists")]
    TopicAlreadyExists {
        /// The topic.
        name: String,
    },
    /// `create_topics` named a topic that differs from an existing one only by `.` against
    /// `_` (Kafka's collision rule), found by a shared store when another node created the
    /// other name concurrently.
    #[error("topic '{name}' collides with existing topic: {existing}")]
    TopicCollision {
        /// The topic being created.
        name: String,
        /// The existing topic.
        existing: String,
    },
    /// A shared store (etcd) did not answer within its request timeout, or refused the
    /// request as too large: nothing was changed (or, after a timeout, the change may still
    /// be applied later and will then appear through the change feed). Retriable.
    #[error("{detail}")]
    Unavailable {
        /// What happened, naming the store.
        detail: String,
    },
    /// A shared store refuses this node or this request outright (a duplicate `node.id`, an
    /// etcd not configured as kacl needs, a request larger than etcd accepts).
    #[error("{detail}")]
    Refused {
        /// Why, naming what to change.
        detail: String,
    },
    /// `add_partitions` named a topic that does not exist.
    #[error("topic '{name}' does not exist")]
    UnknownTopic {
        /// The topic.
        name: String,
    },
    /// Partitions not numbered consecutively from the topic's current count.
    #[error("invalid partitions for topic '{topic}': {reason}")]
    InvalidPartitions {
        /// The topic.
        topic: String,
        /// What was wrong.
        reason: String,
    },
    /// A binding that cannot be an ACL (a filter value such as ANY or MATCH, or UNKNOWN).
    #[error("refusing to store ACL {binding}: {reason}")]
    InvalidAcl {
        /// The binding, in Kafka's text form.
        binding: String,
        /// Which field is not concrete.
        reason: &'static str,
    },
    /// Any other failure of the storage engine.
    #[error("storage engine error on {}: {detail}", path.display())]
    Engine {
        /// The database file.
        path: PathBuf,
        /// The storage engine's description.
        detail: String,
    },
}

impl StoreError {
    /// True when the storage itself failed (the server answers KAFKA_STORAGE_ERROR);
    /// false when the request asked for something the store refuses (a topic that
    /// exists, an invalid ACL), which has its own Kafka error code.
    pub fn is_storage_failure(&self) -> bool {
        !matches!(
            self,
            StoreError::TopicAlreadyExists { .. }
                | StoreError::TopicCollision { .. }
                | StoreError::Refused { .. }
                | StoreError::UnknownTopic { .. }
                | StoreError::InvalidPartitions { .. }
                | StoreError::InvalidAcl { .. }
        )
    }

    /// True when the data directory must not be served (refused at start with its own exit
    /// code): damaged or missing data, or a directory of another cluster, node or format.
    pub fn refuses_data_dir(&self) -> bool {
        matches!(
            self,
            StoreError::StoreMissing { .. }
                | StoreError::Identity { .. }
                | StoreError::IdentityMismatch { .. }
                | StoreError::CountMismatch { .. }
                | StoreError::Corrupt { .. }
                | StoreError::CorruptDatabase { .. }
                | StoreError::UnsupportedFormat { .. }
        )
    }

    /// A [`StoreError::StoreMissing`] from the store's logic, with its directory and the
    /// cluster its identity names.
    pub(crate) fn in_dir(self, dir: &Path, identity_cluster: &str) -> StoreError {
        match self {
            StoreError::StoreMissing { detail, .. } => StoreError::StoreMissing {
                path: dir.to_path_buf(),
                cluster_id: identity_cluster.to_owned(),
                detail,
            },
            other => other,
        }
    }

    /// An I/O error on `path`, classified as full, read-only or other.
    pub(crate) fn from_io(path: &Path, source: io::Error) -> StoreError {
        let path = path.to_path_buf();
        match source.kind() {
            io::ErrorKind::StorageFull
            | io::ErrorKind::QuotaExceeded
            | io::ErrorKind::FileTooLarge => StoreError::StorageFull { path, source },
            io::ErrorKind::ReadOnlyFilesystem => StoreError::ReadOnly { path, source },
            _ => StoreError::Io { path, source },
        }
    }

    /// A redb error on the database file at `path`.
    pub(crate) fn from_redb(path: &Path, error: impl Into<redb::Error>) -> StoreError {
        match error.into() {
            redb::Error::Io(source) => StoreError::from_io(path, source),
            redb::Error::Corrupted(detail) => StoreError::CorruptDatabase {
                path: path.to_path_buf(),
                detail,
            },
            redb::Error::DatabaseAlreadyOpen => StoreError::Locked {
                path: path.to_path_buf(),
            },
            redb::Error::PreviousIo => StoreError::Engine {
                path: path.to_path_buf(),
                detail: "an earlier I/O error stopped the database; it is reopened on the next \
                         operation"
                    .to_string(),
            },
            other => StoreError::Engine {
                path: path.to_path_buf(),
                detail: other.to_string(),
            },
        }
    }
}

/// A key as quoted text when it is printable UTF-8, else as (at most 64 bytes of) hex.
pub(crate) fn printable_key(key: &[u8]) -> String {
    match std::str::from_utf8(key) {
        Ok(text) if !text.chars().any(char::is_control) => format!("{text:?}"),
        _ => {
            let shown: String = key.iter().take(64).map(|b| format!("{b:02x}")).collect();
            if key.len() > 64 {
                format!("0x{shown}... ({} bytes)", key.len())
            } else {
                format!("0x{shown}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_are_classified_by_kind() {
        let path = Path::new("/data/kacl.redb");
        let full = StoreError::from_io(path, io::Error::from(io::ErrorKind::StorageFull));
        assert!(matches!(full, StoreError::StorageFull { .. }));
        assert!(full.to_string().contains("/data/kacl.redb"));
        let ro = StoreError::from_io(path, io::Error::from(io::ErrorKind::ReadOnlyFilesystem));
        assert!(matches!(ro, StoreError::ReadOnly { .. }));
        let other = StoreError::from_io(path, io::Error::from(io::ErrorKind::Other));
        assert!(matches!(other, StoreError::Io { .. }));
        assert!(other.is_storage_failure());
    }

    #[test]
    fn corrupt_records_name_table_and_key() {
        let text =
            StoreError::corrupt("topics", b"orders", RecordDecodeError::Truncated).to_string();
        assert!(
            text.contains("`topics`") && text.contains("\"orders\""),
            "{text}"
        );
        let hex = StoreError::corrupt("acls", &[2, 3, 0], RecordDecodeError::Truncated).to_string();
        assert!(hex.contains("0x020300"), "{hex}");
    }

    #[test]
    fn request_errors_are_not_storage_failures() {
        let e = StoreError::TopicAlreadyExists { name: "t".into() };
        assert!(!e.is_storage_failure());
        assert_eq!(e.to_string(), "topic 't' already exists");
    }
}
