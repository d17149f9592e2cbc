//! Metadata for every topic, the request every Kafka client starts with, at the scale of
//! KAFKA-20667: 10,000 topics and a principal with 10,000 ACLs. Kafka checks each topic
//! against the principal's ACLs (about 3.5 million checks per request); kacl resolves the
//! principal once per request and pays a few hash probes per topic.
//!
//! Two groups, each for a principal with the 10,000 ACLs, the same with the authorized-operations
//! bit field asked for (eight more decisions per topic), and a super user (no ACL decisions):
//! - `handler`: the Metadata handler called in-process on a frame (decode, authorize DESCRIBE
//!   per topic, build and encode the ~630 KB response), timed as this thread's CPU time
//!   (`/proc/thread-self/schedstat`) so that other work on a shared machine does not count;
//! - `tcp`: end to end over TCP on 127.0.0.1, wall time (the client writes the request and
//!   reads the whole response frame), which includes scheduling noise.
//!
//! `cargo bench -p kacl-server --bench metadata`

use std::borrow::Cow;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use std::time::Instant;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_protocol::frame::{encode_request_frame, RequestFrame};
use kacl_protocol::messages::metadata::MetadataRequest;
use kacl_protocol::{ApiKey, RequestHeader};
use kacl_server::{RunningServer, Server};
use kacl_server_config::ServerConfig;
use kacl_service::context::RequestContext;
use kacl_service::handlers::Metadata;
use kacl_service::router;
use kacl_service::Outcome;
use kacl_store::{MemoryStore, MetadataStore, PartitionRecord, TopicRecord};

const TOPICS: usize = 10_000;
/// Topics named `topic-NNNNN`, each with a LITERAL ACL; the rest are `app-NNN-events`, covered
/// by one PREFIXED ACL each.
const LITERAL_TOPICS: usize = 9_000;
const PRINCIPAL: &str = "User:ANONYMOUS";

fn topic_names() -> Vec<String> {
    (0..TOPICS)
        .map(|i| {
            if i < LITERAL_TOPICS {
                format!("topic-{i:05}")
            } else {
                format!("app-{:03}-events", i - LITERAL_TOPICS)
            }
        })
        .collect()
}

/// 10,000 ACLs for the principal: LITERAL READ on 9,000 topics, PREFIXED DESCRIBE on 1,000
/// prefixes. Every topic is visible to it.
fn principal_acls() -> Vec<AclBinding> {
    (0..TOPICS)
        .map(|i| {
            let (name, pattern, operation) = if i < LITERAL_TOPICS {
                (
                    format!("topic-{i:05}"),
                    PatternType::Literal,
                    AclOperation::Read,
                )
            } else {
                (
                    format!("app-{:03}-", i - LITERAL_TOPICS),
                    PatternType::Prefixed,
                    AclOperation::Describe,
                )
            };
            AclBinding::new(
                ResourcePattern::new(ResourceType::Topic, name, pattern),
                AccessControlEntry::new(PRINCIPAL, "*", operation, AclPermissionType::Allow),
            )
        })
        .collect()
}

fn topic_records() -> Vec<TopicRecord> {
    topic_names()
        .into_iter()
        .map(|name| TopicRecord {
            name,
            topic_id: kacl_store::random_kafka_uuid(),
            partitions: vec![PartitionRecord {
                partition_index: 0,
                replicas: vec![1],
            }],
            configs: Default::default(),
            created_seq: 0,
        })
        .collect()
}

/// A server on a memory store holding the topics and ACLs; `super_users` decides whether the
/// principal's ACLs are consulted at all.
fn start(runtime: &tokio::runtime::Runtime, super_users: &str) -> (RunningServer, SocketAddr) {
    let store = MemoryStore::new();
    store.create_topics(&topic_records()).expect("topics");
    store
        .commit_acl_changes(&principal_acls(), &[])
        .expect("ACLs");
    let dir = std::env::temp_dir().join("kacl-bench-metadata-unused");
    let config = ServerConfig::from_properties(
        "",
        &[
            ("listeners".into(), "PLAINTEXT://127.0.0.1:0".into()),
            ("super.users".into(), super_users.into()),
            ("metadata.log.dir".into(), dir.display().to_string()),
        ],
    )
    .expect("config");
    let server = runtime
        .block_on(Server::start_with_store(config, Arc::new(store)))
        .expect("server starts");
    let addr = server.listeners()[0].local_addr;
    (server, addr)
}

