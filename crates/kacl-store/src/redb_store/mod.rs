//! The default, embedded [`MetadataStore`]: one redb file, `<dir>/kacl.redb`, in a
//! data directory locked by `<dir>/LOCK`.

mod acl_snapshot;
#[cfg(test)]
mod cache_tests;
#[cfg(test)]
mod fault_tests;
mod handle;
mod lock;
mod quiet;
mod scratch;
mod tables;

use std::fs;
use std::path::{Path, PathBuf};

use redb::{Builder, Durability};

use crate::engine::LocalEngine;
use crate::error::StoreError;
use crate::feed::LocalFeed;
use crate::fs_sync::sync_dir;
use crate::identity::{self, Identity};
use crate::ops;
use crate::store::AclSnapshots;

use handle::{DbHandle, Opener};
use lock::DirLock;
pub(crate) use tables::ReadTables;
use tables::WriteTables;

/// The database file's name inside the data directory.
pub const DB_FILE_NAME: &str = "kacl.redb";

/// redb's page cache when none is configured: 32 MiB.
///
/// Much less than redb's own default of 1 GiB on purpose. kacl reads ACLs from its in-memory
/// index, never from the store, so the cache only serves writes (the B-tree's branch pages
/// and the leaves a commit touches), topics and SCRAM credentials. A large cache would
/// instead keep every page of the start-up scan: at 2M ACLs the file is ~270 MiB, all of it
/// resident next to the index for no gain.
pub const DEFAULT_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// How a [`RedbStore`] is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// The most memory redb may use to cache database pages, in bytes (read cache and
    /// the write buffer of a transaction together). 0 caches nothing.
    pub cache_bytes: usize,
    /// The node that owns the directory (the server's `node.id`): written into
    /// `meta.properties` when the store is created, and a directory of another node is
    /// refused, as Kafka does. `None` neither writes nor checks it.
    pub node_id: Option<i32>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            cache_bytes: DEFAULT_CACHE_BYTES,
            node_id: None,
        }
    }
}

/// The embedded store. Dropping it closes the database and releases the directory lock.
pub struct RedbStore {
    // Fields drop in order: the database is closed before the lock is released.
    db: DbHandle,
    dir: PathBuf,
    db_path: PathBuf,
    cluster_id: String,
    options: StoreOptions,
    feed: LocalFeed,
    _lock: DirLock,
}

impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore")
            .field("db_path", &self.db_path)
            .field("cluster_id", &self.cluster_id)
            .finish_non_exhaustive()
    }
}

impl RedbStore {
    /// Opens the store in `dir`, creating the directory, the database and its identity file
    /// (`meta.properties`) on first use, and migrating a store of an older format.
    ///
    /// Fails with [`StoreError::Locked`] if another store holds the directory, with
    /// [`StoreError::UnsupportedFormat`] if a newer kacl wrote it, and refuses a directory
    /// whose identity says a store was created there when the database is missing, empty or
    /// of another cluster ([`StoreError::StoreMissing`], [`StoreError::IdentityMismatch`]),
    /// or which belongs to another node. A damaged database file is an error, never a panic
    /// (the storage engine's panics are caught here). After a crash, redb
    /// recovers the last committed state here, in about a millisecond whatever the size
    /// (every commit records redb's allocator state, see the crate documentation).
    /// Uses the default [`StoreOptions`].
    pub fn open(dir: &Path) -> Result<RedbStore, StoreError> {
        Self::open_with_options(dir, StoreOptions::default())
    }

    /// [`RedbStore::open`] with explicit options (the server's `kacl.store.cache.bytes`).
    pub fn open_with_options(dir: &Path, options: StoreOptions) -> Result<RedbStore, StoreError> {
        let db_path = dir.join(DB_FILE_NAME);
        let writable_path = db_path.clone();
        let read_only_path = db_path.clone();
        let cache_bytes = options.cache_bytes;
        Self::open_with(
            dir,
            options,
            Opener {
                writable: Box::new(move || {
                    Builder::new()
                        .set_cache_size(cache_bytes)
                        .create(&writable_path)
                }),
                read_only: Box::new(move || {
                    scratch::open_without_writing(&read_only_path, cache_bytes)
                }),
            },
        )
    }

