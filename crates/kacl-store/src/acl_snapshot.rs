//! A snapshot of the ACL index beside the store, `<dir>/acls.snapshot`, so that a restart with
//! millions of ACLs loads the index directly instead of scanning, decoding and re-indexing
//! every stored record (2.4 s at 2M ACLs; see the restart rows of BENCHMARKS.md).
//!
//! The store stays the truth; the snapshot is only ever a cache of it, used when it provably
//! holds what the store holds, else ignored (the start falls back to the store):
//! * it names the store's cluster id (a file copied from another cluster is refused);
//! * it names the store's ACL version, 16 random bytes that every ACL commit changing
//!   something replaces in the same transaction: a snapshot older than any ACL change is
//!   stale, whatever the clocks say or however the files were copied;
//! * its ACL count equals the store's `acls` table's;
//! * a CRC32C covers its header and another its payload, and the file must have exactly the
//!   length its header gives: damaged or truncated files are refused.
//!
//! The payload is opaque here (the caller's index layout, `kacl_acl::AclIndex::to_bytes`),
//! and the caller checks it again as it decodes. Writing is atomic: a temporary file, fsynced,
//! renamed over the old one, and the directory fsynced.
//!
//! Header, little-endian: `KACLSNAP`, format (u32, 1), cluster id length (u8) and bytes, ACL
//! version (16 bytes), ACL count (u64), payload length (u64), payload CRC32C (u32), header
//! CRC32C over everything before it (u32); then the payload.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::fs_sync::sync_dir;
use crate::ops;

/// The snapshot's file name inside the data directory.
pub const ACL_SNAPSHOT_FILE_NAME: &str = "acls.snapshot";
const TEMP_FILE_NAME: &str = "acls.snapshot.tmp";
const MAGIC: &[u8; 8] = b"KACLSNAP";
const FORMAT: u32 = 1;

/// The store's ACL version: changes with every ACL commit that changes something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AclVersion([u8; 16]);

/// A snapshot that matches the store.
#[derive(Debug)]
pub struct AclSnapshot {
    /// How many ACLs it holds (the store's count).
    pub acl_count: u64,
    /// The store's ACL version it was written at (the store's version now).
    pub version: AclVersion,
    /// The caller's bytes, as written.
    pub payload: Vec<u8>,
}

/// Why the snapshot was not used (the start then reads the store).
#[derive(Debug, thiserror::Error)]
pub enum SnapshotRejected {
    /// There is none (first start, or the last stop was not clean).
    #[error("there is no ACL snapshot")]
    Missing,
    /// It could not be read.
    #[error("the ACL snapshot {path} could not be read: {error}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Not a snapshot, or one of a format this build does not know.
    #[error("{0} is not an ACL snapshot this build reads")]
    Unsupported(PathBuf),
    /// Shorter than its header says.
    #[error("the ACL snapshot {0} is truncated")]
    Truncated(PathBuf),
    /// A checksum does not match, or the length is wrong.
    #[error("the ACL snapshot {0} is damaged ({1})")]
    Damaged(PathBuf, &'static str),
    /// Written for another cluster's store.
    #[error("the ACL snapshot {path} is of cluster {found}, not this store's")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// The cluster id it names.
        found: String,
    },
    /// The store's ACLs changed since it was written.
    #[error("the ACL snapshot {0} is stale (the store's ACLs changed since it was written)")]
    Stale(PathBuf),
    /// The store could not be read to check it.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The snapshot file's bytes: the header (see the module documentation), then `payload`.
pub(crate) fn encode(
    cluster_id: &str,
    version: AclVersion,
    acl_count: u64,
    payload: &[u8],
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(payload.len() + 128);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    let cluster_id = cluster_id.as_bytes();
    bytes.push(u8::try_from(cluster_id.len()).unwrap_or(u8::MAX));
    bytes.extend_from_slice(cluster_id.get(..255).unwrap_or(cluster_id));
    bytes.extend_from_slice(&version.0);
    bytes.extend_from_slice(&acl_count.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32c::crc32c(payload).to_le_bytes());
    let header_crc = crc32c::crc32c(&bytes);
    bytes.extend_from_slice(&header_crc.to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// Writes `bytes` as the snapshot in `dir`, atomically: a temporary file, fsynced, renamed
/// over the old one, and the directory fsynced.
pub(crate) fn write_file(dir: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let temp = dir.join(TEMP_FILE_NAME);
    let path = dir.join(ACL_SNAPSHOT_FILE_NAME);
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| StoreError::from_io(&p, e)
    };
    let mut file = fs::File::create(&temp).map_err(io(&temp))?;
    file.write_all(bytes).map_err(io(&temp))?;
    file.sync_all().map_err(io(&temp))?;
    drop(file);
    fs::rename(&temp, &path).map_err(io(&path))?;
    sync_dir(dir)
}

/// The snapshot in `dir` of cluster `cluster_id`, if it holds exactly what `current` (the
/// store's ACL version and count, read after the file) says the store holds; else why not.
pub(crate) fn read_file(
    dir: &Path,
    cluster_id: &str,
    current: impl FnOnce() -> Result<(Option<[u8; 16]>, u64), StoreError>,
) -> Result<AclSnapshot, SnapshotRejected> {
    let path = dir.join(ACL_SNAPSHOT_FILE_NAME);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SnapshotRejected::Missing)
        }
        Err(error) => return Err(SnapshotRejected::Unreadable { path, error }),
    };
    let header = Header::parse(&bytes, &path)?;
    if header.cluster_id != cluster_id.as_bytes() {
        return Err(SnapshotRejected::Foreign {
            found: String::from_utf8_lossy(header.cluster_id).into_owned(),
            path,
        });
    }
    let (version, stored_count) = current()?;
    if version != Some(header.version) || stored_count != header.acl_count {
        return Err(SnapshotRejected::Stale(path));
    }
    let payload = header.payload(&bytes, &path)?;
    Ok(AclSnapshot {
        acl_count: header.acl_count,
        version: AclVersion(header.version),
        payload: payload.to_vec(),
    })
}

