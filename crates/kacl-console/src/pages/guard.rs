//! What admits a request to a handler, as handler arguments (extractors), so that no handler
//! can forget a check:
//!
//! - [`LoggedIn`]: the request's session, for pages that only read (GET, HEAD). On any other
//!   method it refuses: a handler that changes something cannot get a session without the
//!   CSRF token check.
//! - [`Change<T>`]: a state-changing form: the session, its CSRF token checked (constant
//!   time), and the form `T` parsed, all before the handler runs.
//! - [`LoginPost<T>`]: a login form: the token its login page was served with (double
//!   submit: a hidden field and a `SameSite=Strict` cookie) checked before any connection
//!   to the cluster is made. Another way of logging in (a second login route) takes its
//!   form through it as well.
//!
//! A refused request is answered with the finished page (a redirect to the login, a 403),
//! and nothing of it reaches the cluster.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request, State as Extract};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Redirect, Response};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::html;
use crate::session::{self, Session};
use crate::State;

/// Shared state as handlers extract it.
pub(crate) type AppState = Extract<Arc<State>>;

/// A handler argument: the request's session; a request without one is answered with the
/// redirect to the login page before the handler runs (see the module documentation).
pub(crate) struct LoggedIn(pub(crate) Arc<Session>);

impl FromRequestParts<Arc<State>> for LoggedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<State>,
    ) -> Result<Self, Self::Rejection> {
        if !parts.method.is_safe() {
            return Err(token_refused(None));
        }
        session(state, &parts.headers).map(LoggedIn)
    }
}

/// The request's session, or the redirect to the login page.
fn session(state: &State, headers: &HeaderMap) -> Result<Arc<Session>, Response> {
    state
        .sessions
        .get(headers)
        .ok_or_else(|| Redirect::to("/login").into_response())
}

/// The CSRF field every state-changing form carries (its other fields are `T`'s).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Token {
    csrf: Option<String>,
}

/// A state-changing form, admitted (see the module documentation).
pub(crate) struct Change<T> {
    /// The session whose token the form carried.
    pub(crate) session: Arc<Session>,
    /// The form's fields (a `csrf` field among them is the token, and ignored by `T`).
    pub(crate) form: T,
}

impl<T: DeserializeOwned> FromRequest<Arc<State>> for Change<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &Arc<State>) -> Result<Self, Self::Rejection> {
        let session = session(state, request.headers())?;
        let body = form_body(request, state).await?;
        if !session.csrf_ok(token(&body).as_deref()) {
            return Err(token_refused(Some(&session)));
        }
        let form = parse(&body, Some(&session))?;
        Ok(Change { session, form })
    }
}

/// A login form whose token is its login page's (see the module documentation).
pub(crate) struct LoginPost<T> {
    /// The request's headers (cookies: a session id to replace).
    pub(crate) headers: HeaderMap,
    /// The peer's address (the login throttle's source), when served by [`crate::server`].
    pub(crate) source: Option<std::net::IpAddr>,
    /// The form's fields.
    pub(crate) form: T,
}

impl<T: DeserializeOwned> FromRequest<Arc<State>> for LoginPost<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &Arc<State>) -> Result<Self, Self::Rejection> {
        let headers = request.headers().clone();
        let source = request
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|peer| peer.0.ip());
        let body = form_body(request, state).await?;
        if !session::login_token_ok(&headers, token(&body).as_deref()) {
            return Err(html::refused(
                403,
                "Login refused",
                "This login did not carry its form's CSRF token, so it was refused. Open the \
                 login page again and log in from there.",
                None,
            ));
        }
        let form = parse(&body, None)?;
        Ok(LoginPost {
            headers,
            source,
            form,
        })
    }
}

/// The body of a form post (`application/x-www-form-urlencoded`, within the router's body
/// limit, complete within [`crate::server::BODY_TIMEOUT`]: a client that sends its form a
/// byte at a time is cut off).
async fn form_body(request: Request, state: &Arc<State>) -> Result<Bytes, Response> {
    let is_form = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !is_form {
        return Err(html::refused(
            415,
            "Request refused",
            "A change is sent as a form (application/x-www-form-urlencoded).",
            None,
        ));
    }
    match tokio::time::timeout(
        crate::server::BODY_TIMEOUT,
        Bytes::from_request(request, state),
    )
    .await
    {
        Ok(body) => body.map_err(IntoResponse::into_response),
        Err(_) => Err(html::refused(
            408,
            "Request refused",
            "The form did not arrive in time.",
            None,
        )),
    }
}

