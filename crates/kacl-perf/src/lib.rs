//! The load generator behind `kacl perf`, in the manner of Kafka's perf-test tools: `kacl perf
//! acls` loads ACLs in the shape of Kafka's `AuthorizerBenchmark` and drives one workload (describe
//! all, by principal, by resource; create and delete; metadata) over C connections for a
//! fixed time, then reports requests/s, ACLs/s and latency percentiles (HdrHistogram);
//! `kacl perf records` produces and consumes records against any Kafka bootstrap server (a
//! broker, or a kacl gateway in front of one) and reports records/s, MB/s and latency.
//!
//! - [`args`]: the flags;
//! - [`dataset`]: the ACL stream the data set is cut from;
//! - [`load`]: the `load` workload;
//! - [`workload`]: the timed, closed-loop workloads;
//! - [`phases`]: the full describe split into wire, decode and flattening;
//! - [`pipeline`]: `--in-flight`, raw pipelined describes;
//! - [`propagation`]: cluster mode, one node's write until another node shows it;
//! - [`report`]: figures, text and JSON, the progress line;
//! - [`records`]: `kacl perf records`, the produce and consume workloads.
//!
//! It is an application engine (the `kacl` binary is its only caller), so its errors are
//! `anyhow` ones, as at the binary's edge.

pub mod args;
pub mod dataset;
pub mod load;
pub mod phases;
pub mod pipeline;
pub mod propagation;
pub mod records;
pub mod report;
pub mod workload;

use std::sync::Arc;

use anyhow::Context;
use kacl_acl::{AccessControlEntryFilter, AclBindingFilter, PatternType, ResourcePatternFilter};
use kacl_client::{Admin, AdminConfig, DeleteAclsOptions};

use self::args::{AclsPerfArgs, Workload};
use self::dataset::Summary;
use self::load::LoadPlan;
pub use self::records::{run_records, RecordsReport};
use self::report::Progress;
pub use self::report::Report;
use self::workload::{Client, Op, Worker};

/// Runs `kacl perf acls` against the cluster `config` names: loads and/or drives the workload
/// on a runtime of its own (`--threads`), and returns the figures.
pub fn run_acls(args: &AclsPerfArgs, config: AdminConfig) -> anyhow::Result<Report> {
    if args.connections == 0 {
        anyhow::bail!("--connections must be at least 1");
    }
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads.max(1));
    }
    let runtime = runtime
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(acls(args, config))
}

async fn acls(args: &AclsPerfArgs, config: AdminConfig) -> anyhow::Result<Report> {
    if args.workload == Workload::Propagation {
        return propagation::run(args, &config).await;
    }
    if let Some(in_flight) = args.in_flight {
        return pipelined(args, &config, in_flight).await;
    }
    let writes = args.workload.writes() || args.preload;
    let raw = args.workload == Workload::DescribeAll && args.phases;
    let admins = if raw {
        Vec::new()
    } else {
        connect_all(&config, args.connections, writes).await?
    };
    if args.workload == Workload::Load || args.preload {
        let progress = Arc::new(Progress::default());
        let plan = LoadPlan {
            start: args.start,
            end: args.acls,
            batch: args.batch_size,
            deny_percent: args.deny_percent,
        };
        let total = plan.end.saturating_sub(plan.start);
        let _line = report::spawn_progress_line(Arc::clone(&progress), Some(total));
        let loaders = if raw {
            connect_all(&config, args.connections, true).await?
        } else {
            admins.clone()
        };
        let (stats, elapsed) = load::load(loaders, plan, progress).await?;
        let loaded = Report::new("load", args.connections, args.acls, elapsed, &[stats]);
        if args.workload == Workload::Load {
            return Ok(loaded);
        }
        // The load's figures go to stderr so that stdout holds one report.
        eprint!("{}", loaded.text());
    }
    let summary = Summary::of_first(args.acls, args.deny_percent);
    let op = Op::for_data_set(args.workload, summary, args)?;
    let mut workers = Vec::with_capacity(args.connections);
    if raw {
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..args.connections {
            let config = config.clone();
            tasks.spawn(async move { phases::RawDescriber::connect(&config).await });
        }
        let mut id = 0;
        while let Some(joined) = tasks.join_next().await {
            let raw = joined?.context("cannot connect")?;
            workers.push(Worker::new(id, Client::Raw(raw), &op)?);
            id += 1;
        }
    } else {
        for (id, admin) in admins.into_iter().enumerate() {
            workers.push(Worker::new(id, Client::Admin(admin), &op)?);
        }
    }
    let progress = Arc::new(Progress::default());
    let _line = report::spawn_progress_line(Arc::clone(&progress), None);
    let (stats, elapsed) =
        workload::drive(workers, op, args.warmup, args.duration, progress).await?;
    Ok(Report::new(
        args.workload.name(),
        args.connections,
        args.acls,
        elapsed,
        &stats,
    ))
}

