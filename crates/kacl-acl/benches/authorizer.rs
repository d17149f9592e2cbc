//! Criterion benches in the shape of Kafka's `AuthorizerBenchmark`, with the
//! linear-scan oracle (what Kafka does for DescribeAcls) measured side by side.
//!
//! Data set, per configuration (resources R, deny share D):
//! - R resources `foo-bar35_resource-<i>`: every 10th a GROUP, the rest TOPIC; every
//!   5th PREFIXED, the rest LITERAL; each with ALLOW READ on host `*` for
//!   `User:test-user`, `User:test-user1` … `User:test-user9`, plus a DENY READ for
//!   each with probability D;
//! - PREFIXED TOPIC `foo-bar35_resource-` for `User:test-user` on hosts
//!   `127.0.0.0`–`127.0.0.9` (ALLOW READ, DENY with probability D);
//! - LITERAL TOPIC `*` for `User:test-user` on R/10 hosts `127.0.0<n>` (ALLOW READ,
//!   DENY with probability D);
//! - not in Kafka's bench: 10 ALLOW DESCRIBE ACLs for `User:auditor` (a principal with
//!   few ACLs, to show the fixed cost of describe-by-principal).
//!
//! Run: `CARGO_TARGET_DIR=/work/target-acl cargo bench -p kacl-acl --bench authorizer`;
//! `KACL_BENCH_CIDR=1` runs only the 2M set with 10% CIDR hosts and the 2M set without.
//! Memory per ACL is printed to stderr (a counting global allocator).

#[path = "../tests/oracle/mod.rs"]
mod oracle;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput,
};
use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclChanges,
    AclOperation, AclPermissionType, Authorizer, AuthorizerConfig, PatternType, ResourcePattern,
    ResourcePatternFilter, ResourceType, SharedAclIndex,
};
use oracle::Oracle;

/// Counts live heap bytes. The one `unsafe` of this crate's code, confined to the
/// bench binary: `GlobalAlloc` cannot be implemented without it.
struct CountingAllocator;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; we only count.
#[allow(unsafe_code)] // the workspace denies unsafe_code; GlobalAlloc needs it
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const PREFIX: &str = "foo-bar35_resource-";
const USER: &str = "User:test-user";

/// A small deterministic generator (xorshift64*), so runs are comparable.
struct Rng(u64);
impl Rng {
    fn chance(&mut self, percent: f64) -> bool {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 11) as f64 / (1u64 << 53) as f64 * 100.0 < percent
    }
}

fn acl(
    rt: ResourceType,
    name: &str,
    pt: PatternType,
    principal: &str,
    host: &str,
    op: AclOperation,
    perm: AclPermissionType,
) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(rt, name, pt),
        AccessControlEntry::new(principal, host, op, perm),
    )
}

fn dataset(resources: usize, deny_percent: f64) -> Vec<AclBinding> {
    use AclOperation::Read;
    use AclPermissionType::{Allow, Deny};
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut acls = Vec::with_capacity(resources * 12);
    let mut both = |acls: &mut Vec<AclBinding>, rt, name: &str, pt, principal: &str, host: &str| {
        acls.push(acl(rt, name, pt, principal, host, Read, Allow));
        if rng.chance(deny_percent) {
            acls.push(acl(rt, name, pt, principal, host, Read, Deny));
        }
    };
    for id in 0..resources {
        let rt = if id % 10 == 0 {
            ResourceType::Group
        } else {
            ResourceType::Topic
        };
        let pt = if id % 5 == 0 {
            PatternType::Prefixed
        } else {
            PatternType::Literal
        };
        let name = format!("{PREFIX}{id}");
        for acl_id in 0..10 {
            let principal = if acl_id == 0 {
                USER.to_string()
            } else {
                format!("{USER}{acl_id}")
            };
            both(&mut acls, rt, &name, pt, &principal, "*");
        }
    }
    for host in 0..10 {
        both(
            &mut acls,
            ResourceType::Topic,
            PREFIX,
            PatternType::Prefixed,
            USER,
            &format!("127.0.0.{host}"),
        );
    }
    for host in 0..resources / 10 {
        let host = format!("127.0.0{host}");
        if host != "127.0.0.2" {
            both(
                &mut acls,
                ResourceType::Topic,
                "*",
                PatternType::Literal,
                USER,
                &host,
            );
        }
    }
    for i in 0..10 {
        acls.push(acl(
            ResourceType::Topic,
            &format!("{PREFIX}{}", i * 1000 + 1),
            PatternType::Literal,
            "User:auditor",
            "*",
            AclOperation::Describe,
            Allow,
        ));
    }
    acls
}

