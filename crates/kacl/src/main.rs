//! The `kacl` binary: `serve` runs the server; `acls`, `topics` and `users` are the admin CLI
//! (flags compatible with `kafka-acls.sh`, `kafka-topics.sh`, `kafka-configs.sh`); `perf` is
//! the load generator.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};

mod cli;
mod perf;
mod serve;

/// A Kafka-wire-compatible ACL and admin control plane.
#[derive(Debug, Parser)]
#[command(name = "kacl", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server.
    Serve(serve::ServeArgs),
    /// List, add and remove ACLs (kafka-acls.sh flags).
    Acls(Box<cli::acls::AclsArgs>),
    /// Create, delete, list, describe and alter topics (kafka-topics.sh flags).
    Topics(Box<cli::topics::TopicsArgs>),
    /// Add, delete, list and describe SCRAM users (kafka-configs.sh --entity-type users).
    Users(Box<cli::users::UsersArgs>),
    /// Load generators: drive ACL workloads and report requests/s and latency percentiles.
    Perf(perf::args::PerfArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Acls(args) => cli::acls::run(*args),
        Command::Topics(args) => cli::topics::run(*args),
        Command::Users(args) => cli::users::run(*args),
        Command::Perf(args) => perf::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("Error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
