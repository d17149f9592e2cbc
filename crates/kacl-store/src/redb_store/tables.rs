//! The store's five redb tables, opened together inside one read or write transaction,
//! and the key-value traits of `kv` on top of them.

use std::path::Path;

use redb::{
    ReadOnlyTable, ReadTransaction, ReadableTable, ReadableTableMetadata, TableDefinition,
    WriteTransaction,
};

use crate::error::StoreError;
use crate::kv::{Entry, KvGet, KvScan, KvWrite, Table, Visitor};

type Bytes = &'static [u8];

const ACLS: TableDefinition<Bytes, Bytes> = TableDefinition::new("acls");
const TOPICS: TableDefinition<Bytes, Bytes> = TableDefinition::new("topics");
const SCRAM: TableDefinition<Bytes, Bytes> = TableDefinition::new("scram_credentials");
const QUOTAS: TableDefinition<Bytes, Bytes> = TableDefinition::new("client_quotas");
const META: TableDefinition<Bytes, Bytes> = TableDefinition::new("meta");

fn definition(table: Table) -> TableDefinition<'static, Bytes, Bytes> {
    match table {
        Table::Acls => ACLS,
        Table::Topics => TOPICS,
        Table::Scram => SCRAM,
        Table::Quotas => QUOTAS,
        Table::Meta => META,
    }
}

/// The tables as a read transaction sees them: one consistent snapshot.
pub(crate) struct ReadTables<'p> {
    path: &'p Path,
    acls: ReadOnlyTable<Bytes, Bytes>,
    topics: ReadOnlyTable<Bytes, Bytes>,
    scram: ReadOnlyTable<Bytes, Bytes>,
    /// `None` in a store no build with client quotas has written to yet (read only: the
    /// disk was full, or `kacl store verify`): the same as an empty table.
    quotas: Option<ReadOnlyTable<Bytes, Bytes>>,
    meta: ReadOnlyTable<Bytes, Bytes>,
}

impl<'p> ReadTables<'p> {
    pub(crate) fn open(txn: &ReadTransaction, path: &'p Path) -> Result<Self, StoreError> {
        let open = |table| {
            txn.open_table(definition(table))
                .map_err(|e| StoreError::from_redb(path, e))
        };
        Ok(ReadTables {
            path,
            acls: open(Table::Acls)?,
            topics: open(Table::Topics)?,
            scram: open(Table::Scram)?,
            quotas: match txn.open_table(definition(Table::Quotas)) {
                Ok(table) => Some(table),
                Err(redb::TableError::TableDoesNotExist(_)) => None,
                Err(e) => return Err(StoreError::from_redb(path, e)),
            },
            meta: open(Table::Meta)?,
        })
    }

    /// The table, or `None` for a table this store does not have yet (empty).
    fn table(&self, table: Table) -> Option<&ReadOnlyTable<Bytes, Bytes>> {
        Some(match table {
            Table::Acls => &self.acls,
            Table::Topics => &self.topics,
            Table::Scram => &self.scram,
            Table::Quotas => return self.quotas.as_ref(),
            Table::Meta => &self.meta,
        })
    }
}

impl KvGet for ReadTables<'_> {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(t) = self.table(table) else {
            return Ok(None);
        };
        let found = t
            .get(key)
            .map_err(|e| StoreError::from_redb(self.path, e))?;
        Ok(found.map(|guard| guard.value().to_vec()))
    }

    fn is_empty(&self, table: Table) -> Result<bool, StoreError> {
        self.table(table).map_or(Ok(true), |t| {
            t.is_empty()
                .map_err(|e| StoreError::from_redb(self.path, e))
        })
    }
}

impl KvScan for ReadTables<'_> {
    fn len(&self, table: Table) -> Result<u64, StoreError> {
        self.table(table).map_or(Ok(0), |t| {
            t.len().map_err(|e| StoreError::from_redb(self.path, e))
        })
    }

    fn scan(&self, table: Table, visit: &mut Visitor<'_>) -> Result<(), StoreError> {
        let Some(t) = self.table(table) else {
            return Ok(());
        };
        let entries = t.iter().map_err(|e| StoreError::from_redb(self.path, e))?;
        for entry in entries {
            let (key, value) = entry.map_err(|e| StoreError::from_redb(self.path, e))?;
            visit(key.value(), value.value())?;
        }
        Ok(())
    }
}

/// The tables inside a write transaction; nothing is visible to readers, or durable,
/// until the transaction commits.
pub(crate) struct WriteTables<'txn> {
    path: &'txn Path,
    acls: redb::Table<'txn, Bytes, Bytes>,
    topics: redb::Table<'txn, Bytes, Bytes>,
    scram: redb::Table<'txn, Bytes, Bytes>,
    quotas: redb::Table<'txn, Bytes, Bytes>,
    meta: redb::Table<'txn, Bytes, Bytes>,
}

impl<'txn> WriteTables<'txn> {
    /// Opens (creating on first use) every table.
    pub(super) fn open(txn: &'txn WriteTransaction, path: &'txn Path) -> Result<Self, StoreError> {
        let open = |table| {
            txn.open_table(definition(table))
                .map_err(|e| StoreError::from_redb(path, e))
        };
        Ok(WriteTables {
            path,
            acls: open(Table::Acls)?,
            topics: open(Table::Topics)?,
            scram: open(Table::Scram)?,
            quotas: open(Table::Quotas)?,
            meta: open(Table::Meta)?,
        })
    }

    fn table(&self, table: Table) -> &redb::Table<'txn, Bytes, Bytes> {
        match table {
            Table::Acls => &self.acls,
            Table::Topics => &self.topics,
            Table::Scram => &self.scram,
            Table::Quotas => &self.quotas,
            Table::Meta => &self.meta,
        }
    }

    fn table_mut(&mut self, table: Table) -> &mut redb::Table<'txn, Bytes, Bytes> {
        match table {
            Table::Acls => &mut self.acls,
            Table::Topics => &mut self.topics,
            Table::Scram => &mut self.scram,
            Table::Quotas => &mut self.quotas,
            Table::Meta => &mut self.meta,
        }
    }
}

impl KvGet for WriteTables<'_> {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let found = self
            .table(table)
            .get(key)
            .map_err(|e| StoreError::from_redb(self.path, e))?;
        Ok(found.map(|guard| guard.value().to_vec()))
    }

    fn is_empty(&self, table: Table) -> Result<bool, StoreError> {
        self.table(table)
            .is_empty()
            .map_err(|e| StoreError::from_redb(self.path, e))
    }
}

impl KvWrite for WriteTables<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        let path = self.path;
        self.table_mut(table)
            .insert(key, value)
            .map_err(|e| StoreError::from_redb(path, e))?;
        Ok(())
    }

    fn remove(&mut self, table: Table, key: &[u8]) -> Result<bool, StoreError> {
        let path = self.path;
        let removed = self
            .table_mut(table)
            .remove(key)
            .map_err(|e| StoreError::from_redb(path, e))?;
        Ok(removed.is_some())
    }

    fn entries(&self, table: Table) -> Result<Vec<Entry>, StoreError> {
        let entries = self
            .table(table)
            .iter()
            .map_err(|e| StoreError::from_redb(self.path, e))?;
        entries
            .map(|entry| {
                let (key, value) = entry.map_err(|e| StoreError::from_redb(self.path, e))?;
                Ok((key.value().to_vec(), value.value().to_vec()))
            })
            .collect()
    }
}
