//! `kacl acls plan | apply | import | explain | who-can | effective` against a real
//! `kacl serve`: exit codes, the scope, confirmation on a terminal (a pty from `script`),
//! the removal guard, saved plans and drift, file errors, and each deciding rule's text.

mod cli_support;

use std::io::Write as _;
use std::process::{Command, Stdio};

use cli_support::{kacl, ok, TestServer, KACL};

fn args<'a>(sub: &'a str, addr: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["acls", sub, "--bootstrap-server", addr];
    v.extend_from_slice(extra);
    v
}

fn add(addr: &str, extra: &[&str]) {
    let mut v = vec!["acls", "--bootstrap-server", addr, "--add"];
    v.extend_from_slice(extra);
    ok(&v);
}

fn list(addr: &str) -> String {
    ok(&["acls", "--bootstrap-server", addr, "--list"])
}

/// Three ACLs: two under `orders` (the file's scope), one on `payments` (outside).
fn seed(addr: &str) {
    add(
        addr,
        &[
            "--allow-principal",
            "User:alice",
            "--operation",
            "Read",
            "--topic",
            "orders",
        ],
    );
    add(
        addr,
        &[
            "--allow-principal",
            "User:alice",
            "--operation",
            "Write",
            "--topic",
            "orders-eu",
        ],
    );
    add(
        addr,
        &[
            "--allow-principal",
            "User:bob",
            "--operation",
            "Read",
            "--topic",
            "payments",
        ],
    );
}

const FILE: &str = "version: 1
scope:
  resources:
    - topic: orders
      pattern: prefixed
acls:
  - principal: User:alice
    allow:
      - topic: orders
        operations: [Read, Describe]
";

#[test]
fn import_then_plan_is_empty_and_plan_exit_codes_follow_terraform() {
    let server = TestServer::plaintext();
    seed(&server.addr);
    let imported = ok(&args("import", &server.addr, &["--scope", "topic=orders*"]));
    let path = server.file("imported.yaml", &imported);
    let run = kacl(&args("plan", &server.addr, &["--file", &path]));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "No changes: the cluster matches the file within its scope.\n\
         Plan: 0 to add, 0 to remove, 2 unchanged, 1 outside scope untouched\n"
    );
    let json_import = ok(&args(
        "import",
        &server.addr,
        &["--scope", "topic=orders*", "--output", "json"],
    ));
    let path = server.file("imported.json", &json_import);
    assert_eq!(
        kacl(&args("plan", &server.addr, &["--file", &path])).code,
        0
    );

    let path = server.file("acls.yaml", FILE);
    let run = kacl(&args("plan", &server.addr, &["--file", &path]));
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stdout,
        "Resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:\n  \
         + (principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)\n\n\
         Resource `ResourcePattern(resourceType=TOPIC, name=orders-eu, patternType=LITERAL)`:\n  \
         - (principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)\n\n\
         Plan: 1 to add, 1 to remove, 1 unchanged, 1 outside scope untouched\n"
    );
    let run = kacl(&args(
        "plan",
        &server.addr,
        &["--file", &path, "--output", "json"],
    ));
    assert_eq!(run.code, 2);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(doc["additions"][0]["operation"], "DESCRIBE");
    assert_eq!(doc["removals"][0]["resource_name"], "orders-eu");
    assert_eq!(doc["outside_scope"], 1);

    // A broken file: exit 1, with file, line and column.
    let bad = server.file(
        "bad.yaml",
        &FILE.replace("[Read, Describe]", "[Read, Descrbe]"),
    );
    let run = kacl(&args("plan", &server.addr, &["--file", &bad]));
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(&format!(
            "{bad}:10:28: acls[0].allow[0].operations[1]: unknown operation `Descrbe`"
        )),
        "{run:?}"
    );
    let run = kacl(&args(
        "plan",
        &server.addr,
        &["--file", "/nonexistent/acls.yaml"],
    ));
    assert_eq!(run.code, 1);
}

