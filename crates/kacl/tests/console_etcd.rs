//! The console's cluster page shows a kacl cluster's etcd state in cluster mode: a real
//! `kacl serve` on a real etcd member, with the console embedded (it reads the server's own
//! `/metrics`). Without etcd installed the test prints "skipped: etcd not installed (see
//! .ci/run)" and passes, unless `KACL_REQUIRE_EXTERNAL=1` (CI), where it fails.

mod cli_support;
mod console_support;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use cli_support::TestServer;
use kacl_test_support::ServerBuilder;

fn free_addr() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    format!("127.0.0.1:{port}")
}

#[test]
fn the_cluster_page_shows_the_etcd_state_in_cluster_mode_and_hides_it_otherwise() {
    let Some(etcd) = kacl_test_support::etcd::Etcd::start() else {
        return;
    };
    let endpoint = etcd.endpoint();
    let console = free_addr();
    let _server = ServerBuilder::plaintext()
        .etcd(&endpoint, 1)
        .properties(&[
            ("kacl.metrics.listen", "127.0.0.1:0"),
            ("kacl.console.listen", &console),
        ])
        .spawn(cli_support::KACL);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(&console).is_err() {
        assert!(Instant::now() < deadline, "no console on {console}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let login = console_support::login_post(&console, "mechanism=none&username=&password=", None);
    assert_eq!(login.status, 303, "{}", login.body);
    let cookie = login.session_cookie().unwrap();
    // The console samples /metrics at start and every 5 s: bounded wait for a sample.
    let deadline = Instant::now() + Duration::from_secs(20);
    let page = loop {
        let page = console_support::http(&console, "GET", "/cluster", Some(&cookie), None);
        assert_eq!(page.status, 200, "{}", page.body);
        if page.body.contains("etcd-state") || Instant::now() > deadline {
            break page;
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    assert!(
        page.body.contains("<h2>etcd (cluster mode)</h2>"),
        "{}",
        page.body
    );
    // The server has written its node registration and cluster id to etcd: a revision.
    let revision = page
        .body
        .split("Applied revision</th><td>")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .and_then(|n| n.parse::<f64>().ok())
        .expect("an applied revision");
    assert!(revision > 0.0, "{}", page.body);
    assert!(page.body.contains("Watch restarts"), "{}", page.body);

    // A server not in cluster mode: no etcd section.
    let single = free_addr();
    let _plain = TestServer::start(&[
        ("listeners", "PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:ANONYMOUS"),
        ("kacl.metrics.listen", "127.0.0.1:0"),
        ("kacl.console.listen", &single),
    ]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(&single).is_err() {
        assert!(Instant::now() < deadline, "no console on {single}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let login = console_support::login_post(&single, "mechanism=none&username=&password=", None);
    let cookie = login.session_cookie().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let page = console_support::http(&single, "GET", "/cluster", Some(&cookie), None);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Requests and denials"), "{}", page.body);
    assert!(!page.body.contains("etcd"), "{}", page.body);
}
