//! The `kacl` binary: `serve`, `acls`, `topics`, `users`, `perf`.
#![forbid(unsafe_code)]

fn main() -> anyhow::Result<()> {
    anyhow::bail!("kacl: the server and CLI are not built yet")
}
