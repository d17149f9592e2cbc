//! `kacl acls` against a real `kacl serve`: every action and shortcut, text and JSON output,
//! bulk import/export, command-config with SASL PLAIN, errors and exit codes.

mod cli_support;

use cli_support::{json, kacl, ok, TestServer};

const TOPIC_ORDERS: &str = "ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)";

/// `acls --bootstrap-server ADDR EXTRA...`.
fn cmd<'a>(addr: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["acls", "--bootstrap-server", addr];
    args.extend_from_slice(extra);
    args
}

fn acl_count(doc: &serde_json::Value) -> usize {
    doc["acls"].as_array().map_or(0, Vec::len)
}

#[test]
fn add_list_remove_in_kafkas_text_format() {
    let server = TestServer::plaintext();

    let out = ok(&cmd(
        &server.addr,
        &[
            "--add",
            "--allow-principal",
            "User:alice",
            "--operation",
            "Read",
            "--operation",
            "Describe",
            "--topic",
            "orders",
        ],
    ));
    assert_eq!(
        out,
        format!(
            "Adding ACLs for resource `{TOPIC_ORDERS}`: \n \
             \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n\
             \t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)\n\n"
        )
    );

    // Adding it again reports the existing ACL instead of re-adding it.
    let out = ok(&cmd(
        &server.addr,
        &[
            "--add",
            "--allow-principal",
            "User:alice",
            "--operation",
            "Read",
            "--topic",
            "orders",
        ],
    ));
    assert_eq!(
        out,
        format!(
            "Acl (pattern={TOPIC_ORDERS}, entry=(principal=User:alice, host=*, operation=READ, \
             permissionType=ALLOW)) already exists.\n"
        )
    );

    let out = ok(&cmd(&server.addr, &["--list", "--topic", "orders"]));
    assert_eq!(
        out,
        format!(
            "Current ACLs for resource `{TOPIC_ORDERS}`:\n\
             \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n\
             \t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)\n\n"
        )
    );

    // Stdin is not a terminal: nobody can confirm, so --remove needs --force and removes
    // nothing without it.
    let remove_alice_read = [
        "--remove",
        "--allow-principal",
        "User:alice",
        "--operation",
        "Read",
        "--topic",
        "orders",
    ];
    let refused = kacl(&cmd(&server.addr, &remove_alice_read));
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(refused.stderr.contains("add --force"), "{refused:?}");
    let doc = json(&cmd(&server.addr, &["--list", "--output", "json"]));
    assert_eq!(acl_count(&doc), 2, "nothing removed without --force");
    let out = ok(&cmd(
        &server.addr,
        &[&remove_alice_read[..], &["--force"]].concat(),
    ));
    assert_eq!(out, "");
    let doc = json(&cmd(&server.addr, &["--list", "--output", "json"]));
    assert_eq!(acl_count(&doc), 1);
    assert_eq!(doc["acls"][0]["operation"], "DESCRIBE");

    ok(&cmd(
        &server.addr,
        &["--remove", "--force", "--topic", "orders"],
    ));
    assert_eq!(ok(&cmd(&server.addr, &["--list"])), "");
}

