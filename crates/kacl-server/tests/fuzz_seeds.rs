//! The seed corpus of the `request_path` fuzz target (`fuzz/corpus/request_path/`): whole client
//! conversations (a setup byte, then request frames) that reach every handler, the SASL
//! exchanges and the refusals. Each seed is run here through
//! [`kacl_server::fuzzing::serve_bytes`] and must get the expected number of answers, and the
//! committed files must equal what this test generates. After changing a message, regenerate:
//!
//! ```sh
//! KACL_WRITE_FUZZ_SEEDS=1 cargo test -p kacl-server --test fuzz_seeds
//! ```
//!
//! The setup byte means what `fuzz/src/request_path.rs` says (bit 0 SASL listener, bit 1 super
//! user, bit 3 `kacl.acl.max.batch=2`, bit 4 self-service describe); the configuration below
//! mirrors it.

mod common;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use common::*;
use kacl_protocol::frame::encode_request_frame;
use kacl_protocol::messages::alter_user_scram_credentials::{
    AlterUserScramCredentialsRequest, ScramCredentialUpsertion,
};
use kacl_protocol::messages::api_versions::ApiVersionsRequest;
use kacl_protocol::messages::create_acls::CreateAclsRequest;
use kacl_protocol::messages::create_partitions::{CreatePartitionsRequest, CreatePartitionsTopic};
use kacl_protocol::messages::create_topics::{CreatableTopic, CreateTopicsRequest};
use kacl_protocol::messages::delete_acls::DeleteAclsRequest;
use kacl_protocol::messages::delete_topics::DeleteTopicsRequest;
use kacl_protocol::messages::describe_acls::DescribeAclsRequest;
use kacl_protocol::messages::describe_cluster::DescribeClusterRequest;
use kacl_protocol::messages::describe_user_scram_credentials::DescribeUserScramCredentialsRequest;
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic};
use kacl_protocol::messages::sasl_authenticate::SaslAuthenticateRequest;
use kacl_protocol::messages::sasl_handshake::SaslHandshakeRequest;
use kacl_protocol::{Message, RequestHeader};
use kacl_sasl::plain::client_token;
use kacl_server::fuzzing;
use kacl_server_config::ServerConfig;
use kacl_store::MemoryStore;

const SASL: u8 = 1;
const SUPER: u8 = 2;
const SMALL_BATCH: u8 = 8;
const SELF_SERVICE: u8 = 16;

/// One conversation: its file name, setup byte, bytes sent, and how many answers come back.
struct Seed {
    name: String,
    setup: u8,
    bytes: Vec<u8>,
    answers: usize,
}

impl Seed {
    fn new(name: impl Into<String>, setup: u8) -> Seed {
        Seed {
            name: name.into(),
            setup,
            bytes: Vec::new(),
            answers: 0,
        }
    }

    /// A request the server answers.
    fn ask<'a, M: Message<'a>>(mut self, version: i16, body: &M) -> Seed {
        self.answers += 1;
        self.push(version, body)
    }

    /// A request after which the server closes without answering.
    fn refused<'a, M: Message<'a>>(self, version: i16, body: &M) -> Seed {
        self.push(version, body)
    }

    fn push<'a, M: Message<'a>>(mut self, version: i16, body: &M) -> Seed {
        let header = RequestHeader {
            correlation_id: self.answers as i32 + 100,
            client_id: Some(Cow::Borrowed("fuzz-seed")),
            ..Default::default()
        };
        encode_request_frame(&mut self.bytes, &header, version, body).expect("encodable");
        self
    }

    /// A raw SASL token (after SaslHandshake v0), answered with a raw token.
    fn raw_token(mut self, token: &[u8]) -> Seed {
        self.bytes
            .extend_from_slice(&(token.len() as i32).to_be_bytes());
        self.bytes.extend_from_slice(token);
        self.answers += 1;
        self
    }

    fn file(&self) -> Vec<u8> {
        let mut file = vec![self.setup];
        file.extend_from_slice(&self.bytes);
        file
    }
}

fn handshake() -> SaslHandshakeRequest<'static> {
    SaslHandshakeRequest {
        mechanism: Cow::Borrowed("PLAIN"),
        ..Default::default()
    }
}

