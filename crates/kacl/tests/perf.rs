//! `kacl perf acls` against a `kacl serve` process: the load creates exactly the data set it
//! reports, and each timed workload sees what the data set holds (ACL counts per request), in
//! the JSON report. No timing is asserted.

mod spawned;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use spawned::{listening_addr, serve_args, KACL};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_server(dir: &Path) -> (Server, String) {
    let mut child = Command::new(KACL)
        .args(serve_args(dir))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kacl starts");
    let addr = listening_addr(&mut child);
    (Server(child), addr)
}

/// Runs `kacl perf acls` with `args`; returns the JSON report.
fn perf(addr: &str, args: &[&str]) -> serde_json::Value {
    let output = Command::new(KACL)
        .args([
            "perf",
            "acls",
            "--bootstrap-server",
            addr,
            "--output",
            "json",
        ])
        .args(args)
        .output()
        .expect("kacl perf runs");
    assert!(
        output.status.success(),
        "kacl perf {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON report on stdout")
}

fn op<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["operations"]
        .as_array()
        .and_then(|ops| ops.iter().find(|op| op["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

fn count(value: &serde_json::Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("not a count: {value}"))
}

#[test]
fn load_then_every_workload() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_server, addr) = spawn_server(dir.path());
    // 10,110 ACLs: 1,000 resources and their extras, one complete auditor; then 1,000 more
    // resources' worth, continuing where the first load stopped.
    let first = perf(
        &addr,
        &[
            "--workload",
            "load",
            "--acls",
            "10110",
            "--batch-size",
            "700",
            "--connections",
            "3",
        ],
    );
    let created = op(&first, "createAcls");
    assert_eq!(count(&created["acls"]), 10_110);
    assert_eq!(
        count(&created["requests"]),
        15,
        "ceil(10110 / 700) requests"
    );
    assert_eq!(count(&created["errors"]), 0);
    let second = perf(
        &addr,
        &[
            "--workload",
            "load",
            "--start",
            "10110",
            "--acls",
            "20220",
            "--connections",
            "2",
        ],
    );
    assert_eq!(count(&op(&second, "createAcls")["acls"]), 10_110);

    let all = perf(
        &addr,
        &[
            "--workload",
            "describe-all",
            "--acls",
            "20220",
            "--duration",
            "300ms",
        ],
    );
    let described = op(&all, "describeAcls");
    let requests = count(&described["requests"]);
    assert!(requests >= 1);
    assert_eq!(
        count(&described["acls"]),
        requests * 20_220,
        "every ACL, every time"
    );

    let phases = perf(
        &addr,
        &[
            "--workload",
            "describe-all",
            "--acls",
            "20220",
            "--duration",
            "200ms",
            "--phases",
        ],
    );
    for phase in ["describeAcls", "wire", "decode", "bindings", "drop"] {
        let phase = op(&phases, phase);
        assert_eq!(count(&phase["acls"]), count(&phase["requests"]) * 20_220);
    }

    let principal = perf(
        &addr,
        &[
            "--workload",
            "describe-principal",
            "--acls",
            "20220",
            "--connections",
            "4",
            "--duration",
            "300ms",
        ],
    );
    assert_eq!(principal["connections"], 4);
    let described = op(&principal, "describeAcls");
    assert_eq!(
        count(&described["acls"]),
        count(&described["requests"]) * 10,
        "each auditor holds 10 ACLs"
    );

    let resource = perf(
        &addr,
        &[
            "--workload",
            "describe-resource",
            "--acls",
            "20220",
            "--duration",
            "300ms",
        ],
    );
    let described = op(&resource, "describeAcls");
    assert_eq!(count(&described["errors"]), 0);
    assert!(count(&described["acls"]) >= count(&described["requests"]) * 10);

    // Pipelined: raw connections, several requests in flight on each, answers checked.
    for (workload, in_flight) in [("describe-principal", "5"), ("describe-resource", "3")] {
        let pipelined = perf(
            &addr,
            &[
                "--workload",
                workload,
                "--acls",
                "20220",
                "--connections",
                "3",
                "--in-flight",
                in_flight,
                "--duration",
                "300ms",
            ],
        );
        let described = op(&pipelined, "describeAcls");
        assert_eq!(count(&described["errors"]), 0, "{workload}: {described}");
        assert!(
            count(&described["requests"]) >= 3,
            "{workload}: {described}"
        );
    }

    let churn = perf(
        &addr,
        &[
            "--workload",
            "create-delete",
            "--batch-size",
            "5",
            "--connections",
            "2",
            "--duration",
            "300ms",
        ],
    );
    let created = op(&churn, "createAcls");
    let deleted = op(&churn, "deleteAcls");
    assert_eq!(count(&created["acls"]), count(&created["requests"]) * 5);
    assert_eq!(count(&deleted["acls"]), count(&created["acls"]));
    assert_eq!(count(&deleted["errors"]), 0);

    let metadata = perf(&addr, &["--workload", "metadata", "--duration", "200ms"]);
    assert!(count(&op(&metadata, "metadata")["requests"]) >= 1);

    // create-delete left nothing behind.
    let after = perf(
        &addr,
        &[
            "--workload",
            "describe-all",
            "--acls",
            "20220",
            "--duration",
            "100ms",
        ],
    );
    let described = op(&after, "describeAcls");
    assert_eq!(
        count(&described["acls"]),
        count(&described["requests"]) * 20_220
    );
}

#[test]
fn describe_principal_needs_an_auditor_or_a_principal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_server, addr) = spawn_server(dir.path());
    let output = Command::new(KACL)
        .args(["perf", "acls", "--bootstrap-server", &addr])
        .args(["--workload", "describe-principal", "--acls", "100"])
        .output()
        .expect("kacl perf runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--principal"));
}
