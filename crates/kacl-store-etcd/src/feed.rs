//! The list-then-watch feed: the state was listed at revision R (at open); this thread
//! watches every key under the prefix from R+1 and hands each watch message's changes to the
//! sink in one call (etcd never splits one revision's events across messages, so a batch is
//! applied whole). When etcd has compacted past the next revision, it re-lists and the sink
//! replaces its state in one step. Any other failure re-opens the watch from the applied
//! revision, so nothing is missed or applied twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kacl_store::ChangeSink;

use crate::client::{prefix_end, EtcdClient, Kv, WatchResponse};
use crate::decode::{delete_change, put_change};
use crate::layout::{KeyKind, Layout};
use crate::listing::list_all;
use crate::membership::Membership;
use crate::metrics::EtcdMetrics;
use crate::progress::Progress;

/// How long an open watch may stay silent before it is re-opened (which also notices an etcd
/// that vanished without closing the connection).
const IDLE: Duration = Duration::from_secs(5);

/// The running feed thread.
#[derive(Debug)]
pub(crate) struct Feed {
    stop: Arc<AtomicBool>,
}

struct Context {
    client: Arc<EtcdClient>,
    layout: Layout,
    sink: Arc<dyn ChangeSink>,
    progress: Arc<Progress>,
    membership: Arc<Membership>,
    metrics: Arc<EtcdMetrics>,
    stop: Arc<AtomicBool>,
}

impl Feed {
    pub(crate) fn start(
        client: Arc<EtcdClient>,
        layout: Layout,
        sink: Arc<dyn ChangeSink>,
        progress: Arc<Progress>,
        membership: Arc<Membership>,
        metrics: Arc<EtcdMetrics>,
        from: i64,
    ) -> Feed {
        let stop = Arc::new(AtomicBool::new(false));
        let context = Context {
            client,
            layout,
            sink,
            progress,
            membership,
            metrics,
            stop: stop.clone(),
        };
        std::thread::Builder::new()
            .name("kacl-etcd-watch".to_owned())
            .spawn(move || context.run(from))
            .map(|_| ())
            .unwrap_or_else(|err| tracing::error!(%err, "cannot start the etcd watch thread"));
        Feed { stop }
    }

    /// Stops the thread (it notices within [`IDLE`]).
    pub(crate) fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Context {
    fn run(self, mut applied: i64) {
        let end = prefix_end(self.layout.prefix());
        let mut failures = 0u32;
        while !self.stop.load(Ordering::SeqCst) {
            let mut stream = match self.client.watch(self.layout.prefix(), &end, applied + 1) {
                Ok(stream) => stream,
                Err(err) => {
                    failures += 1;
                    if failures == 1 || failures % 20 == 0 {
                        tracing::warn!(%err, applied, "cannot watch etcd; retrying");
                    }
                    self.pause(failures);
                    continue;
                }
            };
            let _ = stream.set_idle_timeout(IDLE);
            loop {
                if self.stop.load(Ordering::SeqCst) {
                    return;
                }
                let message = match stream.next_message() {
                    Ok(message) => message,
                    // Silence is not a restart: the stream is re-opened to find out whether
                    // the connection still lives, and counted apart.
                    Err(crate::client::EtcdError::WatchIdle) => {
                        self.metrics.watch_idle_reopen();
                        break;
                    }
                    Err(err) => {
                        tracing::debug!(%err, applied, "etcd watch ended; re-opening");
                        self.metrics.watch_restart();
                        break;
                    }
                };
                failures = 0;
                if message.canceled {
                    let compacted = message.compact_revision;
                    tracing::warn!(
                        compacted,
                        applied,
                        "etcd compacted past this node's revision; re-listing"
                    );
                    match self.relist() {
                        Some(revision) => applied = revision,
                        None => self.pause(1),
                    }
                    break;
                }
                applied = applied.max(self.apply(&message));
            }
        }
    }

    /// Applies one watch message; the revision it brings memory to.
    fn apply(&self, message: &WatchResponse) -> i64 {
        let mut changes = Vec::new();
        let mut revision = 0;
        for event in &message.events {
            let deleted = event.r#type == crate::proto::EVENT_DELETE;
            let Some(kv) = event.kv.clone().map(Kv::from) else {
                continue;
            };
            revision = revision.max(kv.mod_revision);
            match self.layout.kind(&kv.key) {
                KeyKind::Node(_) | KeyKind::Controller => {
                    self.membership.on_event(&kv, deleted);
                }
                _ => {
                    let change = if deleted {
                        delete_change(&self.layout, &kv.key)
                    } else {
                        put_change(&self.layout, &kv)
                    };
                    match change {
                        Ok(Some(change)) => changes.push(change),
                        Ok(None) => {}
                        Err(err) => {
                            tracing::error!(%err, "skipping an unreadable record from etcd")
                        }
                    }
                }
            }
        }
        if !changes.is_empty() {
            self.sink.apply(changes);
        }
        if revision > 0 {
            self.progress.advance(revision);
        }
        self.metrics
            .applied(self.progress.applied(), message.revision());
        revision
    }

    fn relist(&self) -> Option<i64> {
        match list_all(&self.client, &self.layout) {
            Ok(listing) => {
                self.membership.seed(&listing.nodes, listing.controller);
                self.sink.replace(listing.contents);
                self.progress.advance(listing.revision);
                self.metrics.relist();
                self.metrics.applied(listing.revision, listing.revision);
                Some(listing.revision)
            }
            Err(err) => {
                tracing::warn!(%err, "cannot re-list etcd; retrying");
                None
            }
        }
    }

    fn pause(&self, failures: u32) {
        let millis = (100u64 << failures.min(4)).min(2_000);
        std::thread::sleep(Duration::from_millis(millis));
    }
}