    /// A new store in `dir` (absent or without a store) for the existing cluster
    /// `cluster_id`, for `kacl store copy` from etcd back to one node (a rollback keeps the
    /// cluster's id). Refuses a directory that already holds a store.
    pub fn create_for_cluster(
        dir: &Path,
        options: StoreOptions,
        cluster_id: &str,
    ) -> Result<RedbStore, StoreError> {
        if crate::ids::parse_kafka_uuid(cluster_id).is_none() {
            return Err(StoreError::Refused {
                detail: format!("`{cluster_id}` is not a cluster id"),
            });
        }
        if identity::read(dir)?.is_some() || dir.join(DB_FILE_NAME).exists() {
            return Err(StoreError::Refused {
                detail: format!("{} already holds a store", dir.display()),
            });
        }
        let db_path = dir.join(DB_FILE_NAME);
        let (writable_path, read_only_path) = (db_path.clone(), db_path);
        let cache_bytes = options.cache_bytes;
        let opener = Opener {
            writable: Box::new(move || {
                Builder::new()
                    .set_cache_size(cache_bytes)
                    .create(&writable_path)
            }),
            read_only: Box::new(move || {
                scratch::open_without_writing(&read_only_path, cache_bytes)
            }),
        };
        Self::open_with_id(dir, options, opener, Some(cluster_id))
    }

    /// [`RedbStore::open`] with a custom way to open the database file (tests inject
    /// failing storage through this).
    pub(crate) fn open_with(
        dir: &Path,
        options: StoreOptions,
        opener: Opener,
    ) -> Result<RedbStore, StoreError> {
        Self::open_with_id(dir, options, opener, None)
    }

