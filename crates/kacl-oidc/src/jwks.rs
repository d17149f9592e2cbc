//! The identity provider's keys, kept fresh, and the [`TokenValidator`] that OAUTHBEARER
//! logins call: Kafka's `RefreshingHttpsJwks` with `BrokerJwtValidator` on top.
//!
//! - At start the JWKS is fetched once (with the retry backoff, within the fetch timeout); the
//!   server does not start without keys, as Kafka's validator does not configure without
//!   them.
//! - A background task refreshes it every `sasl.oauthbearer.jwks.endpoint.refresh.ms`, and at
//!   once when a token names a `kid` the set lacks (a provider rotating its keys). As in
//!   Kafka, such a token still fails (the login never waits for the network) and a `kid` can
//!   expedite a refresh at most once a minute, for at most 16 distinct missing ids at a time:
//!   a client sending random `kid`s cannot make kacl hammer the provider.
//! - A failed refresh keeps the keys it had and is logged.
//!
//! Validation (`validate`) is synchronous and reads the current set through a lock held for
//! a pointer copy; the fetch runs on the runtime, bounded in bytes and time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kacl_logsafe::safe;
use kacl_sasl::oauthbearer::{jwt, JwkSet, TokenError, TokenRules, TokenValidator, ValidToken};
use parking_lot::{Mutex, RwLock};
use tokio::sync::Notify;

use super::http::HttpClient;
use super::url::HttpUrl;
use super::OidcError;

/// How long a missing `kid` waits before it may expedite another refresh (Kafka's
/// `MISSING_KEY_ID_CACHE_IN_FLIGHT_MS`).
pub const MISSING_KID_INTERVAL: Duration = Duration::from_secs(60);
/// How many missing `kid`s are remembered (Kafka's `MISSING_KEY_ID_CACHE_MAX_ENTRIES`).
pub const MISSING_KID_ENTRIES: usize = 16;

/// Where the keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// An http(s) JWKS endpoint.
    Url(HttpUrl),
    /// A JWKS document on disk (`file:` URL).
    File(PathBuf),
}

/// How the keys are fetched and refreshed.
#[derive(Debug, Clone)]
pub struct JwksOptions {
    /// Where from.
    pub source: KeySource,
    /// The scheduled refresh interval (0: never).
    pub refresh: Duration,
    /// The first wait after a failed fetch, doubled per attempt ...
    pub retry_backoff: Duration,
    /// ... up to this.
    pub retry_backoff_max: Duration,
}

/// The refreshing validator. Dropping the last `Arc` ends its refresh task.
pub struct JwksValidator {
    rules: TokenRules,
    keys: RwLock<Arc<JwkSet>>,
    /// Missing `kid` → when it may expedite again.
    missing: Mutex<HashMap<String, Instant>>,
    expedite: Arc<Notify>,
    fetcher: Fetcher,
    options: JwksOptions,
}

impl std::fmt::Debug for JwksValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwksValidator")
            .field("rules", &self.rules)
            .field("keys", &self.keys.read().keys().len())
            .field("source", &self.options.source)
            .finish_non_exhaustive()
    }
}

struct Fetcher {
    http: HttpClient,
    max_bytes: usize,
}

impl Fetcher {
    async fn fetch(&self, source: &KeySource) -> Result<JwkSet, OidcError> {
        let document = match source {
            KeySource::Url(url) => {
                let response = self.http.get(url).await?;
                if response.status != 200 {
                    return Err(OidcError::Http(format!(
                        "{url}: status {} (expected 200)",
                        response.status
                    )));
                }
                response.body
            }
            KeySource::File(path) => {
                // A file read is blocking I/O: off the runtime's workers, and bounded.
                let (path, limit) = (path.clone(), self.max_bytes);
                tokio::task::spawn_blocking(move || read_bounded(&path, limit))
                    .await
                    .map_err(|e| OidcError::Http(format!("JWKS file read: {e}")))??
            }
        };
        JwkSet::parse(&document).map_err(|e| OidcError::Jwks(e.to_string()))
    }

    /// Fetches with the retry backoff until it works or `deadline` passes.
    async fn fetch_with_retry(
        &self,
        options: &JwksOptions,
        deadline: Instant,
    ) -> Result<JwkSet, OidcError> {
        let mut backoff = options.retry_backoff;
        loop {
            match self.fetch(&options.source).await {
                Ok(set) => return Ok(set),
                Err(e) if Instant::now() + backoff >= deadline => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "JWKS fetch failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(options.retry_backoff_max);
                }
            }
        }
    }
}

