//! Group commit: requests waiting together are committed in one store transaction, and each
//! gets the answer it would have had alone.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kacl_acl::{
    AccessControlEntry, AclBinding, AclChanges, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType, SharedAclIndex,
};
use kacl_store::{MetadataStore, RedbStore};

use super::*;
use crate::metrics::{MeteredStore, Metrics, StoreOperation};

fn acl(topic: &str) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, topic, PatternType::Literal),
        AccessControlEntry::new(
            "User:alice",
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        ),
    )
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Arc<dyn MetadataStore>,
    metrics: Arc<Metrics>,
    acls: SharedAclIndex,
    writer: Arc<AclWriter>,
}

fn fixture() -> Fixture {
    fixture_with_groups_of(GROUP_MAX_ACLS)
}

fn fixture_with_groups_of(group_max_acls: usize) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let redb: Arc<dyn MetadataStore> = Arc::new(RedbStore::open(dir.path()).expect("open"));
    let metrics = Arc::new(Metrics::new());
    let store = MeteredStore::wrap(redb, metrics.clone());
    let acls = SharedAclIndex::new();
    store
        .start_feed(Arc::new(crate::feed_sink::PartsSink {
            acls: Some(acls.clone()),
            ..Default::default()
        }))
        .expect("feed");
    let mut writer = AclWriter::new(store.clone(), acls.clone());
    writer.group_max_acls = group_max_acls;
    let writer = Arc::new(writer);
    Fixture {
        _dir: dir,
        store,
        metrics,
        acls,
        writer,
    }
}