struct Loaded {
    authorizer: Authorizer,
    oracle: Oracle,
    len: usize,
}

fn load(resources: usize, deny_percent: f64) -> Loaded {
    let changes = AclChanges {
        removes: vec![],
        adds: dataset(resources, deny_percent),
    };
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let index = SharedAclIndex::new();
    index.apply(&changes).expect("storable");
    let index_bytes = LIVE_BYTES.load(Ordering::Relaxed).saturating_sub(before);
    let len = index.len();
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let mut oracle = Oracle::new();
    for b in &changes.adds {
        oracle.add(b.clone());
    }
    let oracle_bytes = LIVE_BYTES.load(Ordering::Relaxed).saturating_sub(before);
    eprintln!(
        "memory {resources} resources, deny {deny_percent}%: {len} ACLs; index {index_bytes} B = {:.1} B/ACL; oracle {oracle_bytes} B = {:.1} B/ACL",
        index_bytes as f64 / len as f64,
        oracle_bytes as f64 / len as f64
    );
    Loaded {
        authorizer: Authorizer::new(AuthorizerConfig::default(), index),
        oracle,
        len,
    }
}

fn principal_filter(principal: &str) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::ANY,
        AccessControlEntryFilter::new(
            Some(principal),
            None::<&str>,
            AclOperation::Any,
            AclPermissionType::Any,
        ),
    )
}

fn literal_filter(name: &str) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::new(ResourceType::Topic, Some(name), PatternType::Literal),
        AccessControlEntryFilter::ANY,
    )
}

/// Nanoseconds this thread has spent on a CPU (Linux `schedstat`), to tell the cost of
/// the code from time spent waiting for a core on a busy machine.
fn on_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Runs `work` (which handles `items` items) `rounds` times and prints wall-clock and
/// on-CPU nanoseconds per item.
fn on_cpu_report(label: &str, rounds: u32, items: u64, mut work: impl FnMut()) {
    work();
    let cpu_before = on_cpu_ns();
    let wall = Instant::now();
    for _ in 0..rounds {
        work();
    }
    let wall = wall.elapsed().as_nanos() as f64;
    let cpu = on_cpu_ns()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before) as f64);
    let per = f64::from(rounds) * items as f64;
    eprintln!(
        "oncpu {label}: wall {:.1} ns, on-cpu {:.1} ns per item",
        wall / per,
        cpu.unwrap_or(f64::NAN) / per
    );
}

fn slow(group: &mut BenchmarkGroup<'_, WallTime>) {
    group.sampling_mode(SamplingMode::Flat);
}

