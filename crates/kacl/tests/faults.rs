//! Faults against the real `kacl serve` binary (and, for write failures the OS cannot be made
//! to produce, an in-process server on a failing store):
//!
//! - SIGKILL in the middle of a CreateAcls/DeleteAcls storm, 20 times on one data directory:
//!   after each restart every acknowledged change is there, and every batch, acknowledged or
//!   in flight, is wholly applied or not at all;
//! - a full disk (a file size limit, which binds root too): writes fail with
//!   KAFKA_STORAGE_ERROR and the cause, reads keep working, writes resume once there is room
//!   (no restart), the process shuts down cleanly, and after a restart the store holds exactly
//!   what was served;
//! - a store that refuses every write: the same codes for CreateAcls and DeleteAcls, and the
//!   ACLs in memory never move.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_protocol::frame::decode_response_frame;
use kacl_protocol::messages::create_acls::{AclCreation, CreateAclsRequest, CreateAclsResponse};
use kacl_protocol::messages::delete_acls::{
    DeleteAclsFilter, DeleteAclsRequest, DeleteAclsResponse,
};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};

mod spawned;

use spawned::{listening_addr, serve_args, Client, KACL};
/// ACLs per batch; a batch's ACLs share one principal, so one filter deletes exactly a batch.
const BATCH: usize = 12;
const STORAGE_ERROR: i16 = 56;

/// `kacl serve` on an ephemeral port with its data in `dir`, optionally under a file size
/// limit (bytes); returns the child and its PLAINTEXT address.
fn spawn_server(dir: &Path, file_size_limit: Option<u64>) -> (Child, SocketAddr) {
    let args = serve_args(dir);
    let mut command = match file_size_limit {
        None => Command::new(KACL),
        Some(limit) => {
            // Writing past RLIMIT_FSIZE raises SIGXFSZ, which kills by default; ignored (and an
            // ignored signal stays ignored across exec) the write fails with EFBIG instead.
            // Only the soft limit is set, so that it can be raised again without privileges.
            let mut command = Command::new("sh");
            command.args([
                "-c",
                "trap '' XFSZ; exec prlimit --fsize=\"$0\":unlimited -- \"$@\"",
                &limit.to_string(),
                KACL,
            ]);
            command
        }
    };
    let mut child = command
        .args(args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kacl starts");
    let addr = listening_addr(&mut child).parse().expect("an address");
    (child, addr)
}

/// SIGTERM, and the exit status.
fn terminate(mut child: Child) -> std::process::ExitStatus {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    child.wait().expect("exits")
}

/// A blocking Kafka client for the three ACL calls.
impl Client {
    /// Each entry's (code, message).
    fn create(&mut self, batch: &str) -> std::io::Result<Vec<(i16, String)>> {
        let request = CreateAclsRequest {
            creations: (0..BATCH).map(|i| creation(batch, i)).collect(),
            ..Default::default()
        };
        let payload = self.call(3, &request)?;
        let (_, response) =
            decode_response_frame::<CreateAclsResponse>(&payload, 3).expect("decodes");
        Ok(response
            .results
            .iter()
            .map(|r| {
                (
                    r.error_code,
                    r.error_message.as_deref().unwrap_or("").into(),
                )
            })
            .collect())
    }

    /// The filter's (code, message, ACLs deleted).
    fn delete(&mut self, batch: &str) -> std::io::Result<(i16, String, usize)> {
        let request = DeleteAclsRequest {
            filters: vec![DeleteAclsFilter {
                resource_type_filter: 1,
                pattern_type_filter: 1,
                principal_filter: Some(Cow::Owned(principal(batch))),
                operation: 1,
                permission_type: 1,
                ..Default::default()
            }],
            ..Default::default()
        };
        let payload = self.call(3, &request)?;
        let (_, response) =
            decode_response_frame::<DeleteAclsResponse>(&payload, 3).expect("decodes");
        let result = &response.filter_results[0];
        Ok((
            result.error_code,
            result.error_message.as_deref().unwrap_or("").into(),
            result.matching_acls.len(),
        ))
    }

    /// How many ACLs each batch has in the server's view.
    fn batches(&mut self) -> BTreeMap<String, usize> {
        let filter = DescribeAclsRequest {
            resource_type_filter: 1,
            pattern_type_filter: 1,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        };
        let payload = self.call(3, &filter).expect("describe");
        let (_, response) =
            decode_response_frame::<DescribeAclsResponse>(&payload, 3).expect("decodes");
        assert_eq!(response.error_code, 0);
        let mut counts = BTreeMap::new();
        for resource in &response.resources {
            for acl in &resource.acls {
                let batch = acl.principal.strip_prefix("User:").expect("our principals");
                *counts.entry(batch.to_owned()).or_default() += 1;
            }
        }
        counts
    }
}

fn principal(batch: &str) -> String {
    format!("User:{batch}")
}

fn creation(batch: &str, i: usize) -> AclCreation<'static> {
    AclCreation {
        resource_type: 2,
        resource_name: Cow::Owned(format!("{batch}-topic-{i}")),
        resource_pattern_type: 3,
        principal: Cow::Owned(principal(batch)),
        host: Cow::Borrowed("*"),
        operation: 3,
        permission_type: 3,
        unknown_tagged_fields: Default::default(),
    }
}

