//! `kacl console`: the web console (the `kacl-console` crate) in front of any Kafka
//! cluster. Prints `console listening http://HOST:PORT` (or `https://`) once it accepts
//! connections.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use kacl_client::Properties;

/// Serve the web console for a cluster (kacl or Kafka).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ConsoleArgs {
    /// Brokers to bootstrap from: host1:port1,host2:port2,...
    #[arg(long, value_name = "HOST:PORT")]
    bootstrap_server: String,
    /// Kafka client properties: security.protocol (TLS or not; SASL is chosen at login),
    /// ssl.*, timeouts. Credentials in it are ignored: every user logs in as themselves.
    #[arg(long, value_name = "FILE")]
    command_config: Option<PathBuf>,
    /// Address of the console's HTTP listener (port 0: any free port).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    listen: String,
    /// A kacl server's metrics endpoint, for the cluster page's chart.
    #[arg(long, value_name = "URL")]
    metrics_url: Option<String>,
    /// Close web sessions idle this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    idle_timeout: u64,
    /// Mark cookies Secure: set when a TLS proxy fronts the console (implied by
    /// --ssl-keystore-location).
    #[arg(long)]
    secure_cookies: bool,
    /// Serve HTTPS: a PEM file with the private key and certificate chain (as the server's
    /// ssl.keystore.location with ssl.keystore.type=PEM).
    #[arg(long, value_name = "FILE")]
    ssl_keystore_location: Option<PathBuf>,
    /// Single sign-on: the OpenID provider's issuer URL. People then sign in there and the
    /// console reaches the cluster as them with SASL/OAUTHBEARER (the cluster must accept
    /// that provider's tokens).
    #[arg(long, value_name = "URL", requires = "oidc_client_id")]
    oidc_issuer: Option<String>,
    /// The console's client id at the provider.
    #[arg(long, value_name = "ID", requires = "oidc_issuer")]
    oidc_client_id: Option<String>,
    /// A file whose first line is the client secret (a confidential client); without it the
    /// console is a public client and relies on PKCE alone.
    #[arg(long, value_name = "FILE", requires = "oidc_issuer")]
    oidc_client_secret_file: Option<PathBuf>,
    /// The callback URL registered at the provider (default: this listener's
    /// http(s)://HOST:PORT/sso/callback; set it behind a proxy).
    #[arg(long, value_name = "URL", requires = "oidc_issuer")]
    oidc_redirect_url: Option<String>,
    /// Scopes to ask for (openid is always added).
    #[arg(long, value_name = "SCOPES", default_value = "openid")]
    oidc_scope: String,
    /// The access token claim shown as the person's name.
    #[arg(long, value_name = "CLAIM", default_value = "sub")]
    oidc_principal_claim: String,
    /// PEM CA certificates for an https provider (default: the system's).
    #[arg(long, value_name = "FILE", requires = "oidc_issuer")]
    oidc_ca_file: Option<PathBuf>,
}

/// The single sign-on settings of the `--oidc-*` flags.
fn sso_config(args: &ConsoleArgs) -> anyhow::Result<Option<kacl_console::SsoConfig>> {
    let (Some(issuer), Some(client_id)) = (&args.oidc_issuer, &args.oidc_client_id) else {
        return Ok(None);
    };
    let client_secret = match &args.oidc_client_secret_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let secret = text.lines().next().unwrap_or_default().trim().to_owned();
            anyhow::ensure!(
                !secret.is_empty(),
                "{} holds no client secret",
                path.display()
            );
            Some(secret)
        }
        None => None,
    };
    Ok(Some(kacl_console::SsoConfig {
        client_secret,
        redirect_url: args.oidc_redirect_url.clone(),
        scope: args.oidc_scope.clone(),
        principal_claim: args.oidc_principal_claim.clone(),
        ca_file: args.oidc_ca_file.clone(),
        ..kacl_console::SsoConfig::new(issuer.clone(), client_id.clone())
    }))
}

/// `kacl console`.
pub(crate) fn run(args: ConsoleArgs) -> anyhow::Result<ExitCode> {
    let properties = match &args.command_config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Properties::parse(&text).with_context(|| format!("cannot parse {}", path.display()))?
        }
        None => Properties::default(),
    };
    let config = kacl_console::ConsoleConfig {
        bootstrap: args.bootstrap_server.clone(),
        properties,
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
        metrics_url: args.metrics_url.clone(),
        secure_cookies: args.secure_cookies,
        sso: sso_config(&args)?,
    };
    crate::logging::init();
    let console = kacl_console::Console::new(config)?;
    let tls = match &args.ssl_keystore_location {
        Some(path) => Some(kacl_console::tls_server_config(path)?),
        None => None,
    };
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(async move {
            let listener = tokio::net::TcpListener::bind(&args.listen)
                .await
                .with_context(|| format!("cannot bind {}", args.listen))?;
            let addr = listener.local_addr()?;
            let scheme = if tls.is_some() { "https" } else { "http" };
            println!("console listening {scheme}://{addr}");
            std::io::stdout().flush()?;
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            match tls {
                Some(tls) => console.serve_tls(listener, tls, shutdown).await?,
                None => console.serve(listener, shutdown).await?,
            }
            Ok(ExitCode::SUCCESS)
        })
}

/// `kacl.console.listen` in `kacl serve`: the console against this server's first listener
/// without TLS (a TLS listener needs client-side trust settings the server file does not
/// hold; run `kacl console --command-config` for those), charting this server's `/metrics`.
/// Prints `console listening http://HOST:PORT`; it runs until the process ends.
pub(crate) async fn embedded(
    server: &kacl_server::RunningServer,
    listen: &str,
) -> anyhow::Result<()> {
    let Some(target) = server.listeners().iter().find(|l| !l.protocol.uses_tls()) else {
        anyhow::bail!(
            "kacl.console.listen: the console needs a PLAINTEXT or SASL_PLAINTEXT listener to \
             connect to; with TLS listeners only, run `kacl console` with a --command-config"
        );
    };
    let mut properties = Properties::default();
    let protocol = target.protocol.name().to_owned();
    properties.set("security.protocol".to_owned(), protocol);
    let config = kacl_console::ConsoleConfig {
        bootstrap: target.local_addr.to_string(),
        properties,
        metrics_url: server.metrics_addr().map(|a| format!("http://{a}/metrics")),
        ..kacl_console::ConsoleConfig::new(target.local_addr.to_string())
    };
    let console = kacl_console::Console::new(config)?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("kacl.console.listen: cannot bind {listen}"))?;
    println!("console listening http://{}", listener.local_addr()?);
    std::io::stdout().flush()?;
    tokio::spawn(async move {
        if let Err(err) = console.serve(listener, std::future::pending()).await {
            tracing::error!(%err, "the embedded console stopped");
        }
    });
    Ok(())
}
