//! The routes: login and logout here, one module per page family.
//!
//! Helpers return `Result<_, Response>`: the error is the finished page (a redirect to the
//! login, a refusal), made once per request, so its size does not matter.
#![allow(clippy::result_large_err)]

mod acls;
mod acls_stream;
mod acls_view;
mod cluster;
mod plan;
mod topics;
mod why;

use std::sync::Arc;

use axum::extract::{Form, FromRequestParts, State as Extract};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use maud::html;
use serde::Deserialize;

use crate::connect::{self, Mechanism};
use crate::html::{self, page, respond};
use crate::session::{self, Session};
use crate::State;

/// Shared state as handlers extract it.
pub(crate) type AppState = Extract<Arc<State>>;

/// Every route of the console.
pub(crate) fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to("/acls") }))
        .route("/login", get(login_form).post(login))
        .route("/logout", post(logout))
        .route("/static/console.css", get(css))
        .route("/static/console.js", get(js))
        .merge(acls::routes())
        .merge(why::routes())
        .merge(topics::routes())
        .merge(cluster::routes())
        .merge(plan::routes())
        .fallback(|| async { html::refused(404, "Not found", "There is no such page.", None) })
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

/// No framing, no foreign scripts or styles, no caching of pages that show ACLs.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

async fn css() -> Response {
    static_file("text/css; charset=utf-8", html::CSS)
}

async fn js() -> Response {
    static_file("text/javascript; charset=utf-8", html::JS)
}

fn static_file(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        body,
    )
        .into_response()
}

/// A handler argument: the request's session; a request without one is answered with the
/// redirect to the login page before the handler runs.
pub(crate) struct LoggedIn(pub(crate) Arc<Session>);

impl FromRequestParts<Arc<State>> for LoggedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<State>,
    ) -> Result<Self, Self::Rejection> {
        session(state, &parts.headers).map(LoggedIn)
    }
}

/// The request's session, or the redirect to the login page.
pub(crate) fn session(state: &State, headers: &HeaderMap) -> Result<Arc<Session>, Response> {
    state
        .sessions
        .get(headers)
        .ok_or_else(|| Redirect::to("/login").into_response())
}

/// The session of a change request whose form carried `csrf`; a missing or wrong token is
/// refused with 403 before anything is sent to the cluster.
pub(crate) fn change_session(
    state: &State,
    headers: &HeaderMap,
    csrf: Option<&str>,
) -> Result<Arc<Session>, Response> {
    let session = session(state, headers)?;
    if !session.csrf_ok(csrf) {
        return Err(html::refused(
            403,
            "Request refused",
            "This change request did not carry the page's CSRF token, so it was refused and \
             nothing was changed. Reload the page and try again.",
            Some(&session),
        ));
    }
    Ok(session)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct LoginForm {
    mechanism: String,
    username: String,
    password: String,
    csrf: Option<String>,
}

/// Never shows the password back; `Debug` would, so it is not derived for display.
fn login_page(
    state: &State,
    mechanism: Mechanism,
    username: &str,
    error: Option<&connect::Problem>,
    csrf: &str,
) -> maud::Markup {
    let options: Vec<(&str, &str)> = Mechanism::ALL
        .iter()
        .map(|m| {
            (
                m.name(),
                match m {
                    Mechanism::None => "None (PLAINTEXT development listener)",
                    Mechanism::Sasl(kacl_client::SaslMechanism::Plain) => "SASL PLAIN",
                    Mechanism::Sasl(kacl_client::SaslMechanism::ScramSha256) => {
                        "SASL SCRAM-SHA-256"
                    }
                    Mechanism::Sasl(kacl_client::SaslMechanism::ScramSha512) => {
                        "SASL SCRAM-SHA-512"
                    }
                },
            )
        })
        .collect();
    page(
        "Log in",
        None,
        "",
        html! {
            div.login {
                p { "Log in with your Kafka credentials for " code { (state.config.bootstrap) }
                    ". What you may see and change is what the cluster's ACLs allow your principal." }
                @if let Some(p) = error {
                    div.error role="alert" id="login-error" {
                        p { strong { (p.title) } ": " (p.explanation) }
                        p { "Kafka said: " code { (p.detail) } }
                    }
                }
                form.box.narrow method="post" action="/login" {
                    input type="hidden" name="csrf" value=(csrf);
                    div.field { (html::select("mechanism", "Authentication", &options, mechanism.name())) }
                    div.field { (html::input("username", "User name", username, "alice")) }
                    div.field {
                        label for="password" { "Password" }
                        input type="password" id="password" name="password" autocomplete="current-password";
                    }
                    div.actions { button type="submit" { "Log in" } }
                }
            }
        },
    )
}

/// The login page with a fresh form token, and the cookie that carries it back.
fn login_response(
    state: &State,
    status: u16,
    mechanism: Mechanism,
    username: &str,
    error: Option<&connect::Problem>,
) -> Response {
    let token = session::new_token();
    let mut response = respond(
        status,
        login_page(state, mechanism, username, error, &token),
    );
    if let Ok(cookie) =
        HeaderValue::from_str(&session::set_login_cookie(&token, state.secure_cookies()))
    {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

async fn login_form(Extract(state): AppState, headers: HeaderMap) -> Response {
    if state.sessions.get(&headers).is_some() {
        return Redirect::to("/acls").into_response();
    }
    let mechanism = connect::default_mechanism(&state.config);
    login_response(&state, 200, mechanism, "", None)
}

async fn login(
    Extract(state): AppState,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    // Checked before any connection is made: a cross-site page cannot log a browser in.
    if !session::login_token_ok(&headers, form.csrf.as_deref()) {
        return html::refused(
            403,
            "Login refused",
            "This login did not carry its form's CSRF token, so it was refused. Open the login \
             page again and log in from there.",
            None,
        );
    }
    let Some(mechanism) = Mechanism::parse(&form.mechanism) else {
        let mechanism = connect::default_mechanism(&state.config);
        return login_response(&state, 400, mechanism, &form.username, None);
    };
    match connect::login(
        &state.config,
        mechanism,
        form.username.trim(),
        &form.password,
    )
    .await
    {
        Ok((admin, principal)) => {
            let id = state
                .sessions
                .create(admin, principal, session::cookie(&headers));
            let cookie =
                session::set_cookie(Some(&id), state.secure_cookies(), state.config.idle_timeout);
            ([(header::SET_COOKIE, cookie)], Redirect::to("/acls")).into_response()
        }
        Err(err) => {
            let principal = format!("User:{}", form.username.trim());
            let problem = connect::problem(&err, &principal);
            // Only the outcome is logged: never the password, and the user name only escaped.
            tracing::info!(error = %err, "console login failed");
            login_response(
                &state,
                problem.status,
                mechanism,
                &form.username,
                Some(&problem),
            )
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CsrfForm {
    csrf: Option<String>,
}

async fn logout(
    Extract(state): AppState,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(refusal) = change_session(&state, &headers, form.csrf.as_deref()) {
        return refusal;
    }
    state.sessions.remove(&headers);
    let cookie = session::set_cookie(None, state.secure_cookies(), state.config.idle_timeout);
    ([(header::SET_COOKIE, cookie)], Redirect::to("/login")).into_response()
}