/// What the client knows about one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    /// Acknowledged as created (and not deleted since).
    Present,
    /// Acknowledged as deleted.
    Absent,
    /// The server died before answering: either, but wholly.
    Either,
}

/// One iteration's writer: creates batches, and every third call deletes the oldest batch it
/// created that is still there, until the connection breaks.
fn storm(addr: SocketAddr, iteration: usize) -> Vec<(String, Known)> {
    let mut client = Client::connect(addr);
    let mut log: Vec<(String, Known)> = Vec::new();
    let mut present: std::collections::VecDeque<String> = Default::default();
    for call in 0.. {
        if call % 3 == 2 {
            if let Some(batch) = present.pop_front() {
                match client.delete(&batch) {
                    Ok((0, _, deleted)) => {
                        assert_eq!(deleted, BATCH, "deleting {batch}");
                        log.push((batch, Known::Absent));
                    }
                    Ok(other) => panic!("deleting {batch}: {other:?}"),
                    Err(_) => {
                        log.push((batch, Known::Either));
                        return log;
                    }
                }
                continue;
            }
        }
        let batch = format!("i{iteration}-b{call}");
        match client.create(&batch) {
            Ok(results) => {
                assert!(results.iter().all(|(c, _)| *c == 0), "{batch}: {results:?}");
                present.push_back(batch.clone());
                log.push((batch, Known::Present));
            }
            Err(_) => {
                log.push((batch, Known::Either));
                return log;
            }
        }
    }
    log
}

#[test]
fn sigkill_under_an_acl_write_storm_loses_no_acknowledged_change_20_times() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut model: BTreeMap<String, Known> = BTreeMap::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut acknowledged_writes = 0usize;
    for iteration in 0..20 {
        let (mut child, addr) = spawn_server(dir.path(), None);

        // Everything known so far survived the last kill, whole.
        let seen = Client::connect(addr).batches();
        check(&mut model, &seen, iteration);

        let writer = std::thread::spawn(move || storm(addr, iteration));
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(150 + seed % 300));
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        let log = writer.join().expect("the writer thread");
        acknowledged_writes += log.iter().filter(|(_, k)| *k != Known::Either).count();
        model.extend(log);
    }
    let (child, addr) = spawn_server(dir.path(), None);
    let seen = Client::connect(addr).batches();
    check(&mut model, &seen, 20);
    assert!(terminate(child).success());
    assert!(
        acknowledged_writes >= 20,
        "the storms wrote too little to prove anything: {acknowledged_writes}"
    );
    eprintln!(
        "20 kills, {acknowledged_writes} acknowledged batch writes, {} batches stored, {:?}",
        seen.len(),
        started.elapsed()
    );
}

/// The server's view agrees with everything acknowledged, and no batch is partly there.
/// Batches whose fate was unknown take the state seen.
fn check(model: &mut BTreeMap<String, Known>, seen: &BTreeMap<String, usize>, iteration: usize) {
    for (batch, count) in seen {
        assert_eq!(
            *count, BATCH,
            "restart {iteration}: batch {batch} is half there"
        );
        assert!(
            model.contains_key(batch),
            "restart {iteration}: unknown batch {batch}"
        );
    }
    for (batch, known) in model.iter_mut() {
        let there = seen.contains_key(batch);
        match known {
            Known::Present => assert!(there, "restart {iteration}: acknowledged {batch} lost"),
            Known::Absent => assert!(!there, "restart {iteration}: deleted {batch} is back"),
            Known::Either => {
                *known = if there { Known::Present } else { Known::Absent };
            }
        }
    }
}

/// The size of the database file (the only file besides `LOCK`).
fn database_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() != "LOCK")
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

