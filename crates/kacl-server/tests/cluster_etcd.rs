//! Cluster mode against a real etcd (issue 16): several in-process kacl nodes on loopback
//! share one state through one etcd member. Skipped (one line) when etcd is not installed,
//! unless KACL_REQUIRE_EXTERNAL=1.

mod common;

use std::borrow::Cow;
use std::time::{Duration, Instant};

use common::{acl_rows, decode, Client, ServerBuilder, TestServer};
use kacl_protocol::messages::alter_user_scram_credentials::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, ScramCredentialUpsertion,
};
use kacl_protocol::messages::create_acls::AclCreation;
use kacl_protocol::messages::create_partitions::{
    CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopic,
};
use kacl_protocol::messages::create_topics::{
    CreatableTopic, CreateTopicsRequest, CreateTopicsResponse,
};
use kacl_protocol::messages::delete_topics::{DeleteTopicsRequest, DeleteTopicsResponse};
use kacl_protocol::messages::describe_acls::DescribeAclsRequest;
use kacl_protocol::messages::incremental_alter_configs::{
    AlterConfigsResource, AlterableConfig, IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataResponse};
use kacl_server::Server;
use kacl_test_support::etcd::Etcd;

const TOPIC: i8 = 2;
const LITERAL: i8 = 3;
const READ: i8 = 3;
const ALLOW: i8 = 3;

async fn node(etcd: &Etcd, node_id: i32, extra: &[(&str, &str)]) -> TestServer {
    ServerBuilder::plaintext()
        .etcd(&etcd.endpoint(), node_id)
        .properties(extra)
        .start()
        .await
        .into()
}

fn acl(name: &str, principal: &str) -> AclCreation<'static> {
    AclCreation {
        resource_type: TOPIC,
        resource_name: Cow::Owned(name.to_owned()),
        resource_pattern_type: LITERAL,
        principal: Cow::Owned(principal.to_owned()),
        host: Cow::Borrowed("*"),
        operation: READ,
        permission_type: ALLOW,
        ..Default::default()
    }
}

fn all_acls() -> DescribeAclsRequest<'static> {
    DescribeAclsRequest {
        resource_type_filter: 1,
        resource_name_filter: None,
        pattern_type_filter: 1,
        principal_filter: None,
        host_filter: None,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    }
}

async fn acl_count(client: &mut Client) -> usize {
    acl_rows(&client.describe(3, &all_acls()).await).len()
}

async fn create_topic(client: &mut Client, name: &str, replication: i16) -> (i16, Option<String>) {
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: Cow::Owned(name.to_owned()),
            num_partitions: 3,
            replication_factor: replication,
            ..Default::default()
        }],
        timeout_ms: 5000,
        ..Default::default()
    };
    let payload = client.call(7, &request).await;
    let response = decode::<CreateTopicsResponse>(&payload, 7);
    let topic = &response.topics[0];
    (
        topic.error_code,
        topic.error_message.as_ref().map(|m| m.to_string()),
    )
}

/// The broker ids (sorted) and the controller id Metadata reports.
async fn metadata(client: &mut Client) -> (Vec<i32>, i32) {
    let payload = client.call(12, &MetadataRequest::default()).await;
    let response = decode::<MetadataResponse>(&payload, 12);
    let mut ids: Vec<i32> = response.brokers.iter().map(|b| b.node_id).collect();
    ids.sort_unstable();
    (ids, response.controller_id)
}

