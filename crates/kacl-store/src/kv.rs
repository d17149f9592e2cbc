//! The few key-value operations the store's logic needs, so that the logic is written
//! once (in `ops`) and runs unchanged on redb transactions and on in-memory maps.

use crate::error::StoreError;

/// The store's tables. Keys and values are byte strings in the formats of
/// [`crate::encoding`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Table {
    /// ACL key → 16-byte id.
    Acls,
    /// Topic name → topic record.
    Topics,
    /// (user, mechanism) → SCRAM credential.
    Scram,
    /// (entity, quota key) → quota value.
    Quotas,
    /// Meta key → value (format version, cluster id, next topic sequence number, whether the
    /// SCRAM bootstrap happened).
    Meta,
}

impl Table {
    /// Every table.
    pub(crate) const ALL: [Table; 5] = [
        Table::Acls,
        Table::Topics,
        Table::Scram,
        Table::Quotas,
        Table::Meta,
    ];

    /// The table's name on disk and in error messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Table::Acls => "acls",
            Table::Topics => "topics",
            Table::Scram => "scram_credentials",
            Table::Quotas => "client_quotas",
            Table::Meta => "meta",
        }
    }
}

/// An owned key and value.
pub(crate) type Entry = (Vec<u8>, Vec<u8>);

/// Called with each entry of a scan, key then value.
pub(crate) type Visitor<'a> = dyn FnMut(&[u8], &[u8]) -> Result<(), StoreError> + 'a;

/// Point reads, inside a read or a write transaction.
pub(crate) trait KvGet {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;

    /// True if the table holds no entry.
    fn is_empty(&self, table: Table) -> Result<bool, StoreError>;
}

/// Whole-table reads, inside a read transaction.
pub(crate) trait KvScan {
    /// How many entries the table holds, to size the result of a scan.
    fn len(&self, table: Table) -> Result<u64, StoreError>;

    /// Calls `visit` with every entry in key order; stops at the first error.
    fn scan(&self, table: Table, visit: &mut Visitor<'_>) -> Result<(), StoreError>;
}

/// Writes, inside a write transaction that commits all of them or none.
pub(crate) trait KvWrite: KvGet {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> Result<(), StoreError>;

    /// Removes the entry; true if it was there.
    fn remove(&mut self, table: Table, key: &[u8]) -> Result<bool, StoreError>;

    /// Every entry of the table, in key order (for the one-time format migration).
    fn entries(&self, table: Table) -> Result<Vec<Entry>, StoreError>;
}