#[test]
fn a_full_disk_fails_writes_with_storage_error_and_keeps_reads_and_data() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("SKIPPED: prlimit (util-linux) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A store with some ACLs, closed cleanly.
    let (child, addr) = spawn_server(dir.path(), None);
    let mut client = Client::connect(addr);
    for b in 0..3 {
        assert!(client
            .create(&format!("base-{b}"))
            .unwrap()
            .iter()
            .all(|r| r.0 == 0));
    }
    assert!(terminate(child).success());

    // Room for a little growth only: a file size limit applies to root as well.
    let limit = database_size(dir.path()) + 64 * 1024;
    let (child, addr) = spawn_server(dir.path(), Some(limit));
    let mut client = Client::connect(addr);
    let mut acknowledged: BTreeSet<String> = (0..3).map(|b| format!("base-{b}")).collect();
    let mut failure = None;
    for b in 0..5_000 {
        let batch = format!("fill-{b}");
        let results = client.create(&batch).expect("the server stays up");
        match results[0] {
            (0, _) => {
                acknowledged.insert(batch);
            }
            (code, ref message) => {
                // One answer for the whole batch: it was not applied.
                assert!(results.iter().all(|r| r.0 == code), "{results:?}");
                failure = Some((code, message.clone()));
                break;
            }
        }
    }
    let (code, message) = failure.expect("the file size limit was never reached");
    assert_eq!(code, STORAGE_ERROR, "{message}");
    assert!(message.contains("storage is full"), "{message}");
    assert!(acknowledged.len() > 3, "some batches fit before the limit");

    // Reads keep working, on this connection and on a new one, and show exactly the
    // acknowledged batches, each whole.
    let expected: BTreeMap<String, usize> =
        acknowledged.iter().map(|b| (b.clone(), BATCH)).collect();
    assert_eq!(client.batches(), expected);
    assert_eq!(Client::connect(addr).batches(), expected);
    // A delete also needs room; whatever it answers is what holds.
    let mut expected = expected;
    match client.delete("base-0").expect("answered") {
        (0, _, deleted) => {
            assert_eq!(deleted, BATCH);
            expected.remove("base-0");
        }
        (code, message, _) => {
            assert_eq!(code, STORAGE_ERROR, "{message}");
            assert!(!message.is_empty());
        }
    }
    assert_eq!(client.batches(), expected);

    // Room again (the limit raised on the running process): writes work without a restart.
    let raised = Command::new("prlimit")
        .args(["--pid", &child.id().to_string(), "--fsize=unlimited"])
        .status()
        .expect("prlimit runs");
    assert!(raised.success());
    let results = client.create("room-again").unwrap();
    assert!(results.iter().all(|r| r.0 == 0), "{results:?}");
    expected.insert("room-again".into(), BATCH);
    assert_eq!(client.batches(), expected);
    assert!(
        terminate(child).success(),
        "clean exit after storage errors"
    );

    // Without the limit: the same ACLs, and writes work again.
    let (child, addr) = spawn_server(dir.path(), None);
    let mut client = Client::connect(addr);
    assert_eq!(client.batches(), expected);
    assert!(client.create("after").unwrap().iter().all(|r| r.0 == 0));
    expected.insert("after".into(), BATCH);
    assert_eq!(client.batches(), expected);
    assert!(terminate(child).success());
}

#[test]
fn a_store_that_refuses_writes_answers_storage_error_and_keeps_serving_reads() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let store = Arc::new(kacl_store::MemoryStore::new());
    let dir = tempfile::tempdir().unwrap();
    let config = kacl_server_config::ServerConfig::load(
        None,
        &[
            "listeners=PLAINTEXT://127.0.0.1:0".into(),
            format!("metadata.log.dir={}", dir.path().display()),
        ],
    )
    .unwrap();
    let server = runtime
        .block_on(kacl_server::Server::start_with_store(config, store.clone()))
        .unwrap();
    let addr = server.local_addr("PLAINTEXT").unwrap();

    let mut client = Client::connect(addr);
    for b in ["kept-0", "kept-1"] {
        assert!(client.create(b).unwrap().iter().all(|r| r.0 == 0));
    }
    let before = client.batches();
    store.set_fail_writes(true);
    let created = client.create("refused").unwrap();
    assert!(
        created
            .iter()
            .all(|(code, m)| *code == STORAGE_ERROR && m.contains("injected write failure")),
        "{created:?}"
    );
    let (code, message, deleted) = client.delete("kept-0").unwrap();
    assert_eq!((code, deleted), (STORAGE_ERROR, 0), "{message}");
    assert!(message.contains("could not be deleted"), "{message}");
    assert_eq!(client.batches(), before);
    assert_eq!(Client::connect(addr).batches(), before);

    store.set_fail_writes(false);
    assert_eq!(client.delete("kept-0").unwrap().0, 0);
    assert!(client.create("later").unwrap().iter().all(|r| r.0 == 0));
    let after: Vec<String> = client.batches().into_keys().collect();
    assert_eq!(after, ["kept-1", "later"]);
    runtime.block_on(server.shutdown());
}
