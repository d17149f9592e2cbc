//! The open database file and its recovery from I/O errors.
//!
//! redb stops a database after any I/O error: every later call fails until the file is
//! reopened. So after an error the handle is closed and reopened on the next call. When
//! the file cannot be reopened for writing (a full disk cannot hold the reopen's own
//! bookkeeping) it is opened read-only instead, so reads keep working; every write tries
//! the writable open again first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

use redb::{Database, DatabaseError, ReadTransaction, ReadableDatabase as _};

use crate::error::StoreError;

/// How to open the database file, for writing and read-only. Tests substitute storage
/// that fails on demand.
pub(crate) struct Opener {
    pub(crate) writable: Box<dyn Fn() -> Result<Database, DatabaseError> + Send + Sync>,
    /// Opens the file so that nothing is written to it (see `scratch`), for reads only.
    pub(crate) read_only: Box<dyn Fn() -> Result<Database, DatabaseError> + Send + Sync>,
}

enum Handle {
    Writable(Database),
    /// Opened without writing to the file: used for reads only.
    ReadOnly(Database),
    Closed,
}

/// The database, shared by every call; reopened when an I/O error stopped it.
pub(crate) struct DbHandle {
    handle: RwLock<Handle>,
    /// The current handle met an I/O error and must be reopened before use.
    stopped: AtomicBool,
    opener: Opener,
    path: PathBuf,
}

/// Drops a database. Closing commits redb's allocator state, and after redb panicked on
/// damaged data (a poisoned lock inside it) closing panics too: caught and silenced, as every
/// call into redb is ([`super::guarded`]); the file is closed either way.
fn close(handle: Handle) {
    let _ = super::quiet::catch_quietly(move || drop(handle));
}

impl Drop for DbHandle {
    fn drop(&mut self) {
        let slot = self
            .handle
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        close(std::mem::replace(slot, Handle::Closed));
    }
}

/// A read lock on the handle that holds a writable database.
pub(crate) struct WritableGuard<'a>(RwLockReadGuard<'a, Handle>);

impl WritableGuard<'_> {
    pub(crate) fn database(&self) -> Option<&Database> {
        match &*self.0 {
            Handle::Writable(db) => Some(db),
            _ => None,
        }
    }
}

impl DbHandle {
    /// Opens the file for writing; a failure here is the caller's to report.
    pub(crate) fn open(opener: Opener, path: &Path) -> Result<DbHandle, StoreError> {
        let db = (opener.writable)().map_err(|e| StoreError::from_redb(path, e))?;
        Ok(DbHandle {
            handle: RwLock::new(Handle::Writable(db)),
            stopped: AtomicBool::new(false),
            opener,
            path: path.to_path_buf(),
        })
    }

    /// Notes an error met while using the handle; if it may have stopped the database,
    /// the next call reopens it.
    pub(crate) fn note(&self, error: StoreError) -> StoreError {
        if matches!(
            error,
            StoreError::Io { .. }
                | StoreError::StorageFull { .. }
                | StoreError::ReadOnly { .. }
                | StoreError::CorruptDatabase { .. }
                | StoreError::Engine { .. }
        ) {
            self.stopped.store(true, Ordering::Release);
        }
        error
    }

    /// Maps and notes a redb error.
    pub(crate) fn redb_error(&self, error: impl Into<redb::Error>) -> StoreError {
        self.note(StoreError::from_redb(&self.path, error))
    }

    /// A read transaction, from the writable database or the read-only fallback.
    pub(crate) fn begin_read(&self) -> Result<ReadTransaction, StoreError> {
        {
            let guard = self.read_lock();
            if !self.stopped.load(Ordering::Acquire) {
                match &*guard {
                    Handle::Writable(db) => return db.begin_read().map_err(|e| self.redb_error(e)),
                    Handle::ReadOnly(db) => return db.begin_read().map_err(|e| self.redb_error(e)),
                    Handle::Closed => {}
                }
            }
        }
        self.reopen(false)?;
        let guard = self.read_lock();
        match &*guard {
            Handle::Writable(db) => db.begin_read().map_err(|e| self.redb_error(e)),
            Handle::ReadOnly(db) => db.begin_read().map_err(|e| self.redb_error(e)),
            Handle::Closed => Err(self.closed()),
        }
    }

    /// The writable database, reopening it for writing first if needed.
    pub(crate) fn writable(&self) -> Result<WritableGuard<'_>, StoreError> {
        {
            let guard = self.read_lock();
            if !self.stopped.load(Ordering::Acquire) && matches!(*guard, Handle::Writable(_)) {
                return Ok(WritableGuard(guard));
            }
        }
        self.reopen(true)?;
        let guard = WritableGuard(self.read_lock());
        match guard.database() {
            Some(_) => Ok(guard),
            None => Err(self.closed()),
        }
    }

    /// Closes the handle and opens the file again: for writing if possible, else (unless
    /// `need_writable`) read-only. Another caller may have reopened it meanwhile.
    fn reopen(&self, need_writable: bool) -> Result<(), StoreError> {
        let mut slot = self.handle.write().unwrap_or_else(PoisonError::into_inner);
        let usable = match &*slot {
            Handle::Writable(_) => true,
            Handle::ReadOnly(_) => !need_writable,
            Handle::Closed => false,
        };
        if usable && !self.stopped.load(Ordering::Acquire) {
            return Ok(());
        }
        // Close first: redb refuses to open a file this process still holds.
        close(std::mem::replace(&mut *slot, Handle::Closed));
        match (self.opener.writable)() {
            Ok(db) => {
                *slot = Handle::Writable(db);
                self.stopped.store(false, Ordering::Release);
                Ok(())
            }
            Err(writable_error) => {
                let writable_error = StoreError::from_redb(&self.path, writable_error);
                if let Ok(db) = (self.opener.read_only)() {
                    *slot = Handle::ReadOnly(db);
                    self.stopped.store(false, Ordering::Release);
                    if !need_writable {
                        return Ok(());
                    }
                }
                Err(writable_error)
            }
        }
    }

    /// Bytes in redb's page cache now (counted only when redb's `cache_metrics` feature is
    /// on, as it is for this crate's tests).
    #[cfg(test)]
    pub(crate) fn cache_used_bytes(&self) -> usize {
        match &*self.read_lock() {
            Handle::Writable(db) | Handle::ReadOnly(db) => db.cache_stats().used_bytes(),
            Handle::Closed => 0,
        }
    }

    fn read_lock(&self) -> RwLockReadGuard<'_, Handle> {
        self.handle.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn closed(&self) -> StoreError {
        StoreError::Engine {
            path: self.path.clone(),
            detail: "the database could not be reopened after an I/O error".to_string(),
        }
    }
}
