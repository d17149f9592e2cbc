//! The binary's log output, shared by `kacl serve` and `kacl console`: its own module so that
//! neither command's module imports the other for it.

use tracing_subscriber::EnvFilter;

/// Log lines to stderr, `RUST_LOG` or `info`.
pub(crate) fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}
