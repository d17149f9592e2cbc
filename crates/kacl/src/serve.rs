//! `kacl serve`: load the configuration (a Kafka `server.properties` file and `--override`
//! pairs), start the server, and run until SIGTERM or SIGINT, then shut down gracefully.
//!
//! Logs go to stderr through `tracing` (filter with `RUST_LOG`, default `info`). Once every
//! listener is bound, one line per listener is printed on stdout,
//! `listening NAME://HOST:PORT`, so scripts and tests can find ports chosen by the OS.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use kacl_server::Server;
use kacl_server_config::{ServerConfig, DEFAULT_DATA_DIR, DEFAULT_LISTENERS};

/// Flags of `kacl serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// A Kafka server.properties file (Kafka's key names). Without it, kacl runs on
    /// development defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Set one key on top of the file (or the defaults); repeatable.
    #[arg(long = "override", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// Runs the server until SIGTERM/SIGINT.
pub(crate) fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    crate::logging::init();
    let config = ServerConfig::load(args.config.as_deref(), &args.overrides)?;
    if config.is_development {
        tracing::warn!(
            "no --config given: running on development defaults (listeners={DEFAULT_LISTENERS}, \
             super.users=User:ANONYMOUS, data in {DEFAULT_DATA_DIR}) with {} override(s); \
             every PLAINTEXT client is a super user",
            args.overrides.len()
        );
    }
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    if let Err(err) = runtime.block_on(serve(config)) {
        // A refused data directory gets its own exit code, so a supervisor can stop
        // restarting a server that will refuse again (docs/operations.md).
        if err
            .downcast_ref::<kacl_server::StartError>()
            .is_some_and(kacl_server::StartError::refuses_data_dir)
        {
            eprintln!("Error: {err:#}");
            return Ok(ExitCode::from(kacl_store::EXIT_DATA_DIR_REFUSED));
        }
        return Err(err);
    }
    Ok(ExitCode::SUCCESS)
}

async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    let console_listen = config.console_listen.clone();
    let server = Server::start(config).await?;
    {
        let mut stdout = std::io::stdout().lock();
        for listener in server.listeners() {
            writeln!(
                stdout,
                "listening {}://{}",
                listener.name, listener.local_addr
            )?;
        }
        stdout.flush()?;
    }
    if let Some(listen) = console_listen {
        crate::console::embedded(&server, &listen).await?;
    }
    let handle = server.shutdown_handle();
    let reloader = server.tls_reloader();
    tokio::spawn(async move {
        match wait_for_signals(&reloader).await {
            Ok(signal) => tracing::info!(signal, "shutting down"),
            Err(err) => tracing::error!(%err, "cannot listen for signals; shutting down"),
        }
        handle.shutdown();
    });
    server.wait().await;
    Ok(())
}

/// Reloads the TLS key and trust stores on each SIGHUP (certificate rotation without a
/// restart); resolves on SIGTERM or SIGINT, naming the signal.
async fn wait_for_signals(reloader: &kacl_server::TlsReloader) -> std::io::Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut hangup = signal(SignalKind::hangup())?;
    loop {
        tokio::select! {
            _ = terminate.recv() => return Ok("SIGTERM"),
            _ = interrupt.recv() => return Ok("SIGINT"),
            _ = hangup.recv() => {
                tracing::info!("SIGHUP: reloading TLS key and trust stores");
                if reloader.reload().is_empty() {
                    tracing::info!("no TLS listener to reload");
                }
            }
        }
    }
}