#[test]
fn apply_needs_a_terminal_or_auto_approve_and_leaves_the_outside_alone() {
    let server = TestServer::plaintext();
    seed(&server.addr);
    let path = server.file("acls.yaml", FILE);
    let before = list(&server.addr);
    let run = kacl(&args("apply", &server.addr, &["--file", &path]));
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("there is no terminal to ask on; pass --auto-approve"),
        "{run:?}"
    );
    assert_eq!(list(&server.addr), before, "nothing applied");

    let run = kacl(&args(
        "apply",
        &server.addr,
        &["--file", &path, "--auto-approve"],
    ));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .ends_with("Apply complete: 1 added, 1 removed.\n"),
        "{run:?}"
    );
    let after = list(&server.addr);
    assert!(
        after.contains("principal=User:bob, host=*, operation=READ"),
        "outside kept: {after}"
    );
    assert!(!after.contains("orders-eu"), "{after}");
    // A second apply is a no-op.
    let run = kacl(&args(
        "apply",
        &server.addr,
        &["--file", &path, "--auto-approve"],
    ));
    assert_eq!(run.code, 0);
    assert!(run
        .stdout
        .contains("Plan: 0 to add, 0 to remove, 2 unchanged, 1 outside scope untouched"));
    assert!(!run.stdout.contains("Apply complete"));
}

/// Runs `kacl ARGS` on a pseudo-terminal (util-linux `script`), typing `input`.
fn on_pty(args: &[&str], input: &str) -> (i32, String) {
    let command = std::iter::once(KACL)
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) is needed for the pty tests");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("type");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).replace('\r', ""),
    )
}

#[test]
fn apply_on_a_terminal_asks_and_only_yes_applies() {
    let server = TestServer::plaintext();
    seed(&server.addr);
    let path = server.file("acls.yaml", FILE);
    let before = list(&server.addr);
    let (code, out) = on_pty(&args("apply", &server.addr, &["--file", &path]), "no\n");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("Do you want to apply these changes? Only 'yes' will be accepted:"),
        "{out}"
    );
    assert!(out.contains("Apply cancelled."), "{out}");
    // Coloured on a terminal.
    assert!(
        out.contains("\x1b[32m  + (principal=User:alice, host=*, operation=DESCRIBE"),
        "{out:?}"
    );
    assert_eq!(list(&server.addr), before);

    let (code, out) = on_pty(&args("apply", &server.addr, &["--file", &path]), "yes\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Apply complete: 1 added, 1 removed."), "{out}");
    assert_eq!(
        kacl(&args("plan", &server.addr, &["--file", &path])).code,
        0
    );
}

#[test]
fn the_removal_guard_refuses_large_removals_until_raised() {
    let server = TestServer::plaintext();
    seed(&server.addr);
    let empty = server.file(
        "empty.yaml",
        "version: 1\nscope:\n  resources:\n    - topic: orders\n      pattern: prefixed\nacls: []\n",
    );
    let run = kacl(&args(
        "apply",
        &server.addr,
        &["--file", &empty, "--auto-approve", "--max-removals", "1"],
    ));
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("the plan removes 2 ACLs, more than --max-removals 1"),
        "{run:?}"
    );
    let run = kacl(&args(
        "apply",
        &server.addr,
        &["--file", &empty, "--auto-approve", "--max-removals", "2"],
    ));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Apply complete: 0 added, 2 removed."));
    assert!(list(&server.addr).contains("payments"));
}

#[test]
fn a_saved_plan_is_refused_after_drift_and_applied_exactly_otherwise() {
    let server = TestServer::plaintext();
    seed(&server.addr);
    let path = server.file("acls.yaml", FILE);
    let run = kacl(&args(
        "plan",
        &server.addr,
        &["--file", &path, "--output", "json"],
    ));
    assert_eq!(run.code, 2);
    let saved = server.file("plan.json", &run.stdout);

    // Drift outside the scope does not matter; inside it does.
    add(
        &server.addr,
        &[
            "--allow-principal",
            "User:carol",
            "--operation",
            "Read",
            "--topic",
            "payments",
        ],
    );
    add(
        &server.addr,
        &[
            "--allow-principal",
            "User:carol",
            "--operation",
            "Read",
            "--topic",
            "orders-us",
        ],
    );
    let run = kacl(&args(
        "apply",
        &server.addr,
        &["--plan-file", &saved, "--auto-approve"],
    ));
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("changed within the plan's scope since the plan was made"),
        "{run:?}"
    );

    let mut remove = vec![
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--remove",
        "--force",
    ];
    remove.extend([
        "--allow-principal",
        "User:carol",
        "--operation",
        "Read",
        "--topic",
        "orders-us",
    ]);
    ok(&remove);
    let run = kacl(&args(
        "apply",
        &server.addr,
        &["--plan-file", &saved, "--auto-approve"],
    ));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("Apply complete: 1 added, 1 removed."),
        "{run:?}"
    );
}