#[test]
fn shortcuts_expand_as_kafka_does() {
    let server = TestServer::plaintext();

    ok(&cmd(
        &server.addr,
        &[
            "--add",
            "--allow-principal",
            "User:app",
            "--producer",
            "--idempotent",
            "--topic",
            "events",
            "--transactional-id",
            "tx-1",
        ],
    ));
    ok(&cmd(
        &server.addr,
        &[
            "--add",
            "--allow-principal",
            "User:reader",
            "--consumer",
            "--topic",
            "events",
            "--group",
            "readers",
        ],
    ));
    let doc = json(&cmd(&server.addr, &["--list", "--output", "json"]));
    let mut got: Vec<String> = doc["acls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            format!(
                "{} {} {} {}",
                a["resourceType"].as_str().unwrap(),
                a["name"].as_str().unwrap(),
                a["principal"].as_str().unwrap(),
                a["operation"].as_str().unwrap()
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        "TOPIC events User:app WRITE",
        "TOPIC events User:app DESCRIBE",
        "TOPIC events User:app CREATE",
        "TRANSACTIONAL_ID tx-1 User:app WRITE",
        "TRANSACTIONAL_ID tx-1 User:app DESCRIBE",
        "CLUSTER kafka-cluster User:app IDEMPOTENT_WRITE",
        "TOPIC events User:reader READ",
        "TOPIC events User:reader DESCRIBE",
        "GROUP readers User:reader READ",
    ];
    want.sort();
    assert_eq!(got, want);

    // --principal filters on the client, exactly.
    let out = ok(&cmd(
        &server.addr,
        &["--list", "--principal", "User:reader", "--group", "readers"],
    ));
    assert_eq!(
        out,
        "ACLs for principal `User:reader`\n\
         Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=readers, \
         patternType=LITERAL)`:\n\
         \t(principal=User:reader, host=*, operation=READ, permissionType=ALLOW)\n\n"
    );

    // Removing with the producer shortcut removes exactly what it added.
    ok(&cmd(
        &server.addr,
        &[
            "--remove",
            "--force",
            "--allow-principal",
            "User:app",
            "--producer",
            "--idempotent",
            "--topic",
            "events",
            "--transactional-id",
            "tx-1",
        ],
    ));
    let doc = json(&cmd(&server.addr, &["--list", "--output", "json"]));
    assert_eq!(acl_count(&doc), 3, "{doc}");
}

#[test]
fn prefixed_and_match_listing() {
    let server = TestServer::plaintext();
    ok(&cmd(
        &server.addr,
        &[
            "--add",
            "--allow-principal",
            "User:a",
            "--operation",
            "Write",
            "--topic",
            "pay-",
            "--resource-pattern-type",
            "prefixed",
        ],
    ));
    ok(&cmd(
        &server.addr,
        &[
            "--add",
            "--deny-principal",
            "User:b",
            "--deny-host",
            "10.0.0.9",
            "--topic",
            "*",
        ],
    ));
    // MATCH: every ACL that applies to topic pay-in.
    let doc = json(&cmd(
        &server.addr,
        &[
            "--list",
            "--topic",
            "pay-in",
            "--resource-pattern-type",
            "match",
            "--output",
            "json",
        ],
    ));
    assert_eq!(acl_count(&doc), 2, "{doc}");
    // LITERAL pay-in: none.
    let doc = json(&cmd(
        &server.addr,
        &["--list", "--topic", "pay-in", "--output", "json"],
    ));
    assert_eq!(acl_count(&doc), 0);
    let doc = json(&cmd(
        &server.addr,
        &["--list", "--topic", "*", "--output", "json"],
    ));
    assert_eq!(doc["acls"][0]["permissionType"], "DENY");
    assert_eq!(doc["acls"][0]["host"], "10.0.0.9");
}

#[test]
fn bulk_export_import_and_remove_from_file() {
    let source = TestServer::plaintext();
    let target = TestServer::plaintext();
    let mut acls = Vec::new();
    for i in 0..2500 {
        acls.push(serde_json::json!({
            "resourceType": if i % 10 == 0 { "GROUP" } else { "TOPIC" },
            "name": format!("resource-{i}"),
            "patternType": if i % 5 == 0 { "PREFIXED" } else { "LITERAL" },
            "principal": format!("User:user-{}", i % 7),
            "host": "*",
            "operation": "READ",
            "permissionType": "ALLOW",
        }));
    }
    let file = source.file(
        "in.json",
        &serde_json::json!({"version": 1, "acls": acls}).to_string(),
    );
    let out = ok(&[
        "acls",
        "--bootstrap-server",
        &source.addr,
        "--add",
        "--from-file",
        &file,
        "--batch-size",
        "1000",
    ]);
    assert_eq!(out, "Added 2500 of 2500 ACLs.\n");

    // Export from one server, import into another: the same set arrives.
    let exported = ok(&[
        "acls",
        "--bootstrap-server",
        &source.addr,
        "--list",
        "--output",
        "json",
    ]);
    let export_file = source.file("export.json", &exported);
    ok(&[
        "acls",
        "--bootstrap-server",
        &target.addr,
        "--add",
        "--from-file",
        &export_file,
    ]);
    let imported = ok(&[
        "acls",
        "--bootstrap-server",
        &target.addr,
        "--list",
        "--output",
        "json",
    ]);
    assert_eq!(exported, imported);
    let doc: serde_json::Value = serde_json::from_str(&imported).unwrap();
    assert_eq!(acl_count(&doc), 2500);

    let out = ok(&[
        "acls",
        "--bootstrap-server",
        &target.addr,
        "--remove",
        "--force",
        "--from-file",
        &export_file,
        "--batch-size",
        "700",
    ]);
    assert_eq!(out, "Removed 2500 of 2500 ACLs.\n");
    assert_eq!(
        ok(&["acls", "--bootstrap-server", &target.addr, "--list"]),
        ""
    );
}

