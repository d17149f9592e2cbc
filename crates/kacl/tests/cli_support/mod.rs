//! Shared by the CLI and client integration tests: a `kacl serve` child process on a free
//! 127.0.0.1 port with its own data directory (started by `kacl_test_support::ServerBuilder`),
//! and a runner for the `kacl` binary.
#![allow(dead_code)]

use std::io::Write;
use std::ops::Deref;
use std::process::{Command, Output, Stdio};

use kacl_test_support::{ChildServer, ServerBuilder};

/// The `kacl` binary under test.
pub(crate) const KACL: &str = env!("CARGO_BIN_EXE_kacl");

/// A running `kacl serve` (a [`ChildServer`] from [`ServerBuilder::spawn`]: `addr`, `dir`,
/// `pid()`, `log()`, `file()`), killed on drop.
pub(crate) struct TestServer(ChildServer);

impl Deref for TestServer {
    type Target = ChildServer;
    fn deref(&self) -> &ChildServer {
        &self.0
    }
}

impl TestServer {
    /// A PLAINTEXT server in development mode (every client is a super user).
    pub(crate) fn plaintext() -> TestServer {
        TestServer(ServerBuilder::plaintext().spawn(KACL))
    }

    /// A SASL_PLAINTEXT server with PLAIN users `admin` (super user) and `alice`.
    pub(crate) fn sasl_plain() -> TestServer {
        TestServer(ServerBuilder::sasl_plain("PLAIN,SCRAM-SHA-256,SCRAM-SHA-512").spawn(KACL))
    }

    /// Starts `kacl serve` with a config file of `settings` and waits for its listener line.
    pub(crate) fn start(settings: &[(&str, &str)]) -> TestServer {
        TestServer(ServerBuilder::bare().properties(settings).spawn(KACL))
    }

    /// The command-config file for a PLAIN user.
    pub(crate) fn plain_config(&self, user: &str, password: &str) -> String {
        self.file(
            &format!("{user}-{password}.properties"),
            &format!(
                "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n\
                 sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule \
                 required username=\"{user}\" password=\"{password}\";\n"
            ),
        )
    }
}

/// What a CLI run produced.
#[derive(Debug)]
pub(crate) struct Run {
    /// The exit code (-1 if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Runs `kacl ARGS` with stdin closed.
pub(crate) fn kacl(args: &[&str]) -> Run {
    Command::new(KACL)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run kacl")
        .into()
}

/// Runs `kacl ARGS` with `input` on stdin.
pub(crate) fn kacl_with_stdin(args: &[&str], input: &str) -> Run {
    let mut child = Command::new(KACL)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kacl");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).expect("write stdin");
    }
    child.wait_with_output().expect("wait kacl").into()
}

/// Runs `kacl` and insists on success.
pub(crate) fn ok(args: &[&str]) -> String {
    let run = kacl(args);
    assert_eq!(run.code, 0, "kacl {args:?} failed: {run:?}");
    run.stdout
}

/// Parses a JSON document from a successful run's stdout.
pub(crate) fn json(args: &[&str]) -> serde_json::Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}
