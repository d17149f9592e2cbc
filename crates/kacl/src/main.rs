//! The `kacl` binary: `serve` runs the server; `acls`, `topics` and `users` are the admin CLI
//! (flags compatible with `kafka-acls.sh`, `kafka-topics.sh`, `kafka-configs.sh`); `perf` is
//! the load generator.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};

mod cli;
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
    Acls(cli::acls::AclsArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Acls(args) => cli::acls::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("Error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