#[test]
fn usage_errors_are_one_line_with_kafkas_message() {
    let server = TestServer::plaintext();
    for (args, message) in [
        (
            cmd(&server.addr, &["--list", "--add"]),
            "Error: Command must include exactly one action: --list, --add, --remove. \n",
        ),
        (
            cmd(&server.addr, &["--list", "--producer"]),
            "Error: Option \"[list]\" can't be used with option \"[producer]\"\n",
        ),
        (
            cmd(
                &server.addr,
                &[
                    "--add",
                    "--allow-principal",
                    "User:a",
                    "--operation",
                    "Write",
                    "--group",
                    "g",
                ],
            ),
            "Error: ResourceType GROUP only supports operations [ALL, READ, DELETE, DESCRIBE, \
             DESCRIBE_CONFIGS, ALTER_CONFIGS]\n",
        ),
        (
            cmd(
                &server.addr,
                &[
                    "--add",
                    "--allow-principal",
                    "User:a",
                    "--topic",
                    "t",
                    "--resource-pattern-type",
                    "any",
                ],
            ),
            "Error: A '--resource-pattern-type' value of 'ANY' is not valid when adding acls.\n",
        ),
        (
            vec!["acls", "--list"],
            "Error: One of --bootstrap-server or --bootstrap-controller must be specified\n",
        ),
    ] {
        let run = kacl(&args);
        assert_eq!(run.code, 1, "{args:?}: {run:?}");
        assert_eq!(run.stderr, message, "{args:?}");
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn broker_errors_and_unreachable_brokers_fail_with_one_line() {
    // A port nothing listens on: bind, note, release.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let run = kacl(&["acls", "--bootstrap-server", &addr, "--list"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.starts_with("Error: NETWORK_EXCEPTION: ") && run.stderr.lines().count() == 1,
        "{run:?}"
    );

    // A binding Kafka's server refuses: the CLUSTER resource has one valid name.
    let server = TestServer::plaintext();
    let file = server.file(
        "bad.json",
        r#"{"version":1,"acls":[{"resourceType":"CLUSTER","name":"other","patternType":"LITERAL",
            "principal":"User:a","host":"*","operation":"ALTER","permissionType":"ALLOW"}]}"#,
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--add",
        "--from-file",
        &file,
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stderr,
        "Error: INVALID_REQUEST: The only valid name for the CLUSTER resource is kafka-cluster\n",
        "one cause, one line"
    );
}

