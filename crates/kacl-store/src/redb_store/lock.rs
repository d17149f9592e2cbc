//! The data directory's lock: an exclusive OS lock on `<dir>/LOCK`, held for the
//! store's life, so two servers (or two stores in one process) never share a directory.
//! The OS drops the lock when the process dies, so a crash never leaves it stale.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::Path;

use fs2::FileExt as _;

use crate::error::StoreError;

/// Holds the lock until dropped.
#[derive(Debug)]
pub(crate) struct DirLock {
    file: File,
}

impl DirLock {
    /// Takes the lock on `dir`, failing at once with [`StoreError::Locked`] if it is held.
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock, StoreError> {
        let path = dir.join("LOCK");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::from_io(&path, e))?;
        if let Err(e) = file.try_lock_exclusive() {
            // flock reports a held lock as EWOULDBLOCK; fs2 names that error for us.
            if e.kind() == fs2::lock_contended_error().kind() {
                return Err(StoreError::Locked { path });
            }
            return Err(StoreError::from_io(&path, e));
        }
        // For a human wondering who holds it; nothing reads this back.
        let pid = format!("{}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.write_all(pid.as_bytes()))
            .map_err(|e| StoreError::from_io(&path, e))?;
        Ok(DirLock { file })
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first makes it prompt even if
        // a duplicated descriptor were still open somewhere.
        let _ = fs2::FileExt::unlock(&self.file);
    }
}
