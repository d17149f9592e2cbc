//! One way to start a kacl server in a test: a [`ServerBuilder`] collects `server.properties`
//! pairs (later pairs win over earlier ones, as in `kacl serve --override`), then starts the
//! server in this process ([`ServerBuilder::start`], a [`InProcessServer`]) or runs the real
//! `kacl` binary as a child process ([`ServerBuilder::spawn`], a [`ChildServer`], for signals,
//! crashes and the CLI). Each server gets a fresh temporary data directory unless the test
//! hands it one to reuse (restarts on the same data).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use kacl_server::{RunningServer, Server};
use kacl_server_config::ServerConfig;
use tempfile::TempDir;

use crate::listening;

/// The PLAIN users of [`ServerBuilder::sasl_plain`]: `admin` (a super user) and `alice`.
pub const PLAIN_JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
    user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

/// The `server.properties` of a test server, and where its data lives.
#[derive(Debug, Default)]
pub struct ServerBuilder {
    pairs: Vec<(String, String)>,
    dir: Option<TempDir>,
    data_dir: Option<PathBuf>,
    env: Vec<(String, String)>,
}

impl ServerBuilder {
    /// No listener and no super user: the test names its own.
    pub fn bare() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// One PLAINTEXT listener on an ephemeral loopback port, `User:ANONYMOUS` a super user
    /// (development mode: every client may do everything).
    pub fn plaintext() -> ServerBuilder {
        ServerBuilder::bare().properties(&[
            ("listeners", "PLAINTEXT://127.0.0.1:0"),
            ("super.users", "User:ANONYMOUS"),
        ])
    }

    /// [`ServerBuilder::sasl`] with the PLAIN users of [`PLAIN_JAAS`] and `User:admin` a
    /// super user.
    pub fn sasl_plain(mechanisms: &str) -> ServerBuilder {
        ServerBuilder::bare()
            .property("super.users", "User:admin")
            .sasl(mechanisms, PLAIN_JAAS)
    }

    /// A SASL_PLAINTEXT listener on an ephemeral loopback port with `mechanisms`
    /// (`sasl.enabled.mechanisms`) and the JAAS line `jaas` (`sasl.jaas.config`).
    pub fn sasl(self, mechanisms: &str, jaas: &str) -> ServerBuilder {
        self.properties(&[
            ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
            ("sasl.enabled.mechanisms", mechanisms),
            ("sasl.jaas.config", jaas),
        ])
    }

    /// An SSL listener on an ephemeral loopback port: `keystore` is a PEM file holding the
    /// server's chain and key, `truststore` the CAs of client certificates, `client_auth`
    /// `ssl.client.auth` (`required`, `requested`, `none`).
    pub fn tls(self, keystore: &Path, truststore: &Path, client_auth: &str) -> ServerBuilder {
        let keystore = keystore.display().to_string();
        let truststore = truststore.display().to_string();
        self.properties(&[
            ("listeners", "SSL://127.0.0.1:0"),
            ("ssl.keystore.type", "PEM"),
            ("ssl.keystore.location", &keystore),
            ("ssl.truststore.location", &truststore),
            ("ssl.client.auth", client_auth),
        ])
    }

