//! The server-wide shutdown signal: a `watch` flag that every accept loop, connection and the
//! `/metrics` endpoint wait on, so that one [`ShutdownHandle`](crate::ShutdownHandle) stops them
//! all.

use tokio::sync::watch;

/// Resolves once the shutdown flag is set (or its sender is gone).
pub async fn wait_for_shutdown(shutdown: &mut watch::Receiver<bool>) {
    loop {
        if *shutdown.borrow_and_update() {
            return;
        }
        if shutdown.changed().await.is_err() {
            return;
        }
    }
}