fn bench_config(c: &mut Criterion, resources: usize, deny_percent: f64, full: bool) {
    let loaded = load(resources, deny_percent);
    let authorizer = &loaded.authorizer;
    let oracle = &loaded.oracle;
    let config = AuthorizerConfig::default();
    let target = format!("{PREFIX}95");
    let mut group = c.benchmark_group(format!("r{resources}_deny{deny_percent}"));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));

    group.bench_function("authorize/index", |b| {
        b.iter(|| {
            authorizer.authorize(
                USER,
                "127.0.0.1",
                AclOperation::Write,
                ResourceType::Topic,
                black_box(&target),
            )
        })
    });
    group.bench_function("by_resource_type/index", |b| {
        b.iter(|| {
            authorizer.authorize_by_resource_type(
                USER,
                "127.0.0.2",
                AclOperation::Read,
                black_box(ResourceType::Topic),
            )
        })
    });
    let all = loaded.len as u64;
    group.throughput(Throughput::Elements(all));
    group.bench_function("describe_all/index", |b| {
        b.iter(|| {
            let acls = authorizer.acls().read();
            let mut n = 0usize;
            acls.for_each_group(&AclBindingFilter::ANY, |group| {
                black_box(group.pattern);
                for entry in group.entries {
                    black_box(entry);
                    n += 1;
                }
            });
            n
        })
    });
    let by_user = principal_filter("User:test-user3");
    let matches = authorizer.acls().read().count_matching(&by_user) as u64;
    group.throughput(Throughput::Elements(matches));
    group.bench_function("describe_principal/index", |b| {
        b.iter(|| {
            let acls = authorizer.acls().read();
            let mut n = 0usize;
            acls.for_each_group(black_box(&by_user), |group| {
                black_box(group.pattern);
                for entry in group.entries {
                    black_box(entry);
                    n += 1;
                }
            });
            n
        })
    });
    let few = principal_filter("User:auditor");
    group.throughput(Throughput::Elements(10));
    group.bench_function("describe_rare_principal/index", |b| {
        b.iter(|| authorizer.acls().read().count_matching(black_box(&few)))
    });
    let by_name = literal_filter(&format!("{PREFIX}96"));
    let name_matches = authorizer.acls().read().count_matching(&by_name) as u64;
    eprintln!(
        "counts r{resources}_deny{deny_percent}: all={all} principal={matches} resource={name_matches}"
    );
    group.throughput(Throughput::Elements(name_matches));
    group.bench_function("describe_resource/index", |b| {
        b.iter(|| {
            let acls = authorizer.acls().read();
            let mut n = 0usize;
            acls.for_each_group(black_box(&by_name), |group| {
                black_box(group.pattern);
                for entry in group.entries {
                    black_box(entry);
                    n += 1;
                }
            });
            n
        })
    });

    let label = format!("r{resources}_deny{deny_percent}");
    on_cpu_report(&format!("{label} authorize"), 400_000, 1, || {
        black_box(authorizer.authorize(
            USER,
            "127.0.0.1",
            AclOperation::Write,
            ResourceType::Topic,
            black_box(&target),
        ));
    });
    on_cpu_report(&format!("{label} by_resource_type"), 100_000, 1, || {
        black_box(
            authorizer
                .authorize_by_resource_type(
                    USER,
                    "127.0.0.2",
                    AclOperation::Read,
                    ResourceType::Topic,
                )
                .ok(),
        );
    });
    on_cpu_report(&format!("{label} describe_all"), 5, all, || {
        let acls = authorizer.acls().read();
        acls.for_each_group(&AclBindingFilter::ANY, |group| {
            black_box(group.pattern);
            for entry in group.entries {
                black_box(entry);
            }
        });
    });
    on_cpu_report(&format!("{label} describe_principal"), 5, matches, || {
        let acls = authorizer.acls().read();
        acls.for_each_group(&by_user, |group| {
            black_box(group.pattern);
            for entry in group.entries {
                black_box(entry);
            }
        });
    });

    if full {
        // Kafka's Metadata case: one principal with 10,000 topic ACLs asks about 10,000
        // topics; one session, one decision per topic.
        let topics: Vec<String> = (0..10_000).map(|i| format!("meta-topic-{i}")).collect();
        let adds = topics
            .iter()
            .map(|t| {
                acl(
                    ResourceType::Topic,
                    t,
                    PatternType::Literal,
                    "User:meta",
                    "*",
                    AclOperation::Read,
                    AclPermissionType::Allow,
                )
            })
            .collect();
        authorizer
            .acls()
            .apply(&AclChanges {
                removes: vec![],
                adds,
            })
            .expect("storable");
        group.throughput(Throughput::Elements(topics.len() as u64));
        group.bench_function("metadata_10k_topics/index", |b| {
            b.iter(|| {
                let session = authorizer.session("User:meta", "127.0.0.1");
                topics
                    .iter()
                    .filter(|t| {
                        session.authorize(AclOperation::Describe, ResourceType::Topic, t)
                            == kacl_acl::AuthorizationResult::Allowed
                    })
                    .count()
            })
        });
        // The write-lock hold time of a maximal (10,000 ACL) batch: add, then remove.
        let batch: Vec<AclBinding> = (0..10_000)
            .map(|i| {
                acl(
                    ResourceType::Topic,
                    &format!("batch-{i}"),
                    PatternType::Literal,
                    "User:batch",
                    "*",
                    AclOperation::Write,
                    AclPermissionType::Allow,
                )
            })
            .collect();
        let add = AclChanges {
            removes: vec![],
            adds: batch.clone(),
        };
        let remove = AclChanges {
            removes: batch,
            adds: vec![],
        };
        group.throughput(Throughput::Elements(20_000));
        slow(&mut group);
        group.bench_function("apply_10k_batch_add_then_remove/index", |b| {
            b.iter(|| {
                authorizer.acls().apply(&add).expect("storable");
                authorizer.acls().apply(&remove).expect("storable")
            })
        });
    }

    // The oracle: linear scans, as Kafka's AclCache does for describe.
    slow(&mut group);
    group.throughput(Throughput::Elements(1));
    group.bench_function("authorize/oracle", |b| {
        b.iter(|| {
            oracle.authorize(
                &config,
                USER,
                "127.0.0.1",
                AclOperation::Write,
                ResourceType::Topic,
                black_box(&target),
            )
        })
    });
    group.bench_function("by_resource_type/oracle", |b| {
        b.iter(|| {
            oracle.authorize_by_resource_type(
                &config,
                USER,
                "127.0.0.2",
                AclOperation::Read,
                black_box(ResourceType::Topic),
            )
        })
    });
    group.throughput(Throughput::Elements(all));
    group.bench_function("describe_all/oracle", |b| {
        b.iter(|| oracle.describe(black_box(&AclBindingFilter::ANY)).len())
    });
    group.throughput(Throughput::Elements(matches));
    group.bench_function("describe_principal/oracle", |b| {
        b.iter(|| oracle.describe(black_box(&by_user)).len())
    });
    group.throughput(Throughput::Elements(name_matches));
    group.bench_function("describe_resource/oracle", |b| {
        b.iter(|| oracle.describe(black_box(&by_name)).len())
    });
    group.finish();
}

