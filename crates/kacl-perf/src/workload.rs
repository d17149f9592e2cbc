//! The timed workloads: every connection runs a closed loop (one request in flight, the next
//! sent as soon as the last is answered) until the deadline, recording each request's latency.
//! What a request is depends on the workload ([`Op`]).

use std::sync::Arc;
use std::time::Duration;

use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation,
    AclPermissionType, PatternType, ResourcePattern, ResourcePatternFilter, ResourceType,
};
use kacl_client::{Admin, CreateAclsOptions, DeleteAclsOptions, DescribeAclsOptions, TopicOptions};
use tokio::time::Instant;

use super::dataset::{self, Summary};
use super::phases::RawDescriber;
use super::report::{OpStats, Progress};

/// One kind of request, with what it needs to pick its arguments.
#[derive(Debug, Clone)]
pub enum Op {
    /// DescribeAcls with the ANY filter.
    DescribeAll {
        /// `--grouped`: received as `AclGroups` (shared strings) instead of bindings.
        grouped: bool,
    },
    /// DescribeAcls with the ANY filter, phases timed apart.
    DescribeAllPhases,
    /// DescribeAcls for `fixed`, else a random auditor among the first `auditors`.
    DescribePrincipal {
        /// `--principal`: always this one.
        fixed: Option<String>,
        /// How many auditors the data set holds.
        auditors: u64,
    },
    /// DescribeAcls for one random resource among the first `resources`.
    DescribeResource {
        /// How many resources the data set holds.
        resources: u64,
    },
    /// CreateAcls of `batch` ACLs, then DeleteAcls of them.
    CreateDelete {
        /// ACLs per request.
        batch: usize,
    },
    /// Metadata for all topics.
    Metadata,
}

impl Op {
    /// The operation names this op records under, in order.
    pub fn stat_names(&self) -> &'static [&'static str] {
        match self {
            Op::DescribeAll { .. } | Op::DescribePrincipal { .. } | Op::DescribeResource { .. } => {
                &["describeAcls"]
            }
            Op::DescribeAllPhases => &["describeAcls", "wire", "decode", "bindings", "drop"],
            Op::CreateDelete { .. } => &["createAcls", "deleteAcls"],
            Op::Metadata => &["metadata"],
        }
    }

    /// Checks that the data set holds what this op will ask for.
    pub fn for_data_set(
        workload: super::args::Workload,
        summary: Summary,
        args: &super::args::AclsPerfArgs,
    ) -> anyhow::Result<Op> {
        use super::args::Workload;
        Ok(match workload {
            Workload::Load => anyhow::bail!("load is not a timed workload"),
            Workload::Propagation => anyhow::bail!("propagation is not a timed workload"),
            Workload::DescribeAll if args.phases => Op::DescribeAllPhases,
            Workload::DescribeAll => Op::DescribeAll {
                grouped: args.grouped,
            },
            Workload::DescribePrincipal => {
                if args.principal.is_none() && summary.auditors == 0 {
                    anyhow::bail!(
                        "--acls {} holds no complete auditor principal (the first is complete \
                         at about 9,120 ACLs, then one per 10,110); use a larger --acls or \
                         --principal",
                        summary.acls
                    );
                }
                Op::DescribePrincipal {
                    fixed: args.principal.clone(),
                    auditors: summary.auditors,
                }
            }
            Workload::DescribeResource => {
                if summary.resources == 0 {
                    anyhow::bail!("--acls {} holds no complete resource", summary.acls);
                }
                Op::DescribeResource {
                    resources: summary.resources,
                }
            }
            Workload::CreateDelete => {
                if args.batch_size == 0 {
                    anyhow::bail!("--batch-size must be at least 1");
                }
                Op::CreateDelete {
                    batch: args.batch_size,
                }
            }
            Workload::Metadata => Op::Metadata,
        })
    }
}

/// How one connection reaches the server.
pub enum Client {
    /// Through the admin client, as an application would.
    Admin(Admin),
    /// A raw connection, for phase timings.
    Raw(RawDescriber),
}

/// One connection's loop state and figures.
pub struct Worker {
    id: usize,
    client: Client,
    rng: u64,
    seq: u64,
    /// Figures per operation, in [`Op::stat_names`] order.
    pub stats: Vec<OpStats>,
}

