//! DescribeConfigs of every config of 10,000 topics in one request (what kafka-ui, AKHQ and
//! `kafka-topics.sh --describe` ask for), against Metadata v12 of the same topics as the
//! reference measured side by side. Each topic sets two configs; the caller is a super user,
//! so the cost is the config table walk, the synonyms and the encoding, not authorization.
//!
//! - `handler_cpu`: the handler called in-process on a parsed frame (decode, one entry per
//!   config per topic with its synonyms, encode the response), this thread's CPU time;
//! - `tcp_wall`: a full round trip over 127.0.0.1, wall time.
//!
//! `cargo bench -p kacl-server --bench describe_configs`

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use kacl_protocol::frame::{encode_request_frame, RequestFrame};
use kacl_protocol::messages::describe_configs::{DescribeConfigsRequest, DescribeConfigsResource};
use kacl_protocol::messages::metadata::MetadataRequest;
use kacl_protocol::{ApiKey, Message, RequestHeader};
use kacl_server::{RunningServer, Server};
use kacl_server_config::ServerConfig;
use kacl_service::context::RequestContext;
use kacl_service::handlers::{DescribeConfigs, Metadata};
use kacl_service::router;
use kacl_service::Outcome;
use kacl_store::{MemoryStore, MetadataStore, PartitionRecord, TopicRecord};

const TOPICS: usize = 10_000;
const PRINCIPAL: &str = "User:ANONYMOUS";

fn topic_records() -> Vec<TopicRecord> {
    (0..TOPICS)
        .map(|i| TopicRecord {
            name: format!("topic-{i:05}"),
            topic_id: kacl_store::random_kafka_uuid(),
            partitions: vec![PartitionRecord {
                partition_index: 0,
                replicas: vec![1],
            }],
            configs: BTreeMap::from([
                ("cleanup.policy".to_owned(), "compact".to_owned()),
                ("retention.ms".to_owned(), format!("{}", 86_400_000 + i)),
            ]),
            created_seq: 0,
        })
        .collect()
}

fn start(runtime: &tokio::runtime::Runtime) -> (RunningServer, SocketAddr) {
    let store = MemoryStore::new();
    store.create_topics(&topic_records()).expect("topics");
    let dir = std::env::temp_dir().join("kacl-bench-describe-configs-unused");
    let config = ServerConfig::from_properties(
        "",
        &[
            ("listeners".into(), "PLAINTEXT://127.0.0.1:0".into()),
            ("super.users".into(), PRINCIPAL.into()),
            ("metadata.log.dir".into(), dir.display().to_string()),
            ("log.retention.hours".into(), "72".into()),
        ],
    )
    .expect("config");
    let server = runtime
        .block_on(Server::start_with_store(config, Arc::new(store)))
        .expect("server starts");
    let addr = server.listeners()[0].local_addr;
    (server, addr)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    DescribeConfigs { synonyms: bool },
    Metadata,
}

fn request_frame(case: Case) -> Vec<u8> {
    let header = RequestHeader {
        correlation_id: 1,
        client_id: Some(Cow::Borrowed("bench")),
        ..Default::default()
    };
    let mut request = Vec::new();
    match case {
        Case::DescribeConfigs { synonyms } => {
            let body = DescribeConfigsRequest {
                resources: (0..TOPICS)
                    .map(|i| DescribeConfigsResource {
                        resource_type: 2,
                        resource_name: Cow::Owned(format!("topic-{i:05}")),
                        configuration_keys: None,
                        ..Default::default()
                    })
                    .collect(),
                include_synonyms: synonyms,
                include_documentation: false,
                ..Default::default()
            };
            encode_request_frame(&mut request, &header, 4, &body).expect("encodable");
        }
        Case::Metadata => {
            let body = MetadataRequest {
                topics: None,
                allow_auto_topic_creation: false,
                ..Default::default()
            };
            encode_request_frame(&mut request, &header, 12, &body).expect("encodable");
        }
    }
    request
}

fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn handler_cpu_time(
    runtime: &tokio::runtime::Runtime,
    server: &RunningServer,
    case: Case,
    frame: &[u8],
    iters: u64,
) -> Duration {
    let parsed = RequestFrame::parse(&frame[4..]).expect("frame");
    let state = server.state();
    let (api, version) = match case {
        Case::DescribeConfigs { .. } => (ApiKey::DescribeConfigs, 4),
        Case::Metadata => (ApiKey::Metadata, 12),
    };
    let ctx = RequestContext {
        state,
        principal: PRINCIPAL,
        client_host: "127.0.0.1",
        listener: &server.listeners()[0],
        api,
        version,
        correlation_id: 1,
    };
    let start = thread_cpu_ns();
    for _ in 0..iters {
        // The router's own path: decode, the handler, encode (no await inside: it runs on
        // this thread).
        let outcome = match case {
            Case::DescribeConfigs { .. } => {
                runtime.block_on(router::serve::<DescribeConfigs>(&ctx, &parsed))
            }
            Case::Metadata => runtime.block_on(router::serve::<Metadata>(&ctx, &parsed)),
        };
        match outcome {
            Outcome::Respond(bytes) => assert!(bytes.len() > TOPICS * 20),
            other => panic!("unexpected outcome {other:?}"),
        }
    }
    Duration::from_nanos(thread_cpu_ns() - start)
}

struct Client {
    stream: TcpStream,
    request: Vec<u8>,
    buffer: Vec<u8>,
}

impl Client {
    fn connect(addr: SocketAddr, case: Case) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Client {
            stream,
            request: request_frame(case),
            buffer: Vec::new(),
        }
    }

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
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(TOPICS as u64));
}

fn describe_configs_10k(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let (server, addr) = start(&runtime);
    let cases = [
        (
            "describe_configs_v4",
            Case::DescribeConfigs { synonyms: false },
        ),
        (
            "describe_configs_v4_with_synonyms",
            Case::DescribeConfigs { synonyms: true },
        ),
        ("metadata_v12_reference", Case::Metadata),
    ];
    // The response really holds every config of every topic.
    let frame = request_frame(cases[0].1);
    let parsed = RequestFrame::parse(&frame[4..]).expect("frame");
    let request: DescribeConfigsRequest<'_> = parsed.decode_body().expect("request");
    assert_eq!(request.resources.len(), TOPICS);
    assert_eq!(DescribeConfigsRequest::VERSIONS.max, 4);

    let mut group = c.benchmark_group("describe_configs_10k_topics/handler_cpu");
    configure(&mut group);
    for (label, case) in cases {
        let frame = request_frame(case);
        group.bench_function(label, |b| {
            b.iter_custom(|iters| handler_cpu_time(&runtime, &server, case, &frame, iters))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("describe_configs_10k_topics/tcp_wall");
    configure(&mut group);
    for (label, case) in cases {
        let mut client = Client::connect(addr, case);
        let started = Instant::now();
        let bytes = client.round_trip();
        eprintln!(
            "{label}: response {bytes} bytes, first round trip {:?}",
            started.elapsed()
        );
        group.bench_function(label, |b| b.iter(|| client.round_trip()));
    }
    group.finish();
    runtime.block_on(server.shutdown());
}

criterion_group!(benches, describe_configs_10k);
criterion_main!(benches);
