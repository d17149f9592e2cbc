//! What authorization costs a request forwarded by a gateway node, with 2,000,000 ACLs loaded
//! against a reference with only the principal's own ACL: the gateway's planning step
//! (`Gateway::plans_forward`: decode the request, authorize through the audited path, decide to
//! forward) for a Produce of one 1 KB batch to one partition, a Fetch of one partition, and a
//! JoinGroup. Timed as this thread's CPU time so that other work on a shared machine does not
//! count. The forwarding itself (a frame copy and a channel send) is measured end to end by
//! `kacl perf --workload produce` against the gateway and the upstream.
//!
//! `cargo bench -p kacl-server --bench gateway_authorize`

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use kacl_acl::{
    AccessControlEntry, AclBinding, AclIndex, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType, SharedAclIndex,
};
use kacl_gateway::Gateway;
use kacl_protocol::frame::{encode_request_frame, RequestFrame};
use kacl_protocol::messages::fetch::{FetchPartition, FetchRequest, FetchTopic};
use kacl_protocol::messages::join_group::JoinGroupRequest;
use kacl_protocol::messages::produce::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kacl_protocol::{ApiKey, Message, RequestHeader};
use kacl_server_config::ServerConfig;
use kacl_service::context::RequestContext;
use kacl_service::credentials::ScramCredentials;
use kacl_service::metrics::Metrics;
use kacl_service::{BoundListener, ServerState};
use kacl_store::MemoryStore;

const PRINCIPAL: &str = "User:alice";

fn allow(rt: ResourceType, name: &str, principal: &str, op: AclOperation) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(rt, name, PatternType::Literal),
        AccessControlEntry::new(principal, "*", op, AclPermissionType::Allow),
    )
}

/// `others` ACLs of ten other principals on `others / 10` topics and groups (some PREFIXED), plus alice's WRITE and READ on `orders` and READ on group `billing`.
fn acls(others: usize) -> Vec<AclBinding> {
    let mut acls = vec![
        allow(
            ResourceType::Topic,
            "orders",
            PRINCIPAL,
            AclOperation::Write,
        ),
        allow(ResourceType::Topic, "orders", PRINCIPAL, AclOperation::Read),
        allow(
            ResourceType::Group,
            "billing",
            PRINCIPAL,
            AclOperation::Read,
        ),
    ];
    for i in 0..others {
        // Ten principals on each of 200,000 resources: every ACL distinct.
        let principal = format!("User:service-{}", i % 10);
        let (rt, name) = if (i / 10) % 7 == 0 {
            (ResourceType::Group, format!("group-{}", i / 10))
        } else {
            (ResourceType::Topic, format!("topic-{}", i / 10))
        };
        let pt = if (i / 10) % 10 == 0 {
            PatternType::Prefixed
        } else {
            PatternType::Literal
        };
        let op = [
            AclOperation::Read,
            AclOperation::Write,
            AclOperation::Describe,
        ][i % 3];
        acls.push(AclBinding::new(
            ResourcePattern::new(rt, &name, pt),
            AccessControlEntry::new(&principal, "*", op, AclPermissionType::Allow),
        ));
    }
    acls
}

fn state(others: usize, gateway: &Gateway) -> Arc<ServerState> {
    let pairs =
        [("listeners", "PLAINTEXT://127.0.0.1:9092")].map(|(k, v)| (k.to_owned(), v.to_owned()));
    let config = ServerConfig::from_properties("", &pairs).expect("config");
    let index =
        SharedAclIndex::from_index(AclIndex::from_bindings(acls(others)).expect("indexable"));
    let store = Arc::new(MemoryStore::new());
    let scram = ScramCredentials::load(store.clone()).expect("credentials");
    let listener = BoundListener {
        name: "PLAINTEXT".into(),
        protocol: config.listeners[0].protocol,
        local_addr: "127.0.0.1:9092".parse().unwrap(),
        advertised_host: "127.0.0.1".into(),
        advertised_port: 9092,
        upstream_node: None,
    };
    let state = ServerState::new(
        config,
        store,
        index,
        Vec::new(),
        vec![listener],
        scram,
        Arc::new(Metrics::new()),
    );
    Arc::new(state.with_forwarder(Arc::new(gateway.clone())))
}

fn frame<'a, M: Message<'a>>(version: i16, body: &M) -> Vec<u8> {
    let header = RequestHeader {
        request_api_key: M::API_KEY.key(),
        request_api_version: version,
        correlation_id: 1,
        client_id: Some(Cow::Borrowed("rdkafka")),
        unknown_tagged_fields: Default::default(),
    };
    let mut out = Vec::new();
    encode_request_frame(&mut out, &header, version, body).expect("encodes");
    out
}

fn requests() -> Vec<(&'static str, ApiKey, i16, Vec<u8>)> {
    // One v2 record batch of 1 KB (only its header is ever looked at).
    let mut records = vec![7u8; 1024];
    records[..61].fill(0);
    records[8..12].copy_from_slice(&(1024i32 - 12).to_be_bytes());
    records[16] = 2;
    let produce = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: vec![TopicProduceData {
            name: Cow::Borrowed("orders"),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(Cow::Owned(records)),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let fetch = FetchRequest {
        max_wait_ms: 500,
        min_bytes: 1,
        max_bytes: 52_428_800,
        topics: vec![FetchTopic {
            topic: Cow::Borrowed("orders"),
            partitions: vec![FetchPartition {
                partition: 0,
                partition_max_bytes: 1_048_576,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let join = JoinGroupRequest {
        group_id: Cow::Borrowed("billing"),
        session_timeout_ms: 45_000,
        rebalance_timeout_ms: 300_000,
        protocol_type: Cow::Borrowed("consumer"),
        ..Default::default()
    };
    vec![
        ("produce_v9_1KB", ApiKey::Produce, 9, frame(9, &produce)),
        ("fetch_v12", ApiKey::Fetch, 12, frame(12, &fetch)),
        ("join_group_v7", ApiKey::JoinGroup, 7, frame(7, &join)),
    ]
}

/// This thread's time on a CPU so far.
fn thread_cpu() -> Duration {
    let ns = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("gateway_authorize");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    for (label, others) in [("1_acl", 0usize), ("2M_acls", 2_000_000)] {
        let started = Instant::now();
        let gateway = Gateway::offline(&[1]);
        let state = state(others, &gateway);
        eprintln!(
            "{label}: {} ACLs indexed in {:?}",
            state.acls.len(),
            started.elapsed()
        );
        for (name, api, version, bytes) in requests() {
            let parsed = RequestFrame::parse(&bytes[4..]).expect("frame");
            let ctx = RequestContext {
                state: &state,
                principal: PRINCIPAL,
                client_host: "127.0.0.1",
                listener: &state.listeners[0],
                api,
                version,
                correlation_id: 1,
            };
            assert!(gateway.plans_forward(&ctx, &parsed), "{name} is allowed");
            group.bench_function(format!("{name}/{label}"), |b| {
                b.iter_custom(|iters| {
                    let start = thread_cpu();
                    for _ in 0..iters {
                        assert!(gateway.plans_forward(&ctx, &parsed));
                    }
                    thread_cpu() - start
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
