//! `kacl console`: a web console for the ACLs and topics of any Kafka cluster (kacl or
//! Kafka), as a library: the HTTP server, the sessions and the pages.
//!
//! There is no permission system of its own: the login page takes the user's Kafka
//! credentials and each web session holds its own `kacl-client` admin connection as that
//! principal, so the cluster's ACLs decide what each person sees and may change. The
//! password goes into that connection's SASL exchange and nowhere else (never a log line,
//! never a file, never a cookie).
//!
//! Pages are rendered on the server (maud escapes every interpolated string, so an ACL
//! principal such as `User:<script>` is text); reading works without JavaScript, and the
//! one small script (served from the binary, nothing fetched at run time) only adds
//! conveniences (loading a file into the plan text area, refreshing the cluster chart).
//!
//! ```no_run
//! # async fn demo() -> Result<(), kacl_console::ConsoleError> {
//! let console = kacl_console::Console::new(kacl_console::ConsoleConfig::new("127.0.0.1:9092"))?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! console.serve(listener, std::future::pending()).await?;
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod budget;
mod connect;
mod filter;
mod html;
mod metrics;
mod needs;
mod pages;
mod results;
mod server;
mod session;
pub mod sso;
mod throttle;
mod tls;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kacl_client::Properties;

pub use connect::Mechanism;
pub use sso::SsoConfig;
pub use tls::server_config as tls_server_config;

/// Everything a console needs to know about the cluster it fronts.
#[derive(Debug, Clone)]
pub struct ConsoleConfig {
    /// `host:port,...` of the cluster (`--bootstrap-server`).
    pub bootstrap: String,
    /// Kafka client properties (`--command-config`): `security.protocol` (whether to use
    /// TLS; SASL is chosen on the login page), `ssl.*`, timeouts. A `sasl.jaas.config` in
    /// it is ignored: every user logs in with their own credentials.
    pub properties: Properties,
    /// A web session unused this long is closed with its admin connection.
    pub idle_timeout: Duration,
    /// `http://host:port/metrics` of a kacl server, for the cluster page's chart.
    pub metrics_url: Option<String>,
    /// Set `Secure` on cookies: the console is reached over TLS (directly or behind a proxy).
    pub secure_cookies: bool,
    /// Single sign-on through an OpenID provider (people then reach the cluster with
    /// OAUTHBEARER); `None`: Kafka credentials only.
    pub sso: Option<sso::SsoConfig>,
}

impl ConsoleConfig {
    /// A console for `bootstrap` over PLAINTEXT, 30 minutes idle expiry, no metrics.
    pub fn new(bootstrap: impl Into<String>) -> ConsoleConfig {
        ConsoleConfig {
            bootstrap: bootstrap.into(),
            properties: Properties::default(),
            idle_timeout: Duration::from_secs(30 * 60),
            metrics_url: None,
            secure_cookies: false,
            sso: None,
        }
    }
}

/// Why a console could not start or serve.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    /// The cluster settings are unusable.
    #[error("console configuration: {0}")]
    Config(String),
    /// The listener failed.
    #[error("console listener: {0}")]
    Io(#[from] std::io::Error),
}

/// A console: cheap to clone, shared by every connection.
#[derive(Clone)]
pub struct Console {
    state: Arc<State>,
}

/// What every handler shares.
pub(crate) struct State {
    pub(crate) config: ConsoleConfig,
    pub(crate) sessions: session::Sessions,
    pub(crate) metrics: metrics::Sampler,
    /// `Secure` cookies: configured, or served over TLS.
    pub(crate) secure: std::sync::atomic::AtomicBool,
    /// Failed logins by user name and by source.
    pub(crate) throttle: throttle::Throttle,
    /// Single sign-on, when configured.
    pub(crate) sso: Option<sso::Sso>,
}

impl State {
    pub(crate) fn secure_cookies(&self) -> bool {
        self.secure.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Console {
    /// Checks `config` (the properties must make a client configuration) and builds the
    /// console.
    pub fn new(config: ConsoleConfig) -> Result<Console, ConsoleError> {
        connect::check(&config).map_err(|e| ConsoleError::Config(e.to_string()))?;
        let sessions = session::Sessions::new(config.idle_timeout);
        let metrics = metrics::Sampler::new(config.metrics_url.clone());
        let secure = config.secure_cookies.into();
        let sso = match &config.sso {
            Some(sso) => {
                Some(sso::Sso::new(sso.clone()).map_err(|e| ConsoleError::Config(e.to_string()))?)
            }
            None => None,
        };
        Ok(Console {
            state: Arc::new(State {
                config,
                sessions,
                metrics,
                secure,
                throttle: throttle::Throttle::default(),
                sso,
            }),
        })
    }

    /// The routes, for embedding the console in another axum server or driving it in tests.
    pub fn router(&self) -> axum::Router {
        pages::router(self.state.clone())
    }

    /// Serves on `listener` until `shutdown` completes; expires idle sessions and samples
    /// `/metrics` (when configured) in the background meanwhile. Raises the process's
    /// file-descriptor limit and logs the connection bounds it allows (see `server`).
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ConsoleError> {
        self.default_sso_redirect("http", &listener);
        self.run(listener, None, shutdown).await
    }

    /// Like [`Console::serve`], over TLS (`tls` from [`tls_server_config`]). Cookies are
    /// `Secure` then, whatever the configuration says.
    pub async fn serve_tls(
        self,
        listener: tokio::net::TcpListener,
        tls: Arc<rustls::ServerConfig>,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ConsoleError> {
        self.default_sso_redirect("https", &listener);
        self.state
            .secure
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let acceptor = tokio_rustls::TlsAcceptor::from(tls);
        self.run(listener, Some(acceptor), shutdown).await
    }

    /// The one serving loop of [`Console::serve`] and [`Console::serve_tls`]: the routes on
    /// `listener`, the background task beside them, every session closed at the end.
    async fn run(
        self,
        listener: tokio::net::TcpListener,
        tls: Option<tokio_rustls::TlsAcceptor>,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ConsoleError> {
        let limits = server::Limits::from_process();
        let background = tokio::spawn(background(self.state.clone()));
        let result = server::serve(listener, tls, self.router(), limits, shutdown).await;
        background.abort();
        self.state.sessions.clear();
        Ok(result?)
    }

    /// Single sign-on's callback on this listener, unless one was configured.
    fn default_sso_redirect(&self, scheme: &str, listener: &tokio::net::TcpListener) {
        if let (Some(sso), Ok(addr)) = (&self.state.sso, listener.local_addr()) {
            sso.set_default_redirect(format!("{scheme}://{addr}/sso/callback"));
        }
    }

    /// How many web sessions are open (for tests and the memory benchmark).
    pub fn session_count(&self) -> usize {
        self.state.sessions.len()
    }

    /// How many ACLs the sessions' cached search results hold together (bounded: past four
    /// million, other sessions' results are dropped and fetched again when next shown).
    pub fn cached_acls(&self) -> usize {
        self.state.sessions.cached_acls()
    }
}

/// Every few seconds: drop idle sessions, take a `/metrics` sample.
async fn background(state: Arc<State>) {
    let mut tick = tokio::time::interval(metrics::SAMPLE_EVERY);
    loop {
        tick.tick().await;
        state.sessions.expire();
        state.throttle.expire();
        state.metrics.sample().await;
    }
}
