//! How far this node's feed has applied etcd's history, and the writers waiting for a
//! revision (read-your-writes) and consistent reads waiting for the head.

use parking_lot::{Condvar, Mutex};

/// The applied revision of this node's feed, and the writers waiting for it.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    pub(crate) state: Mutex<ProgressState>,
    pub(crate) advanced: Condvar,
}

#[derive(Debug, Default)]
pub(crate) struct ProgressState {
    /// Every change up to this revision is in memory.
    pub(crate) applied: i64,
    /// The feed runs (writes wait for it).
    pub(crate) feeding: bool,
}

impl Progress {
    pub(crate) fn advance(&self, revision: i64) {
        let mut state = self.state.lock();
        if revision > state.applied {
            state.applied = revision;
            self.advanced.notify_all();
        }
    }

    pub(crate) fn applied(&self) -> i64 {
        self.state.lock().applied
    }
}
