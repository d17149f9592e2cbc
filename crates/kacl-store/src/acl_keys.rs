//! The restart path's read of the `acls` table: each record's key (its checksum and id
//! checked, as every load does) copied into a chunk of raw keys, for another thread to decode
//! without allocating ([`crate::encoding::decode_acl_key_ref`]) straight into an index. One
//! allocation per chunk instead of three owned strings per ACL.

use kacl_acl::AclRef;

use crate::encoding::{decode_acl_id, decode_acl_key_ref};
use crate::error::StoreError;
use crate::kv::{KvScan, Table};

/// Stored ACL keys, as read, in key order (each pattern's ACLs together).
#[derive(Debug, Default)]
pub struct AclKeyChunk {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl AclKeyChunk {
    /// How many keys the chunk holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each key decoded, borrowed from the chunk; a key that does not decode is a corruption
    /// error naming the table and the key.
    pub fn acls(&self) -> impl Iterator<Item = Result<AclRef<'_>, StoreError>> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let key = self.bytes.get(start..end).unwrap_or_default();
            start = end;
            decode_acl_key_ref(key).map_err(|e| StoreError::corrupt(Table::Acls.name(), key, e))
        })
    }
}

/// Receives one chunk; an error stops the load and is returned by it.
pub type AclKeySink<'a> = dyn FnMut(AclKeyChunk) -> Result<(), StoreError> + 'a;

/// Every stored ACL's key, in key order, in chunks of at most `chunk_len` keys (checksums, ids
/// and the table's count checked as in
/// [`MetadataStore::load_acls_chunked`](crate::MetadataStore::load_acls_chunked)).
pub(crate) fn load_acl_keys_chunked(
    t: &impl KvScan,
    chunk_len: usize,
    sink: &mut AclKeySink<'_>,
) -> Result<(), StoreError> {
    let chunk_len = chunk_len.max(1);
    let mut chunk = AclKeyChunk::default();
    crate::ops::scan(t, Table::Acls, &mut |key, value| {
        decode_acl_id(value).map_err(|e| StoreError::corrupt(Table::Acls.name(), key, e))?;
        chunk.bytes.extend_from_slice(key);
        chunk.ends.push(chunk.bytes.len());
        if chunk.ends.len() >= chunk_len {
            let full = std::mem::replace(
                &mut chunk,
                AclKeyChunk {
                    bytes: Vec::with_capacity(chunk_len * 48),
                    ends: Vec::with_capacity(chunk_len),
                },
            );
            sink(full)?;
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        sink(chunk)?;
    }
    Ok(())
}
