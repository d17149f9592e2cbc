//! Web sessions: a random id in an `HttpOnly`, `SameSite=Strict` cookie maps to the
//! session's own admin connection, its principal, its CSRF token and its cached ACL search.
//! A login always makes a new id (an id planted before login is worthless: no fixation),
//! logout and idle expiry drop the connection with the session.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use kacl_client::Admin;
use rand::RngCore;

use crate::budget::CacheTicket;
use crate::results::AclCache;

/// The cookie's name.
pub(crate) const COOKIE: &str = "kacl_session";

/// One logged-in user.
pub(crate) struct Session {
    /// The admin connection, authenticated as the user.
    pub(crate) admin: Admin,
    /// `User:alice` (or `User:ANONYMOUS` without SASL), for display.
    pub(crate) principal: String,
    /// Must come back in every form that changes something.
    pub(crate) csrf: String,
    /// The last ACL search's result, paged and sorted without asking the cluster again.
    pub(crate) acls: tokio::sync::Mutex<Option<AclCache>>,
    last_seen: Mutex<Instant>,
}

impl Session {
    /// Whether `token` is this session's CSRF token (compared in constant time).
    pub(crate) fn csrf_ok(&self, token: Option<&str>) -> bool {
        token.is_some_and(|t| same_token(t, &self.csrf))
    }

    /// Drops the cached ACL search (after a change).
    pub(crate) async fn forget_acls(&self) {
        *self.acls.lock().await = None;
    }
}

/// ACLs the sessions may keep cached in all (a 2M-ACL result is ~0.5 GB of `AclBinding`s):
/// past it, other sessions' cached results are dropped (they fetch again on their next page).
pub(crate) const CACHE_BUDGET: usize = 4_000_000;

/// Every open session, by id.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<Session>>>,
    idle: Duration,
    cached: Arc<AtomicUsize>,
}

