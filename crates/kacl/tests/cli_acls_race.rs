//! Two `kacl acls apply`s of different files in one scope, racing: the later one sees the
//! earlier one's change and refuses its now-stale plan, sending nothing.

mod cli_support;

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cli_support::{kacl, ok, TestServer, KACL};

const SCOPE: &str = "version: 1
scope:
  resources:
    - topic: orders
      pattern: prefixed
acls:
";

#[test]
fn a_plan_made_stale_while_it_waited_is_refused_and_nothing_sent() {
    let server = TestServer::plaintext();
    let addr = server.addr.as_str();
    let first = server.file(
        "first.yaml",
        &format!("{SCOPE}  - principal: User:alice\n    allow:\n      - topic: orders\n        operations: [Read]\n"),
    );
    let second = server.file(
        "second.yaml",
        &format!("{SCOPE}  - principal: User:bob\n    allow:\n      - topic: orders\n        operations: [Write]\n"),
    );
    // The first apply plans, then waits on its terminal for the answer.
    let command = format!("'{KACL}' acls apply --bootstrap-server '{addr}' --file '{first}'");
    let mut child = Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) is needed for the pty tests");
    let seen = Arc::new(Mutex::new(String::new()));
    let reader = {
        let seen = seen.clone();
        let mut stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let started = Instant::now();
    while !seen.lock().unwrap().contains("Only 'yes' will be accepted") {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no prompt: {}",
            seen.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Meanwhile the second file is applied in the same scope.
    let run = kacl(&[
        "acls",
        "apply",
        "--bootstrap-server",
        addr,
        "--file",
        &second,
        "--auto-approve",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("Apply complete: 1 added, 0 removed."),
        "{run:?}"
    );
    let after_second = ok(&["acls", "--bootstrap-server", addr, "--list"]);

    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"yes\n").expect("type");
    drop(stdin);
    let status = child.wait().expect("wait");
    reader.join().unwrap();
    let out = seen.lock().unwrap().replace('\r', "");
    assert_eq!(status.code(), Some(1), "{out}");
    assert!(
        out.contains("changed within the plan's scope since the plan was made"),
        "{out}"
    );
    assert!(!out.contains("Apply complete"), "{out}");
    assert_eq!(
        ok(&["acls", "--bootstrap-server", addr, "--list"]),
        after_second,
        "the stale plan sent nothing"
    );
    let plan = kacl(&[
        "acls",
        "plan",
        "--bootstrap-server",
        addr,
        "--file",
        &second,
    ]);
    assert_eq!(
        plan.code, 0,
        "the cluster is exactly the second file: {plan:?}"
    );
}
