//! `kacl perf`: the command line of the load generator in `kacl-perf` (the connection flags
//! and `--output` are the CLI's own; the workload flags and the engine are the crate's).

use std::process::ExitCode;

use kacl_perf::args::{AclsPerfArgs, RecordsPerfArgs, ACLS_EXAMPLES, RECORDS_EXAMPLES};

use crate::cli::common::{ConnectionArgs, OutputFormat};

/// `kacl perf`: load generators.
#[derive(Debug, clap::Args)]
pub(crate) struct PerfArgs {
    #[command(subcommand)]
    pub command: PerfCommand,
}

/// What to load-test.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum PerfCommand {
    /// Load ACLs in the shape of Kafka's AuthorizerBenchmark, or drive an ACL workload for a
    /// fixed time, and print requests/s, ACLs/s and latency percentiles.
    #[command(after_long_help = ACLS_EXAMPLES)]
    Acls(Box<AclsCommand>),
    /// Produce records to, or consume them from, any Kafka bootstrap server (a broker, or a
    /// kacl gateway in front of one), and print records/s, MB/s and latency percentiles.
    #[command(after_long_help = RECORDS_EXAMPLES)]
    Records(Box<RecordsCommand>),
}

/// The flags of `kacl perf records`.
#[derive(Debug, clap::Args)]
pub(crate) struct RecordsCommand {
    #[command(flatten)]
    connection: ConnectionArgs,
    #[command(flatten)]
    perf: RecordsPerfArgs,
    /// Print text or one JSON document.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    output: OutputFormat,
}

/// The flags of `kacl perf acls`.
#[derive(Debug, clap::Args)]
pub(crate) struct AclsCommand {
    #[command(flatten)]
    connection: ConnectionArgs,
    #[command(flatten)]
    perf: AclsPerfArgs,
    /// Print text or one JSON document.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    output: OutputFormat,
}

/// Runs `kacl perf`.
pub(crate) fn run(args: PerfArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        PerfCommand::Acls(command) => {
            let config = command.connection.admin_config()?;
            let report = kacl_perf::run_acls(&command.perf, config)?;
            match command.output {
                OutputFormat::Text => print!("{}", report.text()),
                OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
            }
            Ok(if report.has_errors() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        PerfCommand::Records(command) => {
            let config = command.connection.admin_config()?;
            let report = kacl_perf::run_records(&command.perf, config)?;
            match command.output {
                OutputFormat::Text => print!("{}", report.text()),
                OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
            }
            Ok(if report.has_errors() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}
