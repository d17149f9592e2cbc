//! The ACL page: search (paged, sortable, counted, grouped by resource as `kafka-acls.sh
//! --list` prints) and export of the result as a desired-state file here; the page sent
//! while a large answer arrives in [`stream`], the shared pieces of markup in [`view`], and
//! add/remove with their confirmation pages in [`change`].

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use kacl_acl::{AclBinding, ResourcePattern};
use kacl_client::DescribeAclsOptions;
use maud::html;

mod change;
mod stream;
pub(super) mod view;

pub(super) use stream::INLINE_STYLES;

use crate::connect::problem;
use crate::filter::{AclQuery, Sort};
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::pages::guard::{AppState, LoggedIn};
use crate::results::AclCache;
use crate::session::Session;
use crate::State;
use view::{counts_and_pager, pager, search_form, table};

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/acls", get(search))
        .route("/acls/export", get(export))
        .route("/acls/add", get(change::add_form).post(change::add))
        .route("/acls/add/confirm", get(change::add_confirm))
        .route(
            "/acls/remove",
            get(change::remove_confirm).post(change::remove),
        )
}

/// Where a search's time went, for the Server-Timing header: the DescribeAcls call (request
/// sent to the answer decoded; zero from the cache) and the console's own work after it.
#[derive(Debug, Default, Clone, Copy)]
struct Timing {
    describe: Option<std::time::Duration>,
}

/// Fetches (or reuses) the session's result for `query`. A fetch visits the answer as decoded
/// into the compact result ([`AclCache`]): no owned binding per ACL, counted on the way.
async fn result<'a>(
    state: &State,
    session: &'a Session,
    query: &AclQuery,
    timing: &mut Timing,
) -> Result<tokio::sync::MutexGuard<'a, Option<AclCache>>, Response> {
    let filter = query
        .filter()
        .map_err(|e| html::refused(400, "ACLs", &e, Some(session)))?;
    let mut cache = session.acls.lock().await;
    let fresh = query.refresh.is_empty() && cache.as_ref().is_some_and(|c| c.answers(&filter));
    if fresh {
        if let Some(c) = cache.as_mut() {
            c.resort(query.sort());
        }
    } else {
        // The old result goes first: its memory and its share of the budget are free again.
        *cache = None;
        let asked = std::time::Instant::now();
        let mut answered = None;
        let mut reader = AclCache::reader();
        session
            .admin
            .describe_acls_visit(filter.clone(), DescribeAclsOptions::default(), |group| {
                answered.get_or_insert_with(|| asked.elapsed());
                reader.visit(group);
            })
            .await
            .map_err(|e| {
                html::problem_page(
                    &problem(&e, &session.principal, Action::ReadAcls),
                    Some(session),
                )
            })?;
        timing.describe = Some(answered.unwrap_or_else(|| asked.elapsed()));
        let mut fresh = AclCache::new(filter, query.sort(), reader);
        fresh.ticket = Some(state.sessions.admit(fresh.counts.acls, session));
        *cache = Some(fresh);
    }
    Ok(cache)
}

async fn search(
    Extract(state): AppState,
    LoggedIn(session): LoggedIn,
    Query(q): Query<AclQuery>,
) -> Response {
    let started = std::time::Instant::now();
    // A result to fetch is sent while it arrives; a cached one is rendered whole.
    if let Ok(filter) = q.filter() {
        let cached = q.refresh.is_empty()
            && session
                .acls
                .lock()
                .await
                .as_ref()
                .is_some_and(|c| c.answers(&filter));
        if !cached {
            return stream::fetch_and_stream(state, session, q, filter).await;
        }
    }
    let mut timing = Timing::default();
    let cache = match result(&state, &session, &q, &mut timing).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Some(cache) = cache.as_ref() else {
        return html::refused(500, "ACLs", "no result", Some(&session));
    };
    let (page_no, rows) = cache.page(q.page);
    let rows = rows.as_slice();
    let body = html! {
        (search_form(&q))
        (counts_and_pager(&q, cache, page_no))
        @if rows.is_empty() {
            p { "No ACL matches this search." }
        } @else {
            (table(cache.sort == Sort::Resource, rows))
        }
        (pager(&q, page_no, cache.pages(), cache.sort))
    };
    let mut response = respond(200, page("ACLs", Some(&session), "/acls", body));
    // The server's time for the page, as the browser's devtools and the benchmark in
    // BENCHMARKS.md read it: `app` from the request to the rendered page, of which `describe`
    // waited for the cluster's DescribeAcls answer (absent when served from the cache) and
    // `console` is the console's own work after it.
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let total = started.elapsed();
    let timing = match timing.describe {
        Some(d) => format!(
            "describe;dur={:.1}, console;dur={:.1}, app;dur={:.1}",
            ms(d),
            ms(total.saturating_sub(d)),
            ms(total)
        ),
        None => format!("console;dur={:.1}, app;dur={:.1}", ms(total), ms(total)),
    };
    if let Ok(value) = header::HeaderValue::from_str(&timing) {
        response.headers_mut().insert("server-timing", value);
    }
    response
}

async fn export(
    Extract(state): AppState,
    LoggedIn(session): LoggedIn,
    Query(q): Query<AclQuery>,
) -> Response {
    let cache = match result(&state, &session, &q, &mut Timing::default()).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let acls = cache.as_ref().map(AclCache::bindings).unwrap_or_default();
    let text = export_text(&acls);
    (
        [
            (header::CONTENT_TYPE, "application/yaml; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"acls.yaml\"",
            ),
        ],
        text,
    )
        .into_response()
}

/// The desired-state file of a result. Its scope is the result's principals and resource
/// patterns, so `apply` of it touches nothing else — but note: it owns every ACL of those
/// principals on those patterns, including any the search's operation/host/permission
/// fields left out.
pub(crate) fn export_text(acls: &[AclBinding]) -> String {
    use std::collections::BTreeSet;
    let principals: BTreeSet<&str> = acls.iter().map(|b| b.entry.principal.as_str()).collect();
    let patterns: BTreeSet<&ResourcePattern> = acls.iter().map(|b| &b.pattern).collect();
    let scope = kacl_policy::Scope::new(
        principals.into_iter().map(str::to_owned).collect(),
        patterns.into_iter().cloned().collect(),
    );
    let doc = kacl_policy::Document::import(scope, acls);
    format!(
        "# Exported by kacl console: {} ACLs. The scope owns these principals on these resource\n\
         # patterns; `kacl acls apply` of this file removes any other ACL they hold there.\n{}",
        acls.len(),
        doc.to_yaml()
    )
}
