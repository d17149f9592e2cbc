//! `kacl serve`: placeholder until the server lands.

/// Flags of `kacl serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {}

/// Runs the server until SIGTERM/SIGINT.
pub fn run(_args: ServeArgs) -> anyhow::Result<std::process::ExitCode> {
    anyhow::bail!("kacl serve is not built yet")
}
