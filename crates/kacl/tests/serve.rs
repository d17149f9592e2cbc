//! `kacl serve` as a process: configuration errors, listeners on stdout, exit 0 on SIGTERM,
//! and durability across SIGKILL.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kacl_protocol::frame::decode_response_frame;
use kacl_protocol::messages::create_acls::{AclCreation, CreateAclsRequest, CreateAclsResponse};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};

mod spawned;

use spawned::{listening_addr, serve_args, Client, KACL};

/// Starts `kacl serve` on an ephemeral port with its data in `dir`; returns the child and the
/// address it printed.
fn spawn_server(dir: &Path) -> (Child, SocketAddr) {
    let mut child = Command::new(KACL)
        .args(serve_args(dir))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kacl starts");
    let addr = listening_addr(&mut child).parse().expect("an address");
    (child, addr)
}

impl Client {
    fn create(&mut self, creations: Vec<AclCreation<'static>>) -> std::io::Result<Vec<i16>> {
        let payload = self.call(
            3,
            &CreateAclsRequest {
                creations,
                ..Default::default()
            },
        )?;
        let (_, resp) = decode_response_frame::<CreateAclsResponse>(&payload, 3).expect("decodes");
        Ok(resp.results.iter().map(|r| r.error_code).collect())
    }

    /// Every stored (topic name, principal) pair.
    fn describe_all(&mut self) -> Vec<(String, String)> {
        let filter = DescribeAclsRequest {
            resource_type_filter: 1,
            pattern_type_filter: 1,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        };
        let payload = self.call(3, &filter).expect("describe");
        let (_, resp) =
            decode_response_frame::<DescribeAclsResponse>(&payload, 3).expect("decodes");
        assert_eq!(resp.error_code, 0);
        resp.resources
            .iter()
            .flat_map(|r| {
                r.acls
                    .iter()
                    .map(|a| (r.resource_name.to_string(), a.principal.to_string()))
            })
            .collect()
    }
}

fn acl(topic: String, principal: String) -> AclCreation<'static> {
    AclCreation {
        resource_type: 2,
        resource_name: Cow::Owned(topic),
        resource_pattern_type: 3,
        principal: Cow::Owned(principal),
        host: Cow::Borrowed("*"),
        operation: 3,
        permission_type: 3,
        unknown_tagged_fields: Default::default(),
    }
}

const BATCH: usize = 40;

fn batch(i: usize) -> Vec<AclCreation<'static>> {
    (0..BATCH)
        .map(|j| acl(format!("batch-{i}"), format!("User:u{j}")))
        .collect()
}

#[test]
fn invalid_values_refuse_to_start_naming_the_key() {
    let output = Command::new(KACL)
        .args(["serve", "--override", "kacl.acl.max.batch=lots"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("kacl.acl.max.batch"), "{stderr}");
}

#[test]
fn prints_listeners_and_exits_0_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = spawn_server(dir.path());
    let mut client = Client::connect(addr);
    assert_eq!(client.create(batch(0)).unwrap(), vec![0; BATCH]);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "exit status {exit:?}");
    // The data directory was unlocked: a new server opens it and finds the ACLs.
    let (mut child, addr) = spawn_server(dir.path());
    let mut client = Client::connect(addr);
    assert_eq!(client.describe_all().len(), BATCH);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn sigkill_keeps_every_acknowledged_acl_and_no_half_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = spawn_server(dir.path());
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let acknowledged = acknowledged.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut client = Client::connect(addr);
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                match client.create(batch(i)) {
                    Ok(codes) => {
                        assert!(codes.iter().all(|c| *c == 0), "batch {i}: {codes:?}");
                        acknowledged.lock().unwrap().push(i);
                    }
                    Err(_) => break, // the server died mid-request
                }
                i += 1;
            }
            i
        })
    };
    // Let some batches through, then kill the server in the middle of the stream.
    while acknowledged.lock().unwrap().len() < 15 {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    let attempted = writer.join().expect("writer thread");
    let acknowledged = acknowledged.lock().unwrap().clone();

    let (mut child, addr) = spawn_server(dir.path());
    let mut client = Client::connect(addr);
    let stored = client.describe_all();
    let mut per_batch = std::collections::BTreeMap::<usize, usize>::new();
    for (topic, _) in &stored {
        let i: usize = topic.trim_start_matches("batch-").parse().unwrap();
        *per_batch.entry(i).or_default() += 1;
    }
    for i in &acknowledged {
        assert_eq!(
            per_batch.get(i),
            Some(&BATCH),
            "acknowledged batch {i} is complete"
        );
    }
    for (i, count) in &per_batch {
        assert_eq!(*count, BATCH, "batch {i} is all or nothing");
        assert!(
            *i < attempted.max(acknowledged.len() + 1),
            "batch {i} was sent"
        );
    }
    eprintln!(
        "acknowledged {} batches, {} stored after SIGKILL",
        acknowledged.len(),
        per_batch.len()
    );
    child.kill().unwrap();
    child.wait().unwrap();
}