impl Sessions {
    pub(crate) fn new(idle: Duration) -> Sessions {
        Sessions {
            map: Mutex::new(HashMap::new()),
            idle,
            cached: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Admits a result of `n` ACLs for `keep`, first dropping other sessions' cached
    /// results (those not in use right now) while the total would exceed the budget.
    pub(crate) fn admit(&self, n: usize, keep: &Session) -> CacheTicket {
        if self.cached.load(Ordering::Relaxed) + n > CACHE_BUDGET {
            let others: Vec<Arc<Session>> = self.lock().values().cloned().collect();
            for other in others {
                if self.cached.load(Ordering::Relaxed) + n <= CACHE_BUDGET {
                    break;
                }
                if std::ptr::eq(Arc::as_ptr(&other), keep) {
                    continue;
                }
                if let Ok(mut cache) = other.acls.try_lock() {
                    *cache = None;
                }
            }
        }
        self.cached.fetch_add(n, Ordering::Relaxed);
        CacheTicket::new(self.cached.clone(), n)
    }

    /// ACLs cached by all sessions together.
    pub(crate) fn cached_acls(&self) -> usize {
        self.cached.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.map
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new session with a fresh id; `replacing` (the id the browser sent, if any) is
    /// dropped so that it can never name the new session.
    pub(crate) fn create(
        &self,
        admin: Admin,
        principal: String,
        replacing: Option<&str>,
    ) -> String {
        let id = random_token();
        let session = Arc::new(Session {
            admin,
            principal,
            csrf: random_token(),
            acls: tokio::sync::Mutex::new(None),
            last_seen: Mutex::new(Instant::now()),
        });
        let mut map = self.lock();
        if let Some(old) = replacing {
            map.remove(old);
        }
        map.insert(id.clone(), session);
        id
    }

    /// The live session of the request's cookie, touching its idle clock.
    pub(crate) fn get(&self, headers: &HeaderMap) -> Option<Arc<Session>> {
        let id = cookie(headers)?;
        let mut map = self.lock();
        let session = map.get(id)?.clone();
        let mut seen = session
            .last_seen
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if seen.elapsed() > self.idle {
            drop(seen);
            map.remove(id);
            return None;
        }
        *seen = Instant::now();
        drop(seen);
        Some(session)
    }

    /// Ends the request's session, if any.
    pub(crate) fn remove(&self, headers: &HeaderMap) {
        if let Some(id) = cookie(headers) {
            self.lock().remove(id);
        }
    }

    /// Drops every session idle for longer than the limit.
    pub(crate) fn expire(&self) {
        let idle = self.idle;
        self.lock().retain(|_, s| {
            s.last_seen
                .lock()
                .map(|seen| seen.elapsed() <= idle)
                .unwrap_or(false)
        });
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// The session id from the `Cookie` header(s).
pub(crate) fn cookie(headers: &HeaderMap) -> Option<&str> {
    cookie_named(headers, COOKIE)
}

/// The login form's own CSRF cookie, set with the form before any session exists: the form
/// posts the same token back in a hidden field (double submit), which a cross-site form
/// cannot, since it can neither read nor set this `SameSite=Strict` cookie.
pub(crate) const LOGIN_COOKIE: &str = "kacl_login";

/// How long a login form stays usable.
const LOGIN_FOR: Duration = Duration::from_secs(600);

/// The `Set-Cookie` value carrying a login form's token.
pub(crate) fn set_login_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{LOGIN_COOKIE}={token}; Path=/login; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        LOGIN_FOR.as_secs()
    )
}

/// Whether a login post carried the token its form was served with.
pub(crate) fn login_token_ok(headers: &HeaderMap, posted: Option<&str>) -> bool {
    match (cookie_named(headers, LOGIN_COOKIE), posted) {
        (Some(cookie), Some(posted)) => !cookie.is_empty() && same_token(cookie, posted),
        _ => false,
    }
}

/// A fresh token for a form (256 random bits, hex).
pub(crate) fn new_token() -> String {
    random_token()
}

/// Equal tokens, compared in constant time.
fn same_token(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn cookie_named<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value)
}

/// The `Set-Cookie` value for session `id` (`None`: the logout cookie that clears it).
pub(crate) fn set_cookie(id: Option<&str>, secure: bool, idle: Duration) -> String {
    let secure = if secure { "; Secure" } else { "" };
    match id {
        Some(id) => format!(
            "{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
            idle.as_secs()
        ),
        None => format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{secure}"),
    }
}

/// 256 random bits, hex.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_http_only_strict_and_secure_over_tls() {
        let c = set_cookie(Some("abc"), true, Duration::from_secs(60));
        assert_eq!(
            c,
            "kacl_session=abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure"
        );
        assert!(!set_cookie(Some("abc"), false, Duration::from_secs(60)).contains("Secure"));
        assert!(set_cookie(None, false, Duration::ZERO).contains("Max-Age=0"));
    }

    #[test]
    fn the_cache_budget_is_given_back_on_drop() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let a = sessions.cached.clone();
        let one = CacheTicket::new(a.clone(), 0);
        a.fetch_add(10, Ordering::Relaxed);
        let ten = CacheTicket::new(a.clone(), 10);
        assert_eq!(sessions.cached_acls(), 10);
        drop(ten);
        drop(one);
        assert_eq!(sessions.cached_acls(), 0);
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            axum::http::header::COOKIE,
            "a=1; kacl_session=xyz; b=2".parse().unwrap(),
        );
        assert_eq!(cookie(&headers), Some("xyz"));
        headers.append(
            axum::http::header::COOKIE,
            "kacl_login=t0k".parse().unwrap(),
        );
        assert!(login_token_ok(&headers, Some("t0k")));
        assert!(!login_token_ok(&headers, Some("t0K")));
        assert!(!login_token_ok(&headers, None));
        assert!(!login_token_ok(&HeaderMap::new(), Some("t0k")));
        assert_ne!(random_token(), random_token());
        assert_eq!(random_token().len(), 64);
    }
}