impl Worker {
    /// A worker for `op` over `client`.
    pub fn new(id: usize, client: Client, op: &Op) -> anyhow::Result<Worker> {
        let stats = op
            .stat_names()
            .iter()
            .map(|name| OpStats::new(name))
            .collect::<anyhow::Result<_>>()?;
        Ok(Worker {
            id,
            client,
            // Distinct, non-zero seeds per worker.
            rng: 0x2545_f491_4f6c_dd1d ^ ((id as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            seq: 0,
            stats,
        })
    }

    /// xorshift64*: uniform enough to spread requests over resources and principals.
    fn random_below(&mut self, bound: u64) -> u64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
    }

    fn admin(&self) -> anyhow::Result<&Admin> {
        match &self.client {
            Client::Admin(admin) => Ok(admin),
            Client::Raw(_) => anyhow::bail!("this workload needs the admin client"),
        }
    }

    /// Runs requests until `end`, recording those that start at or after `measure_from`.
    pub async fn run(
        mut self,
        op: Arc<Op>,
        measure_from: Instant,
        end: Instant,
        progress: Arc<Progress>,
    ) -> anyhow::Result<Worker> {
        loop {
            let start = Instant::now();
            if start >= end {
                break;
            }
            let mut sink = Sink {
                record: start >= measure_from,
                progress: &progress,
            };
            self.step(&op, &mut sink).await?;
        }
        Ok(self)
    }

    /// One request (two for create-delete).
    async fn step(&mut self, op: &Op, sink: &mut Sink<'_>) -> anyhow::Result<()> {
        match op {
            Op::DescribeAll { grouped: false } => self.describe(AclBindingFilter::ANY, sink).await,
            Op::DescribeAll { grouped: true } => self.describe_grouped(sink).await,
            Op::DescribeAllPhases => {
                let Client::Raw(raw) = &self.client else {
                    anyhow::bail!("--phases needs raw connections");
                };
                match raw.describe_all().await {
                    Ok(timing) => {
                        if sink.record {
                            let acls = timing.acls;
                            self.stats[0].record(timing.total, acls);
                            self.stats[1].record(timing.wire, acls);
                            self.stats[2].record(timing.decode, acls);
                            self.stats[3].record(timing.bindings, acls);
                            self.stats[4].record(timing.drop, acls);
                        }
                        sink.progress.add(timing.acls);
                    }
                    Err(err) => sink.error(&mut self.stats[0], err),
                }
                Ok(())
            }
            Op::DescribePrincipal { fixed, auditors } => {
                let principal = match fixed {
                    Some(principal) => principal.clone(),
                    None => dataset::auditor(self.random_below(*auditors)),
                };
                let filter = AclBindingFilter::new(
                    ResourcePatternFilter::ANY,
                    AccessControlEntryFilter {
                        principal: Some(principal),
                        ..AccessControlEntryFilter::ANY
                    },
                );
                self.describe(filter, sink).await
            }
            Op::DescribeResource { resources } => {
                let resource = self.random_below(*resources);
                let filter = AclBindingFilter::new(
                    ResourcePatternFilter::new(
                        dataset::resource_type(resource),
                        Some(dataset::resource_name(resource)),
                        PatternType::Any,
                    ),
                    AccessControlEntryFilter::ANY,
                );
                self.describe(filter, sink).await
            }
            Op::CreateDelete { batch } => self.create_delete(*batch, sink).await,
            Op::Metadata => {
                let start = Instant::now();
                let outcome = self.admin()?.list_topics(TopicOptions::default()).await;
                sink.outcome(&mut self.stats[0], start.elapsed(), outcome.map(|_| 0));
                Ok(())
            }
        }
    }

    async fn describe(
        &mut self,
        filter: AclBindingFilter,
        sink: &mut Sink<'_>,
    ) -> anyhow::Result<()> {
        let start = Instant::now();
        let outcome = self
            .admin()?
            .describe_acls(filter, DescribeAclsOptions::default())
            .await;
        // Received: the bindings are the caller's now. Dropping them (a tenth of a second
        // at 2M) is not part of the request.
        let latency = start.elapsed();
        let outcome = outcome.map(|bindings| bindings.len() as u64);
        sink.outcome(&mut self.stats[0], latency, outcome);
        Ok(())
    }

    /// A full describe received as [`kacl_client::AclGroups`].
    async fn describe_grouped(&mut self, sink: &mut Sink<'_>) -> anyhow::Result<()> {
        let start = Instant::now();
        let outcome = self
            .admin()?
            .describe_acls_grouped(AclBindingFilter::ANY, DescribeAclsOptions::default())
            .await;
        let latency = start.elapsed();
        let outcome = outcome.map(|groups| groups.len() as u64);
        sink.outcome(&mut self.stats[0], latency, outcome);
        Ok(())
    }

    /// Creates `batch` ACLs on a topic name no other request uses, then deletes them with one
    /// filter on that name.
    async fn create_delete(&mut self, batch: usize, sink: &mut Sink<'_>) -> anyhow::Result<()> {
        let name = format!("kacl-perf-{}-{}", self.id, self.seq);
        self.seq += 1;
        let bindings = (0..batch)
            .map(|j| {
                AclBinding::new(
                    ResourcePattern::new(ResourceType::Topic, name.as_str(), PatternType::Literal),
                    AccessControlEntry::new(
                        format!("User:perf-{j}"),
                        "*",
                        AclOperation::Write,
                        AclPermissionType::Allow,
                    ),
                )
            })
            .collect();
        let admin = self.admin()?.clone();
        let start = Instant::now();
        let results = admin
            .create_acls(bindings, CreateAclsOptions::default())
            .await;
        sink.per_acl(&mut self.stats[0], start.elapsed(), results);

        let filter = AclBindingFilter::new(
            ResourcePatternFilter::new(ResourceType::Topic, Some(name), PatternType::Literal),
            AccessControlEntryFilter::ANY,
        );
        let start = Instant::now();
        let results = admin
            .delete_acls(vec![filter], DeleteAclsOptions::default())
            .await;
        let elapsed = start.elapsed();
        let outcome = match results.into_iter().next() {
            Some(Ok(deleted)) => Ok(deleted),
            Some(Err(err)) => Err(err.to_string()),
            None => Err("no result for the delete filter".to_owned()),
        };
        match outcome {
            Ok(deleted) => {
                let (ok, failed): (Vec<_>, Vec<_>) = deleted.into_iter().partition(Result::is_ok);
                for err in failed.into_iter().filter_map(Result::err) {
                    sink.error(&mut self.stats[1], err);
                }
                if ok.len() != batch {
                    sink.error(
                        &mut self.stats[1],
                        format!("deleted {} ACLs, created {batch}", ok.len()),
                    );
                }
                sink.ok(&mut self.stats[1], elapsed, ok.len() as u64);
            }
            Err(err) => sink.error(&mut self.stats[1], err),
        }
        Ok(())
    }
}

/// Where one request's outcome goes: the worker's figures (unless warming up) and the
/// progress counters.
struct Sink<'a> {
    record: bool,
    progress: &'a Progress,
}