fn login(user: &str, password: &str) -> SaslAuthenticateRequest<'static> {
    SaslAuthenticateRequest {
        auth_bytes: Cow::Owned(client_token("", user, password)),
        ..Default::default()
    }
}

/// v0 knows LITERAL patterns only.
fn pattern(version: i16, wanted: i8) -> i8 {
    if version == 0 {
        LITERAL
    } else {
        wanted
    }
}

fn describe_every(version: i16) -> DescribeAclsRequest<'static> {
    describe_filter(ANY, None, pattern(version, ANY), None, ANY, ANY)
}

fn create_two(version: i16) -> CreateAclsRequest<'static> {
    CreateAclsRequest {
        creations: vec![
            allow_read("fuzz-a", "User:bob"),
            creation(
                GROUP,
                "g-",
                pattern(version, PREFIXED),
                "User:bob",
                "*",
                READ,
                ALLOW,
            ),
        ],
        ..Default::default()
    }
}

fn delete_bob(version: i16) -> DeleteAclsRequest<'static> {
    DeleteAclsRequest {
        filters: vec![
            delete_filter(ANY, None, pattern(version, ANY), Some("User:bob"), ANY, ANY),
            delete_filter(
                TOPIC,
                Some("orders"),
                pattern(version, MATCH),
                None,
                READ,
                ANY,
            ),
        ],
        ..Default::default()
    }
}

fn metadata(version: i16, names: Option<&[&str]>) -> MetadataRequest<'static> {
    MetadataRequest {
        topics: names.map(|names| {
            names
                .iter()
                .map(|n| MetadataRequestTopic {
                    name: Some(Cow::Owned((*n).to_owned())),
                    ..Default::default()
                })
                .collect()
        }),
        include_topic_authorized_operations: version >= 8,
        ..Default::default()
    }
}