fn read_bounded(path: &std::path::Path, limit: usize) -> Result<Vec<u8>, OidcError> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| OidcError::Http(format!("{}: {e}", path.display())))?;
    let mut document = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut document)
        .map_err(|e| OidcError::Http(format!("{}: {e}", path.display())))?;
    if document.len() > limit {
        return Err(OidcError::TooLarge {
            url: format!("file:{}", path.display()),
            limit,
        });
    }
    Ok(document)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl JwksValidator {
    /// Fetches the keys once (failing after `start_timeout`) and starts the refresh task on
    /// the current runtime.
    pub async fn start(
        rules: TokenRules,
        options: JwksOptions,
        http: HttpClient,
        max_bytes: usize,
        start_timeout: Duration,
    ) -> Result<Arc<JwksValidator>, OidcError> {
        let fetcher = Fetcher { http, max_bytes };
        let set = fetcher
            .fetch_with_retry(&options, Instant::now() + start_timeout)
            .await?;
        tracing::info!(keys = set.keys().len(), skipped = set.skipped(), source = ?options.source,
            "OAUTHBEARER: JWKS loaded");
        let validator = Arc::new(JwksValidator {
            rules,
            keys: RwLock::new(Arc::new(set)),
            missing: Mutex::new(HashMap::new()),
            expedite: Arc::new(Notify::new()),
            fetcher,
            options,
        });
        tokio::spawn(refresh_loop(
            Arc::downgrade(&validator),
            Arc::clone(&validator.expedite),
        ));
        Ok(validator)
    }

    /// The keys in use now.
    pub fn keys(&self) -> Arc<JwkSet> {
        Arc::clone(&self.keys.read())
    }

    /// The rules tokens are held to.
    pub fn rules(&self) -> &TokenRules {
        &self.rules
    }

    /// Asks the refresh task to fetch now, unless this `kid` did so within the last
    /// [`MISSING_KID_INTERVAL`] (Kafka's `maybeExpediteRefresh`). True if it was asked.
    pub fn maybe_expedite_refresh(&self, kid: &str) -> bool {
        if kid.chars().count() > jwt::MAX_KID_CHARS {
            return false;
        }
        let now = Instant::now();
        let mut missing = self.missing.lock();
        missing.retain(|_, next| *next > now);
        if missing.contains_key(kid) {
            return false;
        }
        if missing.len() >= MISSING_KID_ENTRIES {
            return false;
        }
        missing.insert(kid.to_owned(), now + MISSING_KID_INTERVAL);
        drop(missing);
        self.expedite.notify_one();
        true
    }

    async fn refresh_once(&self) {
        let deadline = Instant::now() + self.options.retry_backoff_max.max(Duration::from_secs(1));
        match self.fetcher.fetch_with_retry(&self.options, deadline).await {
            Ok(set) => {
                let mut missing = self.missing.lock();
                for key in set.keys() {
                    if let Some(kid) = key.kid() {
                        missing.remove(kid);
                    }
                }
                drop(missing);
                tracing::info!(keys = set.keys().len(), "OAUTHBEARER: JWKS refreshed");
                *self.keys.write() = Arc::new(set);
            }
            Err(e) => tracing::warn!(error = %e,
                "OAUTHBEARER: JWKS refresh failed; keeping the keys already loaded"),
        }
    }
}

async fn refresh_loop(validator: Weak<JwksValidator>, wake: Arc<Notify>) {
    loop {
        // Wait holding only the Notify, so that dropping the validator (which notifies)
        // ends the task.
        let Some(refresh) = validator.upgrade().map(|v| v.options.refresh) else {
            return;
        };
        let expedited = if refresh.is_zero() {
            wake.notified().await;
            true
        } else {
            tokio::select! {
                _ = wake.notified() => true,
                _ = tokio::time::sleep(refresh) => false,
            }
        };
        let Some(strong) = validator.upgrade() else {
            return;
        };
        tracing::debug!(expedited, "OAUTHBEARER: JWKS refresh");
        strong.refresh_once().await;
    }
}

impl Drop for JwksValidator {
    fn drop(&mut self) {
        self.expedite.notify_one();
    }
}

