//! `kacl topics` and `kacl users` against a real `kacl serve`, and a SCRAM login with a
//! credential created through the CLI.

mod cli_support;

use cli_support::{json, kacl, kacl_with_stdin, ok, TestServer};

#[test]
fn topics_create_list_describe_alter_delete() {
    let server = TestServer::plaintext();
    let t = |extra: &[&str]| -> Vec<String> {
        ["topics", "--bootstrap-server", server.addr.as_str()]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let run = |extra: &[&str]| {
        let args = t(extra);
        kacl(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };

    let out = run(&[
        "--create",
        "--topic",
        "orders",
        "--partitions",
        "2",
        "--replication-factor",
        "1",
        "--config",
        "cleanup.policy=compact",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Created topic orders.\n");
    let out = run(&["--create", "--topic", "orders", "--partitions", "2"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with("Error: TOPIC_ALREADY_EXISTS: "),
        "{out:?}"
    );
    let out = run(&["--create", "--topic", "orders", "--if-not-exists"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        run(&["--create", "--topic", "audit"]).code,
        0,
        "broker defaults"
    );

    let out = run(&["--list"]);
    assert_eq!(out.stdout, "audit\norders\n");

    let out = run(&["--describe", "--topic", "orders"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert!(
        lines[0].starts_with("Topic: orders\tTopicId: "),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with(
            // min.insync.replicas: the cluster's dynamic default, which Kafka 4.4 lists too.
            "\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: cleanup.policy=compact,min.insync.replicas=1"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("\tTopic: orders\tPartition: 0\tLeader: "),
        "{}",
        lines[1]
    );

    assert_eq!(
        run(&["--alter", "--topic", "orders", "--partitions", "4"]).code,
        0
    );
    let args = t(&["--describe", "--topic", "orders", "--output", "json"]);
    let doc = json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(doc["topics"][0]["partitions"].as_array().unwrap().len(), 4);
    // One partition per DescribeTopicPartitions answer: the cursor is followed to the end,
    // and the description is the one of a single answer.
    let described = |extra: &[&str]| {
        let args = t(&[&["--describe", "--output", "json"], extra].concat());
        json(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let whole = described(&[]);
    let paged = described(&["--partition-size-limit-per-response", "1"]);
    assert_eq!(paged, whole);
    let partitions: usize = paged["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["partitions"].as_array().unwrap().len())
        .sum();
    assert!(partitions >= 5, "{paged}");
    let out = run(&["--alter", "--topic", "orders", "--partitions", "1"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with("Error: INVALID_PARTITIONS: "),
        "{out:?}"
    );

    assert_eq!(run(&["--delete", "--topic", "orders"]).code, 0);
    let out = run(&["--describe", "--topic", "orders"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("Error: UNKNOWN_TOPIC_OR_PARTITION: "),
        "{out:?}"
    );
    assert_eq!(
        run(&["--delete", "--topic", "orders", "--if-exists"]).code,
        0
    );
    assert_eq!(run(&["--list"]).stdout, "audit\n");

    let out = run(&["--create", "--topic", "x", "--replica-assignment", "1:1"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("duplicate"), "{out:?}");
}

#[test]
fn scram_users_through_the_cli_then_a_scram_login() {
    let server = TestServer::sasl_plain();
    let admin = server.plain_config("admin", "admin-secret");
    let u = |extra: &[&str]| -> Vec<String> {
        [
            "users",
            "--bootstrap-server",
            server.addr.as_str(),
            "--command-config",
            &admin,
        ]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
    };
    let run = |extra: &[&str]| {
        let args = u(extra);
        kacl(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };

    let password_file = server.file("carol.pw", "carol-secret\n");
    let out = run(&[
        "--add",
        "--user",
        "carol",
        "--mechanism",
        "SCRAM-SHA-256",
        "--iterations",
        "8192",
        "--password-file",
        &password_file,
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Completed updating config for user carol.\n");
    let args = u(&[
        "--add",
        "--user",
        "carol",
        "--mechanism",
        "SCRAM-SHA-512",
        "--password-stdin",
    ]);
    let out = kacl_with_stdin(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        "other\n",
    );
    assert_eq!(out.code, 0, "{out:?}");

    assert_eq!(run(&["--list"]).stdout, "carol\n");
    assert_eq!(
        run(&["--describe", "--user", "carol"]).stdout,
        "SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-256=iterations=8192, \
         SCRAM-SHA-512=iterations=4096\n"
    );
    let out = run(&[
        "--add",
        "--user",
        "dave",
        "--mechanism",
        "SCRAM-SHA-256",
        "--iterations",
        "100",
        "--password-file",
        &password_file,
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with("Error: UNACCEPTABLE_CREDENTIAL: "),
        "{out:?}"
    );

    // carol logs in with SCRAM-SHA-256 (authenticated; not authorized to list ACLs).
    let scram = server.file(
        "carol.properties",
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n\
         sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
         username=\"carol\" password=\"carol-secret\";\n",
    );
    let out = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &scram,
        "--list",
    ]);
    assert!(
        out.stderr
            .starts_with("Error: CLUSTER_AUTHORIZATION_FAILED: "),
        "{out:?}"
    );
    let wrong = server.file(
        "carol-wrong.properties",
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n\
         sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
         username=\"carol\" password=\"carol-secret\";\n",
    );
    let out = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &wrong,
        "--list",
    ]);
    assert!(
        out.stderr
            .starts_with("Error: SASL_AUTHENTICATION_FAILED: "),
        "{out:?}"
    );

    let out = run(&[
        "--delete",
        "--user",
        "carol",
        "--mechanism",
        "SCRAM-SHA-512",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = run(&[
        "--delete",
        "--user",
        "carol",
        "--mechanism",
        "SCRAM-SHA-256",
        "--output",
        "json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(run(&["--list"]).stdout, "");
    let out = run(&["--add", "--user", "erin", "--mechanism", "SCRAM-SHA-1"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("SCRAM-SHA-1"), "{out:?}");
    let _ = ok(&["users", "--help"]);
}