fn first_line(addr: &str, extra: &[&str]) -> String {
    let out = ok(&args("explain", addr, extra));
    out.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn explain_names_each_deciding_rule_as_kafkas_audit_line_does() {
    let server = TestServer::plaintext();
    let a = &server.addr;
    add(
        a,
        &[
            "--allow-principal",
            "User:alice",
            "--operation",
            "Read",
            "--topic",
            "orders",
        ],
    );
    add(
        a,
        &[
            "--deny-principal",
            "User:alice",
            "--deny-host",
            "10.0.0.9",
            "--operation",
            "Read",
            "--topic",
            "orders",
            "--resource-pattern-type",
            "prefixed",
        ],
    );

    // The server masks its super.users (as Kafka 4.4 does), so the flags give them.
    let out = ok(&args(
        "explain",
        a,
        &[
            "--principal",
            "User:ANONYMOUS",
            "--operation",
            "Alter",
            "--cluster",
            "--super-users",
            "User:ANONYMOUS",
        ],
    ));
    assert!(
        out.starts_with(concat!(
            "ALLOWED: Principal = User:ANONYMOUS is Allowed operation = ALTER from host = * on \
             resource = Cluster:LITERAL:kafka-cluster based on rule SuperUser\n\
             Why: User:ANONYMOUS is listed in super.users.\n",
            "super.users and allow.everyone.if.no.acl.found: from --super-users / --allow-everyone-if-no-acl-found (the broker did not report them; Kafka 4.4 and kacl mask them).\n"
        )),
        "{out}"
    );
    let root = [
        "--principal",
        "User:root",
        "--operation",
        "Alter",
        "--cluster",
    ];
    assert!(first_line(a, &root).ends_with("based on rule DefaultDeny"));
    let mut flagged = root.to_vec();
    flagged.extend(["--super-users", "User:root"]);
    assert!(first_line(a, &flagged).ends_with("based on rule SuperUser"));
    assert_eq!(
        first_line(a, &["--principal", "User:alice", "--operation", "Describe", "--topic", "orders"]),
        "ALLOWED: Principal = User:alice is Allowed operation = DESCRIBE from host = * on resource = \
         Topic:LITERAL:orders based on rule MatchingAcl(acl=StandardAcl(resourceType=TOPIC, \
         resourceName=orders, patternType=LITERAL, principal=User:alice, host=*, operation=READ, \
         permissionType=ALLOW))"
    );
    assert_eq!(
        first_line(a, &["--principal", "User:alice", "--operation", "Read", "--topic", "orders", "--host", "10.0.0.9"]),
        "DENIED: Principal = User:alice is Denied operation = READ from host = 10.0.0.9 on resource = \
         Topic:LITERAL:orders based on rule MatchingAcl(acl=StandardAcl(resourceType=TOPIC, \
         resourceName=orders, patternType=PREFIXED, principal=User:alice, host=10.0.0.9, \
         operation=READ, permissionType=DENY))"
    );
    let open = TestServer::start(&[
        ("listeners", "PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:ANONYMOUS"),
        ("allow.everyone.if.no.acl.found", "true"),
    ]);
    assert_eq!(
        first_line(
            &open.addr,
            &[
                "--principal",
                "User:bob",
                "--operation",
                "Read",
                "--topic",
                "free",
                "--allow-everyone-if-no-acl-found",
                "true"
            ]
        ),
        "ALLOWED: Principal = User:bob is Allowed operation = READ from host = * on resource = \
         Topic:LITERAL:free based on rule DefaultAllow"
    );
    let out = ok(&args(
        "explain",
        a,
        &[
            "--principal",
            "User:Alice",
            "--operation",
            "Read",
            "--topic",
            "orders",
        ],
    ));
    assert!(out.starts_with(
        "DENIED: Principal = User:Alice is Denied operation = READ from host = * on resource = \
         Topic:LITERAL:orders based on rule DefaultDeny\n\
         Why: ACLs apply to the resource, but none matches this principal, host and operation.\n\
         super.users and allow.everyone.if.no.acl.found: from --super-users / --allow-everyone-if-no-acl-found (the broker did not report them; Kafka 4.4 and kacl mask them).\n"
    ), "{out}");
    assert!(
        out.contains("principal User:alice differs from User:Alice only in case"),
        "{out}"
    );
    assert!(out.contains(&format!(
        "To grant it:\n  kacl acls --bootstrap-server {a} --add --allow-principal User:Alice --operation Read --topic orders\n"
    )), "{out}");

    // Another principal's candidates are counted in the text, not listed; JSON lists them.
    let out = ok(&args(
        "explain",
        a,
        &[
            "--principal",
            "User:carol",
            "--operation",
            "Read",
            "--topic",
            "orders",
        ],
    ));
    assert!(
        out.contains(
            "\nCandidate ACLs (LITERAL name, LITERAL *, PREFIXED prefixes): 2\n  \
             and 2 ACL(s) of other principals (listed with --output json)\n"
        ),
        "{out}"
    );
    let run = kacl(&args(
        "explain",
        a,
        &[
            "--principal",
            "User:carol",
            "--operation",
            "Read",
            "--topic",
            "orders",
            "--output",
            "json",
        ],
    ));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(doc["candidates"].as_array().map(Vec::len), Some(2));
    assert_eq!(doc["candidates"][0]["applies"], false);
    assert!(doc["candidates"][0]["mismatches"][0]
        .as_str()
        .is_some_and(|m| m.starts_with("principal User:alice is not User:carol")));
    let run = kacl(&args(
        "explain",
        a,
        &[
            "--principal",
            "User:alice",
            "--operation",
            "Read",
            "--topic",
            "orders",
            "--output",
            "json",
        ],
    ));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(doc["decision"], "ALLOWED");
    assert_eq!(doc["config_source"], "flags");
    assert_eq!(doc["candidates"].as_array().map(Vec::len), Some(2));
}

#[test]
fn who_can_and_effective_list_grants_denials_and_implied_operations() {
    let server = TestServer::plaintext();
    let a = &server.addr;
    add(
        a,
        &[
            "--allow-principal",
            "User:alice",
            "--allow-principal",
            "User:bob",
            "--operation",
            "Write",
            "--topic",
            "orders",
        ],
    );
    add(
        a,
        &[
            "--deny-principal",
            "User:bob",
            "--operation",
            "Write",
            "--topic",
            "ord",
            "--resource-pattern-type",
            "prefixed",
        ],
    );
    let out = ok(&args(
        "who-can",
        a,
        &["--operation", "Write", "--topic", "orders"],
    ));
    assert!(
        out.starts_with("Who can WRITE on Topic:LITERAL:orders\n"),
        "{out}"
    );
    assert!(out.contains(
        "Allowed:\n  User:alice from *\n    via (pattern=ResourcePattern(resourceType=TOPIC, name=orders, \
         patternType=LITERAL), entry=(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW))\n"
    ), "{out}");
    assert!(out.contains(
        "Granted but denied (a DENY carves the exception):\n  User:bob from *\n    by (pattern=ResourcePattern(resourceType=TOPIC, name=ord, \
         patternType=PREFIXED), entry=(principal=User:bob, host=*, operation=WRITE, permissionType=DENY))\n"
    ), "{out}");

    let out = ok(&[
        "acls",
        "effective",
        "--bootstrap-server",
        a,
        "--principal",
        "User:alice",
    ]);
    assert_eq!(
        out,
        "What User:alice can do (its ACLs and User:*'s):\n  \
         ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)\n    \
         allowed: WRITE, DESCRIBE (implied by WRITE)\n"
    );
    let out = ok(&[
        "acls",
        "effective",
        "--bootstrap-server",
        a,
        "--principal",
        "User:bob",
        "--resource-type",
        "topic",
    ]);
    assert!(
        out.contains("name=ord, patternType=PREFIXED)\n    denied: WRITE\n"),
        "{out}"
    );
}