/// Adding one ACL to a set of ~100k (Kafka's StandardAuthorizerUpdateBenchmark size):
/// an add and the matching remove per iteration, through the shared, locked set.
fn bench_add_one(c: &mut Criterion) {
    let loaded = load(10_000, 0.0);
    let index = loaded.authorizer.acls();
    let one = acl(
        ResourceType::Topic,
        "new-topic",
        PatternType::Literal,
        "User:new",
        "10.1.2.3",
        AclOperation::Write,
        AclPermissionType::Allow,
    );
    let add = AclChanges {
        removes: vec![],
        adds: vec![one.clone()],
    };
    let remove = AclChanges {
        removes: vec![one.clone()],
        adds: vec![],
    };
    let existing = acl(
        ResourceType::Topic,
        &format!("{PREFIX}7"),
        PatternType::Literal,
        "User:new",
        "*",
        AclOperation::Write,
        AclPermissionType::Allow,
    );
    let add_existing = AclChanges {
        removes: vec![],
        adds: vec![existing.clone()],
    };
    let remove_existing = AclChanges {
        removes: vec![existing],
        adds: vec![],
    };
    let mut group = c.benchmark_group(format!("add_one_into_{}", loaded.len));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("add_then_remove_new_pattern/index", |b| {
        b.iter(|| {
            index.apply(black_box(&add)).expect("storable");
            index.apply(black_box(&remove)).expect("storable")
        })
    });
    group.bench_function("add_then_remove_existing_pattern/index", |b| {
        b.iter(|| {
            index.apply(black_box(&add_existing)).expect("storable");
            index.apply(black_box(&remove_existing)).expect("storable")
        })
    });
    let mut oracle = loaded.oracle.clone();
    group.bench_function("add_then_remove/oracle", |b| {
        b.iter(|| {
            oracle.add(black_box(one.clone()));
            oracle.remove(black_box(&one))
        })
    });
    group.finish();
}

