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
mod sso;
mod topics;
mod why;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
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
        // Declared in every page's head; browsers also ask `/favicon.ico` on their own.
        .route("/static/favicon.svg", get(favicon))
        .route("/favicon.ico", get(favicon))
        .merge(login::routes())
        .merge(acls::routes())
        .merge(why::routes())
        .merge(topics::routes())
        .merge(cluster::routes())
        .merge(plan::routes())
        .merge(sso::routes())
        .fallback(|| async { html::refused(404, "Not found", "There is no such page.", None) })
        .layer(axum::middleware::from_fn(guard::same_origin))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

/// The largest form body read: a pasted desired-state file is the largest form; a form of
/// 2 MiB holds a plan of tens of thousands of ACLs (larger estates use `kacl acls plan`). A
/// larger body is refused (413) before it is read whole.
pub(crate) const MAX_FORM_BYTES: usize = 2 << 20;

/// The page's Content-Security-Policy: scripts and styles only from the console's own files
/// (no inline script at all; of inline styles only the two fixed rules the streamed ACL page
/// ends with, by their hashes), no plugins, no `<base>`, no framing, forms only to itself.
fn content_security_policy() -> &'static HeaderValue {
    static CSP: std::sync::OnceLock<HeaderValue> = std::sync::OnceLock::new();
    CSP.get_or_init(|| {
        use base64::Engine as _;
        use sha2::Digest as _;
        let hashes: Vec<String> = acls::INLINE_STYLES
            .iter()
            .map(|style| {
                let digest = sha2::Sha256::digest(style.as_bytes());
                format!(
                    "'sha256-{}'",
                    base64::engine::general_purpose::STANDARD.encode(digest)
                )
            })
            .collect();
        let policy = format!(
            "default-src 'self'; script-src 'self'; style-src 'self' {}; img-src 'self' data:; \
             object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
            hashes.join(" ")
        );
        HeaderValue::from_str(&policy)
            .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"))
    })
}

/// On every answer: the page's policy, no framing, no type sniffing, and no referrer to
/// another site. `Referrer-Policy: same-origin`, not `no-referrer`: under `no-referrer` a
/// browser sends `Origin: null` with its own form posts, and the same-origin check
/// ([`guard::same_origin`]) could not tell them from a foreign site's.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        content_security_policy().clone(),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}

async fn css() -> Response {
    static_file("text/css; charset=utf-8", html::CSS)
}

async fn js() -> Response {
    static_file("text/javascript; charset=utf-8", html::JS)
}

async fn favicon() -> Response {
    static_file("image/svg+xml", html::FAVICON)
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
