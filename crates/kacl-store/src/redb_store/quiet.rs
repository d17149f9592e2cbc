//! The storage engine's panics on damaged data, caught without their noise: redb panics on
//! some damaged pages (a bad length in a B-tree page, `btree_iters.rs`), and although
//! [`super::guarded`] turns the panic into one clear error, the process's panic hook would
//! print the panic and its backtrace first. A hook installed once wraps whatever hook was in
//! place and stays silent for the threads inside a guarded call; every other panic is
//! reported as before.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// True while this thread runs a guarded call.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `call`, catching a panic in it without printing it: `Err(message)`.
pub(super) fn catch_quietly<R>(call: impl FnOnce() -> R) -> Result<R, String> {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = catch_unwind(AssertUnwindSafe(call));
    QUIET.with(|q| q.set(was));
    result.map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned())
    })
}
