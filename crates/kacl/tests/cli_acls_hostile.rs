//! Hostile desired-state files through `kacl acls plan` and `apply` (the commands that read
//! one; `import` writes one): alias expansion and nesting are refused at once, naming the
//! bound and the line, under the 1.5 GB address-space limit, with the process's peak
//! RSS measured; and an honest file over the old 8 MiB cap is planned and applied, with
//! `--max-file-bytes` the only size limit.

mod cli_support;

use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{kacl, TestServer, KACL};

/// Runs `kacl ARGS` under a 1.5 GB address-space limit: (exit code, stderr, peak RSS in kB,
/// time taken). The peak is the child's `VmHWM`, read until it exits.
fn limited(args: &[&str]) -> (i32, String, u64, Duration) {
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1500000; exec \"$0\" \"$@\"")
        .arg(KACL)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if let Some(kb) = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak = peak.max(kb);
        }
        assert!(Instant::now() < deadline, "kacl {args:?} did not finish");
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        peak,
        started.elapsed(),
    )
}

const HEAD: &str = "version: 1\nscope:\n  all: true\nacls:\n";

#[test]
fn hostile_files_are_refused_at_once_naming_the_bound_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(512 << 10);
    let aliases = format!(
        "{HEAD}  - principal: User:a\n    hosts: [&big {big}]\n  - principal: User:b\n    hosts: [{}]\n",
        ["*big"; 4_000].join(", ")
    );
    let deep = format!(
        "{HEAD}  - principal: User:a\n    hosts: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    for (name, text, says) in [
        ("aliases.yaml", &aliases, "aliases.yaml:6:"),
        ("deep.yaml", &deep, "deep.yaml:6:"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.display().to_string();
        for command in ["plan", "apply"] {
            let (code, stderr, peak_kb, took) = limited(
                &[
                    "acls",
                    command,
                    "--bootstrap-server",
                    "127.0.0.1:1",
                    "--file",
                    &path,
                    "--auto-approve",
                ][..if command == "plan" { 6 } else { 7 }],
            );
            assert_eq!(code, 1, "{command} {name}: {stderr}");
            assert!(stderr.contains(says), "{command} {name}: {stderr}");
            assert!(
                stderr.contains("aliases expand the file beyond its own size")
                    || stderr.contains("nested deeper than 16 levels"),
                "{command} {name}: {stderr}"
            );
            assert!(!stderr.contains("memory allocation"), "{stderr}");
            assert!(took < Duration::from_secs(5), "{command} {name}: {took:?}");
            // The file is read once and its values counted: a few times its size at most.
            assert!(
                peak_kb < 64 * 1024,
                "{command} {name}: peak RSS {peak_kb} kB"
            );
        }
    }
}

/// `n` ACLs, one flow-style rule each, 100 per principal, topic names `pad` bytes longer
/// than the estate's (54 bytes an ACL at `pad` 0).
fn estate(n: usize, pad: usize) -> String {
    let mut text = String::from(HEAD);
    let pad = "x".repeat(pad);
    for p in 0..n.div_ceil(100) {
        let _ = writeln!(text, "  - principal: User:app-{p:05}\n    allow:");
        for t in 0..100.min(n - p * 100) {
            let _ = writeln!(
                text,
                "      - {{topic: svc-{p:05}-{t:03}{pad}, operations: [Read]}}"
            );
        }
    }
    text
}

/// Over the old 8 MiB cap with 60,000 ACLs of long names (a debug build's test; the
/// 200,000-ACL estate is timed in release by scripts/bench_acl_file.sh, BENCHMARKS.md).
#[test]
fn a_file_over_8_mib_is_planned_applied_and_then_has_no_drift() {
    let server = TestServer::plaintext();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("estate.yaml");
    let text = estate(60_000, 90);
    assert!(text.len() > 8 << 20, "{}", text.len());
    std::fs::write(&path, &text).unwrap();
    let path = path.display().to_string();
    let base = ["acls", "--bootstrap-server", &server.addr];
    let run = |extra: &[&str]| kacl(&[&base[..1], extra, &base[1..]].concat());

    let small = run(&["plan", "--file", &path, "--max-file-bytes", "1000000"]);
    assert_eq!(small.code, 1, "{small:?}");
    assert!(
        small
            .stderr
            .contains("more than the limit of 1,000,000 (--max-file-bytes)"),
        "{}",
        small.stderr
    );
    let plan = run(&["plan", "--file", &path]);
    assert_eq!(plan.code, 2, "{}", plan.stderr);
    assert!(
        plan.stdout.contains("Plan: 60,000 to add, 0 to remove"),
        "{}",
        &plan.stdout[plan.stdout.len().saturating_sub(300)..]
    );
    let apply = run(&["apply", "--file", &path, "--auto-approve"]);
    assert_eq!(apply.code, 0, "{}", apply.stderr);
    assert!(
        apply
            .stdout
            .contains("Apply complete: 60,000 added, 0 removed."),
        "{}",
        &apply.stdout[apply.stdout.len().saturating_sub(300)..]
    );
    let drift = run(&["plan", "--file", &path]);
    assert_eq!(drift.code, 0, "{}", drift.stderr);
    assert!(drift.stdout.contains("No changes"), "{}", drift.stdout);
}
