//! Real etcd for the cluster-mode tests: members started on free loopback ports in a
//! temporary directory, with the flags kacl requires (`--max-txn-ops 10100`,
//! `--max-request-bytes 10485760`), alone ([`Etcd::start`]), with extra flags such as TLS files
//! or an auth token TTL ([`Etcd::start_with`]), or as a cluster ([`EtcdCluster::start`]). The
//! binary is `$KACL_ETCD_BIN`, else `etcd` on PATH (.ci/run installs Debian's `etcd-server`);
//! without it a test prints one line and passes, unless `KACL_REQUIRE_EXTERNAL=1` (set by
//! .ci/run), where a missing etcd fails the test.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kacl_store::StoreError;
use kacl_store_etcd::{ClientOptions, EtcdClient, EtcdOptions, EtcdStore, EtcdTls};
use tempfile::TempDir;

/// One running etcd member.
pub struct Etcd {
    binary: PathBuf,
    dir: TempDir,
    /// The loopback port its clients connect to.
    pub client_port: u16,
    peer_port: u16,
    child: Option<Child>,
    /// `--name`, and `--initial-cluster` (every member's `name=peer URL`).
    name: String,
    initial_cluster: String,
    /// Flags after the ones every member gets (TLS files, `--auth-token-ttl`).
    extra: Vec<String>,
    /// How this module's own clients reach it when its client URL is `https://`.
    tls: Option<EtcdTls>,
}

/// Several members of one etcd cluster (each on its own free ports and data directory).
pub struct EtcdCluster {
    /// The members, in `--initial-cluster` order (`m0`, `m1`, ...).
    pub members: Vec<Etcd>,
}