    /// Adds one pair (it wins over an earlier one of the same key).
    pub fn property(mut self, key: &str, value: &str) -> ServerBuilder {
        self.pairs.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Adds pairs, in order.
    pub fn properties(mut self, pairs: &[(&str, &str)]) -> ServerBuilder {
        self.pairs
            .extend(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        self
    }

    /// Cluster mode: node `node_id` on the etcd cluster at `endpoints` (comma-separated
    /// URLs), with a 15 s etcd request timeout (many members and nodes start at once on a
    /// loaded test machine) and a 2 s lease; [`ServerBuilder::etcd_timeouts`] changes both.
    pub fn etcd(self, endpoints: &str, node_id: i32) -> ServerBuilder {
        self.properties(&[
            ("node.id", &node_id.to_string()),
            ("kacl.metadata.store", "etcd"),
            ("kacl.etcd.endpoints", endpoints),
        ])
        .etcd_timeouts(15_000, 2_000)
    }

    /// `kacl.etcd.request.timeout.ms` and `kacl.etcd.lease.ttl.ms`.
    pub fn etcd_timeouts(self, request_ms: u32, lease_ms: u32) -> ServerBuilder {
        self.properties(&[
            ("kacl.etcd.request.timeout.ms", &request_ms.to_string()),
            ("kacl.etcd.lease.ttl.ms", &lease_ms.to_string()),
        ])
    }

    /// Keeps the data in `dir` (a restart on the same data), deleted when the server is.
    pub fn in_dir(mut self, dir: TempDir) -> ServerBuilder {
        self.dir = Some(dir);
        self
    }

    /// Keeps the data in `path`, which the test owns (a child process restarted on it).
    pub fn data_dir(mut self, path: &Path) -> ServerBuilder {
        self.data_dir = Some(path.to_owned());
        self
    }

    /// An environment variable of the child process ([`ServerBuilder::spawn`] only).
    pub fn env(mut self, key: &str, value: &str) -> ServerBuilder {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// The in-process configuration with the data in `data`: `metadata.log.dir`, then a 10 ms
    /// failed-authentication delay (Kafka's 100 ms default would slow every failed login of
    /// the suite), then the builder's pairs.
    pub fn config(&self, data: &Path) -> ServerConfig {
        let mut pairs = vec![
            ("metadata.log.dir".to_owned(), data.display().to_string()),
            (
                "connection.failed.authentication.delay.ms".to_owned(),
                "10".to_owned(),
            ),
        ];
        pairs.extend(self.pairs.iter().cloned());
        ServerConfig::from_properties("", &pairs).expect("valid test config")
    }

    /// Starts the server in this process; panics if it does not start.
    pub async fn start(self) -> InProcessServer {
        self.try_start().await.expect("server starts")
    }

    /// Starts the server in this process, or why it did not start.
    pub async fn try_start(mut self) -> Result<InProcessServer, String> {
        init_logs();
        let dir = self.take_dir();
        let data = self
            .data_dir
            .clone()
            .unwrap_or_else(|| dir.path().to_owned());
        match Server::start(self.config(&data)).await {
            Ok(server) => Ok(InProcessServer { server, dir }),
            Err(error) => Err(error.to_string()),
        }
    }

    /// Runs `binary serve --config <dir>/server.properties` with the builder's pairs (data in
    /// `<dir>/data`, or the [`ServerBuilder::data_dir`]), stderr into `<dir>/server.log`, and
    /// waits for its `listening` line; panics with the log if none comes.
    pub fn spawn(self, binary: &str) -> ChildServer {
        self.try_spawn(binary)
            .unwrap_or_else(|(why, log)| panic!("kacl serve did not start ({why}); log:\n{log}"))
    }

    /// [`ServerBuilder::spawn`], or why not and the server's log (a refused start).
    pub fn try_spawn(mut self, binary: &str) -> Result<ChildServer, (String, String)> {
        let dir = self.take_dir();
        let data = self
            .data_dir
            .clone()
            .unwrap_or_else(|| dir.path().join("data"));
        let mut config = format!("metadata.log.dir={}\n", data.display());
        for (key, value) in &self.pairs {
            config.push_str(&format!("{key}={value}\n"));
        }
        let config_path = dir.path().join("server.properties");
        std::fs::write(&config_path, config).expect("write the config");
        let log = std::fs::File::create(dir.path().join("server.log")).expect("log file");
        let mut child = Command::new(binary)
            .arg("serve")
            .arg("--config")
            .arg(&config_path)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn kacl serve");
        match listening::first_addr(&mut child) {
            Ok(addr) => Ok(ChildServer { child, addr, dir }),
            Err(why) => {
                let _ = child.kill();
                let _ = child.wait();
                let log =
                    std::fs::read_to_string(dir.path().join("server.log")).unwrap_or_default();
                Err((why, log))
            }
        }
    }
}

impl ServerBuilder {
    /// The directory handed in with [`ServerBuilder::in_dir`], else a fresh one.
    fn take_dir(&mut self) -> TempDir {
        self.dir
            .take()
            .unwrap_or_else(|| tempfile::tempdir().expect("tempdir"))
    }
}

/// The test log subscriber (`RUST_LOG`, else `warn`), installed once per test binary.
pub fn init_logs() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_test_writer()
        .try_init();
}

/// A server running in this process and the directory holding its data (deleted on drop).
pub struct InProcessServer {
    /// The server.
    pub server: RunningServer,
    /// Its data directory.
    pub dir: TempDir,
}

impl InProcessServer {
    /// The first listener's address (the PLAINTEXT one of [`ServerBuilder::plaintext`]).
    pub fn addr(&self) -> SocketAddr {
        self.server.listeners()[0].local_addr
    }

    /// The address of the listener named `name`.
    pub fn addr_of(&self, name: &str) -> SocketAddr {
        self.server.local_addr(name).expect("listener")
    }

    /// Stops the server and starts it again on the same data with `builder`'s pairs.
    pub async fn restart(self, builder: ServerBuilder) -> InProcessServer {
        let InProcessServer { server, dir } = self;
        server.shutdown().await;
        builder.in_dir(dir).start().await
    }
}

/// A running `kacl serve` child process, killed on drop.
pub struct ChildServer {
    /// The process.
    pub child: Child,
    /// `HOST:PORT` of its first listener.
    pub addr: String,
    /// Its config, log (`server.log`) and, unless given one, data (`data/`).
    pub dir: TempDir,
}

impl ChildServer {
    /// The process id (for signals).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// Writes a file in the server's directory and returns its path.
    pub fn file(&self, name: &str, contents: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, contents).expect("write file");
        path.display().to_string()
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
