//! Logging in and out. The login page takes the user's Kafka credentials and the session
//! is the admin connection made with them ([`connect::login`]); [`start_session`] is what
//! every way of logging in ends with (a new session id, its cookie, the ACL page).

use std::sync::Arc;

use axum::extract::State as Extract;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use kacl_client::Admin;
use maud::html;
use serde::Deserialize;

use super::guard::{AppState, Change, LoginPost};
use crate::connect::{self, Mechanism};
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::session;
use crate::State;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/login", get(login_form).post(login))
        .route("/logout", post(logout))
}

/// The answer to a login that must wait: 429, with `Retry-After` in whole seconds.
fn throttled(wait: std::time::Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = html::refused(
        429,
        "Too many failed logins",
        &format!(
            "Too many failed logins for this user name or from this address: try again in \
             {seconds} s. Nothing was sent to the cluster."
        ),
        None,
    );
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// A logged-in user's session starts: a fresh id (one the browser already sent is dropped,
/// never adopted: no fixation), its cookie, and the redirect to the ACL page.
pub(crate) fn start_session(
    state: &State,
    headers: &HeaderMap,
    admin: Admin,
    principal: String,
) -> Response {
    let id = state
        .sessions
        .create(admin, principal, session::cookie(headers));
    let cookie = session::set_cookie(Some(&id), state.secure_cookies(), state.config.idle_timeout);
    ([(header::SET_COOKIE, cookie)], Redirect::to("/acls")).into_response()
}

/// The login form's fields (its `csrf` field is checked by [`LoginPost`]). `Debug` is not
/// derived: it would show the password.
#[derive(Default, Deserialize)]
#[serde(default)]
struct LoginForm {
    mechanism: String,
    username: String,
    password: String,
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
                    Mechanism::Sasl(kacl_client::SaslMechanism::OAuthBearer) => {
                        "SASL OAUTHBEARER (single sign-on)"
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
                @if state.sso.is_some() {
                    div.box.narrow.sso {
                        a.button href="/sso/start" id="sso-login" { "Sign in with single sign-on" }
                        p { "Your organisation's identity provider signs you in; the console then \
                             reaches the cluster with OAUTHBEARER as you, and no Kafka password \
                             is typed here." }
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
pub(super) fn login_response(
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

/// The login post. Its token was checked before any connection is made ([`LoginPost`]): a
/// cross-site page cannot log a browser in.
async fn login(
    Extract(state): AppState,
    LoginPost {
        headers,
        source,
        form,
    }: LoginPost<LoginForm>,
) -> Response {
    let Some(mechanism) = Mechanism::parse(&form.mechanism) else {
        let mechanism = connect::default_mechanism(&state.config);
        return login_response(&state, 400, mechanism, &form.username, None);
    };
    let user = form.username.trim();
    // Password guessing waits here, before any connection to the cluster (crate::throttle).
    if let Err(wait) = state.throttle.attempt(user, source) {
        tracing::info!(
            user = %kacl_logsafe::safe(user),
            "console login throttled"
        );
        return throttled(wait);
    }
    match connect::login(&state.config, mechanism, user, &form.password).await {
        Ok((admin, principal)) => {
            state.throttle.succeeded(user, source);
            start_session(&state, &headers, admin, principal)
        }
        Err(err) => {
            let principal = format!("User:{user}");
            let problem = connect::problem(&err, &principal, Action::ReadAcls);
            if problem.status != 401 {
                state.throttle.not_a_guess(user, source);
            }
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

/// A form with no fields of its own (its token is checked by [`Change`]).
#[derive(Debug, Default, Deserialize)]
struct NoFields {}

/// Ends the session server-side (its admin connection closes) and clears the cookie.
async fn logout(Extract(state): AppState, headers: HeaderMap, _: Change<NoFields>) -> Response {
    state.sessions.remove(&headers);
    let cookie = session::set_cookie(None, state.secure_cookies(), state.config.idle_timeout);
    ([(header::SET_COOKIE, cookie)], Redirect::to("/login")).into_response()
}