    fn open_with_id(
        dir: &Path,
        options: StoreOptions,
        opener: Opener,
        new_cluster_id: Option<&str>,
    ) -> Result<RedbStore, StoreError> {
        let dir_existed = dir.is_dir();
        fs::create_dir_all(dir).map_err(|e| StoreError::from_io(dir, e))?;
        let lock = DirLock::acquire(dir)?;
        let db_path = dir.join(DB_FILE_NAME);
        let file_len = fs::metadata(&db_path).ok().map(|m| m.len());
        let file_existed = file_len.is_some();
        let identity = identity::read(dir)?;
        if let Some(found) = &identity {
            if file_len.unwrap_or(0) == 0 {
                return Err(StoreError::StoreMissing {
                    path: PathBuf::new(),
                    cluster_id: String::new(),
                    detail: if file_existed {
                        "the database file is empty (0 bytes)"
                    } else {
                        "the database file does not exist"
                    },
                }
                .in_dir(dir, &found.cluster_id));
            }
            if let (Some(configured), Some(owner)) = (options.node_id, found.node_id) {
                if configured != owner {
                    return Err(StoreError::IdentityMismatch {
                        path: identity::identity_path(dir),
                        detail: format!(
                            "the directory belongs to node.id {owner}, but this server is \
                             node.id {configured}"
                        ),
                    });
                }
            }
        }
        let db = guarded(&db_path, || DbHandle::open(opener, &db_path))?;
        if !file_existed {
            // A new file's directory entry is durable only once its directory is synced.
            sync_dir(dir)?;
            if !dir_existed {
                if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                    sync_dir(parent)?;
                }
            }
        }
        let mut store = RedbStore {
            db,
            dir: dir.to_path_buf(),
            db_path,
            cluster_id: String::new(),
            options,
            feed: LocalFeed::default(),
            _lock: lock,
        };
        let initialized = identity.is_some();
        store.cluster_id = store
            .write(|t| ops::init_meta_with(t, initialized, new_cluster_id))
            .map_err(|e| match (&identity, e) {
                (Some(found), e @ StoreError::StoreMissing { .. }) => {
                    e.in_dir(dir, &found.cluster_id)
                }
                (_, e) => e,
            })?;
        match &identity {
            Some(found) if found.cluster_id != store.cluster_id => {
                return Err(StoreError::IdentityMismatch {
                    path: identity::identity_path(dir),
                    detail: format!(
                        "it names cluster {}, but {} holds cluster {}: the database file \
                         belongs to another cluster",
                        found.cluster_id,
                        store.db_path.display(),
                        store.cluster_id
                    ),
                });
            }
            Some(found) if found.format_version == ops::FORMAT_VERSION => {}
            // A directory from before the identity file existed, or one just migrated.
            _ => identity::write(
                dir,
                &Identity {
                    cluster_id: store.cluster_id.clone(),
                    node_id: identity
                        .as_ref()
                        .and_then(|found| found.node_id)
                        .or(options.node_id),
                    format_version: ops::FORMAT_VERSION,
                },
            )?,
        }
        Ok(store)
    }

    /// The cluster id, borrowed.
    pub(crate) fn cluster_id_str(&self) -> &str {
        &self.cluster_id
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The database file, `<dir>/kacl.redb`.
    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// The options the store was opened with.
    pub fn options(&self) -> StoreOptions {
        self.options
    }

    /// Runs `operation` in a write transaction and commits it durably; on any error the
    /// transaction is aborted and nothing changes.
    fn write<R>(
        &self,
        operation: impl FnOnce(&mut WriteTables<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        guarded(&self.db_path, || self.write_unguarded(operation)).map_err(|e| self.db.note(e))
    }

    fn write_unguarded<R>(
        &self,
        operation: impl FnOnce(&mut WriteTables<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let guard = self.db.writable()?;
        let Some(db) = guard.database() else {
            return Err(self.db.note(StoreError::Engine {
                path: self.db_path.clone(),
                detail: "the database is not open for writing".to_string(),
            }));
        };
        let mut txn = db.begin_write().map_err(|e| self.db.redb_error(e))?;
        txn.set_durability(Durability::Immediate)
            .map_err(|e| self.db.redb_error(e))?;
        // Records the allocator state in every commit (with a two-phase commit), so that
        // recovery after a crash is instant and a read-only open is always possible.
        txn.set_quick_repair(true);
        let outcome = match WriteTables::open(&txn, &self.db_path) {
            Ok(mut tables) => operation(&mut tables),
            Err(e) => Err(e),
        };
        match outcome {
            Ok(value) => {
                txn.commit().map_err(|e| self.db.redb_error(e))?;
                Ok(value)
            }
            Err(error) => {
                if let Err(abort) = txn.abort() {
                    self.db.redb_error(abort);
                }
                Err(self.db.note(error))
            }
        }
    }

    /// Runs `operation` in one read transaction (a consistent view of the store).
    pub(crate) fn read<R>(
        &self,
        operation: impl FnOnce(&ReadTables<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        guarded(&self.db_path, || {
            let txn = self.db.begin_read()?;
            let tables = ReadTables::open(&txn, &self.db_path)?;
            operation(&tables)
        })
        .map_err(|e| self.db.note(e))
    }
}

/// Runs a call into the storage engine, turning a panic into an error. redb trusts its file:
/// on some damaged pages it panics (an index out of range, `unreachable!`) instead of
/// returning an error, and a damaged file must never take the server down with a panic.
fn guarded<R>(
    db_path: &Path,
    call: impl FnOnce() -> Result<R, StoreError>,
) -> Result<R, StoreError> {
    quiet::catch_quietly(call).unwrap_or_else(|message| {
        Err(StoreError::CorruptDatabase {
            path: db_path.to_path_buf(),
            detail: format!("the storage engine failed reading damaged data ({message})"),
        })
    })
}

/// Takes the data directory's lock (for `verify`, which must not run beside a server).
pub(crate) fn lock_dir(dir: &Path) -> Result<DirLock, StoreError> {
    DirLock::acquire(dir)
}

/// Runs `check` in a read transaction on the database file, opened without writing to it.
pub(crate) fn read_offline(
    db_path: &Path,
    check: &mut dyn FnMut(&ReadTables<'_>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    guarded(db_path, || {
        let db = scratch::open_without_writing(db_path, 0)
            .map_err(|e| StoreError::from_redb(db_path, e))?;
        let txn = redb::ReadableDatabase::begin_read(&db)
            .map_err(|e| StoreError::from_redb(db_path, e))?;
        let tables = ReadTables::open(&txn, db_path)?;
        check(&tables)
    })
}

impl LocalEngine for RedbStore {
    type Read<'t> = ReadTables<'t>;
    type Write<'t> = WriteTables<'t>;

    fn engine_cluster_id(&self) -> String {
        self.cluster_id.clone()
    }

    fn read_view<R>(
        &self,
        operation: impl FnOnce(&ReadTables<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.read(operation)
    }

    fn write_txn<R>(
        &self,
        operation: impl FnOnce(&mut WriteTables<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.write(operation)
    }

    fn local_feed(&self) -> &LocalFeed {
        &self.feed
    }

    fn engine_acl_snapshots(&self) -> Option<&dyn AclSnapshots> {
        Some(self)
    }
}
