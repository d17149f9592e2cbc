//! The `load` workload: the data set (ACLs `start..acls` of the [`dataset`](super::dataset)
//! stream) created in CreateAcls requests of `batch` ACLs. A generator thread builds the
//! batches; every connection takes the next batch as soon as its last one is answered, so
//! with several connections several requests are in flight.

use std::sync::Arc;
use std::time::Duration;

use kacl_acl::AclBinding;
use kacl_client::{Admin, CreateAclsOptions};
use tokio::sync::{mpsc, Mutex};
use tokio::time::Instant;

use super::dataset::Stream;
use super::report::{OpStats, Progress};

/// What to load.
#[derive(Debug, Clone, Copy)]
pub struct LoadPlan {
    /// First ACL of the stream to create.
    pub start: u64,
    /// One past the last.
    pub end: u64,
    /// ACLs per request.
    pub batch: usize,
    /// Deny share of the stream, in percent.
    pub deny_percent: f64,
}

/// Creates the planned ACLs over `admins`; returns the merged figures and the wall time.
pub async fn load(
    admins: Vec<Admin>,
    plan: LoadPlan,
    progress: Arc<Progress>,
) -> anyhow::Result<(OpStats, Duration)> {
    if plan.batch == 0 {
        anyhow::bail!("--batch-size must be at least 1");
    }
    let (sender, receiver) = mpsc::channel::<Vec<AclBinding>>(admins.len() * 2 + 2);
    // Building 2M bindings costs about a second of CPU: do it beside the runtime.
    let generator = std::thread::spawn(move || {
        let skip = usize::try_from(plan.start).unwrap_or(usize::MAX);
        let take = usize::try_from(plan.end.saturating_sub(plan.start)).unwrap_or(usize::MAX);
        let mut specs = Stream::new(plan.deny_percent)
            .skip(skip)
            .take(take)
            .peekable();
        while specs.peek().is_some() {
            let batch: Vec<AclBinding> = specs
                .by_ref()
                .take(plan.batch)
                .map(|s| s.binding())
                .collect();
            if sender.blocking_send(batch).is_err() {
                break;
            }
        }
    });
    let receiver = Arc::new(Mutex::new(receiver));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for admin in admins {
        let receiver = Arc::clone(&receiver);
        let progress = Arc::clone(&progress);
        tasks.spawn(async move {
            let mut stats = OpStats::new("createAcls")?;
            loop {
                let next = receiver.lock().await.recv().await;
                let Some(batch) = next else { break };
                let started = Instant::now();
                let results = admin.create_acls(batch, CreateAclsOptions::default()).await;
                let latency = started.elapsed();
                let mut created = 0;
                for result in results {
                    match result {
                        Ok(()) => created += 1,
                        Err(err) => stats.error(err),
                    }
                }
                if created > 0 {
                    stats.record(latency, created);
                }
                progress.add(created);
            }
            anyhow::Ok(stats)
        });
    }
    let mut merged = OpStats::new("createAcls")?;
    while let Some(joined) = tasks.join_next().await {
        merged.merge(&joined??);
    }
    let elapsed = start.elapsed();
    generator
        .join()
        .map_err(|_| anyhow::anyhow!("the ACL generator thread panicked"))?;
    Ok((merged, elapsed))
}