/// `--in-flight`: the describe workloads on raw pipelined connections.
async fn pipelined(
    args: &AclsPerfArgs,
    config: &AdminConfig,
    in_flight: usize,
) -> anyhow::Result<Report> {
    if in_flight == 0 {
        anyhow::bail!("--in-flight must be at least 1");
    }
    if args.preload {
        anyhow::bail!("--in-flight does not load: run --workload load first");
    }
    let summary = Summary::of_first(args.acls, args.deny_percent);
    let op = Op::for_data_set(args.workload, summary, args)?;
    let requests = Arc::new(pipeline::Requests::prepare(&op, config).await?);
    let mut tasks = tokio::task::JoinSet::new();
    for id in 0..args.connections {
        let config = config.clone();
        let requests = Arc::clone(&requests);
        tasks.spawn(
            async move { pipeline::Pipeliner::connect(id, &config, requests, in_flight).await },
        );
    }
    let mut pipes = Vec::with_capacity(args.connections);
    while let Some(joined) = tasks.join_next().await {
        pipes.push(joined??);
    }
    let progress = Arc::new(Progress::default());
    let _line = report::spawn_progress_line(Arc::clone(&progress), None);
    let measure_from = tokio::time::Instant::now() + args.warmup;
    let end = measure_from + args.duration;
    let mut runs = tokio::task::JoinSet::new();
    for pipe in pipes {
        runs.spawn(pipe.run(measure_from, end, Arc::clone(&progress)));
    }
    let mut merged = report::OpStats::new("describeAcls")?;
    while let Some(joined) = runs.join_next().await {
        merged.merge(&joined??.stats);
    }
    let elapsed = tokio::time::Instant::now().saturating_duration_since(measure_from);
    Ok(Report::new(
        args.workload.name(),
        args.connections,
        args.acls,
        elapsed,
        &[merged],
    ))
}

/// Opens `count` clients, each with its own connection, all at once. Writers also open their
/// connection to the controller now (a DeleteAcls that matches nothing), so that no request
/// in the measurement pays for Metadata or a second handshake.
async fn connect_all(
    config: &AdminConfig,
    count: usize,
    writes: bool,
) -> anyhow::Result<Vec<Admin>> {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..count {
        let config = config.clone();
        tasks.spawn(async move {
            let admin = Admin::connect(config).await?;
            if writes {
                let nothing = AclBindingFilter::new(
                    ResourcePatternFilter::new(
                        kacl_acl::ResourceType::Topic,
                        Some("kacl-perf-no-such-topic"),
                        PatternType::Literal,
                    ),
                    AccessControlEntryFilter::ANY,
                );
                for result in admin
                    .delete_acls(vec![nothing], DeleteAclsOptions::default())
                    .await
                {
                    result?;
                }
            }
            anyhow::Ok(admin)
        });
    }
    let mut admins = Vec::with_capacity(count);
    while let Some(joined) = tasks.join_next().await {
        admins.push(joined?.context("cannot connect")?);
    }
    Ok(admins)
}
