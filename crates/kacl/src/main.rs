//! The `kacl` binary: `serve` runs the server; `acls`, `topics` and `users` are the admin CLI
//! (flags compatible with `kafka-acls.sh`, `kafka-topics.sh`, `kafka-configs.sh`); `perf` is
//! the load generator (kacl-perf); `console` the web console (kacl-console).
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};

/// mimalloc instead of glibc's allocator: glibc hands freed memory back to the system and
/// faults it in again on the next large request, so a full DescribeAcls of 2M ACLs took ~600 ms
/// end to end with it and ~220 ms with mimalloc, which keeps and reuses it (BENCHMARKS.md,
/// "Whole server"). Transparent huge pages are turned off in `main` for the same reason.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;
mod console;
mod logging;
mod perf;
mod serve;
mod store_cmd;

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
    /// Describe and alter topic, broker and user configs (kafka-configs.sh flags).
    Configs(Box<cli::configs::ConfigsArgs>),
    /// Add, delete, list and describe SCRAM users (kafka-configs.sh --entity-type users).
    Users(Box<cli::users::UsersArgs>),
    /// Load generators: drive ACL workloads and report requests/s and latency percentiles.
    Perf(perf::PerfArgs),
    /// Offline store tools: `kacl store verify --data-dir DIR`, `kacl store copy --from ... --to ...`.
    Store(store_cmd::StoreArgs),
    /// Serve the web console for a cluster (kacl or Kafka).
    Console(console::ConsoleArgs),
}

/// The exit code after a closed stdout: 128 + SIGPIPE, what a shell reports for a Unix tool
/// that the signal ended (`kacl acls --list | head`).
const CLOSED_STDOUT: u8 = 141;

fn main() -> std::process::ExitCode {
    disable_transparent_huge_pages();
    exit_quietly_on_closed_stdout();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Acls(args) => cli::acls::run(*args),
        Command::Topics(args) => cli::topics::run(*args),
        Command::Configs(args) => cli::configs::run(*args),
        Command::Users(args) => cli::users::run(*args),
        Command::Perf(args) => perf::run(args),
        Command::Store(args) => store_cmd::run(args),
        Command::Console(args) => console::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_closed_stdout(&err) => std::process::ExitCode::from(CLOSED_STDOUT),
        Err(err) => {
            eprintln!("Error: {}", describe(&err));
            std::process::ExitCode::FAILURE
        }
    }
}

/// The error and its causes, each said once. Library errors often print their source in their
/// own message as well as returning it as the source (`cannot bind ...: Address already in
/// use`), so anyhow's `{:#}` would repeat it: a cause already in the text is left out.
fn describe(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// A write to stdout failed because its reader went away. Only a bare `io::Error` counts (the
/// CLI's own `writeln!(stdout)?`): a broken connection to a broker comes wrapped in the
/// client's error and is reported.
fn is_closed_stdout(err: &anyhow::Error) -> bool {
    err.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// `println!` panics when stdout's reader is gone ("failed printing to stdout: Broken pipe"):
/// exit quietly then, as Unix tools do, instead of printing the panic.
fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(CLOSED_STDOUT.into());
        }
        default(info);
    }));
}

/// Turns transparent huge pages off for this process. mimalloc asks for them on its arenas, and
/// the first touch of fresh memory then zeroes (and may compact) 2 MiB at a time: the first full
/// DescribeAcls after a start at 2M ACLs took ~1.5 s instead of ~0.5 s. Databases commonly
/// recommend THP off for the same latency reason. A failure (an old kernel) changes nothing
/// else, so it is ignored.
fn disable_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_thp_disable(true);
}
