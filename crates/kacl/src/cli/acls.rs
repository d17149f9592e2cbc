//! `kacl acls`: placeholder until the client lands.

/// Flags of `kacl acls`.
#[derive(Debug, clap::Args)]
pub struct AclsArgs {}

/// Runs `kacl acls`.
pub fn run(_args: AclsArgs) -> anyhow::Result<std::process::ExitCode> {
    anyhow::bail!("kacl acls is not built yet")
}