#[test]
fn command_config_with_sasl_plain() {
    let server = TestServer::sasl_plain();
    let admin = server.plain_config("admin", "admin-secret");
    let alice = server.plain_config("alice", "alice-secret");
    let wrong = server.plain_config("alice", "nope");
    let b = |config: &str| -> Vec<String> {
        [
            "acls",
            "--bootstrap-server",
            &server.addr,
            "--command-config",
            config,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let run_with = |config: &str, extra: &[&str]| {
        let mut args = b(config);
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        kacl(&args)
    };

    let run = run_with(
        &admin,
        &[
            "--add",
            "--allow-principal",
            "User:alice",
            "--operation",
            "Read",
            "--topic",
            "orders",
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let run = run_with(&admin, &["--list", "--output", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("User:alice"));

    // alice is authenticated but may not describe the cluster's ACLs.
    let run = run_with(&alice, &["--list"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .starts_with("Error: CLUSTER_AUTHORIZATION_FAILED: "),
        "{run:?}"
    );
    assert_eq!(run.stderr.lines().count(), 1);
    let run = run_with(
        &alice,
        &["--add", "--allow-principal", "User:alice", "--topic", "x"],
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .starts_with("Error: CLUSTER_AUTHORIZATION_FAILED: "),
        "{run:?}"
    );

    let run = run_with(&wrong, &["--list"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .starts_with("Error: SASL_AUTHENTICATION_FAILED: "),
        "{run:?}"
    );

    // Without the command config the SASL listener is not spoken to successfully.
    let run = kacl(&["acls", "--bootstrap-server", &server.addr, "--list"]);
    assert_eq!(run.code, 1, "{run:?}");

    // A config Java's Properties.load refuses is refused, naming the file and the line.
    let broken = server.file(
        "broken.properties",
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PL\\u41IN\n",
    );
    let run = run_with(&broken, &["--list"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("broken.properties")
            && run.stderr.contains("line 2: Malformed \\uxxxx encoding."),
        "{run:?}"
    );
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for sub in ["acls", "topics", "users"] {
        let out = ok(&[sub, "--help"]);
        assert!(out.contains("Examples:"), "{sub}: {out}");
        assert!(
            out.contains(&format!("kacl {sub} --bootstrap-server")),
            "{sub}: {out}"
        );
    }
}

/// `--list` of every ACL is formatted while the answer arrives (a kacl broker sends it in
/// sorted order): the text must be exactly Kafka's format of the sorted set, the one the JSON
/// listing holds, for resources of every type, prefixed patterns, wildcards, several hosts and
/// names that need no escaping in text.
#[test]
fn full_list_text_is_the_sorted_text_of_every_acl() {
    let server = TestServer::plaintext();
    let mut acls = Vec::new();
    for i in 0..300 {
        let (rt, name, pt) = match i % 5 {
            0 => ("TOPIC", format!("orders-{}", i % 37), "LITERAL"),
            1 => ("TOPIC", format!("pay-{}", i % 11), "PREFIXED"),
            2 => ("GROUP", format!("g<{}>", i % 7), "LITERAL"),
            3 => ("TOPIC", "*".to_owned(), "LITERAL"),
            _ => ("CLUSTER", "kafka-cluster".to_owned(), "LITERAL"),
        };
        let operation = ["READ", "WRITE", "DESCRIBE"][i % 3];
        let permission = ["ALLOW", "DENY"][i % 2];
        acls.push(serde_json::json!({
            "resourceType": rt, "name": name, "patternType": pt,
            "principal": format!("User:u{}", i % 13), "host": format!("10.0.0.{}", i % 4),
            "operation": operation, "permissionType": permission,
        }));
    }
    let file = server.file(
        "acls.json",
        &serde_json::json!({"version": 1, "acls": acls}).to_string(),
    );
    ok(&cmd(&server.addr, &["--add", "--from-file", &file]));
    let doc = json(&cmd(&server.addr, &["--list", "--output", "json"]));
    let mut expected = String::new();
    let mut last = String::new();
    for acl in doc["acls"].as_array().unwrap() {
        let s = |k: &str| acl[k].as_str().unwrap().to_owned();
        let heading = format!(
            "Current ACLs for resource `ResourcePattern(resourceType={}, name={}, patternType={})`:\n",
            s("resourceType"),
            s("name"),
            s("patternType")
        );
        if heading != last {
            if !last.is_empty() {
                expected.push('\n');
            }
            expected.push_str(&heading);
            last = heading;
        }
        expected.push_str(&format!(
            "\t(principal={}, host={}, operation={}, permissionType={})\n",
            s("principal"),
            s("host"),
            s("operation"),
            s("permissionType")
        ));
    }
    expected.push('\n');
    assert!(expected.len() > 10_000);
    assert_eq!(ok(&cmd(&server.addr, &["--list"])), expected);
}
