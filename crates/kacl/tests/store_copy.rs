//! `kacl store copy` against a real etcd: a redb store of 20,000 ACLs, topics with configs and
//! SCRAM credentials moves into etcd and back, keeping the cluster id; a second run changes
//! nothing; a target with other data is refused unless --force; a target of another cluster
//! and a directory a live store holds are refused. Skipped (one line) when etcd is not
//! installed, unless KACL_REQUIRE_EXTERNAL=1.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_sasl::{ScramCredential, ScramMechanism};
use kacl_store::{MetadataStore, PartitionRecord, RedbStore, StoreOptions, TopicRecord};
use kacl_store_etcd::{ClientOptions, EtcdOptions, EtcdStore};
use kacl_test_support::etcd::Etcd;

const KACL: &str = env!("CARGO_BIN_EXE_kacl");
const ACLS: usize = 20_000;

fn acl(i: usize) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, format!("t{i}"), PatternType::Literal),
        AccessControlEntry::new(
            "User:alice",
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        ),
    )
}

fn topic(name: &str, partitions: i32) -> TopicRecord {
    TopicRecord {
        name: name.to_owned(),
        topic_id: kacl_store::random_kafka_uuid(),
        partitions: (0..partitions)
            .map(|p| PartitionRecord {
                partition_index: p,
                replicas: vec![1],
            })
            .collect(),
        configs: BTreeMap::from([("retention.ms".to_owned(), format!("{}", 1000 * partitions))]),
        created_seq: 0,
    }
}

/// A source store: `acls` ACLs, three topics with configs, two credentials, bootstrapped.
fn fill(dir: &Path, acls: usize) -> String {
    let store = RedbStore::open_with_options(dir, StoreOptions::default()).unwrap();
    let acls: Vec<AclBinding> = (0..acls).map(acl).collect();
    for chunk in acls.chunks(10_000) {
        store.commit_acl_changes(chunk, &[]).unwrap();
    }
    store
        .create_topics(&[topic("orders", 3), topic("payments", 1), topic("a.b", 2)])
        .unwrap();
    let credentials: Vec<_> = [
        ("alice", ScramMechanism::Sha256),
        ("bob", ScramMechanism::Sha512),
    ]
    .into_iter()
    .map(|(user, mechanism)| {
        let credential =
            ScramCredential::from_password(mechanism, "pw", b"salt-of-16-bytes", 4096).unwrap();
        (user.to_owned(), mechanism, credential)
    })
    .collect();
    assert!(store.bootstrap_scram_credentials(&credentials).unwrap());
    store
        .alter_client_quotas(&[
            (
                kacl_store::QuotaEntity {
                    user: Some(kacl_store::QuotaName::Named("alice".into())),
                    client_id: None,
                },
                "producer_byte_rate".into(),
                Some(1_048_576.0),
            ),
            (
                kacl_store::QuotaEntity {
                    user: Some(kacl_store::QuotaName::Default),
                    client_id: Some(kacl_store::QuotaName::Default),
                },
                "request_percentage".into(),
                Some(12.5),
            ),
        ])
        .unwrap();
    store.cluster_id()
}

/// A topic as compared: name, id, partition count, configs.
type TopicSeen = (String, [u8; 16], usize, BTreeMap<String, String>);

/// What a store holds, comparable across stores.
#[derive(Debug, PartialEq)]
struct Seen {
    cluster_id: String,
    acls: HashSet<AclBinding>,
    topics: Vec<TopicSeen>,
    scram: Vec<(String, ScramMechanism, Vec<u8>)>,
    quotas: Vec<(kacl_store::QuotaEntity, String, u64)>,
    bootstrapped: bool,
}

fn seen(store: &dyn MetadataStore) -> Seen {
    Seen {
        cluster_id: store.cluster_id(),
        acls: store.load_acls().unwrap().into_iter().collect(),
        topics: store
            .load_topics()
            .unwrap()
            .into_iter()
            .map(|t| (t.name, t.topic_id, t.partitions.len(), t.configs))
            .collect(),
        scram: store
            .list_scram_credentials()
            .unwrap()
            .into_iter()
            .map(|(u, m, c)| (u, m, c.stored_key))
            .collect(),
        quotas: {
            let mut quotas: Vec<_> = store
                .load_client_quotas()
                .unwrap()
                .into_iter()
                .map(|(entity, key, value)| (entity, key, value.to_bits()))
                .collect();
            quotas.sort();
            quotas
        },
        bootstrapped: store.scram_bootstrapped().unwrap(),
    }
}

