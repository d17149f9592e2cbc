//! Making a new file's directory entry durable, which every file the store creates needs (the
//! database, the identity file) and which `File::sync_all` on the file alone does not give.

use std::fs;
use std::path::Path;

use crate::error::StoreError;

/// Makes a directory's entries (a file just created in it) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::from_io(dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