/// The 2M data set with every 10th ACL's host a CIDR range (issue 37): /24s in 10/8, /16s
/// in 172.16/12 and IPv6 /32s, about 130k distinct range texts.
fn cidr_dataset() -> Vec<AclBinding> {
    let mut acls = dataset(200_000, 0.0);
    for (i, b) in acls.iter_mut().enumerate() {
        if i % 10 == 3 {
            let k = i / 10;
            b.entry.host = match k % 4 {
                0 | 1 => format!("10.{}.{}.0/24", (k >> 8) & 255, k & 255),
                2 => format!("172.{}.0.0/16", 16 + (k >> 4) % 16),
                _ => format!("fd00:{:x}::/32", k & 0xffff),
            };
        }
    }
    acls
}

/// Authorize and describe at 2M ACLs of which 10% have CIDR hosts; runs alone with
/// `KACL_BENCH_CIDR=1` (the other configurations are skipped).
fn bench_cidr(c: &mut Criterion) {
    let changes = AclChanges {
        removes: vec![],
        adds: cidr_dataset(),
    };
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let index = SharedAclIndex::new();
    index.apply(&changes).expect("storable");
    let index_bytes = LIVE_BYTES.load(Ordering::Relaxed).saturating_sub(before);
    let len = index.len();
    eprintln!(
        "memory cidr10: {len} ACLs; index {index_bytes} B = {:.1} B/ACL",
        index_bytes as f64 / len as f64
    );
    drop(changes);
    let authorizer = Authorizer::new(AuthorizerConfig::default(), index);
    let target = format!("{PREFIX}95");
    let mut group = c.benchmark_group("r200000_cidr10");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (label, host) in [
        ("inside_a_range", "10.0.5.7"),
        ("outside_every_range", "11.0.0.1"),
        ("ipv6", "fd00:5:0:0:0:0:0:1"),
    ] {
        group.bench_function(format!("authorize/{label}"), |b| {
            b.iter(|| {
                authorizer.authorize(
                    USER,
                    black_box(host),
                    AclOperation::Write,
                    ResourceType::Topic,
                    black_box(&target),
                )
            })
        });
    }
    group.bench_function("by_resource_type/index", |b| {
        b.iter(|| {
            authorizer.authorize_by_resource_type(
                USER,
                "10.0.5.7",
                AclOperation::Read,
                black_box(ResourceType::Topic),
            )
        })
    });
    group.throughput(Throughput::Elements(len as u64));
    group.bench_function("describe_all/index", |b| {
        b.iter(|| {
            let acls = authorizer.acls().read();
            let mut n = 0usize;
            acls.for_each_group(&AclBindingFilter::ANY, |group| {
                for entry in group.entries {
                    black_box(entry);
                    n += 1;
                }
            });
            n
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    if std::env::var_os("KACL_BENCH_CIDR").is_some() {
        bench_cidr(c);
        bench_config(c, 200_000, 0.0, false);
        return;
    }
    bench_add_one(c);
    bench_config(c, 10_000, 0.0, false);
    bench_config(c, 50_000, 0.0, false);
    bench_config(c, 200_000, 0.0, true);
    bench_config(c, 200_000, 20.0, false);
    bench_config(c, 200_000, 99.0, false);
}

criterion_group!(authorizer_benches, benches);
criterion_main!(authorizer_benches);