/// A Metadata v12 request frame for every topic.
fn request_frame(include_topic_authorized_operations: bool) -> Vec<u8> {
    let header = RequestHeader {
        correlation_id: 1,
        client_id: Some(Cow::Borrowed("bench")),
        ..Default::default()
    };
    let body = MetadataRequest {
        topics: None,
        allow_auto_topic_creation: false,
        include_topic_authorized_operations,
        ..Default::default()
    };
    let mut request = Vec::new();
    encode_request_frame(&mut request, &header, 12, &body).expect("encodable");
    request
}

/// This thread's time on a CPU so far, in nanoseconds.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Runs the Metadata handler on `frame` as `principal` would, `iters` times; the CPU time.
fn handler_cpu_time(
    runtime: &tokio::runtime::Runtime,
    server: &RunningServer,
    principal: &str,
    frame: &[u8],
    iters: u64,
) -> Duration {
    let payload = &frame[4..];
    let listener = &server.listeners()[0];
    let state = server.state();
    let parsed = RequestFrame::parse(payload).expect("frame");
    let ctx = RequestContext {
        state,
        principal,
        client_host: "127.0.0.1",
        listener,
        api: ApiKey::Metadata,
        version: 12,
        correlation_id: 1,
    };
    let start = thread_cpu_ns();
    for _ in 0..iters {
        // The router's own path: decode, the handler, encode (no await inside: it runs on
        // this thread).
        match runtime.block_on(router::serve::<Metadata>(&ctx, &parsed)) {
            Outcome::Respond(bytes) => assert!(bytes.len() > TOPICS * 20),
            other => panic!("unexpected outcome {other:?}"),
        }
    }
    Duration::from_nanos(thread_cpu_ns() - start)
}

/// A blocking client sending one prepared Metadata v12 frame and reading the answer.
struct Client {
    stream: TcpStream,
    request: Vec<u8>,
    buffer: Vec<u8>,
}

impl Client {
    fn connect(addr: SocketAddr, include_topic_authorized_operations: bool) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Client {
            stream,
            request: request_frame(include_topic_authorized_operations),
            buffer: Vec::new(),
        }
    }

    /// One round trip; returns the response size.
    fn round_trip(&mut self) -> usize {
        self.stream.write_all(&self.request).expect("write");
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size).expect("size");
        let size = u32::from_be_bytes(size) as usize;
        self.buffer.resize(size, 0);
        self.stream.read_exact(&mut self.buffer).expect("body");
        size
    }
}

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(TOPICS as u64));
}

fn metadata_all_topics(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let (acl_server, acl_addr) = start(&runtime, "User:admin");
    let (super_server, super_addr) = start(&runtime, PRINCIPAL);
    let cases = [
        ("principal_with_10k_acls", &acl_server, acl_addr, false),
        (
            "principal_with_10k_acls_and_authorized_ops",
            &acl_server,
            acl_addr,
            true,
        ),
        ("super_user_baseline", &super_server, super_addr, false),
    ];

    let mut group = c.benchmark_group("metadata_v12_all_topics_10k/handler_cpu");
    configure(&mut group);
    for (label, server, _, ops) in cases {
        let frame = request_frame(ops);
        group.bench_function(label, |b| {
            b.iter_custom(|iters| handler_cpu_time(&runtime, server, PRINCIPAL, &frame, iters))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("metadata_v12_all_topics_10k/tcp_wall");
    configure(&mut group);
    for (label, _, addr, ops) in cases {
        let mut client = Client::connect(addr, ops);
        let started = Instant::now();
        let bytes = client.round_trip();
        assert!(bytes > TOPICS * 20, "every topic answered ({bytes} bytes)");
        eprintln!(
            "{label}: response {bytes} bytes, first round trip {:?}",
            started.elapsed()
        );
        group.bench_function(label, |b| b.iter(|| client.round_trip()));
    }
    group.finish();
    runtime.block_on(acl_server.shutdown());
    runtime.block_on(super_server.shutdown());
}

criterion_group!(benches, metadata_all_topics);
criterion_main!(benches);
