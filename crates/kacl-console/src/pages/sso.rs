//! The single sign-on routes: `/sso/start` sends the browser to the identity provider,
//! `/sso/callback` takes it back, trades the code for an access token and opens the
//! cluster connection as the signed-in person with SASL/OAUTHBEARER (see [`crate::sso`]).

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use kacl_client::SaslMechanism;
use serde::Deserialize;

use crate::connect::{self, Mechanism};
use crate::html;
use crate::needs::Action;
use crate::sso::{self, SsoError};
use crate::State;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/sso/start", get(start))
        .route("/sso/callback", get(callback))
}

/// The `kacl_sso` cookie: HttpOnly, and SameSite=Lax because the provider's redirect back is
/// a top-level navigation from another site.
fn sso_cookie(value: Option<&str>, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    match value {
        Some(state) => format!(
            "{}={state}; Path=/sso; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
            sso::COOKIE,
            sso::PENDING_FOR.as_secs()
        ),
        None => format!(
            "{}=; Path=/sso; HttpOnly; SameSite=Lax; Max-Age=0{secure}",
            sso::COOKIE
        ),
    }
}

fn cookie_value<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn failed(state: &State, status: u16, title: &'static str, detail: String) -> Response {
    let problem = connect::Problem {
        status,
        title,
        explanation: "Single sign-on did not complete. Try again, or log in with a Kafka \
                      user name and password."
            .to_owned(),
        detail,
    };
    tracing::info!(reason = %kacl_logsafe::safe(&problem.detail), "console single sign-on failed");
    let mechanism = connect::default_mechanism(&state.config);
    super::login::login_response(state, status, mechanism, "", Some(&problem))
}

async fn start(Extract(state): Extract<Arc<State>>) -> Response {
    let Some(sso) = &state.sso else {
        return html::refused(404, "Not found", "Single sign-on is not configured.", None);
    };
    match sso.begin().await {
        Ok((url, login_state)) => {
            let mut response = Redirect::to(&url).into_response();
            if let Ok(cookie) =
                HeaderValue::from_str(&sso_cookie(Some(&login_state), state.secure_cookies()))
            {
                response.headers_mut().append(header::SET_COOKIE, cookie);
            }
            response
        }
        Err(e) => failed(&state, 502, "Identity provider unavailable", e.to_string()),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

async fn callback(
    Extract(state): Extract<Arc<State>>,
    headers: HeaderMap,
    Query(query): Query<CallbackQuery>,
) -> Response {
    let Some(sso) = &state.sso else {
        return html::refused(404, "Not found", "Single sign-on is not configured.", None);
    };
    let tokens = match (&query.code, &query.state, &query.error) {
        (_, _, Some(error)) => Err(SsoError::Refused(format!(
            "{error} {}",
            query.error_description.as_deref().unwrap_or("")
        ))),
        (Some(code), Some(login_state), None) => {
            sso.finish(login_state, cookie_value(&headers, sso::COOKIE), code)
                .await
        }
        _ => Err(SsoError::UnknownLogin),
    };
    let tokens = match tokens {
        Ok(tokens) => tokens,
        Err(e @ SsoError::UnknownLogin) => {
            return failed(&state, 400, "Sign-in refused", e.to_string())
        }
        Err(e) => return failed(&state, 502, "Sign-in failed", e.to_string()),
    };
    // The name shown; the cluster takes the principal from the token it validates.
    let name = kacl_oidc::login::unverified_claims(&tokens.access_token)
        .and_then(|c| c.get(sso.principal_claim())?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "(single sign-on)".to_owned());
    let mechanism = Mechanism::Sasl(SaslMechanism::OAuthBearer);
    match connect::login(&state.config, mechanism, &name, &tokens.access_token).await {
        Ok((admin, principal)) => {
            tracing::info!(principal = %kacl_logsafe::safe(&principal), "console single sign-on");
            let mut response = super::login::start_session(&state, &headers, admin, principal);
            if let Ok(clear) = HeaderValue::from_str(&sso_cookie(None, state.secure_cookies())) {
                response.headers_mut().append(header::SET_COOKIE, clear);
            }
            response
        }
        Err(err) => {
            let problem = connect::problem(&err, &format!("User:{name}"), Action::ReadAcls);
            failed(&state, problem.status, problem.title, err.to_string())
        }
    }
}