/// The store's ACL version, which a store opened by this build always keeps.
pub(crate) fn required_version(
    t: &impl crate::kv::KvGet,
    db_path: &Path,
) -> Result<AclVersion, StoreError> {
    ops::acl_version(t)?
        .map(AclVersion)
        .ok_or_else(|| StoreError::Engine {
            path: db_path.to_path_buf(),
            detail: "the store keeps no ACL version".to_owned(),
        })
}

/// The fixed part of the file, checked.
struct Header<'a> {
    cluster_id: &'a [u8],
    version: [u8; 16],
    acl_count: u64,
    payload_len: u64,
    payload_crc: u32,
    len: usize,
}

impl<'a> Header<'a> {
    fn parse(bytes: &'a [u8], path: &Path) -> Result<Header<'a>, SnapshotRejected> {
        let truncated = || SnapshotRejected::Truncated(path.to_path_buf());
        let mut rest = bytes;
        let mut take = |n: usize| -> Result<&'a [u8], SnapshotRejected> {
            if n > rest.len() {
                return Err(truncated());
            }
            let (part, after) = rest.split_at(n);
            rest = after;
            Ok(part)
        };
        if take(MAGIC.len())? != MAGIC {
            return Err(SnapshotRejected::Unsupported(path.to_path_buf()));
        }
        if u32::from_le_bytes(array(take(4)?)) != FORMAT {
            return Err(SnapshotRejected::Unsupported(path.to_path_buf()));
        }
        let id_len = take(1)?.first().copied().unwrap_or(0) as usize;
        let cluster_id = take(id_len)?;
        let version = array(take(16)?);
        let acl_count = u64::from_le_bytes(array(take(8)?));
        let payload_len = u64::from_le_bytes(array(take(8)?));
        let payload_crc = u32::from_le_bytes(array(take(4)?));
        let header_crc = u32::from_le_bytes(array(take(4)?));
        let len = bytes.len() - rest.len();
        let covered = len - 4;
        if crc32c::crc32c(bytes.get(..covered).unwrap_or_default()) != header_crc {
            return Err(SnapshotRejected::Damaged(
                path.to_path_buf(),
                "header checksum",
            ));
        }
        Ok(Header {
            cluster_id,
            version,
            acl_count,
            payload_len,
            payload_crc,
            len,
        })
    }

    fn payload(&self, bytes: &'a [u8], path: &Path) -> Result<&'a [u8], SnapshotRejected> {
        let payload = bytes.get(self.len..).unwrap_or_default();
        match (payload.len() as u64).cmp(&self.payload_len) {
            std::cmp::Ordering::Less => {
                return Err(SnapshotRejected::Truncated(path.to_path_buf()))
            }
            std::cmp::Ordering::Greater => {
                return Err(SnapshotRejected::Damaged(
                    path.to_path_buf(),
                    "bytes after the payload",
                ))
            }
            std::cmp::Ordering::Equal => {}
        }
        if crc32c::crc32c(payload) != self.payload_crc {
            return Err(SnapshotRejected::Damaged(
                path.to_path_buf(),
                "payload checksum",
            ));
        }
        Ok(payload)
    }
}

fn array<const N: usize>(part: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    if part.len() == N {
        out.copy_from_slice(part);
    }
    out
}
