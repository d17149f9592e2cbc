//! The console's cluster page shows a kacl cluster's etcd state in cluster mode: a real
//! `kacl serve` on a real etcd member, with the console embedded (it reads the server's own
//! `/metrics`). Without etcd installed the test prints "skipped: etcd not installed (see
//! .ci/run)" and passes, unless `KACL_REQUIRE_EXTERNAL=1` (CI), where it fails.

mod cli_support;
mod console_support;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::TestServer;

fn free_addr() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    format!("127.0.0.1:{port}")
}

/// `$KACL_ETCD_BIN`, else `etcd` on PATH; `None` (after saying so) when the test is skipped.
fn etcd_binary() -> Option<PathBuf> {
    let found = std::env::var_os("KACL_ETCD_BIN")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| {
            std::env::var_os("PATH").and_then(|path| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join("etcd"))
                    .find(|p| p.is_file())
            })
        });
    if found.is_none() {
        if std::env::var("KACL_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
            panic!("etcd not installed (KACL_REQUIRE_EXTERNAL=1; see .ci/run)");
        }
        println!("skipped: etcd not installed (see .ci/run)");
    }
    found
}

/// One etcd member on free loopback ports, with the flags kacl requires; killed on drop.
struct Etcd {
    child: Child,
    client: String,
    _dir: tempfile::TempDir,
}

impl Etcd {
    fn start(binary: PathBuf) -> Etcd {
        let dir = tempfile::tempdir().expect("tempdir");
        let client = format!("http://{}", free_addr());
        let peer = format!("http://{}", free_addr());
        let child = Command::new(binary)
            .arg("--name=kacl-test")
            .arg(format!("--data-dir={}", dir.path().join("data").display()))
            .arg(format!("--listen-client-urls={client}"))
            .arg(format!("--advertise-client-urls={client}"))
            .arg(format!("--listen-peer-urls={peer}"))
            .arg(format!("--initial-advertise-peer-urls={peer}"))
            .arg(format!("--initial-cluster=kacl-test={peer}"))
            .arg("--max-txn-ops=10100")
            .arg("--max-request-bytes=10485760")
            .arg("--log-level=error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("etcd starts");
        let addr = client.trim_start_matches("http://").to_owned();
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "etcd did not come up");
            std::thread::sleep(Duration::from_millis(50));
        }
        Etcd {
            child,
            client,
            _dir: dir,
        }
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_cluster_page_shows_the_etcd_state_in_cluster_mode_and_hides_it_otherwise() {
    let Some(binary) = etcd_binary() else { return };
    let etcd = Etcd::start(binary);
    let console = free_addr();
    let _server = TestServer::start(&[
        ("listeners", "PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:ANONYMOUS"),
        ("node.id", "1"),
        ("kacl.metadata.store", "etcd"),
        ("kacl.etcd.endpoints", &etcd.client),
        ("kacl.etcd.request.timeout.ms", "15000"),
        ("kacl.etcd.lease.ttl.ms", "2000"),
        ("kacl.metrics.listen", "127.0.0.1:0"),
        ("kacl.console.listen", &console),
    ]);
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