/// Polls `check` until it holds (bounded).
async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_on_one_node_is_read_on_the_others_and_both_list_each_other() {
    let Some(etcd) = Etcd::start() else { return };
    let a = node(&etcd, 1, &[]).await;
    let b = node(&etcd, 2, &[("kacl.describe.consistent", "true")]).await;
    let c = node(&etcd, 3, &[]).await;
    assert_eq!(a.server.state().cluster_id, b.server.state().cluster_id);
    let (mut ca, mut cb, mut cc) = (a.client().await, b.client().await, c.client().await);

    let created = ca.create(3, vec![acl("orders", "User:alice")]).await;
    assert_eq!(created.results[0].error_code, 0);
    // Read-your-writes on A; linearizable on B (kacl.describe.consistent): no polling.
    assert_eq!(acl_count(&mut ca).await, 1);
    assert_eq!(acl_count(&mut cb).await, 1);
    // The feed's metrics: A applied the write's revision, and is not behind.
    let stats = a
        .server
        .state()
        .store
        .feed_stats()
        .expect("etcd feed stats");
    assert!(
        stats.applied_revision > 0 && stats.requests > 0,
        "{stats:?}"
    );
    // C without the key sees it once its watch delivers it.
    eventually("C to see the ACL", async || acl_count(&mut cc).await == 1).await;

    // Every node lists the three live nodes and the same controller.
    let controller = metadata(&mut ca).await.1;
    for client in [&mut ca, &mut cb, &mut cc] {
        assert_eq!(metadata(client).await, (vec![1, 2, 3], controller));
    }
    // Replication factor up to the live nodes; above, INVALID_REPLICATION_FACTOR (38).
    assert_eq!(create_topic(&mut cb, "replicated", 3).await.0, 0);
    assert_eq!(create_topic(&mut cb, "too-many", 4).await.0, 38);

    // A node that leaves disappears from Metadata (its lease is revoked on shutdown).
    c.server.shutdown().await;
    eventually("C to leave Metadata", async || {
        metadata(&mut ca).await.0.len() == 2
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_creates_of_one_topic_have_exactly_one_winner() {
    let Some(etcd) = Etcd::start() else { return };
    let a = node(&etcd, 1, &[]).await;
    let b = node(&etcd, 2, &[]).await;
    for round in 0..20 {
        let (mut ca, mut cb) = (a.client().await, b.client().await);
        // Odd rounds race `x.N` against `x_N`: Kafka's collision rule across nodes.
        let other = if round % 2 == 1 {
            format!("race_{round}")
        } else {
            format!("race.{round}")
        };
        let mine = format!("race.{round}");
        let (ra, rb) = tokio::join!(
            create_topic(&mut ca, &mine, 1),
            create_topic(&mut cb, &other, 1)
        );
        let codes = [ra.0, rb.0];
        assert_eq!(
            codes.iter().filter(|c| **c == 0).count(),
            1,
            "round {round}: exactly one creation wins: {ra:?} {rb:?}"
        );
        let loser = if ra.0 == 0 { rb.0 } else { ra.0 };
        let expected = if round % 2 == 1 { 17 } else { 36 };
        assert_eq!(loser, expected, "round {round}: {ra:?} {rb:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_of_10000_acls_is_never_seen_half_applied_on_another_node() {
    let Some(etcd) = Etcd::start() else { return };
    // A 10,000-ACL transaction can take etcd a few seconds on a loaded machine.
    let slow = [("kacl.etcd.request.timeout.ms", "30000")];
    let a = node(&etcd, 1, &slow).await;
    let b = node(&etcd, 2, &slow).await;
    let batch: Vec<AclCreation<'static>> = (0..10_000)
        .map(|i| acl(&format!("topic-{i}"), "User:batch"))
        .collect();
    let mut cb = b.client().await;
    let reader = tokio::spawn(async move {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let count = acl_count(&mut cb).await;
            seen.push(count);
            if count == 10_000 || Instant::now() > deadline {
                return seen;
            }
        }
    });
    let mut ca = a.client().await;
    let started = Instant::now();
    let created = ca.create(3, batch).await;
    println!(
        "10,000 ACLs in one request: {} ms",
        started.elapsed().as_millis()
    );
    let failed: Vec<_> = created
        .results
        .iter()
        .filter(|r| r.error_code != 0)
        .collect();
    assert!(
        failed.is_empty(),
        "{} failed, first: {:?}",
        failed.len(),
        failed.first()
    );
    let seen = reader.await.expect("reader");
    assert_eq!(seen.last(), Some(&10_000), "B saw the batch");
    assert!(
        seen.iter().all(|c| *c == 0 || *c == 10_000),
        "B never shows part of the batch: {:?}",
        seen.iter()
            .filter(|c| **c != 0 && **c != 10_000)
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_etcd_writes_time_out_reads_go_on_and_writes_resume() {
    let Some(mut etcd) = Etcd::start() else {
        return;
    };
    // A short request timeout, so the outage shows quickly.
    let a = node(&etcd, 1, &[("kacl.etcd.request.timeout.ms", "2000")]).await;
    let mut ca = a.client().await;
    assert_eq!(
        ca.create(3, vec![acl("before", "User:a")]).await.results[0].error_code,
        0
    );
    assert_eq!(create_topic(&mut ca, "doomed", 1).await.0, 0);

    etcd.stop();
    let started = Instant::now();
    // Every other kind of write, at once on their own connections: each answers
    // REQUEST_TIMED_OUT naming etcd (not UNKNOWN_SERVER_ERROR).
    let others = {
        let (a1, a2, a3, a4, a5) = (
            a.client().await,
            a.client().await,
            a.client().await,
            a.client().await,
            a.client().await,
        );
        tokio::join!(
            refused_delete_acls(a1),
            refused_delete_topics(a2),
            refused_create_partitions(a3),
            refused_scram(a4),
            refused_topic_config(a5)
        )
    };
    let refused = ca.create(3, vec![acl("during", "User:a")]).await;
    // REQUEST_TIMED_OUT (7), retriable, naming etcd, after about the request timeout.
    assert_eq!(refused.results[0].error_code, 7, "{:?}", refused.results[0]);
    let message = refused.results[0].error_message.as_deref().unwrap_or("");
    assert!(message.contains("etcd"), "{message}");
    println!(
        "refused after {} ms: {message}",
        started.elapsed().as_millis()
    );
    for (what, (code, message)) in [
        ("DeleteAcls", others.0),
        ("DeleteTopics", others.1),
        ("CreatePartitions", others.2),
        ("AlterUserScramCredentials", others.3),
        ("IncrementalAlterConfigs", others.4),
    ] {
        assert_eq!(code, 7, "{what}: {message:?}");
        let message = message.unwrap_or_default();
        assert!(message.contains("etcd"), "{what}: {message}");
    }
    assert!(started.elapsed() < Duration::from_secs(15));
    // Reads (and so authorization) go on from memory.
    assert_eq!(acl_count(&mut ca).await, 1);

    etcd.restart();
    let mut accepted = false;
    for _ in 0..100 {
        if ca.create(3, vec![acl("after", "User:a")]).await.results[0].error_code == 0 {
            accepted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(accepted, "writes resume once etcd is back");
    // The node's watch resumed too: the write is in its index.
    let names: Vec<String> = acl_rows(&ca.describe(3, &all_acls()).await)
        .into_iter()
        .map(|row| row.1)
        .collect();
    assert!(names.contains(&"after".to_owned()), "{names:?}");
}

async fn refused_delete_acls(mut client: Client) -> (i16, Option<String>) {
    let filter = common::delete_filter(TOPIC, Some("before"), LITERAL, None, 1, 1);
    let response = client.delete(3, vec![filter]).await;
    let result = &response.filter_results[0];
    (
        result.error_code,
        result.error_message.as_deref().map(str::to_owned),
    )
}

async fn refused_delete_topics(mut client: Client) -> (i16, Option<String>) {
    let request = DeleteTopicsRequest {
        topic_names: vec![Cow::Borrowed("doomed")],
        timeout_ms: 5000,
        ..Default::default()
    };
    let payload = client.call(5, &request).await;
    let response = decode::<DeleteTopicsResponse>(&payload, 5);
    let result = &response.responses[0];
    (
        result.error_code,
        result.error_message.as_deref().map(str::to_owned),
    )
}

async fn refused_create_partitions(mut client: Client) -> (i16, Option<String>) {
    let request = CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: Cow::Borrowed("doomed"),
            count: 6,
            assignments: None,
            ..Default::default()
        }],
        timeout_ms: 5000,
        ..Default::default()
    };
    let payload = client.call(3, &request).await;
    let response = decode::<CreatePartitionsResponse>(&payload, 3);
    let result = &response.results[0];
    (
        result.error_code,
        result.error_message.as_deref().map(str::to_owned),
    )
}

async fn refused_scram(mut client: Client) -> (i16, Option<String>) {
    let request = AlterUserScramCredentialsRequest {
        upsertions: vec![ScramCredentialUpsertion {
            name: Cow::Borrowed("alice"),
            mechanism: 1,
            iterations: 4096,
            salt: Cow::Owned(vec![7; 16]),
            salted_password: Cow::Owned(vec![9; 32]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let payload = client.call(0, &request).await;
    let response = decode::<AlterUserScramCredentialsResponse>(&payload, 0);
    let result = &response.results[0];
    (
        result.error_code,
        result.error_message.as_deref().map(str::to_owned),
    )
}

async fn refused_topic_config(mut client: Client) -> (i16, Option<String>) {
    let request = IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: 2,
            resource_name: Cow::Borrowed("doomed"),
            configs: vec![AlterableConfig {
                name: Cow::Borrowed("retention.ms"),
                config_operation: 0,
                value: Some(Cow::Borrowed("60000")),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let payload = client.call(1, &request).await;
    let response = decode::<IncrementalAlterConfigsResponse>(&payload, 1);
    let result = &response.responses[0];
    (
        result.error_code,
        result.error_message.as_deref().map(str::to_owned),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_second_live_node_with_the_same_node_id_refuses_to_start() {
    let Some(etcd) = Etcd::start() else { return };
    let _a = node(&etcd, 7, &[]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let endpoint = etcd.endpoint();
    let err = Server::start(common::config(
        dir.path(),
        &[
            ("node.id", "7"),
            ("kacl.metadata.store", "etcd"),
            ("kacl.etcd.endpoints", endpoint.as_str()),
        ],
    ))
    .await
    .expect_err("a duplicate node.id is refused");
    let text = format!("{err:#}");
    assert!(
        text.contains("node.id 7") && text.contains("127.0.0.1:"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_without_the_required_flags_is_refused_naming_the_flag() {
    let Some(binary) = kacl_test_support::etcd::etcd_binary() else {
        return;
    };
    let _ = binary;
    let Some(etcd) = Etcd::start() else { return };
    // The test member takes 10,100 operations; ask for a batch larger than that.
    let dir = tempfile::tempdir().expect("tempdir");
    let endpoint = etcd.endpoint();
    let err = Server::start(common::config(
        dir.path(),
        &[
            ("kacl.metadata.store", "etcd"),
            ("kacl.etcd.endpoints", endpoint.as_str()),
            ("kacl.acl.max.batch", "20000"),
        ],
    ))
    .await
    .expect_err("refused");
    assert!(format!("{err:#}").contains("--max-txn-ops"), "{err:#}");
}

/// The upstream's brokers as a gateway shows them: (node id, port) by node id.
async fn brokers_through(addr: std::net::SocketAddr) -> Vec<(i32, i32)> {
    let mut client = Client::connect(addr).await;
    let payload = client.call(12, &MetadataRequest::default()).await;
    let response = decode::<MetadataResponse>(&payload, 12);
    let mut brokers: Vec<(i32, i32)> = response
        .brokers
        .iter()
        .map(|b| (b.node_id, b.port))
        .collect();
    brokers.sort_unstable();
    brokers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_gateway_serves_a_broker_that_joins_its_upstream_without_a_restart() {
    let Some(etcd) = Etcd::start() else { return };
    // The upstream: kacl nodes in cluster mode, which list each other as brokers.
    let first = node(&etcd, 1, &[]).await;
    let bootstrap = first.addr().to_string();
    let gateway: TestServer = ServerBuilder::plaintext()
        .property("kacl.gateway.upstream.bootstrap.servers", &bootstrap)
        .start()
        .await
        .into();
    let before = brokers_through(gateway.addr()).await;
    assert_eq!(before.iter().map(|b| b.0).collect::<Vec<_>>(), [1]);

    let second = node(&etcd, 2, &[]).await;
    // The first Metadata answer naming node 2 makes the gateway bind its port; it is shown
    // from then on, at a gateway port (never node 2's own address).
    let mut shown = Vec::new();
    eventually("node 2 shown through the gateway", async || {
        shown = brokers_through(gateway.addr()).await;
        shown.len() == 2
    })
    .await;
    let (id, port) = shown[1];
    assert_eq!(id, 2);
    assert_ne!(port, i32::from(second.addr().port()), "{shown:?}");
    assert_ne!(port, i32::from(first.addr().port()), "{shown:?}");
    // The new port serves: a request on it is forwarded (to node 2) and answered.
    let via_new_port = std::net::SocketAddr::from(([127, 0, 0, 1], port as u16));
    assert_eq!(brokers_through(via_new_port).await, shown);
}