impl TokenValidator for JwksValidator {
    fn validate(&self, token: &str) -> Result<ValidToken, TokenError> {
        let keys = self.keys();
        let result = jwt::validate(token, &self.rules, &keys, now_ms());
        if let Err(TokenError::UnknownKey(kid)) = &result {
            if self.maybe_expedite_refresh(kid) {
                tracing::info!(kid = %safe(kid),
                    "OAUTHBEARER: token with an unknown key id; JWKS refresh expedited");
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;

    fn document(kids: &[&str]) -> String {
        let zeros = URL_SAFE_NO_PAD.encode([0u8; 32]);
        let keys: Vec<String> = kids
            .iter()
            .map(|kid| {
                format!(r#"{{"kty":"EC","crv":"P-256","kid":"{kid}","x":"{zeros}","y":"{zeros}"}}"#)
            })
            .collect();
        format!(r#"{{"keys":[{}]}}"#, keys.join(","))
    }

    fn token_with_kid(kid: &str) -> String {
        let header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"ES256","kid":"{kid}"}}"#));
        format!("{header}.e30.AAAA")
    }

    async fn validator(path: &std::path::Path, refresh: Duration) -> Arc<JwksValidator> {
        let options = JwksOptions {
            source: KeySource::File(path.to_owned()),
            refresh,
            retry_backoff: Duration::from_millis(10),
            retry_backoff_max: Duration::from_millis(50),
        };
        let http = HttpClient::new(None, 1 << 16, Duration::from_secs(1)).unwrap();
        JwksValidator::start(
            TokenRules::default(),
            options,
            http,
            1 << 16,
            Duration::from_secs(1),
        )
        .await
        .unwrap()
    }

    async fn wait_for_kid(v: &JwksValidator, kid: &str) -> bool {
        for _ in 0..200 {
            if v.keys().has_kid(kid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[tokio::test]
    async fn an_unknown_kid_expedites_one_refresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jwks.json");
        std::fs::write(&path, document(&["old"])).unwrap();
        // No scheduled refresh: only an unknown kid brings the new key.
        let v = validator(&path, Duration::ZERO).await;
        assert!(v.keys().has_kid("old"));
        std::fs::write(&path, document(&["old", "new"])).unwrap();
        assert_eq!(
            v.validate(&token_with_kid("new")),
            Err(TokenError::UnknownKey("new".into()))
        );
        assert!(wait_for_kid(&v, "new").await, "the refresh never came");
        // The key is known now: the token fails on its (garbage) signature instead.
        assert_eq!(
            v.validate(&token_with_kid("new")),
            Err(TokenError::BadSignature)
        );
    }

    #[tokio::test]
    async fn missing_kids_are_rate_limited() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jwks.json");
        std::fs::write(&path, document(&["a"])).unwrap();
        let v = validator(&path, Duration::ZERO).await;
        assert!(v.maybe_expedite_refresh("x"));
        assert!(
            !v.maybe_expedite_refresh("x"),
            "the same kid within a minute"
        );
        for i in 1..MISSING_KID_ENTRIES {
            assert!(v.maybe_expedite_refresh(&format!("k{i}")));
        }
        assert!(!v.maybe_expedite_refresh("one-too-many"));
        assert!(!v.maybe_expedite_refresh(&"k".repeat(jwt::MAX_KID_CHARS + 1)));
    }

    #[tokio::test]
    async fn the_schedule_refreshes_and_a_failure_keeps_the_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jwks.json");
        std::fs::write(&path, document(&["a"])).unwrap();
        let v = validator(&path, Duration::from_millis(20)).await;
        std::fs::write(&path, document(&["b"])).unwrap();
        assert!(wait_for_kid(&v, "b").await);
        std::fs::write(&path, "not json").unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            v.keys().has_kid("b"),
            "a broken document must not replace the keys"
        );
    }

    #[tokio::test]
    async fn start_fails_without_keys() {
        let dir = tempfile::tempdir().unwrap();
        let options = JwksOptions {
            source: KeySource::File(dir.path().join("missing.json")),
            refresh: Duration::ZERO,
            retry_backoff: Duration::from_millis(10),
            retry_backoff_max: Duration::from_millis(20),
        };
        let http = HttpClient::new(None, 1024, Duration::from_secs(1)).unwrap();
        let started = JwksValidator::start(
            TokenRules::default(),
            options,
            http,
            1024,
            Duration::from_millis(100),
        )
        .await;
        assert!(started.is_err());
    }
}
