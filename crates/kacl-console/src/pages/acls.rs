//! ACL search (paged, sortable, counted, grouped by resource as `kafka-acls.sh --list`
//! prints), export of the result as a desired-state file, and add/remove with a
//! confirmation page that shows exactly the change.

use std::sync::Arc;

use axum::extract::{Form, Query, State as Extract};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_client::{CreateAclsOptions, DeleteAclsOptions, DescribeAclsOptions};
use maud::{html, Markup};
use serde::Deserialize;

use super::acls_view::{
    binding_query, counts_and_pager, operations, pager, permission_cell, resource_types,
    search_form, table,
};
use super::{change_session, AppState, LoggedIn};
use crate::connect::problem;
use crate::filter::{encode_query, AclQuery, Sort};
use crate::html::{self, page, respond};
use crate::results::AclCache;
use crate::session::Session;
use crate::State;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/acls", get(search))
        .route("/acls/export", get(export))
        .route("/acls/add", get(add_form).post(add))
        .route("/acls/add/confirm", get(add_confirm))
        .route("/acls/remove", get(remove_confirm).post(remove))
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
            .map_err(|e| html::problem_page(&problem(&e, &session.principal), Some(session)))?;
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
            return super::acls_stream::fetch_and_stream(state, session, q, filter).await;
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

/// The fields of one ACL, as the add form and the remove link carry them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct AclFields {
    resource_type: String,
    name: String,
    pattern_type: String,
    principal: String,
    host: String,
    operation: String,
    permission: String,
    csrf: Option<String>,
}

impl AclFields {
    /// The binding, checked as Kafka checks a new ACL and as `kafka-acls.sh` checks the
    /// operation against the resource type.
    fn binding(&self) -> Result<AclBinding, String> {
        let parse_err = |e: kacl_acl::ParseEnumError| e.to_string();
        let resource_type: ResourceType = self.resource_type.trim().parse().map_err(parse_err)?;
        let pattern_type: PatternType = match self.pattern_type.trim() {
            "" => PatternType::Literal,
            p => p.parse().map_err(parse_err)?,
        };
        let operation: AclOperation = self.operation.trim().parse().map_err(parse_err)?;
        let permission: AclPermissionType = self.permission.trim().parse().map_err(parse_err)?;
        let host = match self.host.trim() {
            "" => "*",
            h => h,
        };
        let name = if resource_type == ResourceType::Cluster && self.name.trim().is_empty() {
            kacl_acl::CLUSTER_NAME
        } else {
            self.name.trim()
        };
        let binding = AclBinding::new(
            ResourcePattern::new(resource_type, name, pattern_type),
            AccessControlEntry::new(self.principal.trim(), host, operation, permission),
        );
        kacl_acl::validate_new_acl(&binding).map_err(|e| e.to_string())?;
        let supported = kacl_policy::supported_operations(resource_type);
        if operation != AclOperation::All && !supported.contains(&operation) {
            let mut names: Vec<AclOperation> = supported.to_vec();
            names.push(AclOperation::All);
            names.sort();
            let names: Vec<&str> = names.iter().map(|op| op.kafka_name()).collect();
            return Err(format!(
                "ResourceType {resource_type} only supports operations [{}]",
                names.join(", ")
            ));
        }
        Ok(binding)
    }
}

fn hidden_fields(b: &AclBinding) -> Markup {
    html! {
        input type="hidden" name="resource_type" value=(b.pattern.resource_type.cli_name());
        input type="hidden" name="name" value=(b.pattern.name);
        input type="hidden" name="pattern_type" value=(b.pattern.pattern_type.cli_name());
        input type="hidden" name="principal" value=(b.entry.principal);
        input type="hidden" name="host" value=(b.entry.host);
        input type="hidden" name="operation" value=(b.entry.operation.cli_name());
        input type="hidden" name="permission" value=(b.entry.permission_type.cli_name());
    }
}

fn binding_table(b: &AclBinding, class: &str) -> Markup {
    html! {
        table.(class) {
            tbody {
                tr { th scope="row" { "Resource" } td { code { (b.pattern) } } }
                tr { th scope="row" { "Principal" } td { code { (b.entry.principal) } } }
                tr { th scope="row" { "Host" } td { code { (b.entry.host) } } }
                tr { th scope="row" { "Operation" } td { (b.entry.operation.cli_name()) } }
                tr { th scope="row" { "Permission" } td { (permission_cell(b.entry.permission_type)) } }
            }
        }
    }
}

fn add_page(session: &Session, f: &AclFields, error: Option<&str>) -> Markup {
    let patterns = [("literal", "literal"), ("prefixed", "prefixed")];
    let permissions = [("Allow", "Allow"), ("Deny", "Deny")];
    page(
        "Add an ACL",
        Some(session),
        "/acls",
        html! {
            @if let Some(e) = error { div.error role="alert" { p { (e) } } }
            form.box method="get" action="/acls/add/confirm" {
                div.field { (html::input("principal", "Principal", &f.principal, "User:alice")) }
                div.field { (html::select("resource_type", "Resource type", &resource_types(None), &f.resource_type)) }
                div.field { (html::input("name", "Resource name", &f.name, "orders")) }
                div.field { (html::select("pattern_type", "Pattern type", &patterns, &f.pattern_type)) }
                div.field { (html::select("operation", "Operation", &operations(None), &f.operation)) }
                div.field { (html::select("permission", "Permission", &permissions, &f.permission)) }
                div.field { (html::input("host", "Host", &f.host, "*")) }
                div.actions { button type="submit" { "Review…" } span.muted { "Nothing changes until you confirm." } }
            }
        },
    )
}

