//! The `kacl` binary at its edges: an error says each cause once, and a closed stdout
//! (`kacl ... | head`) ends it quietly.

mod cli_support;

use std::process::{Command, Stdio};

use cli_support::{kacl, TestServer, KACL};

#[test]
fn an_error_says_its_cause_once() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = kacl(&[
        "serve",
        "--override",
        &format!("listeners=PLAINTEXT://{}", taken.local_addr().unwrap()),
        "--override",
        &format!("metadata.log.dir={}", dir.path().display()),
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run
        .stderr
        .lines()
        .find(|l| l.starts_with("Error: "))
        .expect("an error line");
    assert!(error.contains("cannot bind listener"), "{error}");
    assert_eq!(
        error.matches("Address already in use").count(),
        1,
        "{error}"
    );
}

/// Runs `kacl ARGS` with a stdout whose reader is already gone; returns the exit code and
/// stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(KACL)
        .args(args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let server = TestServer::plaintext();
    let topics = ["topics", "--bootstrap-server", server.addr.as_str()];
    let created = kacl(&[&topics[..], &["--create", "--topic", "orders"]].concat());
    assert_eq!(created.code, 0, "{created:?}");

    // A println! in the CLI, and a writeln! to a locked stdout in `serve`.
    let (code, stderr) = with_closed_stdout(&[&topics[..], &["--list"]].concat());
    assert_eq!((code, stderr.as_str()), (Some(141), ""));
    let dir = tempfile::tempdir().unwrap();
    let data = format!("metadata.log.dir={}", dir.path().display());
    let serve = [
        "serve",
        "--override",
        "listeners=PLAINTEXT://127.0.0.1:0",
        "--override",
        &data,
    ];
    let (code, stderr) = with_closed_stdout(&serve);
    assert_eq!((code, stderr.as_str()), (Some(141), ""));
}
