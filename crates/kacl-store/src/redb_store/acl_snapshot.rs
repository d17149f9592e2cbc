//! The redb store's ACL snapshot file (its format in [`crate::acl_snapshot`]) and the fast read
//! of its ACL keys: the [`AclSnapshots`] capability.

use crate::acl_keys::{self, AclKeySink};
use crate::acl_snapshot::{
    self, AclSnapshot, AclVersion, SnapshotRejected, ACL_SNAPSHOT_FILE_NAME,
};
use crate::error::StoreError;
use crate::kv::{KvScan, Table};
use crate::ops;
use crate::store::AclSnapshots;

use super::RedbStore;

impl RedbStore {
    /// The store's ACL version now. Take it before serializing an index that holds exactly
    /// the store's ACLs (no ACL commit may run in between), and pass it to
    /// [`RedbStore::write_acl_snapshot`].
    pub fn acl_version(&self) -> Result<AclVersion, StoreError> {
        self.read(|t| acl_snapshot::required_version(t, self.db_path()))
    }

    /// Writes the snapshot atomically, for the ACL version `version` (refused with
    /// [`StoreError::Engine`] if the store has moved past it meanwhile).
    pub fn write_acl_snapshot(
        &self,
        version: AclVersion,
        acl_count: u64,
        payload: &[u8],
    ) -> Result<(), StoreError> {
        let (now, stored_count) = self.read(|t| {
            Ok((
                acl_snapshot::required_version(t, self.db_path())?,
                t.len(Table::Acls)?,
            ))
        })?;
        if now != version || stored_count != acl_count {
            return Err(StoreError::Engine {
                path: self.dir().join(ACL_SNAPSHOT_FILE_NAME),
                detail: "the store's ACLs changed while the snapshot was taken".to_owned(),
            });
        }
        let bytes = acl_snapshot::encode(self.cluster_id_str(), version, acl_count, payload);
        acl_snapshot::write_file(self.dir(), &bytes)
    }

    /// The snapshot, if it holds exactly the store's ACLs now (see [`crate::acl_snapshot`]); else
    /// why not.
    pub fn read_acl_snapshot(&self) -> Result<AclSnapshot, SnapshotRejected> {
        acl_snapshot::read_file(self.dir(), self.cluster_id_str(), || {
            self.read(|t| Ok((ops::acl_version(t)?, t.len(Table::Acls)?)))
        })
    }

    /// Every stored ACL's key, in key order, in chunks of at most `chunk_len` keys, from one
    /// consistent read (checksums, ids and the table's count checked as in
    /// [`MetadataStore::load_acls_chunked`](crate::MetadataStore::load_acls_chunked)).
    pub fn load_acl_keys_chunked(
        &self,
        chunk_len: usize,
        sink: &mut AclKeySink<'_>,
    ) -> Result<(), StoreError> {
        self.read(|t| acl_keys::load_acl_keys_chunked(t, chunk_len, sink))
    }
}

impl AclSnapshots for RedbStore {
    fn acl_version(&self) -> Result<AclVersion, StoreError> {
        RedbStore::acl_version(self)
    }

    fn write_acl_snapshot(
        &self,
        version: AclVersion,
        acl_count: u64,
        payload: &[u8],
    ) -> Result<(), StoreError> {
        RedbStore::write_acl_snapshot(self, version, acl_count, payload)
    }

    fn read_acl_snapshot(&self) -> Result<AclSnapshot, SnapshotRejected> {
        RedbStore::read_acl_snapshot(self)
    }

    fn load_acl_keys_chunked(
        &self,
        chunk_len: usize,
        sink: &mut AclKeySink<'_>,
    ) -> Result<(), StoreError> {
        RedbStore::load_acl_keys_chunked(self, chunk_len, sink)
    }
}
