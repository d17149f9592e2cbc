//! Cluster mode against a real etcd with authentication on (`auth enable`, a `kacl` user whose
//! role may read and write only kacl's prefix, simple tokens of three seconds (shorter ones can expire during the start-up probe of 10,100 operations)): a node serves
//! through it and keeps writing past the token TTL and a change of etcd's users; a client
//! whose token expired authenticates again; a wrong password stops a node at start with a
//! clear error that never shows the password. Skipped (one line) when etcd is not installed, unless
//! KACL_REQUIRE_EXTERNAL=1.

mod common;

use std::time::{Duration, Instant};

use common::{acl_rows, ServerBuilder, TestServer};
use kacl_server::Server;
use kacl_store_etcd::client::prefix_end;
use kacl_store_etcd::{ClientOptions, EtcdClient};
use kacl_test_support::etcd::Etcd;

const PASSWORD: &str = "kacl-pw-7f3e";

/// etcd with simple tokens of three seconds, users `root` and `kacl` (read-write on
/// `/kacl/` only), and auth enabled.
fn auth_etcd() -> Option<Etcd> {
    let etcd = Etcd::start_with(vec!["--auth-token-ttl=3".to_owned()], None)?;
    let client = etcd.client(Duration::from_secs(10));
    // Before auth is on, no token is needed.
    client.auth_user_add("root", "root-pw").expect("user add");
    client.auth_role_add("root").expect("role add");
    client.auth_user_grant_role("root", "root").expect("grant");
    client.auth_user_add("kacl", PASSWORD).expect("user add");
    client.auth_role_add("kacl-rw").expect("role add");
    client
        .auth_role_grant_readwrite("kacl-rw", b"/kacl/", &prefix_end(b"/kacl/"))
        .expect("role grant");
    client
        .auth_user_grant_role("kacl", "kacl-rw")
        .expect("grant");
    client.auth_enable().expect("auth enable");
    Some(etcd)
}

fn user_client(etcd: &Etcd, user: &str, password: &str) -> EtcdClient {
    EtcdClient::new(ClientOptions {
        endpoints: vec![("127.0.0.1".to_owned(), etcd.client_port)],
        timeout: Duration::from_secs(5),
        credentials: Some((user.to_owned(), password.to_owned())),
        tls: None,
    })
}

async fn start(etcd: &Etcd, extra: &[(&str, &str)]) -> Result<TestServer, String> {
    ServerBuilder::plaintext()
        .etcd(&etcd.endpoint(), 1)
        .property("kacl.etcd.username", "kacl")
        .properties(extra)
        .try_start()
        .await
        .map(TestServer::from)
}

#[test]
fn the_client_authenticates_again_after_its_token_expired() {
    let Some(etcd) = auth_etcd() else { return };
    let client = user_client(&etcd, "kacl", PASSWORD);
    client.range(b"/kacl/a", None, 0, 0).expect("first read");
    // Simple tokens of three seconds, idle for longer: etcd has dropped ours.
    std::thread::sleep(Duration::from_millis(4500));
    client
        .range(b"/kacl/a", None, 0, 0)
        .expect("read after the token expired");
    // Outside the role's range: refused (auth is really on).
    let err = client
        .range(b"/other/a", None, 0, 0)
        .expect_err("outside the prefix");
    assert!(err.to_string().contains("permission denied"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_serves_with_etcd_auth_and_keeps_writing_across_token_expiry() {
    let Some(etcd) = auth_etcd() else { return };
    let dir = tempfile::tempdir().unwrap();
    let password_file = dir.path().join("etcd.password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let password_file = password_file.display().to_string();
    let node = start(&etcd, &[("kacl.etcd.password.file", &password_file)])
        .await
        .expect("a node starts with etcd auth");
    let mut client = node.client().await;
    let created = client
        .create(3, vec![common::allow_read("t0", "User:alice")])
        .await;
    assert_eq!(created.results[0].error_code, 0, "{created:?}");

    // Past the token TTL, and after a change of etcd's users (with JWT tokens that makes every
    // token old; simple tokens take the current auth revision).
    tokio::time::sleep(Duration::from_millis(4500)).await;
    let root = user_client(&etcd, "root", "root-pw");
    root.auth_user_add("someone", "x").expect("user add");
    let deadline = Instant::now() + Duration::from_secs(40);
    for i in 1..=3 {
        let created = client
            .create(3, vec![common::allow_read(&format!("t{i}"), "User:alice")])
            .await;
        assert_eq!(created.results[0].error_code, 0, "write {i}: {created:?}");
        tokio::time::sleep(Duration::from_millis(3500)).await;
        assert!(Instant::now() < deadline);
    }
    assert_eq!(
        acl_rows(&client.describe(3, &common::describe_all()).await).len(),
        4
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_stops_the_node_at_start_without_showing_it() {
    let Some(etcd) = auth_etcd() else { return };
    let started = Instant::now();
    let err = start(&etcd, &[("kacl.etcd.password", "not-the-password")])
        .await
        .err()
        .expect("a wrong password is refused");
    assert!(
        err.contains("authentication of etcd user `kacl` failed"),
        "{err}"
    );
    assert!(!err.contains("not-the-password"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "refused at once, not after the start-up timeout"
    );
    // No credentials at all against an etcd with auth on: refused too, naming etcd.
    let dir = tempfile::tempdir().unwrap();
    let err = match Server::start(common::config(
        dir.path(),
        &[
            ("node.id", "2"),
            ("kacl.metadata.store", "etcd"),
            ("kacl.etcd.endpoints", &etcd.endpoint()),
            ("kacl.etcd.request.timeout.ms", "3000"),
        ],
    ))
    .await
    {
        Ok(_) => panic!("a node without credentials must not start"),
        Err(err) => err.to_string(),
    };
    assert!(err.contains("etcd"), "{err}");
}