impl EtcdCluster {
    /// Starts `size` members together and waits until the cluster serves a linearizable
    /// read; `None` when etcd is not installed.
    pub fn start(size: usize) -> Option<EtcdCluster> {
        let binary = etcd_binary()?;
        let free = free_ports(2 * size);
        let ports: Vec<(u16, u16)> = free.chunks(2).map(|p| (p[0], p[1])).collect();
        let initial_cluster = ports
            .iter()
            .enumerate()
            .map(|(i, (_, peer))| format!("m{i}=http://127.0.0.1:{peer}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut members: Vec<Etcd> = ports
            .iter()
            .enumerate()
            .map(|(i, (client_port, peer_port))| Etcd {
                binary: binary.clone(),
                dir: tempfile::tempdir().expect("tempdir"),
                client_port: *client_port,
                peer_port: *peer_port,
                child: None,
                name: format!("m{i}"),
                initial_cluster: initial_cluster.clone(),
                extra: Vec::new(),
                tls: None,
            })
            .collect();
        for member in &mut members {
            member.spawn();
        }
        let cluster = EtcdCluster { members };
        cluster.wait_until_serving();
        Some(cluster)
    }

    /// Waits (at most 30 s) until the cluster serves a linearizable read.
    pub fn wait_until_serving(&self) {
        let cluster = self;
        let client = cluster.client(Duration::from_millis(500));
        let deadline = Instant::now() + Duration::from_secs(30);
        while client.range(b"probe", None, 0, 1).is_err() {
            if Instant::now() >= deadline {
                let logs: Vec<String> = cluster
                    .members
                    .iter()
                    .map(|m| format!("{}: {}", m.name, log_tail(&m.log_path())))
                    .collect();
                panic!(
                    "the etcd cluster did not come up; logs:\n{}",
                    logs.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Every member's endpoint, comma-separated (`kacl.etcd.endpoints`).
    pub fn endpoints(&self) -> String {
        self.members
            .iter()
            .map(Etcd::endpoint)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A client of every member.
    pub fn client(&self, timeout: Duration) -> EtcdClient {
        EtcdClient::new(ClientOptions {
            endpoints: self
                .members
                .iter()
                .map(|m| ("127.0.0.1".to_owned(), m.client_port))
                .collect(),
            timeout,
            credentials: None,
            tls: None,
        })
    }

    /// The index of the member that is the raft leader now, if the running members agree.
    pub fn leader(&self) -> Option<usize> {
        let mut leader_id = None;
        let mut ids = Vec::new();
        for member in &self.members {
            let status = member.client(Duration::from_millis(500)).status().ok();
            if let Some(status) = status.as_ref().filter(|s| s.leader != 0) {
                leader_id = Some(status.leader);
            }
            ids.push(status.map(|s| s.member_id));
        }
        let leader_id = leader_id?;
        ids.iter().position(|id| *id == Some(leader_id))
    }
}

/// `n` distinct free loopback ports: every listener is held until all are chosen (binding
/// port 0 again right after closing can hand out the same port twice).
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().expect("a bound port").port())
        .collect()
}

/// A member's stderr, appended to.
fn log_file(path: &std::path::Path) -> Stdio {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_or_else(|_| Stdio::null(), Stdio::from)
}

/// The last lines of a member's log (its stderr), for a failure message.
fn log_tail(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// The etcd binary, or `None` (after printing why) when the test should be skipped.
pub fn etcd_binary() -> Option<PathBuf> {
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

impl Etcd {
    /// Starts a member, waiting until it answers; `None` when etcd is not installed.
    /// A member whose ports another process took between their choice and etcd's bind exits
    /// at once: it is started again on fresh ports, up to three times.
    pub fn start() -> Option<Etcd> {
        Etcd::start_with(Vec::new(), None)
    }

    /// [`Etcd::start`] with `extra` flags after the usual ones; its client URL is `https://`
    /// when `tls` is given, which is then how [`Etcd::client`] reaches it (the flags must
    /// name the matching certificate files).
    pub fn start_with(extra: Vec<String>, tls: Option<EtcdTls>) -> Option<Etcd> {
        let binary = etcd_binary()?;
        let mut failures = Vec::new();
        for _ in 0..3 {
            let ports = free_ports(2);
            let mut etcd = Etcd {
                binary: binary.clone(),
                dir: tempfile::tempdir().expect("tempdir"),
                client_port: ports[0],
                peer_port: ports[1],
                child: None,
                name: "kacl-test".to_owned(),
                initial_cluster: format!("kacl-test=http://127.0.0.1:{}", ports[1]),
                extra: extra.clone(),
                tls: tls.clone(),
            };
            etcd.spawn();
            let client = etcd.client(Duration::from_millis(500));
            match etcd.wait_until_up(&client) {
                Ok(()) => return Some(etcd),
                Err(failure) => failures.push(failure),
            }
        }
        panic!("etcd did not come up: {}", failures.join("\n---\n"));
    }

    /// Where the member's stderr goes (appended to across restarts).
    fn log_path(&self) -> PathBuf {
        self.dir.path().join("etcd.log")
    }

    /// Waits until the member answers `client`, at most 20 s; why not, with its log,
    /// otherwise.
    fn wait_until_up(&mut self, client: &EtcdClient) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if client.status().is_ok() {
                return Ok(());
            }
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                return Err(format!(
                    "etcd exited ({status}) on ports {}/{}; its log:\n{}",
                    self.client_port,
                    self.peer_port,
                    log_tail(&self.log_path())
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "etcd did not answer on port {} within 20 s; its log:\n{}",
                    self.client_port,
                    log_tail(&self.log_path())
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `http://127.0.0.1:<port>`, or `https://` with TLS.
    pub fn endpoint(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}", self.client_port)
    }

    fn run(&mut self) {
        self.spawn();
        let client = self.client(Duration::from_millis(500));
        if let Err(failure) = self.wait_until_up(&client) {
            panic!("etcd did not come up: {failure}");
        }
    }

    /// Starts the process (does not wait for it).
    fn spawn(&mut self) {
        let client = self.endpoint();
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        let child = Command::new(&self.binary)
            .arg(format!("--name={}", self.name))
            .arg(format!(
                "--data-dir={}",
                self.dir.path().join("data").display()
            ))
            .arg(format!("--listen-client-urls={client}"))
            .arg(format!("--advertise-client-urls={client}"))
            .arg(format!("--listen-peer-urls={peer}"))
            .arg(format!("--initial-advertise-peer-urls={peer}"))
            .arg(format!("--initial-cluster={}", self.initial_cluster))
            .arg("--initial-cluster-token=kacl-test")
            .arg("--max-txn-ops=10100")
            .arg("--max-request-bytes=10485760")
            .arg("--log-level=error")
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(log_file(&self.log_path()))
            .spawn()
            .expect("etcd starts");
        self.child = Some(child);
    }

    /// A client of this member (over TLS when it has TLS).
    pub fn client(&self, timeout: Duration) -> EtcdClient {
        EtcdClient::new(ClientOptions {
            endpoints: vec![("127.0.0.1".to_owned(), self.client_port)],
            timeout,
            credentials: None,
            tls: self.tls.clone(),
        })
    }

    /// An etcd store on this member under `prefix` (10 s calls, 5 s leases), for the tests of
    /// the store itself.
    pub fn open_store(&self, prefix: &str, max_batch: usize) -> Result<EtcdStore, StoreError> {
        EtcdStore::open(EtcdOptions {
            client: ClientOptions {
                endpoints: vec![("127.0.0.1".to_owned(), self.client_port)],
                timeout: Duration::from_secs(10),
                credentials: None,
                tls: self.tls.clone(),
            },
            prefix: prefix.to_owned(),
            lease_ttl: Duration::from_secs(5),
            max_batch,
        })
    }

    /// Stops the member (SIGKILL), keeping its data.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes the member (SIGSTOP): its process stops, its sockets stay open, and the
    /// kernel keeps accepting connections and requests that nobody answers.
    pub fn freeze(&self) {
        self.signal("STOP");
    }

    /// Resumes a frozen member (SIGCONT).
    pub fn thaw(&self) {
        self.signal("CONT");
    }

    fn signal(&self, name: &str) {
        if let Some(child) = &self.child {
            let status = Command::new("kill")
                .arg(format!("-{name}"))
                .arg(child.id().to_string())
                .status()
                .expect("kill runs");
            assert!(status.success(), "kill -{name} failed");
        }
    }

    /// Starts it again on the same ports and data without waiting for it (a member of a
    /// cluster whose other members are down cannot serve alone).
    pub fn restart_async(&mut self) {
        self.stop();
        self.spawn();
    }

    /// Starts it again on the same ports and data.
    pub fn restart(&mut self) {
        self.stop();
        self.run();
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.stop();
    }
}