async fn add_form(LoggedIn(s): LoggedIn, Query(f): Query<AclFields>) -> Response {
    respond(200, add_page(&s, &f, None))
}

async fn add_confirm(LoggedIn(session): LoggedIn, Query(f): Query<AclFields>) -> Response {
    let binding = match f.binding() {
        Ok(b) => b,
        Err(e) => return respond(400, add_page(&session, &f, Some(&e))),
    };
    respond(
        200,
        page(
            "Confirm: add this ACL",
            Some(&session),
            "/acls",
            html! {
                p { "This creates exactly one ACL:" }
                (binding_table(&binding, "change-add"))
                p.muted { "kafka-acls.sh equivalent: " code { "--add " (acl_args(&binding)) } }
                form method="post" action="/acls/add" {
                    (hidden_fields(&binding)) (html::csrf(&session))
                    button type="submit" { "Create ACL" } " "
                    a.button.secondary href={ "/acls/add?" (binding_query(&binding)) } { "Back" }
                }
            },
        ),
    )
}

/// `--allow-principal P --operation O --topic T ...` for display.
fn acl_args(b: &AclBinding) -> String {
    let who = match b.entry.permission_type {
        AclPermissionType::Deny => "--deny-principal",
        _ => "--allow-principal",
    };
    let resource = match b.pattern.resource_type {
        ResourceType::Cluster => "--cluster".to_owned(),
        t => format!("--{} {}", kebab(t.cli_name()), b.pattern.name),
    };
    format!(
        "{who} {} --host {} --operation {} {resource} --resource-pattern-type {}",
        b.entry.principal,
        b.entry.host,
        b.entry.operation.cli_name(),
        b.pattern.pattern_type.cli_name()
    )
}

fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

async fn add(Extract(state): AppState, headers: HeaderMap, Form(f): Form<AclFields>) -> Response {
    let session = match change_session(&state, &headers, f.csrf.as_deref()) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let binding = match f.binding() {
        Ok(b) => b,
        Err(e) => return respond(400, add_page(&session, &f, Some(&e))),
    };
    let result = session
        .admin
        .create_acls(vec![binding.clone()], CreateAclsOptions::default())
        .await
        .into_iter()
        .next()
        .unwrap_or(Ok(()));
    session.forget_acls().await;
    if let Err(e) = result {
        return html::problem_page(&problem(&e, &session.principal), Some(&session));
    }
    let search = encode_query(&[
        ("principal", binding.entry.principal.clone()),
        (
            "resource_type",
            binding.pattern.resource_type.cli_name().to_owned(),
        ),
        ("name", binding.pattern.name.clone()),
    ]);
    respond(
        200,
        page(
            "ACL created",
            Some(&session),
            "/acls",
            html! {
                (html::notice("Created:"))
                (binding_table(&binding, "change-add"))
                p { a href={ "/acls?" (search) } { "See it in the ACL list" } }
            },
        ),
    )
}

async fn remove_confirm(LoggedIn(session): LoggedIn, Query(f): Query<AclFields>) -> Response {
    let binding = match f.binding() {
        Ok(b) => b,
        Err(e) => return html::refused(400, "Remove an ACL", &e, Some(&session)),
    };
    respond(
        200,
        page(
            "Confirm: remove this ACL",
            Some(&session),
            "/acls",
            html! {
                p { "This deletes exactly this one ACL (an exact filter: nothing else matches it):" }
                (binding_table(&binding, "change-remove"))
                p.muted { "kafka-acls.sh equivalent: " code { "--remove " (acl_args(&binding)) } }
                form method="post" action="/acls/remove" {
                    (hidden_fields(&binding)) (html::csrf(&session))
                    button.danger type="submit" { "Remove ACL" } " "
                    a.button.secondary href="/acls" { "Cancel" }
                }
            },
        ),
    )
}

async fn remove(
    Extract(state): AppState,
    headers: HeaderMap,
    Form(f): Form<AclFields>,
) -> Response {
    let session = match change_session(&state, &headers, f.csrf.as_deref()) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let binding = match f.binding() {
        Ok(b) => b,
        Err(e) => return html::refused(400, "Remove an ACL", &e, Some(&session)),
    };
    let outcome = session
        .admin
        .delete_acls(vec![binding.to_filter()], DeleteAclsOptions::default())
        .await
        .into_iter()
        .next();
    session.forget_acls().await;
    let deleted: Vec<AclBinding> = match outcome {
        Some(Ok(results)) => {
            let mut deleted = Vec::new();
            for r in results {
                match r {
                    Ok(b) => deleted.push(b),
                    Err(e) => {
                        return html::problem_page(&problem(&e, &session.principal), Some(&session))
                    }
                }
            }
            deleted
        }
        Some(Err(e)) => {
            return html::problem_page(&problem(&e, &session.principal), Some(&session))
        }
        None => Vec::new(),
    };
    respond(
        200,
        page(
            "ACL removed",
            Some(&session),
            "/acls",
            html! {
                @if deleted.is_empty() {
                    (html::notice("Nothing was removed: the ACL no longer existed."))
                } @else {
                    (html::notice(&format!("Removed {} ACL:", deleted.len())))
                    @for b in &deleted { (binding_table(b, "change-remove")) }
                }
                p { a href="/acls" { "Back to the ACL list" } }
            },
        ),
    )
}
