//! Shared by the CLI and client integration tests: a `kacl serve` child process on a free
//! 127.0.0.1 port with its own data directory, and a runner for the `kacl` binary.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The `kacl` binary under test.
pub(crate) const KACL: &str = env!("CARGO_BIN_EXE_kacl");

/// A running `kacl serve`, killed on drop.
pub(crate) struct TestServer {
    child: Child,
    /// `127.0.0.1:PORT` of the first listener.
    pub addr: String,
    /// The data and config directory.
    pub dir: tempfile::TempDir,
}

impl TestServer {
    /// A PLAINTEXT server in development mode (every client is a super user).
    pub(crate) fn plaintext() -> TestServer {
        TestServer::start(&[
            ("listeners", "PLAINTEXT://127.0.0.1:0"),
            ("super.users", "User:ANONYMOUS"),
        ])
    }

    /// A SASL_PLAINTEXT server with PLAIN users `admin` (super user) and `alice`.
    pub(crate) fn sasl_plain() -> TestServer {
        TestServer::start(&[
            ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
            ("super.users", "User:admin"),
            (
                "sasl.enabled.mechanisms",
                "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
            ),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required \
                 user_admin=\"admin-secret\" user_alice=\"alice-secret\";",
            ),
        ])
    }

    /// Starts `kacl serve` with a config file of `settings` and waits for its listener line.
    pub(crate) fn start(settings: &[(&str, &str)]) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = format!("metadata.log.dir={}\n", dir.path().join("data").display());
        for (key, value) in settings {
            config.push_str(&format!("{key}={value}\n"));
        }
        let config_path = dir.path().join("server.properties");
        std::fs::write(&config_path, config).expect("write config");
        let log = std::fs::File::create(dir.path().join("server.log")).expect("log file");
        let mut child = Command::new(KACL)
            .arg("serve")
            .arg("--config")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn kacl serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("listening ") {
                    let addr = rest.split("://").nth(1).unwrap_or_default().to_owned();
                    let _ = tx.send(addr);
                }
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(addr) => addr,
            Err(_) => {
                let _ = child.kill();
                let log =
                    std::fs::read_to_string(dir.path().join("server.log")).unwrap_or_default();
                panic!("kacl serve did not report a listener; log:\n{log}");
            }
        };
        TestServer { child, addr, dir }
    }

    /// The server's process id (for signals).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server has logged so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// Writes a file in the server's temp dir and returns its path.
    pub(crate) fn file(&self, name: &str, contents: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, contents).expect("write file");
        path.display().to_string()
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

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
