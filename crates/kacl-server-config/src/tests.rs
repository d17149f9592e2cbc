//! ServerConfig: every key, every refusal, and the order in which sources apply.

use std::path::PathBuf;
use std::time::Duration;

use super::*;

fn parse(text: &str) -> ServerConfig {
    match ServerConfig::from_properties(text, &[]) {
        Ok(c) => c,
        Err(e) => panic!("config refused: {e}\n{text}"),
    }
}

fn refuse(text: &str) -> ConfigError {
    match ServerConfig::from_properties(text, &[]) {
        Ok(_) => panic!("config accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts that `text` is refused for `key`, with the key in the message.
fn refused_for(text: &str, key: &str) {
    let err = refuse(text);
    assert_eq!(err.key(), Some(key), "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("invalid value for {key}: ")),
        "{err}"
    );
}

fn pair(k: &str, v: &str) -> (String, String) {
    (k.to_owned(), v.to_owned())
}

const PLAIN_JAAS: &str = r#"org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" user_alice="alice-secret";"#;

#[test]
fn empty_file_gives_kafkas_defaults_and_not_development() {
    let c = parse("");
    assert!(!c.is_development);
    assert_eq!(c.node_id, 1);
    assert_eq!(c.listeners.len(), 1);
    assert_eq!(c.listeners[0].to_string(), "PLAINTEXT://127.0.0.1:9092");
    assert_eq!(c.advertised_listeners, c.listeners);
    assert_eq!(c.broker_rack, None);
    assert_eq!(c.data_dir, PathBuf::from("./kacl-data"));
    assert!(
        c.super_users.is_empty(),
        "no super users outside development mode"
    );
    assert!(!c.allow_everyone_if_no_acl_found);
    assert_eq!(c.sasl_enabled_mechanisms, SaslMechanism::DEFAULT_ENABLED);
    assert!(c.plain_users.is_none() && c.listener_plain_users.is_empty());
    assert!(c.tls.is_none());
    assert_eq!(c.num_partitions, 1);
    assert_eq!(c.default_replication_factor, 1);
    assert_eq!(c.socket_request_max_bytes, 104_857_600);
    assert_eq!(c.max_connections, 2_147_483_647);
    assert_eq!(c.max_connections_per_ip, 2_147_483_647);
    assert_eq!(c.connections_max_idle, Some(Duration::from_secs(600)));
    assert_eq!(c.failed_authentication_delay, Duration::from_millis(100));
    assert_eq!(c.acl_max_batch, 10_000);
    assert!(!c.describe_self_service);
    assert_eq!(c.metrics_listen, None);
    assert_eq!(c.store_cache_bytes, 32 * 1024 * 1024);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn development_defaults() {
    let c = ServerConfig::development_defaults();
    assert!(c.is_development);
    assert_eq!(c.listeners[0].to_string(), "PLAINTEXT://127.0.0.1:9092");
    assert_eq!(c.super_users, ["User:ANONYMOUS"]);
    assert_eq!(c.data_dir, PathBuf::from("./kacl-data"));
    // The literal defaults equal what the parser makes of the development seed.
    let parsed = ServerConfig::development_with(&[]).unwrap();
    assert_eq!(format!("{c:?}"), format!("{parsed:?}"));
    let loaded = ServerConfig::load(None, &[]).unwrap();
    assert_eq!(format!("{c:?}"), format!("{loaded:?}"));
}

#[test]
fn overrides_apply_on_top_of_development_defaults() {
    let c = ServerConfig::load(
        None,
        &[
            "listeners=PLAINTEXT://127.0.0.1:0".into(),
            "node.id=7".into(),
        ],
    )
    .unwrap();
    assert!(c.is_development);
    assert_eq!(c.listeners[0].port, 0);
    assert_eq!(c.node_id, 7);
    assert_eq!(c.super_users, ["User:ANONYMOUS"]);
    let c = ServerConfig::load(None, &["super.users=User:root".into()]).unwrap();
    assert_eq!(c.super_users, ["User:root"]);
}

#[test]
fn overrides_win_over_the_file_and_later_overrides_win() {
    let c = ServerConfig::from_properties(
        "node.id=2\nnum.partitions=3\n",
        &[
            pair("node.id", "5"),
            pair("node.id", "6"),
            pair("broker.rack", "r1"),
        ],
    )
    .unwrap();
    assert_eq!(c.node_id, 6);
    assert_eq!(c.num_partitions, 3);
    assert_eq!(c.broker_rack.as_deref(), Some("r1"));
    // A later duplicate in the file wins too.
    assert_eq!(parse("node.id=1\nnode.id=9").node_id, 9);
}

#[test]
fn load_reads_a_file_and_reports_io_and_syntax_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("server.properties");
    std::fs::write(&path, "node.id=3\nlisteners=PLAINTEXT://:0\n").unwrap();
    let c = ServerConfig::load(Some(&path), &["node.id=4".into()]).unwrap();
    assert!(!c.is_development);
    assert_eq!(c.node_id, 4);
    assert_eq!(c.listeners[0].bind_address(), "0.0.0.0:0");

    let missing = dir.path().join("nope.properties");
    let err = ServerConfig::load(Some(&missing), &[]).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err}");

    std::fs::write(&path, "a=\\u12\n").unwrap();
    let err = ServerConfig::load(Some(&path), &[]).unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");

    let err = ServerConfig::load(Some(&path), &["no-equals".into()]).unwrap_err();
    assert_eq!(err, ConfigError::BadOverride("no-equals".into()));
}

#[test]
fn override_syntax() {
    assert_eq!(parse_override("a.b=c=d").unwrap(), pair("a.b", "c=d"));
    assert_eq!(parse_override(" k = v").unwrap(), pair("k", " v"));
    assert_eq!(parse_override("k=").unwrap(), pair("k", ""));
    assert!(parse_override("=v").is_err());
    assert!(parse_override("k").is_err());
}

#[test]
fn unknown_keys_are_warnings_naming_the_key() {
    let c = parse("process.roles=broker,controller\nlog.retention.hours=168\nnode.id=1\n");
    assert_eq!(
        c.warnings,
        [
            "unknown configuration key `log.retention.hours` is ignored",
            "unknown configuration key `process.roles` is ignored",
        ]
    );
}

#[test]
fn node_id() {
    assert_eq!(parse("node.id= 42 ").node_id, 42);
    refused_for("node.id=-1", "node.id");
    refused_for("node.id=one", "node.id");
    refused_for("node.id=", "node.id");
    refused_for("node.id=2147483648", "node.id");
}

#[test]
fn listeners_and_protocol_map() {
    let c = parse(
        "listeners=PLAINTEXT://:9092,INTERNAL://127.0.0.1:9093,SASL_PLAINTEXT://[::1]:0\n\
         listener.security.protocol.map=INTERNAL:SASL_PLAINTEXT\n\
         sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_a=\"b\";",
    );
    assert_eq!(c.listeners.len(), 3);
    assert_eq!(c.listeners[1].protocol, SecurityProtocol::SaslPlaintext);
    assert_eq!(c.listener("internal").map(|l| l.port), Some(9093));
    assert_eq!(c.listeners[2].bind_address(), "[::1]:0");
    refused_for("listeners=FOO://:9092", "listeners");
    refused_for("listeners=PLAINTEXT://:9092,PLAINTEXT://:9093", "listeners");
    refused_for("listeners=", "listeners");
    refused_for(
        "listener.security.protocol.map=A:B",
        "listener.security.protocol.map",
    );
}

#[test]
fn advertised_listeners() {
    let c = parse(
        "listeners=PLAINTEXT://:9092,SSL://:9093\n\
         advertised.listeners=PLAINTEXT://broker-1:9092\n\
         ssl.keystore.location=/etc/kacl/server.pem",
    );
    assert_eq!(c.advertised_listeners.len(), 1);
    assert_eq!(
        c.advertised_listener("PLAINTEXT").map(|l| l.host.as_str()),
        Some("broker-1")
    );
    assert!(c.advertised_listener("SSL").is_none());
    refused_for(
        "listeners=PLAINTEXT://:9092\nadvertised.listeners=SSL://x:9093",
        "advertised.listeners",
    );
    refused_for(
        "listeners=PLAINTEXT://:9092\nadvertised.listeners=PLAINTEXT://0.0.0.0:9092",
        "advertised.listeners",
    );
}

#[test]
fn broker_rack() {
    assert_eq!(
        parse("broker.rack=eu-1a").broker_rack.as_deref(),
        Some("eu-1a")
    );
    assert_eq!(parse("broker.rack=").broker_rack, None);
}

#[test]
fn data_dir_prefers_metadata_log_dir_then_first_log_dir() {
    assert_eq!(parse("log.dirs=/a, /b").data_dir, PathBuf::from("/a"));
    assert_eq!(
        parse("log.dirs=/a\nmetadata.log.dir=/m").data_dir,
        PathBuf::from("/m")
    );
    assert!(parse("log.dirs=/a\nmetadata.log.dir=/m")
        .warnings
        .is_empty());
    refused_for("metadata.log.dir=", "metadata.log.dir");
    refused_for("log.dirs= , ", "log.dirs");
}

#[test]
fn super_users_are_split_trimmed_and_checked() {
    let c = parse("super.users= User:admin ;User:ops;; User:admin ;");
    assert_eq!(c.super_users, ["User:admin", "User:ops"]);
    assert!(parse("super.users=").super_users.is_empty());
    refused_for("super.users=User:admin;alice", "super.users");
    refused_for("super.users=User:", "super.users");
    refused_for("super.users=:alice", "super.users");
}

#[test]
fn booleans() {
    let c = parse("allow.everyone.if.no.acl.found=TRUE\nkacl.describe.self.service.enable= true");
    assert!(c.allow_everyone_if_no_acl_found);
    assert!(c.describe_self_service);
    assert!(!parse("allow.everyone.if.no.acl.found=false").allow_everyone_if_no_acl_found);
    refused_for(
        "allow.everyone.if.no.acl.found=yes",
        "allow.everyone.if.no.acl.found",
    );
    refused_for(
        "kacl.describe.self.service.enable=1",
        "kacl.describe.self.service.enable",
    );
}

#[test]
fn sasl_mechanisms() {
    let c = parse("sasl.enabled.mechanisms=SCRAM-SHA-512, PLAIN,SCRAM-SHA-512");
    assert_eq!(
        c.sasl_enabled_mechanisms,
        [SaslMechanism::ScramSha512, SaslMechanism::Plain]
    );
    assert!(!c.mechanism_enabled(SaslMechanism::ScramSha256));
    refused_for("sasl.enabled.mechanisms=GSSAPI", "sasl.enabled.mechanisms");
    refused_for("sasl.enabled.mechanisms=plain", "sasl.enabled.mechanisms");
    // No mechanism is fine without SASL listeners, not with one.
    assert!(parse("sasl.enabled.mechanisms=")
        .sasl_enabled_mechanisms
        .is_empty());
    refused_for(
        "listeners=SASL_PLAINTEXT://:9092\nsasl.enabled.mechanisms=",
        "sasl.enabled.mechanisms",
    );
}

#[test]
fn plain_users_per_listener_and_global() {
    let text = format!(
        "listeners=SASL_PLAINTEXT://:9092,EXTERNAL://:9093\n\
         listener.security.protocol.map=EXTERNAL:SASL_PLAINTEXT\n\
         listener.name.sasl_plaintext.plain.sasl.jaas.config={PLAIN_JAAS}\n\
         sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_bob=\"bob-secret\";\n"
    );
    let c = parse(&text);
    let own = c.plain_users_for("SASL_PLAINTEXT").unwrap();
    assert!(own.verify("alice", "alice-secret"));
    assert!(!own.verify("bob", "bob-secret"));
    let global = c.plain_users_for("EXTERNAL").unwrap();
    assert!(global.verify("bob", "bob-secret"));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn plain_jaas_errors_and_warnings() {
    refused_for(
        "sasl.jaas.config=x.M required user_a=\"b\"",
        "sasl.jaas.config",
    );
    refused_for(
        "listener.name.sasl_plaintext.plain.sasl.jaas.config=x.M bogus;",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config",
    );
    let c = parse(&format!(
        "listener.name.other.plain.sasl.jaas.config={PLAIN_JAAS}\n\
         listener.name.other.scram-sha-256.sasl.jaas.config=x.M required;"
    ));
    assert_eq!(
        c.warnings,
        [
            "`listener.name.other.plain.sasl.jaas.config` names listener OTHER, which is not in \
             listeners",
            "unknown configuration key `listener.name.other.scram-sha-256.sasl.jaas.config` is \
             ignored",
        ]
    );
    // A SASL listener with PLAIN enabled but nobody to let in gets a warning.
    let c = parse("listeners=SASL_PLAINTEXT://:9092");
    assert_eq!(c.warnings.len(), 1);
    assert!(c.warnings[0].contains("no PLAIN users"), "{:?}", c.warnings);
    assert!(
        parse("listeners=SASL_PLAINTEXT://:9092\nsasl.enabled.mechanisms=SCRAM-SHA-256")
            .warnings
            .is_empty()
    );
}

#[test]
fn tls_key_store_forms() {
    let c = parse("listeners=SSL://:9093\nssl.keystore.type=PEM\nssl.keystore.location=/k.pem");
    let tls = c.tls.unwrap();
    assert_eq!(tls.key_store, KeyStore::File("/k.pem".into()));
    assert_eq!(tls.trust_store, None);
    assert_eq!(tls.client_auth, ClientAuth::None);

    let c = parse(
        "listeners=SASL_SSL://:9093\nsasl.enabled.mechanisms=SCRAM-SHA-512\n\
         ssl.keystore.certificate.chain=-----BEGIN CERTIFICATE----- x\n\
         ssl.keystore.key=-----BEGIN PRIVATE KEY----- y\n\
         ssl.truststore.certificates=-----BEGIN CERTIFICATE----- z\n\
         ssl.client.auth=Required",
    );
    let tls = c.tls.unwrap();
    assert!(matches!(tls.key_store, KeyStore::Inline { .. }));
    assert!(matches!(tls.trust_store, Some(TrustStore::Inline(_))));
    assert_eq!(tls.client_auth, ClientAuth::Required);
}

#[test]
fn tls_refusals() {
    refused_for("listeners=SSL://:9093", "ssl.keystore.location");
    refused_for("listeners=SASL_SSL://:9093", "ssl.keystore.location");
    refused_for(
        "ssl.keystore.type=JKS\nssl.keystore.location=/k.jks",
        "ssl.keystore.type",
    );
    refused_for("ssl.truststore.type=PKCS12", "ssl.truststore.type");
    refused_for(
        "ssl.keystore.location=/k\nssl.key.password=x",
        "ssl.key.password",
    );
    refused_for("ssl.keystore.password=x", "ssl.keystore.password");
    refused_for("ssl.truststore.password=x", "ssl.truststore.password");
    refused_for(
        "ssl.keystore.location=/k\nssl.keystore.certificate.chain=c\nssl.keystore.key=k",
        "ssl.keystore.location",
    );
    refused_for(
        "ssl.keystore.certificate.chain=c",
        "ssl.keystore.certificate.chain",
    );
    refused_for("ssl.keystore.key=k", "ssl.keystore.key");
    refused_for("ssl.keystore.location=", "ssl.keystore.location");
    refused_for(
        "ssl.truststore.location=/t\nssl.truststore.certificates=c",
        "ssl.truststore.location",
    );
    refused_for(
        "ssl.keystore.location=/k\nssl.client.auth=always",
        "ssl.client.auth",
    );
    refused_for(
        "ssl.keystore.location=/k\nssl.client.auth=required",
        "ssl.client.auth",
    );
    refused_for(
        "ssl.principal.mapping.rules=RULE:x/y/Z",
        "ssl.principal.mapping.rules",
    );
}

#[test]
fn tls_without_tls_listener_warns() {
    let c = parse("ssl.keystore.location=/k.pem");
    assert_eq!(
        c.warnings,
        ["ssl.* key store is configured but no listener uses SSL or SASL_SSL"]
    );
}

#[test]
fn principal_mapping_rules() {
    let c = parse("ssl.principal.mapping.rules=RULE:^CN=([^,]+),.*$/$1/L,\\\n    DEFAULT");
    assert_eq!(
        c.ssl_principal_mapper.name_for("CN=Svc,O=x").unwrap(),
        "svc"
    );
    assert_eq!(c.ssl_principal_mapper.name_for("O=x").unwrap(), "O=x");
    assert_eq!(
        parse("").ssl_principal_mapper.to_string(),
        "SslPrincipalMapper(rules = [DEFAULT])"
    );
}

#[test]
fn topic_defaults() {
    let c = parse("num.partitions=6\ndefault.replication.factor=3");
    assert_eq!((c.num_partitions, c.default_replication_factor), (6, 3));
    refused_for("num.partitions=0", "num.partitions");
    refused_for("default.replication.factor=0", "default.replication.factor");
    refused_for(
        "default.replication.factor=40000",
        "default.replication.factor",
    );
}

#[test]
fn limits() {
    let c = parse(
        "socket.request.max.bytes=1048576\nmax.connections=100\nmax.connections.per.ip=10\n\
         connections.max.idle.ms=30000\nconnection.failed.authentication.delay.ms=0\n\
         kacl.acl.max.batch=500",
    );
    assert_eq!(c.socket_request_max_bytes, 1_048_576);
    assert_eq!(c.max_connections, 100);
    assert_eq!(c.max_connections_per_ip, 10);
    assert_eq!(c.connections_max_idle, Some(Duration::from_secs(30)));
    assert_eq!(c.failed_authentication_delay, Duration::ZERO);
    assert_eq!(c.acl_max_batch, 500);
    assert_eq!(
        parse("connections.max.idle.ms=-1").connections_max_idle,
        None
    );
    refused_for("socket.request.max.bytes=0", "socket.request.max.bytes");
    refused_for(
        "socket.request.max.bytes=2147483648",
        "socket.request.max.bytes",
    );
    refused_for("max.connections=-1", "max.connections");
    refused_for("max.connections.per.ip=x", "max.connections.per.ip");
    refused_for("connections.max.idle.ms=soon", "connections.max.idle.ms");
    refused_for(
        "connection.failed.authentication.delay.ms=-5",
        "connection.failed.authentication.delay.ms",
    );
    refused_for("kacl.acl.max.batch=0", "kacl.acl.max.batch");
}

#[test]
fn store_cache_bytes() {
    assert_eq!(
        parse("kacl.store.cache.bytes=67108864").store_cache_bytes,
        64 << 20
    );
    assert_eq!(parse(" kacl.store.cache.bytes = 0 ").store_cache_bytes, 0);
    assert_eq!(
        ServerConfig::development_with(&[pair("kacl.store.cache.bytes", "1048576")])
            .map(|c| c.store_cache_bytes),
        Ok(1 << 20)
    );
    let c = parse("kacl.store.cache.bytes=68719476736");
    assert_eq!(c.store_cache_bytes, 64 << 30);
    assert!(c.warnings.is_empty(), "a known key: {:?}", c.warnings);
    refused_for("kacl.store.cache.bytes=-1", "kacl.store.cache.bytes");
    refused_for(
        "kacl.store.cache.bytes=68719476737",
        "kacl.store.cache.bytes",
    );
    refused_for("kacl.store.cache.bytes=32MiB", "kacl.store.cache.bytes");
    refused_for("kacl.store.cache.bytes=", "kacl.store.cache.bytes");
}

#[test]
fn metrics_listen() {
    assert_eq!(
        parse("kacl.metrics.listen=127.0.0.1:9404")
            .metrics_listen
            .as_deref(),
        Some("127.0.0.1:9404")
    );
    assert_eq!(parse("kacl.metrics.listen=").metrics_listen, None);
    refused_for("kacl.metrics.listen=9404", "kacl.metrics.listen");
    refused_for("kacl.metrics.listen=host:port", "kacl.metrics.listen");
}

#[test]
fn console_listen() {
    assert_eq!(parse("").console_listen, None, "off by default");
    assert_eq!(
        parse("kacl.console.listen=127.0.0.1:8080")
            .console_listen
            .as_deref(),
        Some("127.0.0.1:8080")
    );
    refused_for("kacl.console.listen=8080", "kacl.console.listen");
}

#[test]
fn a_kafka_style_production_file() {
    let text = r#"
# kacl in production
node.id=3
process.roles=broker
listeners=SASL_SSL://:9094,\
          PLAINTEXT://127.0.0.1:9092
advertised.listeners=SASL_SSL://kafka-3.example.com:9094
broker.rack=eu-west-1c
log.dirs=/var/lib/kacl
super.users=User:admin;User:CN=ops,O=Example
sasl.enabled.mechanisms=SCRAM-SHA-512
ssl.keystore.type=PEM
ssl.keystore.location=/etc/kacl/tls/server.pem
ssl.truststore.location=/etc/kacl/tls/ca.pem
ssl.client.auth=requested
ssl.principal.mapping.rules=RULE:^CN=([^,]+),O=Example$/$1/L,DEFAULT
"#;
    let c = parse(text);
    assert_eq!(c.node_id, 3);
    assert_eq!(c.listeners.len(), 2);
    assert_eq!(c.listeners[0].protocol, SecurityProtocol::SaslSsl);
    assert_eq!(c.advertised_listeners[0].port, 9094);
    assert_eq!(c.broker_rack.as_deref(), Some("eu-west-1c"));
    assert_eq!(c.data_dir, PathBuf::from("/var/lib/kacl"));
    assert_eq!(c.super_users, ["User:admin", "User:CN=ops,O=Example"]);
    assert_eq!(
        c.tls.as_ref().map(|t| t.client_auth),
        Some(ClientAuth::Requested)
    );
    // Kafka (KIP-684): the global ssl.client.auth is for SSL listeners only, and says so.
    assert_eq!(
        c.tls_for("SASL_SSL").map(|t| t.client_auth),
        Some(ClientAuth::None)
    );
    assert_eq!(
        c.warnings,
        [
            "Broker configuration 'ssl.client.auth' is applied only to SSL listeners. \
             Listener-prefixed configuration can be used to enable SSL client authentication \
             for SASL_SSL listeners.",
            "unknown configuration key `process.roles` is ignored"
        ]
    );
    // With its own key, a SASL_SSL listener asks for certificates.
    let c = parse(&format!(
        "{text}listener.name.sasl_ssl.ssl.client.auth=required\n"
    ));
    assert_eq!(
        c.tls_for("SASL_SSL").map(|t| t.client_auth),
        Some(ClientAuth::Required)
    );
}

#[test]
fn request_max_decoded_bytes() {
    assert_eq!(
        parse("").request_max_decoded_bytes,
        super::DEFAULT_REQUEST_MAX_DECODED_BYTES
    );
    assert_eq!(super::DEFAULT_REQUEST_MAX_DECODED_BYTES, 64 << 20);
    let c = parse("kacl.request.max.decoded.bytes=1048576");
    assert_eq!(c.request_max_decoded_bytes, 1 << 20);
    assert!(c.warnings.is_empty(), "a known key: {:?}", c.warnings);
    assert_eq!(
        parse("kacl.request.max.decoded.bytes=65536").request_max_decoded_bytes,
        64 << 10
    );
    refused_for(
        "kacl.request.max.decoded.bytes=65535",
        "kacl.request.max.decoded.bytes",
    );
    refused_for(
        "kacl.request.max.decoded.bytes=-1",
        "kacl.request.max.decoded.bytes",
    );
    refused_for(
        "kacl.request.max.decoded.bytes=1GiB",
        "kacl.request.max.decoded.bytes",
    );
}

#[test]
fn sasl_server_max_receive_size() {
    assert_eq!(
        parse("").sasl_server_max_receive_size,
        524_288,
        "Kafka's default"
    );
    assert_eq!(
        parse("sasl.server.max.receive.size=1024").sasl_server_max_receive_size,
        1024
    );
    refused_for(
        "sasl.server.max.receive.size=0",
        "sasl.server.max.receive.size",
    );
    assert_eq!(
        parse("sasl.server.max.receive.size=-1").sasl_server_max_receive_size,
        2_147_483_647,
        "Kafka's NetworkReceive.UNLIMITED"
    );
    refused_for(
        "sasl.server.max.receive.size=-2",
        "sasl.server.max.receive.size",
    );
    refused_for(
        "sasl.server.max.receive.size=2147483648",
        "sasl.server.max.receive.size",
    );
}

#[test]
fn queued_max_request_bytes() {
    assert_eq!(
        parse("").queued_max_request_bytes,
        None,
        "Kafka's -1: no bound"
    );
    assert_eq!(
        parse("queued.max.request.bytes=-1").queued_max_request_bytes,
        None
    );
    assert_eq!(
        parse("queued.max.request.bytes=0").queued_max_request_bytes,
        None
    );
    let c = parse("socket.request.max.bytes=1000\nqueued.max.request.bytes=1000");
    assert_eq!(c.queued_max_request_bytes, Some(1000));
    assert_eq!(
        parse("queued.max.request.bytes=536870912").queued_max_request_bytes,
        Some(536_870_912)
    );
    // KafkaConfig's rule: a bound must hold the largest frame.
    let err = refuse("socket.request.max.bytes=1000\nqueued.max.request.bytes=999");
    assert_eq!(err.key(), Some("queued.max.request.bytes"));
    assert!(
        err.to_string()
            .contains("must be larger or equal to socket.request.max.bytes"),
        "{err}"
    );
    refused_for("queued.max.request.bytes=lots", "queued.max.request.bytes");
}

#[test]
fn tls_protocols_and_cipher_suites() {
    // The parsing itself is kacl_config::tls's (tested there); here: the keys reach it, its
    // warnings reach the server's, its refusals name the key.
    use crate::{TlsOffer, TlsProtocol};
    let base = "listeners=SSL://127.0.0.1:0\nssl.keystore.location=/k.pem\n";
    let tls = |extra: &str| parse(&format!("{base}{extra}")).tls.expect("tls").offer;
    assert_eq!(tls(""), TlsOffer::default());
    assert_eq!(
        tls("ssl.enabled.protocols=TLSv1.3").protocols,
        [TlsProtocol::Tls13]
    );
    let c = parse(&format!(
        "{base}ssl.cipher.suites=TLS_AES_256_GCM_SHA384,TLS_RSA_WITH_AES_128_CBC_SHA"
    ));
    let offer = c.tls.unwrap().offer;
    assert_eq!(offer.cipher_suites, ["TLS_AES_256_GCM_SHA384"]);
    assert_eq!(offer.protocols, [TlsProtocol::Tls13]);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("TLS_RSA_WITH_AES_128_CBC_SHA")),
        "{:?}",
        c.warnings
    );
    refused_for(
        &format!("{base}ssl.enabled.protocols=TLSv1.1"),
        "ssl.enabled.protocols",
    );
    refused_for(
        &format!("{base}ssl.cipher.suites=TLS_RSA_WITH_AES_128_CBC_SHA"),
        "ssl.cipher.suites",
    );
}

#[test]
fn connections_max_reauth_ms() {
    assert_eq!(parse("").connections_max_reauth, None, "Kafka's 0: off");
    assert_eq!(
        parse("connections.max.reauth.ms=0").connections_max_reauth,
        None
    );
    assert_eq!(
        parse("connections.max.reauth.ms=-5").connections_max_reauth,
        None
    );
    assert_eq!(
        parse("connections.max.reauth.ms=3600000").connections_max_reauth,
        Some(Duration::from_secs(3600))
    );
    refused_for(
        "connections.max.reauth.ms=soon",
        "connections.max.reauth.ms",
    );
}

#[test]
fn max_connections_per_ip_overrides() {
    use std::net::IpAddr;
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    assert!(parse("").max_connections_per_ip_overrides.is_empty());
    let c = parse(
        "max.connections.per.ip=0\n\
         max.connections.per.ip.overrides=10.0.0.5:100, [::1]:7,0:0:0:0:0:0:0:2:3,localhost:9",
    );
    let overrides = &c.max_connections_per_ip_overrides;
    assert_eq!(overrides[&ip("10.0.0.5")], 100);
    assert_eq!(overrides[&ip("::1")], 7);
    assert_eq!(overrides[&ip("::2")], 3);
    assert!(
        overrides.iter().any(|(a, n)| a.is_loopback() && *n == 9),
        "localhost resolved: {overrides:?}"
    );
    // KafkaConfig: 0 needs overrides.
    let err = refuse("max.connections.per.ip=0");
    assert_eq!(err.key(), Some("max.connections.per.ip"));
    assert!(
        err.to_string().ends_with(
            "can be set to zero only if max.connections.per.ip.overrides property is set."
        ),
        "{err}"
    );
    for bad in [
        "10.0.0.5",
        "10.0.0.5:-1",
        "10.0.0.5:lots",
        "no-such-host.invalid:3",
    ] {
        refused_for(
            &format!("max.connections.per.ip.overrides={bad}"),
            "max.connections.per.ip.overrides",
        );
    }
}

#[test]
fn listener_prefixed_ssl_keys_override_the_global_ones() {
    let two = "listeners=SSL://127.0.0.1:0,INTERNAL://127.0.0.1:0\n\
               listener.security.protocol.map=SSL:SSL,INTERNAL:SSL\n\
               ssl.keystore.location=/k.pem\nssl.truststore.location=/ca.pem\n\
               ssl.client.auth=required\n";
    let c = parse(&format!(
        "{two}listener.name.internal.ssl.client.auth=none\n\
         listener.name.internal.ssl.enabled.protocols=TLSv1.3\n\
         listener.name.internal.ssl.bogus=1\n"
    ));
    let ssl = c.tls_for("SSL").unwrap();
    let internal = c.tls_for("INTERNAL").unwrap();
    assert_eq!(ssl.client_auth, ClientAuth::Required);
    assert_eq!(internal.client_auth, ClientAuth::None);
    assert_eq!(internal.key_store, ssl.key_store, "inherited");
    assert_eq!(internal.offer.protocols, [crate::TlsProtocol::Tls13]);
    assert_eq!(ssl.offer, crate::TlsOffer::default());
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("listener.name.internal.ssl.bogus")),
        "{:?}",
        c.warnings
    );
    // A refused override names its own key.
    refused_for(
        &format!("{two}listener.name.internal.ssl.client.auth=maybe\n"),
        "listener.name.internal.ssl.client.auth",
    );
    // A listener may bring the only key store.
    let own =
        parse("listeners=SSL://127.0.0.1:0\nlistener.name.ssl.ssl.keystore.location=/own.pem\n");
    assert!(own.tls.is_none());
    assert_eq!(
        own.tls_for("SSL").map(|t| &t.key_store),
        Some(&KeyStore::File(PathBuf::from("/own.pem")))
    );
}

#[test]
fn gateway_keys_turn_gateway_mode_on_and_need_the_bootstrap_key() {
    let c = parse(
        "kacl.gateway.upstream.bootstrap.servers=10.0.0.1:9092, up2:9093\n\
         kacl.gateway.upstream.security.protocol=SASL_PLAINTEXT\n\
         kacl.gateway.broker.port.base=30000",
    );
    let gateway = c.gateway.expect("gateway mode");
    assert_eq!(gateway.upstream_bootstrap, ["10.0.0.1:9092", "up2:9093"]);
    assert_eq!(
        gateway.upstream_properties.get("security.protocol"),
        Some("SASL_PLAINTEXT")
    );
    assert_eq!(gateway.broker_port_base, Some(30000));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert!(parse("node.id=1").gateway.is_none());
    refused_for(
        "kacl.gateway.broker.port.base=30000",
        "kacl.gateway.broker.port.base",
    );
    refused_for(
        "kacl.gateway.upstream.bootstrap.servers=nohost",
        "kacl.gateway.upstream.bootstrap.servers",
    );
    refused_for(
        "kacl.gateway.upstream.bootstrap.servers=a:1\nkacl.gateway.broker.port.base=x",
        "kacl.gateway.broker.port.base",
    );
}
