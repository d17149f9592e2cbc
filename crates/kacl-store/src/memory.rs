//! An in-memory [`MetadataStore`] with the redb store's exact semantics: the same logic
//! over the same encodings, on maps instead of a file. For tests and fuzzing, and for
//! exercising the server's storage-error paths with [`MemoryStore::set_fail_writes`].

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::engine::LocalEngine;
use crate::error::StoreError;
use crate::feed::LocalFeed;
use crate::ids;
use crate::kv::{KvGet, KvScan, KvWrite, Table, Visitor};
use crate::ops;

/// A store that lives as long as the value does.
#[derive(Debug)]
pub struct MemoryStore {
    tables: Mutex<Tables>,
    cluster_id: String,
    fail_writes: AtomicBool,
    feed: LocalFeed,
}

impl MemoryStore {
    /// An empty store with a fresh cluster id.
    pub fn new() -> Self {
        let mut tables = Tables::default();
        let mut staged = Staged::new(&tables);
        // Only a decode error could fail here, and the tables are empty.
        let cluster_id = ops::init_meta(&mut staged, false)
            .unwrap_or_else(|_| ids::kafka_uuid_string(&ids::random_kafka_uuid()));
        let changes = staged.changes;
        tables.apply(changes);
        MemoryStore {
            tables: Mutex::new(tables),
            cluster_id,
            fail_writes: AtomicBool::new(false),
            feed: LocalFeed::default(),
        }
    }

    /// While set, every write fails with an I/O error and changes nothing (reads go on
    /// working): for testing how callers handle a failing disk.
    pub fn set_fail_writes(&self, fail: bool) {
        self.fail_writes.store(fail, Ordering::SeqCst);
    }

    fn lock(&self) -> MutexGuard<'_, Tables> {
        // A panic while holding the lock cannot leave the maps half-changed: changes are
        // staged and applied only after the operation succeeded.
        self.tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write<R>(
        &self,
        operation: impl FnOnce(&mut Staged<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        if self.fail_writes.load(Ordering::SeqCst) {
            return Err(StoreError::Io {
                path: PathBuf::from("<memory>"),
                source: io::Error::other("injected write failure"),
            });
        }
        let mut tables = self.lock();
        let mut staged = Staged::new(&tables);
        let out = operation(&mut staged)?;
        let changes = staged.changes;
        tables.apply(changes);
        Ok(out)
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl LocalEngine for MemoryStore {
    type Read<'t> = Tables;
    type Write<'t> = Staged<'t>;

    fn engine_cluster_id(&self) -> String {
        self.cluster_id.clone()
    }

    fn read_view<R>(
        &self,
        operation: impl FnOnce(&Tables) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        operation(&self.lock())
    }

    fn write_txn<R>(
        &self,
        operation: impl FnOnce(&mut Staged<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.write(operation)
    }

    fn local_feed(&self) -> &LocalFeed {
        &self.feed
    }
}

/// The four tables as sorted maps.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    maps: BTreeMap<Table, BTreeMap<Vec<u8>, Vec<u8>>>,
}

type Changes = BTreeMap<(Table, Vec<u8>), Option<Vec<u8>>>;

impl Tables {
    fn map(&self, table: Table) -> Option<&BTreeMap<Vec<u8>, Vec<u8>>> {
        self.maps.get(&table)
    }

    fn apply(&mut self, changes: Changes) {
        for ((table, key), value) in changes {
            let map = self.maps.entry(table).or_default();
            match value {
                Some(value) => map.insert(key, value),
                None => map.remove(&key),
            };
        }
    }
}

impl KvGet for Tables {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.map(table).and_then(|map| map.get(key)).cloned())
    }

    fn is_empty(&self, table: Table) -> Result<bool, StoreError> {
        Ok(self.map(table).is_none_or(BTreeMap::is_empty))
    }
}

impl KvScan for Tables {
    fn len(&self, table: Table) -> Result<u64, StoreError> {
        Ok(self.map(table).map_or(0, |map| map.len() as u64))
    }

    fn scan(&self, table: Table, visit: &mut Visitor<'_>) -> Result<(), StoreError> {
        for (key, value) in self.map(table).into_iter().flatten() {
            visit(key, value)?;
        }
        Ok(())
    }
}

/// A write transaction: changes are collected here and applied to the tables only when
/// the whole operation has succeeded.
pub(crate) struct Staged<'a> {
    base: &'a Tables,
    changes: Changes,
}

impl<'a> Staged<'a> {
    fn new(base: &'a Tables) -> Self {
        Staged {
            base,
            changes: Changes::new(),
        }
    }
}

impl KvGet for Staged<'_> {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        match self.changes.get(&(table, key.to_vec())) {
            Some(staged) => Ok(staged.clone()),
            None => self.base.get(table, key),
        }
    }

    fn is_empty(&self, table: Table) -> Result<bool, StoreError> {
        let staged = |key: &Vec<u8>| self.changes.get(&(table, key.clone()));
        let base_left = self
            .base
            .map(table)
            .is_some_and(|map| map.keys().any(|key| !matches!(staged(key), Some(None))));
        let added = self
            .changes
            .iter()
            .any(|((t, _), value)| *t == table && value.is_some());
        Ok(!base_left && !added)
    }
}

impl KvWrite for Staged<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.changes
            .insert((table, key.to_vec()), Some(value.to_vec()));
        Ok(())
    }

    fn remove(&mut self, table: Table, key: &[u8]) -> Result<bool, StoreError> {
        let existed = self.get(table, key)?.is_some();
        self.changes.insert((table, key.to_vec()), None);
        Ok(existed)
    }

    fn entries(&self, table: Table) -> Result<Vec<crate::kv::Entry>, StoreError> {
        let mut merged: std::collections::BTreeMap<Vec<u8>, Vec<u8>> =
            self.base.map(table).cloned().unwrap_or_default();
        for ((t, key), value) in &self.changes {
            if *t == table {
                match value {
                    Some(value) => merged.insert(key.clone(), value.clone()),
                    None => merged.remove(key),
                };
            }
        }
        Ok(merged.into_iter().collect())
    }
}