/// Starts each request on its own thread while the writer lock is held, waiting until it has
/// queued before starting the next (so the queue order is the list's order), then lets them
/// all through at once: they form one group.
fn run_as_one_group(
    writer: &Arc<AclWriter>,
    requests: Vec<(Vec<AclBinding>, usize)>,
) -> Vec<CreateResult> {
    let held = writer.lock.lock();
    let mut threads: Vec<JoinHandle<CreateResult>> = Vec::new();
    for (i, (bindings, max_batch)) in requests.into_iter().enumerate() {
        let worker = writer.clone();
        threads.push(std::thread::spawn(move || {
            worker.create(&bindings, max_batch)
        }));
        let deadline = Instant::now() + Duration::from_secs(10);
        while writer.queue.lock().len() < i + 1 {
            assert!(Instant::now() < deadline, "request {i} never queued");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    drop(held);
    threads
        .into_iter()
        .map(|t| t.join().expect("writer thread"))
        .collect()
}

fn stored(store: &Arc<dyn MetadataStore>) -> HashSet<AclBinding> {
    store.load_acls().expect("load").into_iter().collect()
}

#[test]
fn a_group_is_one_commit_and_each_request_gets_its_own_answer() {
    let f = fixture();
    let old = acl("old");
    f.writer
        .create(std::slice::from_ref(&old), 10)
        .expect("first create");
    let commits_before = f.metrics.store_commits(StoreOperation::Acls);
    let (a, b, c, d) = (acl("a"), acl("b"), acl("c"), acl("d"));
    let too_many = vec![acl("x1"), acl("x2"), acl("x3")];
    let results = run_as_one_group(
        &f.writer,
        vec![
            (vec![a.clone(), b.clone()], 10),
            // b was added by the request before: not new for this one.
            (vec![b.clone(), c.clone()], 10),
            // Above its own limit: refused alone, nothing of it stored.
            (too_many.clone(), 2),
            // Nothing new at all.
            (vec![old.clone(), a.clone()], 10),
            // Repeated within itself: once.
            (vec![d.clone(), d.clone()], 1),
        ],
    );
    assert_eq!(
        f.metrics.store_commits(StoreOperation::Acls) - commits_before,
        1,
        "five requests, one commit"
    );
    let mut results = results.into_iter();
    assert_eq!(results.next().unwrap().unwrap(), vec![a.clone(), b.clone()]);
    assert_eq!(results.next().unwrap().unwrap(), vec![c.clone()]);
    assert!(matches!(
        results.next().unwrap(),
        Err(CreateError::TooLarge { new: 3, max: 2 })
    ));
    assert_eq!(results.next().unwrap().unwrap(), Vec::<AclBinding>::new());
    assert_eq!(results.next().unwrap().unwrap(), vec![d.clone()]);

    let expected: HashSet<AclBinding> = [old, a, b, c, d].into_iter().collect();
    assert_eq!(stored(&f.store), expected);
    let in_memory: HashSet<AclBinding> = f
        .acls
        .read()
        .describe(&AclBindingFilter::ANY)
        .into_iter()
        .collect();
    assert_eq!(in_memory, expected);
}

#[test]
fn a_request_the_store_refuses_does_not_fail_the_others_of_its_group() {
    let f = fixture();
    let good = acl("good");
    // Not storable (a filter value): the handler's validation would refuse it; the store does.
    let bad = AclBinding::new(
        ResourcePattern::new(ResourceType::Any, "bad", PatternType::Literal),
        AccessControlEntry::new(
            "User:alice",
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        ),
    );
    let later = acl("later");
    let results = run_as_one_group(
        &f.writer,
        vec![
            (vec![good.clone()], 10),
            (vec![bad], 10),
            (vec![later.clone(), good.clone()], 10),
        ],
    );
    let mut results = results.into_iter();
    assert_eq!(results.next().unwrap().unwrap(), vec![good.clone()]);
    match results.next().unwrap() {
        Err(CreateError::Store(err)) => assert!(!err.is_storage_failure(), "{err}"),
        other => panic!("the unstorable request: {other:?}"),
    }
    assert_eq!(results.next().unwrap().unwrap(), vec![later.clone()]);
    assert_eq!(stored(&f.store), [good, later].into_iter().collect());
}

#[test]
fn a_large_queue_is_committed_in_bounded_groups_in_order() {
    let bound = 20;
    let f = fixture_with_groups_of(bound);
    let requests: Vec<(Vec<AclBinding>, usize)> = (0..3)
        .map(|r| {
            let bindings = (0..bound / 2 + 1)
                .map(|i| acl(&format!("t{r}-{i}")))
                .collect();
            (bindings, bound)
        })
        .collect();
    let total: usize = requests.iter().map(|(b, _)| b.len()).sum();
    let results = run_as_one_group(&f.writer, requests);
    assert!(results
        .iter()
        .all(|r| r.as_ref().is_ok_and(|new| new.len() == total / 3)));
    // Each request is just over half the bound: no two fit one group.
    assert_eq!(f.metrics.store_commits(StoreOperation::Acls), 3);
    assert_eq!(f.acls.len(), total);
}

#[test]
fn two_writers_racing_on_one_store_each_report_what_their_commit_stored() {
    let f = fixture();
    // A second node's writer on the same store, whose index the store's feed does not reach
    // (its feed has not delivered the first node's commit yet): it plans the ACL as new.
    let behind = AclWriter::new(f.store.clone(), SharedAclIndex::new());
    let orders = acl("orders");
    let deleted = |outcomes: Vec<FilterDeletion>| match outcomes.as_slice() {
        [FilterDeletion::Deleted(list)] => list.clone(),
        other => panic!("one filter's outcome: {other:?}"),
    };

    assert_eq!(
        f.writer.create(std::slice::from_ref(&orders), 10).unwrap(),
        vec![orders.clone()]
    );
    assert_eq!(
        behind.create(std::slice::from_ref(&orders), 10).unwrap(),
        Vec::<AclBinding>::new(),
        "the store already held it: not added by this commit"
    );
    assert_eq!(stored(&f.store).len(), 1);

    // The same for deletions: the node that is behind matches the ACL, but the first node's
    // commit deleted it.
    behind
        .acls
        .apply(&AclChanges {
            adds: vec![orders.clone()],
            removes: Vec::new(),
        })
        .unwrap();
    let filter = Some(orders.to_filter());
    assert_eq!(
        deleted(f.writer.delete(std::slice::from_ref(&filter), 10).unwrap()),
        vec![orders.clone()]
    );
    assert_eq!(
        deleted(behind.delete(std::slice::from_ref(&filter), 10).unwrap()),
        Vec::<AclBinding>::new(),
        "deleted by the other node's commit"
    );
    assert!(stored(&f.store).is_empty());
}