impl Sink<'_> {
    fn ok(&mut self, stats: &mut OpStats, latency: Duration, acls: u64) {
        if self.record {
            stats.record(latency, acls);
        }
        self.progress.add(acls);
    }

    fn error(&mut self, stats: &mut OpStats, error: impl std::fmt::Display) {
        if self.record {
            stats.error(error);
        }
    }

    fn outcome<E: std::fmt::Display>(
        &mut self,
        stats: &mut OpStats,
        latency: Duration,
        outcome: Result<u64, E>,
    ) {
        match outcome {
            Ok(acls) => self.ok(stats, latency, acls),
            Err(err) => self.error(stats, err),
        }
    }

    /// A request whose ACLs succeed or fail one by one (CreateAcls).
    fn per_acl<E: std::fmt::Display>(
        &mut self,
        stats: &mut OpStats,
        latency: Duration,
        results: Vec<Result<(), E>>,
    ) {
        let mut created = 0;
        for result in results {
            match result {
                Ok(()) => created += 1,
                Err(err) => self.error(stats, err),
            }
        }
        if created > 0 {
            self.ok(stats, latency, created);
        }
    }
}

/// Runs `workers` until `end`, measuring from `measure_from`; returns the merged figures and
/// the measured wall time (to the last answer).
pub async fn drive(
    workers: Vec<Worker>,
    op: Op,
    warmup: Duration,
    duration: Duration,
    progress: Arc<Progress>,
) -> anyhow::Result<(Vec<OpStats>, Duration)> {
    let op = Arc::new(op);
    let measure_from = Instant::now() + warmup;
    let end = measure_from + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for worker in workers {
        tasks.spawn(worker.run(Arc::clone(&op), measure_from, end, Arc::clone(&progress)));
    }
    let mut merged: Option<Vec<OpStats>> = None;
    while let Some(joined) = tasks.join_next().await {
        let worker = joined??;
        match merged.as_mut() {
            None => merged = Some(worker.stats),
            Some(all) => {
                for (into, from) in all.iter_mut().zip(&worker.stats) {
                    into.merge(from);
                }
            }
        }
    }
    let elapsed = Instant::now().saturating_duration_since(measure_from);
    let stats = match merged {
        Some(stats) => stats,
        None => op
            .stat_names()
            .iter()
            .map(|name| OpStats::new(name))
            .collect::<anyhow::Result<_>>()?,
    };
    Ok((stats, elapsed))
}
