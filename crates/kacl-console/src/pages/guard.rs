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
    /// The form's fields.
    pub(crate) form: T,
}

impl<T: DeserializeOwned> FromRequest<Arc<State>> for LoginPost<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &Arc<State>) -> Result<Self, Self::Rejection> {
        let headers = request.headers().clone();
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
        Ok(LoginPost { headers, form })
    }
}

/// The body of a form post (`application/x-www-form-urlencoded`, within the router's body
/// limit).
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
    Bytes::from_request(request, state)
        .await
        .map_err(IntoResponse::into_response)
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
