//! Store speed: loading ACLs at start (the figure a restart waits for) and the latency
//! of one durable ACL commit. The 1M-ACL figure comes from `examples/load_acls.rs`,
//! which is too slow to set up for every criterion run.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_store::{MemoryStore, MetadataStore, RedbStore};

const ACLS: usize = 100_000;

fn binding(i: usize) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::Topic,
            format!("team-{}.events", i / 3),
            PatternType::Literal,
        ),
        AccessControlEntry::new(
            format!("User:service-account-{}", i % 5000),
            "*",
            [
                AclOperation::Read,
                AclOperation::Write,
                AclOperation::Describe,
            ][i % 3],
            AclPermissionType::Allow,
        ),
    )
}

fn load(c: &mut Criterion) {
    let acls: Vec<AclBinding> = (0..ACLS).map(binding).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let redb = RedbStore::open(dir.path()).expect("open");
    redb.commit_acl_changes(&acls, &[]).expect("fill");
    let memory = MemoryStore::new();
    memory.commit_acl_changes(&acls, &[]).expect("fill");

    let mut group = c.benchmark_group("load_acls_100k");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ACLS as u64));
    group.bench_function("redb", |b| b.iter(|| redb.load_acls().expect("load")));
    group.bench_function("memory", |b| b.iter(|| memory.load_acls().expect("load")));
    group.finish();
}

fn commit(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = RedbStore::open(dir.path()).expect("open");
    let mut next = 0usize;
    c.bench_function("commit_one_acl_fsynced", |b| {
        b.iter_batched(
            || {
                next += 1;
                binding(ACLS + next)
            },
            |acl| store.commit_acl_changes(&[acl], &[]).expect("commit"),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, load, commit);
criterion_main!(benches);
