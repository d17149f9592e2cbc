//! Single sign-on: a person signs in at the organisation's OpenID provider (authorization
//! code with PKCE, kacl-oidc's [`login`](kacl_oidc::login)) and the console then talks to the
//! cluster as that person with SASL/OAUTHBEARER, presenting the provider's access token. No
//! Kafka password is typed into the console; the cluster validates the token against the
//! provider's JWKS and its ACLs see `User:<subject>`.
//!
//! What a login in flight keeps, server-side: its `state`, PKCE verifier and nonce, for ten
//! minutes, at most [`MAX_PENDING`] at once (the oldest go first). The browser holds only a
//! cookie naming its own `state`, and the callback must bring both back: a code obtained by
//! someone else cannot be planted in a victim's browser (login CSRF).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use kacl_oidc::login::{Client, PendingLogin, Provider, Tokens};
use kacl_oidc::{HttpClient, OidcError};
use std::sync::Mutex;
use tokio::sync::OnceCell;

/// How long a started login may take at the provider.
pub(crate) const PENDING_FOR: Duration = Duration::from_secs(600);
/// The most logins in flight at once.
pub(crate) const MAX_PENDING: usize = 1024;
/// The cookie that ties a browser to its login in flight.
pub(crate) const COOKIE: &str = "kacl_sso";

/// How the console signs people in (`kacl console --oidc-*`).
#[derive(Clone, PartialEq, Eq)]
pub struct SsoConfig {
    /// The provider's issuer URL (`--oidc-issuer`); its configuration is discovered from it.
    pub issuer: String,
    /// The console's client id at the provider (`--oidc-client-id`).
    pub client_id: String,
    /// The client secret (`--oidc-client-secret-file`); `None`: a public client, PKCE alone.
    pub client_secret: Option<String>,
    /// Where the provider sends the browser back (`--oidc-redirect-url`); `None`: the
    /// console's own listener, `http(s)://<listen address>/sso/callback`.
    pub redirect_url: Option<String>,
    /// The scopes to ask for (`--oidc-scope`).
    pub scope: String,
    /// The claim of the access token shown as the person's name (the cluster decides the
    /// principal itself, from its `sasl.oauthbearer.sub.claim.name`).
    pub principal_claim: String,
    /// PEM CA certificates for an https provider (`--oidc-ca-file`); the system's otherwise.
    pub ca_file: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for SsoConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoConfig")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_url", &self.redirect_url)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl SsoConfig {
    /// A public client for `issuer` with the `openid` scope.
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>) -> SsoConfig {
        SsoConfig {
            issuer: issuer.into(),
            client_id: client_id.into(),
            client_secret: None,
            redirect_url: None,
            scope: "openid".to_owned(),
            principal_claim: "sub".to_owned(),
            ca_file: None,
        }
    }
}

/// The console's single sign-on, when configured.
pub(crate) struct Sso {
    config: SsoConfig,
    http: HttpClient,
    /// Discovered on first use, so the console starts even while the provider is down.
    provider: OnceCell<Provider>,
    /// The listener's callback URL, when `redirect_url` is not configured.
    default_redirect: std::sync::OnceLock<String>,
    pending: Mutex<HashMap<String, (PendingLogin, Instant)>>,
}

/// Why a sign-in did not complete, for the login page.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SsoError {
    /// The provider could not be used (discovery, token endpoint).
    #[error(transparent)]
    Provider(#[from] OidcError),
    /// The callback did not match a login in flight of this browser.
    #[error("this sign-in is unknown, used or expired")]
    UnknownLogin,
    /// The provider answered with an error.
    #[error("the identity provider refused the sign-in: {0}")]
    Refused(String),
}

impl Sso {
    pub(crate) fn new(config: SsoConfig) -> Result<Sso, OidcError> {
        let http = HttpClient::new(config.ca_file.as_deref(), 1 << 20, Duration::from_secs(10))?;
        Ok(Sso {
            config,
            http,
            provider: OnceCell::new(),
            default_redirect: std::sync::OnceLock::new(),
            pending: Mutex::new(HashMap::new()),
        })
    }

    /// The callback URL of the listener the console serves on.
    pub(crate) fn set_default_redirect(&self, url: String) {
        let _ = self.default_redirect.set(url);
    }

    pub(crate) fn principal_claim(&self) -> &str {
        &self.config.principal_claim
    }

    fn client(&self) -> Client {
        let redirect_uri = self
            .config
            .redirect_url
            .clone()
            .or_else(|| self.default_redirect.get().cloned())
            .unwrap_or_else(|| "http://127.0.0.1:8080/sso/callback".to_owned());
        let mut scope = self.config.scope.clone();
        if !scope.split(' ').any(|s| s == "openid") {
            scope = format!("openid {scope}").trim().to_owned();
        }
        Client {
            id: self.config.client_id.clone(),
            secret: self.config.client_secret.clone(),
            redirect_uri,
            scope,
        }
    }

    async fn provider(&self) -> Result<&Provider, OidcError> {
        self.provider
            .get_or_try_init(|| Provider::discover(&self.http, &self.config.issuer))
            .await
    }

    /// Starts a login: the provider URL to send the browser to, and the `state` for its
    /// cookie.
    pub(crate) async fn begin(&self) -> Result<(String, String), SsoError> {
        let provider = self.provider().await?;
        let login = provider.begin(&self.client());
        let (url, state) = (login.authorize_url.clone(), login.state.clone());
        let now = Instant::now();
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|_, (_, at)| now.duration_since(*at) < PENDING_FOR);
        while pending.len() >= MAX_PENDING {
            let Some(oldest) = pending
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            pending.remove(&oldest);
        }
        pending.insert(state.clone(), (login, now));
        Ok((url, state))
    }

    /// Completes the login the browser came back with: its `state` must be the one its
    /// cookie names, in flight and fresh; used once.
    pub(crate) async fn finish(
        &self,
        state: &str,
        cookie_state: Option<&str>,
        code: &str,
    ) -> Result<Tokens, SsoError> {
        if cookie_state != Some(state) {
            return Err(SsoError::UnknownLogin);
        }
        let login = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            match pending.remove(state) {
                Some((login, at)) if at.elapsed() < PENDING_FOR => login,
                _ => return Err(SsoError::UnknownLogin),
            }
        };
        let provider = self.provider().await?;
        Ok(provider
            .finish(&self.http, &self.client(), &login, code)
            .await?)
    }
}