fn seeds() -> Vec<Seed> {
    let mut seeds = Vec::new();
    for version in 0..=3 {
        seeds.push(
            Seed::new(format!("acls-v{version}-describe-create-delete"), SUPER)
                .ask(version, &describe_every(version))
                .ask(version, &create_two(version))
                .ask(version, &delete_bob(version))
                .ask(version, &describe_every(version)),
        );
    }
    seeds.push(
        Seed::new("acls-denied-without-super-user", 0)
            .ask(3, &create_two(3))
            .ask(3, &delete_bob(3))
            .ask(3, &describe_all()),
    );
    seeds.push(
        Seed::new("acls-batch-limit", SUPER | SMALL_BATCH)
            .ask(
                3,
                &CreateAclsRequest {
                    creations: vec![
                        allow_read("x", "User:a"),
                        allow_read("y", "User:a"),
                        allow_read("z", "User:a"),
                    ],
                    ..Default::default()
                },
            )
            .ask(3, &delete_bob(3)),
    );
    seeds.push(
        Seed::new("sasl-v1-plain-then-acls", SASL)
            .ask(1, &handshake())
            .ask(2, &login("alice", "alice-secret"))
            .ask(3, &describe_all())
            .ask(2, &create_two(2)),
    );
    seeds.push(
        Seed::new("sasl-v1-self-service-describe", SASL | SELF_SERVICE)
            .ask(1, &handshake())
            .ask(1, &login("alice", "alice-secret"))
            .ask(3, &describe_all()),
    );
    seeds.push(
        Seed::new("sasl-v0-raw-token-then-metadata", SASL)
            .ask(0, &handshake())
            .raw_token(&client_token("", "admin", "admin-secret"))
            .ask(12, &metadata(12, None)),
    );
    seeds.push(
        Seed::new("sasl-wrong-password", SASL)
            .ask(1, &handshake())
            .ask(0, &login("alice", "nope")),
    );
    seeds.push(Seed::new("sasl-request-before-authentication", SASL).refused(3, &describe_all()));
    for version in [0, 1, 4, 9, 12, 13] {
        seeds.push(
            Seed::new(format!("metadata-v{version}"), SUPER)
                .ask(
                    version,
                    &metadata(version, Some(&["orders", "missing", ""])),
                )
                .ask(version.max(1), &metadata(version.max(1), None)),
        );
    }
    seeds.push(
        Seed::new("topics-create-grow-delete", SUPER)
            .ask(
                7,
                &CreateTopicsRequest {
                    topics: vec![CreatableTopic {
                        name: Cow::Borrowed("fuzz-topic"),
                        num_partitions: 2,
                        replication_factor: 1,
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            )
            .ask(
                3,
                &CreatePartitionsRequest {
                    topics: vec![CreatePartitionsTopic {
                        name: Cow::Borrowed("fuzz-topic"),
                        count: 4,
                        assignments: None,
                        ..Default::default()
                    }],
                    timeout_ms: 1000,
                    ..Default::default()
                },
            )
            .ask(
                5,
                &DeleteTopicsRequest {
                    topic_names: vec![Cow::Borrowed("fuzz-topic"), Cow::Borrowed("orders")],
                    timeout_ms: 1000,
                    ..Default::default()
                },
            ),
    );
    seeds.push(
        Seed::new("cluster-and-api-versions", SUPER)
            .ask(
                3,
                &ApiVersionsRequest {
                    client_software_name: Cow::Borrowed("fuzz"),
                    client_software_version: Cow::Borrowed("1"),
                    ..Default::default()
                },
            )
            .ask(
                1,
                &DescribeClusterRequest {
                    include_cluster_authorized_operations: true,
                    ..Default::default()
                },
            ),
    );
    seeds.push(
        Seed::new("scram-upsert-describe", SUPER)
            .ask(
                0,
                &AlterUserScramCredentialsRequest {
                    upsertions: vec![ScramCredentialUpsertion {
                        name: Cow::Borrowed("carol"),
                        mechanism: 1,
                        iterations: 4096,
                        salt: Cow::Borrowed(&[7; 16]),
                        salted_password: Cow::Borrowed(&[9; 32]),
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            )
            .ask(0, &DescribeUserScramCredentialsRequest::default()),
    );
    seeds
}

/// The configuration a setup byte selects, as `fuzz/src/request_path.rs` builds it.
fn config(setup: u8) -> ServerConfig {
    let dir = std::env::temp_dir();
    let mut properties = vec![
        (
            "listeners",
            "PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9093",
        ),
        (
            "super.users",
            if setup & SUPER != 0 {
                "User:ANONYMOUS;User:admin;User:alice"
            } else {
                "User:admin"
            },
        ),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" \
             user_alice=\"alice-secret\";",
        ),
        ("connection.failed.authentication.delay.ms", "0"),
    ];
    if setup & SMALL_BATCH != 0 {
        properties.push(("kacl.acl.max.batch", "2"));
    }
    if setup & SELF_SERVICE != 0 {
        properties.push(("kacl.describe.self.service.enable", "true"));
    }
    common::config(&dir, &properties)
}

/// How many whole size-prefixed frames `out` holds.
fn frames(mut out: &[u8]) -> usize {
    let mut count = 0;
    while let Some((size, rest)) = out.split_at_checked(4) {
        let size = i32::from_be_bytes(size.try_into().unwrap()) as usize;
        assert!(rest.len() >= size, "a truncated answer");
        out = &rest[size..];
        count += 1;
    }
    assert!(out.is_empty(), "a truncated size prefix");
    count
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/request_path")
}

#[tokio::test]
async fn seeds_run_through_the_whole_request_path() {
    for seed in seeds() {
        let store = Arc::new(MemoryStore::new());
        let state = fuzzing::state_for(config(seed.setup), store).expect("state");
        let listener = if seed.setup & SASL != 0 {
            "SASL_PLAINTEXT"
        } else {
            "PLAINTEXT"
        };
        let out = fuzzing::serve_bytes(&state, listener, &seed.bytes)
            .await
            .expect("listener");
        assert_eq!(frames(&out), seed.answers, "{}", seed.name);
    }
}

#[test]
fn committed_seeds_are_current() {
    let dir = corpus_dir();
    let write = std::env::var_os("KACL_WRITE_FUZZ_SEEDS").is_some();
    if write {
        std::fs::create_dir_all(&dir).unwrap();
    }
    for seed in seeds() {
        let path = dir.join(&seed.name);
        if write {
            std::fs::write(&path, seed.file()).unwrap();
        } else {
            let committed = std::fs::read(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e}; regenerate with KACL_WRITE_FUZZ_SEEDS=1",
                    path.display()
                )
            });
            assert!(
                committed == seed.file(),
                "{} is stale; regenerate with KACL_WRITE_FUZZ_SEEDS=1",
                path.display()
            );
        }
    }
}
