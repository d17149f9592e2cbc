//! `kacl configs` against a real `kacl serve`: the users entity's SCRAM forms end to end (the
//! credential made through kafka-configs.sh's syntax logs in), Kafka's refusals before any
//! request, and `--output json`.

mod cli_support;

use cli_support::{kacl, TestServer};

#[test]
fn scram_credentials_through_kafka_configs_syntax() {
    let server = TestServer::sasl_plain();
    let admin = server.plain_config("admin", "admin-secret");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "configs",
            "--bootstrap-server",
            server.addr.as_str(),
            "--command-config",
            &admin,
        ];
        args.extend_from_slice(extra);
        kacl(&args)
    };
    let users = ["--entity-type", "users", "--entity-name"];
    let alter = |user: &str, extra: &[&str]| {
        let mut args = vec!["--alter"];
        args.extend_from_slice(&users);
        args.push(user);
        args.extend_from_slice(extra);
        run(&args)
    };

    // Two mechanisms at once alter one user twice in a request: refused, as Kafka does.
    let out = alter(
        "carol",
        &[
            "--add-config",
            "SCRAM-SHA-256=[iterations=8192,password=carol,secret],SCRAM-SHA-512=[password=x]",
        ],
    );
    assert_eq!(
        out.stderr,
        "Error: DUPLICATE_RESOURCE: A user credential cannot be altered twice in the same \
         request\n"
    );
    let out = alter(
        "carol",
        &[
            "--add-config",
            "SCRAM-SHA-256=[iterations=8192,password=carol,secret]",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Completed updating config for user carol.\n");
    let out = alter("carol", &["--add-config", "SCRAM-SHA-512=[password=x]"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = run(&[
        "--describe",
        "--entity-type",
        "users",
        "--entity-name",
        "carol",
    ]);
    assert_eq!(
        out.stdout,
        "SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-256=iterations=8192, \
         SCRAM-SHA-512=iterations=4096\n"
    );
    // The password is everything after `password=`, commas included: carol logs in with it.
    let scram = server.file(
        "carol.properties",
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n\
         sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
         username=\"carol\" password=\"carol,secret\";\n",
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
        "authenticated, not authorized: {out:?}"
    );

    // Every user, then a user without credentials: its error on its own line.
    let out = run(&["--describe", "--entity-type", "users"]);
    assert!(out.stdout.contains("user-principal 'carol'"), "{out:?}");
    let out = run(&[
        "--describe",
        "--entity-type",
        "users",
        "--entity-name",
        "nobody",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with(
            "Error retrieving SCRAM credential configs for user-principal 'nobody': \
             ResourceNotFoundException: "
        ),
        "{out:?}"
    );

    let out = alter(
        "carol",
        &["--delete-config", "SCRAM-SHA-512", "--output", "json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["updated"]["entityName"], "carol");
    let out = run(&[
        "--describe",
        "--entity-type",
        "users",
        "--entity-name",
        "carol",
        "--output",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        doc["users"][0]["credentials"][0]["mechanism"],
        "SCRAM-SHA-256"
    );
    assert_eq!(doc["users"][0]["credentials"].as_array().unwrap().len(), 1);

    // Kafka's refusals, before anything is sent.
    let out = alter(
        "carol",
        &["--add-config", "SCRAM-SHA-256=[iterations=10,password=x]"],
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: Iterations 10 is less than the minimum 4096 required for SCRAM-SHA-256\n"
    );
    let out = alter("carol", &["--add-config", "SCRAM-SHA-256=secret"]);
    assert_eq!(
        out.stderr,
        "Error: Invalid credential property SCRAM-SHA-256=secret\n"
    );
    let out = alter("carol", &["--add-config", "retention.ms=1"]);
    assert!(
        out.stderr
            .starts_with("Error: Only quota and SCRAM credential configs can be added for 'users'"),
        "{out:?}"
    );
    let out = run(&[
        "--alter",
        "--entity-type",
        "users",
        "--entity-default",
        "--delete-config",
        "SCRAM-SHA-256",
    ]);
    assert!(
        out.stderr
            .contains("The use of --entity-default or --user-defaults is not allowed"),
        "{out:?}"
    );
}

#[test]
fn client_quotas_through_kafka_configs_syntax() {
    let server = TestServer::sasl_plain();
    let admin = server.plain_config("admin", "admin-secret");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "configs",
            "--bootstrap-server",
            server.addr.as_str(),
            "--command-config",
            &admin,
        ];
        args.extend_from_slice(extra);
        kacl(&args)
    };
    let out = run(&[
        "--alter",
        "--entity-type",
        "users",
        "--entity-name",
        "alice",
        "--add-config",
        "producer_byte_rate=1048576,consumer_byte_rate=20000000",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Completed updating config for user alice.\n");
    let out = run(&[
        "--alter",
        "--entity-type",
        "users",
        "--entity-default",
        "--entity-type",
        "clients",
        "--entity-default",
        "--add-config",
        "request_percentage=12.5",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        "Completed updating default config for users in the cluster.\n"
    );
    let out = run(&[
        "--alter",
        "--entity-type",
        "clients",
        "--entity-name",
        "app",
        "--add-config",
        "producer_byte_rate=500",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Completed updating config for client app.\n");

    let out = run(&[
        "--describe",
        "--entity-type",
        "users",
        "--entity-name",
        "alice",
    ]);
    assert!(
        out.stdout.starts_with(
            "Quota configs for user-principal 'alice' are consumer_byte_rate=2.0E7, \
             producer_byte_rate=1048576.0\n"
        ),
        "{out:?}"
    );
    let out = run(&[
        "--describe",
        "--entity-type",
        "users",
        "--entity-default",
        "--entity-type",
        "clients",
        "--entity-default",
    ]);
    assert_eq!(
        out.stdout,
        "Quota configs for the default user-principal, the default client-id are \
         request_percentage=12.5\n"
    );
    // Every client-id entity (strict: the user and client-id pair is not one).
    let out = run(&["--describe", "--entity-type", "clients"]);
    assert_eq!(
        out.stdout,
        "Quota configs for client-id 'app' are producer_byte_rate=500.0\n"
    );

    // Kafka's refusals: a key that is not set, a key that is not a quota, a fractional rate.
    let out = run(&[
        "--alter",
        "--entity-type",
        "clients",
        "--entity-name",
        "app",
        "--delete-config",
        "consumer_byte_rate",
    ]);
    assert_eq!(out.stderr, "Error: Invalid config(s): consumer_byte_rate\n");
    let out = run(&[
        "--alter",
        "--entity-type",
        "clients",
        "--entity-name",
        "app",
        "--add-config",
        "SCRAM-SHA-256=[password=x]",
    ]);
    assert!(
        out.stderr
            .starts_with("Error: Only quota configs can be added for 'clients'"),
        "{out:?}"
    );
    let out = run(&[
        "--alter",
        "--entity-type",
        "users",
        "--entity-name",
        "alice",
        "--add-config",
        "producer_byte_rate=1.5",
    ]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("producer_byte_rate cannot be a fractional value."),
        "{out:?}"
    );

    // Removal, then nothing left to describe.
    let out = run(&[
        "--alter",
        "--entity-type",
        "clients",
        "--entity-name",
        "app",
        "--delete-config",
        "producer_byte_rate",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = run(&["--describe", "--entity-type", "clients", "--output", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["quotas"].as_array().unwrap().len(), 0, "{doc}");
}

#[test]
fn topic_and_broker_configs_in_kafka_configs_format() {
    let server = TestServer::plaintext();
    let run = |extra: &[&str]| {
        let mut args = vec!["configs", "--bootstrap-server", server.addr.as_str()];
        args.extend_from_slice(extra);
        kacl(&args)
    };
    let created = kacl(&[
        "topics",
        "--bootstrap-server",
        &server.addr,
        "--create",
        "--topic",
        "orders",
        "--partitions",
        "1",
    ]);
    assert_eq!(created.code, 0, "{created:?}");
    let topic = ["--entity-type", "topics", "--entity-name", "orders"];
    let with = |action: &str, extra: &[&str]| {
        let mut args = vec![action];
        args.extend_from_slice(&topic);
        args.extend_from_slice(extra);
        run(&args)
    };

    let out = with(
        "--alter",
        &[
            "--add-config",
            "retention.ms=1000,cleanup.policy=[compact,delete]",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Completed updating config for topic orders.\n");
    let out = with("--describe", &[]);
    assert_eq!(
        out.stdout,
        "Dynamic configs for topic orders are:\n  \
         cleanup.policy=compact,delete sensitive=false \
         synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, \
         DEFAULT_CONFIG:log.cleanup.policy=delete}\n  \
         retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}\n"
    );
    let out = kacl(&[
        "topics",
        "--bootstrap-server",
        &server.addr,
        "--describe",
        "--topic",
        "orders",
    ]);
    assert!(
        out.stdout.lines().next().unwrap().ends_with(
            "\tConfigs: cleanup.policy=compact,delete,min.insync.replicas=1,retention.ms=1000"
        ),
        "{out:?}"
    );

    let out = with("--alter", &["--delete-config", "retention.ms,segment.ms"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "Error: Invalid config(s): segment.ms\n");
    let out = with("--alter", &["--delete-config", "retention.ms"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = with("--alter", &["--add-config", "retention.ms=-7"]);
    assert_eq!(
        out.stderr,
        "Error: INVALID_CONFIG: Invalid value -7 for configuration retention.ms: Value must be \
         at least -1\n"
    );
    let out = with("--describe", &["--output", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let configs = doc["entities"][0]["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 1);
    assert_eq!(configs[0]["source"], "DYNAMIC_TOPIC_CONFIG");
    let out = with("--describe", &["--all"]);
    assert!(out
        .stdout
        .starts_with("All configs for topic orders are:\n"));
    // Kafka 4.4 lists no synonym for segment.ms unless log.roll.ms is present.
    assert!(
        out.stdout
            .contains("\n  segment.ms=604800000 sensitive=false synonyms={}\n"),
        "{out:?}"
    );

    // Brokers: every broker, then the default; --all shows the static ones.
    let out = run(&["--describe", "--entity-type", "brokers"]);
    assert_eq!(
        out.stdout,
        "Dynamic configs for broker 1 are:\nDefault configs for brokers in the cluster are:\n  \
         min.insync.replicas=1 sensitive=false \
         synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}\n"
    );
    let out = run(&[
        "--describe",
        "--all",
        "--entity-type",
        "brokers",
        "--entity-name",
        "1",
    ]);
    assert!(
        out.stdout.contains(
            "\n  super.users=null sensitive=true \
             synonyms={STATIC_BROKER_CONFIG:super.users=null}\n"
        ),
        "{out:?}"
    );
    let out = run(&[
        "--alter",
        "--entity-type",
        "brokers",
        "--entity-default",
        "--add-config",
        "log.retention.hours=1",
    ]);
    assert_eq!(
        out.stderr,
        "Error: INVALID_REQUEST: Cannot update these configs dynamically: \
         Set(log.retention.hours)\n"
    );
}
