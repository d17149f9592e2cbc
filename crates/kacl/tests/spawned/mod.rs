//! The real `kacl` binary as a child process, for the tests that need a whole server (signals,
//! crashes, restarts on the same data directory).
#![allow(dead_code)] // each test binary uses its own subset

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Child;

/// The binary under test, built by cargo for the integration tests.
pub(crate) const KACL: &str = env!("CARGO_BIN_EXE_kacl");

/// `kacl serve` arguments: one PLAINTEXT listener on an ephemeral loopback port, data in `dir`.
pub(crate) fn serve_args(dir: &Path) -> Vec<String> {
    vec![
        "serve".to_owned(),
        "--override".to_owned(),
        "listeners=PLAINTEXT://127.0.0.1:0".to_owned(),
        "--override".to_owned(),
        format!("metadata.log.dir={}", dir.display()),
    ]
}

/// Waits for the server's first stdout line, `listening PLAINTEXT://ADDR`, and returns ADDR.
/// The child must have been spawned with a piped stdout.
pub(crate) fn listening_addr(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("a listening line");
    line.trim()
        .strip_prefix("listening PLAINTEXT://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned()
}
