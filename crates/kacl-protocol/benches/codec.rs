//! kacl-protocol against kafka-protocol 0.18.0, side by side in one run: encode and decode of a
//! DescribeAclsResponse (10,000 resources x 1 ACL and 1,000 resources x 10 ACLs, v1 and v3) and
//! decode of a 100-filter DeleteAclsRequest (v1 and v3).
//!
//! Both sides do the same work: decode takes the body bytes and builds the message (kafka-protocol
//! from a `Bytes`, its zero-copy input; kacl from a `&[u8]`); encode computes the size and
//! writes into a buffer of that capacity (`encode`), or writes into a buffer kept across calls
//! (`encode_reused`). Targets (issue 2): decode >= 5x, encode >= 1.5x.
//!
//! Time is the benchmark thread's own CPU time (Linux `/proc/thread-self/schedstat`, wall clock
//! elsewhere): the two cores are shared with other work, and wall time would charge whatever
//! else ran to whichever side happened to be measured then. Samples are flat (equal iteration
//! counts of ~200 ms each) so the scheduler-tick granularity of that clock stays near 2%.
//!
//! `cargo bench -p kacl-protocol --bench codec`; figures are recorded in BENCHMARKS.md.

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, Bencher, BenchmarkGroup, Criterion, SamplingMode,
};
use kacl_protocol::messages::delete_acls::{DeleteAclsFilter, DeleteAclsRequest};
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::Message;
use kafka_protocol::protocol::{Decodable, Encodable};

type KpDescribeAclsResponse = kafka_protocol::messages::DescribeAclsResponse;
type KpDeleteAclsRequest = kafka_protocol::messages::DeleteAclsRequest;

/// Short and repeatable: the machine has two cores shared with other work.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

/// Nanoseconds this thread has spent on a CPU, user and kernel time (page faults included).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Measures `routine` in this thread's CPU time when the platform tells it, else wall time.
fn run<O>(b: &mut Bencher<'_>, mut routine: impl FnMut() -> O) {
    if thread_cpu_ns().is_none() {
        return b.iter(routine);
    }
    b.iter_custom(|iters| {
        let start = thread_cpu_ns().unwrap_or(0);
        for _ in 0..iters {
            black_box(routine());
        }
        Duration::from_nanos(thread_cpu_ns().unwrap_or(0).saturating_sub(start))
    })
}

/// A response of `resources` topics with `acls` ACLs each, with realistic names.
fn describe_acls_response(resources: usize, acls: usize) -> DescribeAclsResponse<'static> {
    DescribeAclsResponse {
        resources: (0..resources)
            .map(|i| DescribeAclsResource {
                resource_type: 2,
                resource_name: Cow::Owned(format!("orders.eu-west.topic-{i:06}")),
                pattern_type: 3,
                acls: (0..acls)
                    .map(|j| AclDescription {
                        principal: Cow::Owned(format!("User:service-account-{j:03}")),
                        host: Cow::Borrowed("*"),
                        operation: 3,
                        permission_type: 3,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn delete_acls_request(filters: usize) -> DeleteAclsRequest<'static> {
    DeleteAclsRequest {
        filters: (0..filters)
            .map(|i| DeleteAclsFilter {
                resource_type_filter: 2,
                resource_name_filter: Some(Cow::Owned(format!("orders.eu-west.topic-{i:06}"))),
                pattern_type_filter: 3,
                principal_filter: Some(Cow::Owned(format!("User:service-account-{i:03}"))),
                host_filter: None,
                operation: 3,
                permission_type: 3,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn describe_acls(c: &mut Criterion) {
    for (resources, acls) in [(10_000, 1), (1_000, 10)] {
        let ours = describe_acls_response(resources, acls);
        for version in [1i16, 3] {
            let wire = ours.to_bytes(version).unwrap();
            let shared = Bytes::copy_from_slice(&wire);
            let theirs = KpDescribeAclsResponse::decode(&mut shared.clone(), version).unwrap();
            let shape = format!("{resources}x{acls}/v{version}");

            let mut group = c.benchmark_group(format!("describe_acls_response/decode/{shape}"));
            configure(&mut group);
            group.bench_function("kacl", |b| {
                run(b, || {
                    DescribeAclsResponse::decode_exact(black_box(&wire), version).unwrap()
                })
            });
            group.bench_function("kafka-protocol", |b| {
                run(b, || {
                    KpDescribeAclsResponse::decode(&mut black_box(&shared).clone(), version)
                        .unwrap()
                })
            });
            group.finish();

            let mut group = c.benchmark_group(format!("describe_acls_response/encode/{shape}"));
            configure(&mut group);
            group.bench_function("kacl", |b| {
                run(b, || black_box(&ours).to_bytes(version).unwrap())
            });
            group.bench_function("kafka-protocol", |b| {
                run(b, || {
                    let message = black_box(&theirs);
                    let mut out = BytesMut::with_capacity(message.compute_size(version).unwrap());
                    message.encode(&mut out, version).unwrap();
                    out
                })
            });
            group.finish();

            // The same encoders writing into a buffer kept across calls, as a connection's
            // write buffer is: no sizing pass, no allocation.
            let mut group =
                c.benchmark_group(format!("describe_acls_response/encode_reused/{shape}"));
            configure(&mut group);
            let mut buffer = Vec::with_capacity(wire.len());
            group.bench_function("kacl", |b| {
                run(b, || {
                    buffer.clear();
                    black_box(&ours).encode(&mut buffer, version).unwrap();
                    black_box(buffer.len())
                })
            });
            let mut buffer = BytesMut::with_capacity(wire.len());
            group.bench_function("kafka-protocol", |b| {
                run(b, || {
                    buffer.clear();
                    black_box(&theirs).encode(&mut buffer, version).unwrap();
                    black_box(buffer.len())
                })
            });
            group.finish();
        }
    }
}

fn delete_acls(c: &mut Criterion) {
    let ours = delete_acls_request(100);
    for version in [1i16, 3] {
        let wire = ours.to_bytes(version).unwrap();
        let shared = Bytes::copy_from_slice(&wire);
        let mut group = c.benchmark_group(format!("delete_acls_request/decode/100/v{version}"));
        configure(&mut group);
        group.bench_function("kacl", |b| {
            run(b, || {
                DeleteAclsRequest::decode_exact(black_box(&wire), version).unwrap()
            })
        });
        group.bench_function("kafka-protocol", |b| {
            run(b, || {
                KpDeleteAclsRequest::decode(&mut black_box(&shared).clone(), version).unwrap()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, describe_acls, delete_acls);
criterion_main!(benches);
