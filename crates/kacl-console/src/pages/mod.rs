//! The routes, the headers every answer carries and the static files here; what admits a
//! request in [`guard`], logging in and out in [`login`], one module per page family.
//!
//! Helpers return `Result<_, Response>`: the error is the finished page (a redirect to the
//! login, a refusal), made once per request, so its size does not matter.
#![allow(clippy::result_large_err)]

mod acls;
mod cluster;
pub(crate) mod guard;
mod login;
mod plan;
mod topics;
mod why;

use std::sync::Arc;

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;

use crate::html;
use crate::State;

/// Every route of the console.
pub(crate) fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to("/acls") }))
        .route("/static/console.css", get(css))
        .route("/static/console.js", get(js))
        .merge(login::routes())
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
