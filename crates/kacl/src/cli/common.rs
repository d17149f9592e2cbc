//! What every admin subcommand shares: the connection flags (`--bootstrap-server`,
//! `--bootstrap-controller`, `--command-config`), turning them into an [`AdminConfig`], the
//! small runtime the CLI runs on, and the `--output` format.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{bail, Context};
use kacl_client::{AdminConfig, Properties};

/// Connection flags, as `kafka-acls.sh` names them.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ConnectionArgs {
    /// Brokers to bootstrap from: host1:port1,host2:port2,...
    #[arg(long, value_name = "HOST:PORT")]
    pub bootstrap_server: Option<String>,
    /// Controllers to bootstrap from (KIP-919); kacl treats them like brokers.
    #[arg(long, value_name = "HOST:PORT")]
    pub bootstrap_controller: Option<String>,
    /// Kafka client properties file: security.protocol, sasl.mechanism, sasl.jaas.config,
    /// ssl.truststore.location, client.id, request.timeout.ms, ...
    #[arg(long, value_name = "FILE")]
    pub command_config: Option<PathBuf>,
}

impl ConnectionArgs {
    /// Checks the flags as Kafka's tools do and builds the client configuration.
    pub(crate) fn admin_config(&self) -> anyhow::Result<AdminConfig> {
        let servers = match (&self.bootstrap_server, &self.bootstrap_controller) {
            (Some(_), Some(_)) => {
                bail!("Only one of --bootstrap-server or --bootstrap-controller must be specified")
            }
            (None, None) => {
                bail!("One of --bootstrap-server or --bootstrap-controller must be specified")
            }
            (Some(s), None) | (None, Some(s)) => s.clone(),
        };
        let props = match &self.command_config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                Properties::parse(&text)
                    .with_context(|| format!("cannot parse {}", path.display()))?
            }
            None => Properties::default(),
        };
        let (config, notes) = AdminConfig::from_properties(&servers, &props)?;
        for key in notes.unused {
            tracing::debug!(%key, "command config key not used by kacl");
        }
        for warning in notes.warnings {
            eprintln!("warning: {warning}");
        }
        Ok(config)
    }
}

/// `--output`: text in Kafka's format, or JSON for scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// What the Kafka tool prints.
    #[default]
    Text,
    /// One JSON document on stdout.
    Json,
}

/// Runs `work` on a single-threaded runtime: an admin command is a handful of requests and a
/// one-thread runtime starts faster.
pub(crate) fn block_on<T>(
    work: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(work)
}

/// Whether to ask before a destructive action: only when a person can answer.
pub(crate) fn can_prompt() -> bool {
    std::io::stdin().is_terminal()
}

/// Prints `question`, reads one line, and says whether it was `y` (any case), as Kafka's
/// `confirmAction` does.
pub(crate) fn confirm(question: &str) -> anyhow::Result<bool> {
    println!("{question}");
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .context("cannot read the answer")?;
    Ok(answer.trim().eq_ignore_ascii_case("y"))
}