fn token(body: &[u8]) -> Option<String> {
    serde_urlencoded::from_bytes::<Token>(body)
        .ok()
        .and_then(|t| t.csrf)
}

fn parse<T: DeserializeOwned>(body: &[u8], session: Option<&Session>) -> Result<T, Response> {
    serde_urlencoded::from_bytes(body).map_err(|e| {
        html::refused(
            400,
            "Request refused",
            &format!("The form could not be read: {e}."),
            session,
        )
    })
}

/// The page for a change request without the session's token.
fn token_refused(session: Option<&Session>) -> Response {
    html::refused(
        403,
        "Request refused",
        "This change request did not carry the page's CSRF token, so it was refused and \
         nothing was changed. Reload the page and try again.",
        session,
    )
}

/// The first check of every request that may change something (any method but GET, HEAD,
/// OPTIONS and TRACE), the login post included, before its body is read: it must come from a
/// page of this console. A browser says so in `Sec-Fetch-Site` (`same-origin`, or `none`
/// for what the user typed) or, where it does not send that header (plain HTTP to a host
/// other than localhost), in `Origin`, which must name the host the request was sent to. A
/// request with neither, or from another site, is refused with 403 and reaches no handler,
/// so nothing of it is sent to the cluster. (The CSRF token is checked too, by the
/// extractors above: the two are independent defences.)
pub(crate) async fn same_origin(request: Request, next: axum::middleware::Next) -> Response {
    if request.method().is_safe() || is_same_origin(request.headers()) {
        return next.run(request).await;
    }
    html::refused(
        403,
        "Request refused",
        "This request did not come from a page of this console (its Origin or Sec-Fetch-Site \
         header names another site, or it has neither), so it was refused and nothing was \
         changed.",
        None,
    )
}

/// Whether the headers show a request made by a page of this console.
pub(crate) fn is_same_origin(headers: &HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site") {
        return matches!(site.trim(), "same-origin" | "none");
    }
    let (Some(origin), Some(host)) = (text("origin"), text("host")) else {
        return false;
    };
    // `http://host:port` or `https://host[:port]`; `null` (an opaque origin) is no origin.
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return false;
    };
    let authority = authority.trim_end_matches('/');
    if !matches!(scheme, "http" | "https") || authority.is_empty() || authority.contains('/') {
        return false;
    }
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let bare = |a: &str| {
        let a = a.trim().to_ascii_lowercase();
        a.strip_suffix(default_port).map(str::to_owned).unwrap_or(a)
    };
    bare(authority) == bare(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.insert(*n, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_this_consoles_own_pages_may_post() {
        let ok = [
            &[("sec-fetch-site", "same-origin")][..],
            &[("sec-fetch-site", "none")],
            &[
                ("origin", "http://127.0.0.1:8080"),
                ("host", "127.0.0.1:8080"),
            ],
            &[
                ("origin", "https://Console.Example"),
                ("host", "console.example:443"),
            ],
            &[
                ("origin", "http://console.example:80"),
                ("host", "console.example"),
            ],
        ];
        for h in ok {
            assert!(is_same_origin(&headers(h)), "{h:?}");
        }
        let refused = [
            &[][..],
            &[("host", "127.0.0.1:8080")],
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "http://127.0.0.1:8080"),
                ("host", "127.0.0.1:8080"),
            ],
            &[("sec-fetch-site", "same-site")],
            &[("origin", "null"), ("host", "127.0.0.1:8080")],
            &[
                ("origin", "http://evil.example"),
                ("host", "127.0.0.1:8080"),
            ],
            &[
                ("origin", "http://127.0.0.1:8081"),
                ("host", "127.0.0.1:8080"),
            ],
            &[
                ("origin", "file://127.0.0.1:8080"),
                ("host", "127.0.0.1:8080"),
            ],
            &[
                ("origin", "http://127.0.0.1:8080/x"),
                ("host", "127.0.0.1:8080"),
            ],
        ];
        for h in refused {
            assert!(!is_same_origin(&headers(h)), "{h:?}");
        }
    }
}