fn seen_dir(dir: &Path) -> Seen {
    seen(&RedbStore::open_with_options(dir, StoreOptions::default()).unwrap())
}

fn seen_etcd(etcd: &Etcd, prefix: &str) -> Seen {
    let store = EtcdStore::open(EtcdOptions {
        client: ClientOptions {
            endpoints: vec![("127.0.0.1".to_owned(), etcd.client_port)],
            timeout: Duration::from_secs(30),
            credentials: None,
            tls: None,
        },
        prefix: prefix.to_owned(),
        lease_ttl: Duration::from_secs(10),
        max_batch: 1_000,
    })
    .unwrap();
    seen(&store)
}

/// Runs `kacl store copy ARGS` against `etcd`: exit code, stdout, stderr. Transactions of
/// at most 1,000 ACLs (`kacl.acl.max.batch`) keep each start-up probe of etcd short.
fn copy(etcd: &Etcd, prefix: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(KACL)
        .args(["store", "copy"])
        .args(args)
        .args(["--override", "kacl.acl.max.batch=1000"])
        .arg("--override")
        .arg(format!("kacl.etcd.endpoints={}", etcd.endpoint()))
        .arg("--override")
        .arg(format!("kacl.etcd.prefix={prefix}"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn path(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn twenty_thousand_acls_move_into_etcd_and_back_with_progress_lines() {
    let Some(etcd) = Etcd::start() else { return };
    let source = tempfile::tempdir().unwrap();
    let cluster_id = fill(source.path(), ACLS);
    let original = seen_dir(source.path());
    assert_eq!(original.acls.len(), ACLS);
    assert_eq!(original.quotas.len(), 2, "the source holds client quotas");

    // redb -> etcd, with a progress line per transaction.
    let (code, out, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", path(source.path()), "--to", "etcd"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("copied 1000/20000 ACLs") && out.contains("copied 20000/20000 ACLs"),
        "{out}"
    );
    assert!(
        out.contains(&format!("copied cluster {cluster_id}")),
        "{out}"
    );

    // etcd -> a new directory (the rollback): the same contents and cluster id, so etcd held
    // all of it.
    let back = tempfile::tempdir().unwrap();
    let back_dir = back.path().join("data");
    let (code, out, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", "etcd", "--to", path(&back_dir)],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(seen_dir(&back_dir), original);
}

#[test]
fn a_second_run_changes_nothing_and_other_data_in_the_target_needs_force() {
    let Some(etcd) = Etcd::start() else { return };
    let source = tempfile::tempdir().unwrap();
    fill(source.path(), 10);
    let original = seen_dir(source.path());
    let to_etcd = ["--from", path(source.path()), "--to", "etcd"];
    let (code, out, err) = copy(&etcd, "/kacl/", &to_etcd);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(seen_etcd(&etcd, "/kacl/"), original);
    // Again: nothing changes, and it says so.
    let (code, out, err) = copy(&etcd, "/kacl/", &to_etcd);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("nothing to copy"), "{out}");

    let back = tempfile::tempdir().unwrap();
    let from_etcd = ["--from", "etcd", "--to", path(back.path())];
    let (code, out, err) = copy(&etcd, "/kacl/", &from_etcd);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(seen_dir(back.path()), original);
    let (code, out, _) = copy(&etcd, "/kacl/", &from_etcd);
    assert_eq!(code, 0);
    assert!(out.starts_with("nothing to copy"), "{out}");

    // The target holds an ACL the source does not: refused, unchanged; --force makes it equal.
    {
        let store = RedbStore::open_with_options(back.path(), StoreOptions::default()).unwrap();
        store.commit_acl_changes(&[acl(ACLS + 1)], &[]).unwrap();
    }
    let (code, out, err) = copy(&etcd, "/kacl/", &from_etcd);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("1 ACLs") && err.contains("--force"), "{err}");
    assert_eq!(seen_dir(back.path()).acls.len(), 11);
    let (code, out, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", "etcd", "--to", path(back.path()), "--force"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 removed"), "{out}");
    assert_eq!(seen_dir(back.path()), original);
}

#[test]
fn another_cluster_and_a_held_directory_are_refused() {
    let Some(etcd) = Etcd::start() else { return };
    let source = tempfile::tempdir().unwrap();
    fill(source.path(), 10);
    let (code, out, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", path(source.path()), "--to", "etcd"],
    );
    assert_eq!(code, 0, "{out}{err}");

    // A directory of another cluster (its own store, empty): never merged.
    let other = tempfile::tempdir().unwrap();
    let other_id = RedbStore::open_with_options(other.path(), StoreOptions::default())
        .unwrap()
        .cluster_id();
    let (code, _, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", "etcd", "--to", path(other.path())],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains(&format!("belongs to cluster {other_id}")),
        "{err}"
    );
    // --force does not change that.
    let (code, _, _) = copy(
        &etcd,
        "/kacl/",
        &["--from", "etcd", "--to", path(other.path()), "--force"],
    );
    assert_ne!(code, 0);
    // The same into etcd under a prefix of another cluster.
    let (code, _, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", path(other.path()), "--to", "etcd"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("belongs to cluster"), "{err}");

    // A directory a store (a running server) holds: refused by the store's lock.
    let held = RedbStore::open_with_options(source.path(), StoreOptions::default()).unwrap();
    let (code, _, err) = copy(
        &etcd,
        "/other/",
        &["--from", path(source.path()), "--to", "etcd"],
    );
    assert_ne!(code, 0);
    assert!(err.contains(path(source.path())), "{err}");
    drop(held);

    // Nothing to read: an empty prefix, a directory without a store; both sides etcd.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = copy(
        &etcd,
        "/none/",
        &["--from", "etcd", "--to", path(empty.path())],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("holds no kacl cluster under prefix /none/"),
        "{err}"
    );
    let (code, _, err) = copy(
        &etcd,
        "/none/",
        &["--from", path(empty.path()), "--to", "etcd"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("holds no kacl store"), "{err}");
    let (code, _, _) = copy(&etcd, "/none/", &["--from", "etcd", "--to", "etcd"]);
    assert_ne!(code, 0);
}

#[test]
fn a_copy_killed_half_way_and_run_again_ends_with_exactly_the_source() {
    let Some(etcd) = Etcd::start() else { return };
    let source = tempfile::tempdir().unwrap();
    fill(source.path(), ACLS);
    let original = seen_dir(source.path());
    let mut child = Command::new(KACL)
        .args([
            "store",
            "copy",
            "--from",
            path(source.path()),
            "--to",
            "etcd",
        ])
        .args(["--override", "kacl.acl.max.batch=1000"])
        .arg("--override")
        .arg(format!("kacl.etcd.endpoints={}", etcd.endpoint()))
        .args(["--override", "kacl.etcd.prefix=/kacl/"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // SIGKILL after a few of its transactions, mid-copy.
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let mut progress = 0;
    for line in lines.by_ref() {
        if line.unwrap().starts_with("copied ") {
            progress += 1;
            if progress == 5 {
                break;
            }
        }
    }
    assert_eq!(progress, 5, "the copy printed its progress");
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = seen_etcd(&etcd, "/kacl/");
    assert!(
        partial.acls.len() >= 5_000 && partial.acls.len() < ACLS,
        "killed half-way: {} ACLs",
        partial.acls.len()
    );
    assert!(partial.acls.is_subset(&original.acls));

    let (code, out, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", path(source.path()), "--to", "etcd"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(seen_etcd(&etcd, "/kacl/"), original);
    let (code, out, _) = copy(
        &etcd,
        "/kacl/",
        &["--from", path(source.path()), "--to", "etcd"],
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("nothing to copy"), "{out}");
}

#[test]
fn a_damaged_source_is_refused_naming_the_record_and_nothing_is_copied() {
    let Some(etcd) = Etcd::start() else { return };
    let source = tempfile::tempdir().unwrap();
    fill(source.path(), 200);
    let db = source.path().join(kacl_store::DB_FILE_NAME);
    let mut file = std::fs::read(&db).unwrap();
    let at = file.windows(4).position(|w| w == b"t150").unwrap();
    file[at + 1] ^= 0x04; // t150 -> t550
    std::fs::write(&db, &file).unwrap();
    for _ in 0..2 {
        let (code, out, err) = copy(
            &etcd,
            "/kacl/",
            &["--from", path(source.path()), "--to", "etcd"],
        );
        assert_ne!(code, 0, "{out}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            err.contains("table `acls`") && err.contains("t550"),
            "the damaged record is named: {err}"
        );
        assert!(
            kacl_store_etcd::stored_cluster_id(&etcd.client(Duration::from_secs(5)), "/kacl/")
                .unwrap()
                .is_none(),
            "nothing was written to etcd"
        );
    }
    // Into a directory likewise: nothing is written, the target stays without a store.
    let back = tempfile::tempdir().unwrap();
    let (code, _, err) = copy(
        &etcd,
        "/kacl/",
        &["--from", path(source.path()), "--to", path(back.path())],
    );
    assert_ne!(code, 0);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!back.path().join(kacl_store::DB_FILE_NAME).exists());
}
