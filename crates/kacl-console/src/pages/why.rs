//! Explain (allowed or denied, the deciding rule, candidates, near misses, the grant that
//! would fix it), who-can and effective permissions: kacl-policy over ACLs fetched as the
//! logged-in user (read by [`kacl_policy::cluster`], as the CLI reads them), with the
//! broker's `super.users` and `allow.everyone.if.no.acl.found`.

use std::sync::Arc;

use axum::extract::{Query, State as Extract};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use kacl_acl::{AclOperation, AuthorizationResult, AuthorizerConfig, DecidingRule, ResourceType};
use kacl_client::AdminError;
use kacl_policy::cluster;
use maud::{html, Markup};
use serde::Deserialize;

use super::acls::view::{operations, resource_types};
use super::guard::{AppState, LoggedIn};
use crate::connect::problem;
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::session::Session;
use crate::State;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/explain", get(explain))
        .route("/who-can", get(who_can))
        .route("/effective", get(effective))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WhyForm {
    principal: String,
    operation: String,
    resource_type: String,
    name: String,
    host: String,
}

impl WhyForm {
    fn asked(&self) -> bool {
        !self.operation.is_empty() || !self.name.is_empty() || !self.principal.is_empty()
    }

    fn resource(&self) -> Result<(AclOperation, ResourceType, String), String> {
        let operation: AclOperation = self
            .operation
            .trim()
            .parse()
            .map_err(|e: kacl_acl::ParseEnumError| e.to_string())?;
        let resource_type: ResourceType = self
            .resource_type
            .trim()
            .parse()
            .map_err(|e: kacl_acl::ParseEnumError| e.to_string())?;
        if matches!(operation, AclOperation::Any | AclOperation::Unknown) {
            return Err("choose an operation".into());
        }
        let name = match (resource_type, self.name.trim()) {
            (ResourceType::Cluster, "") => kacl_acl::CLUSTER_NAME.to_owned(),
            (_, "") => return Err("give a resource name".into()),
            (_, n) => n.to_owned(),
        };
        Ok((operation, resource_type, name))
    }
}

/// The authorizer settings an answer uses: the broker's (`broker`), else Kafka's defaults
/// with a note saying so.
fn authorizer_config(broker: Option<AuthorizerConfig>) -> (AuthorizerConfig, &'static str) {
    match broker {
        Some(config) => (
            config,
            "super.users and allow.everyone.if.no.acl.found: from the broker (DescribeConfigs)",
        ),
        None => (
            AuthorizerConfig::default(),
            "super.users and allow.everyone.if.no.acl.found: the broker did not report them; \
             Kafka's defaults (none, false) are assumed",
        ),
    }
}

fn form(
    action: &str,
    f: &WhyForm,
    with_principal: bool,
    with_resource: bool,
    button: &str,
) -> Markup {
    html! {
        form.search method="get" action=(action) {
            @if with_principal {
                div.field { (html::input("principal", "Principal", &f.principal, "User:alice")) }
                div.field { (html::input("host", "Host", &f.host, "*")) }
            }
            @if with_resource {
                div.field { (html::select("operation", "Operation", &operations(None), &f.operation)) }
                div.field { (html::select("resource_type", "Resource type", &resource_types(None), &f.resource_type)) }
                div.field { (html::input("name", "Resource name", &f.name, "orders")) }
            }
            div.actions { button type="submit" { (button) } }
        }
    }
}

fn tabs(current: &str) -> Markup {
    html! {
        nav.pager aria-label="Questions" {
            @for (path, label) in [("/explain", "Explain a decision"), ("/who-can", "Who can…"), ("/effective", "Effective permissions")] {
                @if path == current { strong { (label) } } @else { a href=(path) { (label) } }
            }
        }
    }
}

async fn explain(
    Extract(state): AppState,
    LoggedIn(session): LoggedIn,
    Query(f): Query<WhyForm>,
) -> Response {
    let mut body = html! { (tabs("/explain")) (form("/explain", &f, true, true, "Explain")) };
    if f.asked() {
        match explain_answer(&state, &session, &f).await {
            Ok(answer) => body = html! { (body) (answer) },
            Err(r) => return r,
        }
    }
    respond(200, page("Explain", Some(&session), "/explain", body))
}

async fn explain_answer(state: &State, session: &Session, f: &WhyForm) -> Result<Markup, Response> {
    let bad = |e: String| html::refused(400, "Explain", &e, Some(session));
    let (operation, resource_type, name) = f.resource().map_err(bad)?;
    let principal: kacl_acl::KafkaPrincipal = f
        .principal
        .trim()
        .parse()
        .map_err(|e| bad(format!("principal: {e}")))?;
    let host = match f.host.trim() {
        "" => "*",
        h => h,
    };
    let query = kacl_policy::Query {
        principal: principal.to_string(),
        host: host.to_owned(),
        operation,
        resource_type,
        name,
    };
    let fail = |e: AdminError| {
        html::problem_page(
            &problem(&e, &session.principal, Action::ReadAcls),
            Some(session),
        )
    };
    // Read borrowed into the authorizer's index; only the principal's (and near namesakes')
    // candidates are listed, the others counted (a LITERAL `*` may carry thousands).
    let inputs = cluster::explain_inputs(&session.admin, &query, kacl_policy::Listing::Relevant)
        .await
        .map_err(fail)?;
    let (config, source) = authorizer_config(inputs.broker_config);
    let report =
        kacl_policy::explain_candidates(&config, inputs.candidates, &inputs.related, &query);
    let e = &report.explanation;
    let allowed = e.result == AuthorizationResult::Allowed;
    let _ = state;
    Ok(html! {
        h2 { "Answer" }
        p { span.verdict.(if allowed { "allow" } else { "deny" }) role="status" { (if allowed { "ALLOWED" } else { "DENIED" }) }
            " " code { (query.principal) } " " (operation.cli_name()) " on " code { (resource_type.cli_name()) ":" (query.name) } " from " code { (host) } }
        p { strong { "Why: " } (kacl_policy::decision_reason(&e.rule, &query.principal, operation)) "." }
        p.muted { (source) "." }
        @if let DecidingRule::MatchingAcl { acl, .. } = &e.rule {
            p { "Deciding ACL: " code { (acl) } }
        }
        h2 { "Candidate ACLs (" (report.candidates.len() + report.unlisted) ")" }
        @if report.candidates.is_empty() && report.unlisted == 0 { p { "No ACL applies to this resource." } }
        @else {
            table { thead { tr { th scope="col" { "ACL" } th scope="col" { "Applies?" } } } tbody {
                @for c in &report.candidates {
                    tr { td { code { (c.acl) } } td {
                        @if c.mismatches.is_empty() { (if c.implied { "applies (implied)" } else { "applies" }) }
                        @else { "does not apply: " (c.mismatches.join("; ")) }
                    } }
                }
            } }
        }
        @if report.unlisted > 0 {
            p.muted { "and " (report.unlisted) " ACL(s) of other principals, not listed (who-can lists those that grant)." }
        }
        @if !report.near_misses.is_empty() {
            h2 { "Near misses" }
            ul { @for n in &report.near_misses { li { code { (n.acl) } ": " (n.reason) } } }
        }
        @if let Some(grant) = &report.grant {
            h2 { "To grant it" }
            pre { "kacl acls --bootstrap-server " (state.config.bootstrap) " " (grant) }
        }
    })
}

async fn who_can(LoggedIn(session): LoggedIn, Query(f): Query<WhyForm>) -> Response {
    let mut body = html! { (tabs("/who-can")) (form("/who-can", &f, false, true, "Who can?")) };
    if f.asked() {
        let (operation, resource_type, name) = match f.resource() {
            Ok(r) => r,
            Err(e) => return html::refused(400, "Who can", &e, Some(&session)),
        };
        let (broker, candidates) =
            match cluster::who_can_inputs(&session.admin, resource_type, &name).await {
                Ok(read) => read,
                Err(e) => {
                    return html::problem_page(
                        &problem(&e, &session.principal, Action::ReadAcls),
                        Some(&session),
                    )
                }
            };
        let (config, source) = authorizer_config(broker);
        let who = kacl_policy::who_can(&config, &candidates, operation, resource_type, &name);
        body = html! {
            (body)
            h2 { "Who can " (operation.cli_name()) " on " code { (resource_type.cli_name()) ":" (name) } }
            p.muted { (source) "." }
            h2 { "Allowed" }
            @if who.everyone_by_default { p { "Everyone: no ACL applies and allow.everyone.if.no.acl.found is true." } }
            @if who.allowed.is_empty() && !who.everyone_by_default { p { "Nobody through ACLs." } }
            ul { @for g in &who.allowed { li { code { (g.principal) } " from " code { (g.host) }
                ul { @for acl in &g.acls { li { "via " code { (acl) } } } } } } }
            @if !who.denied.is_empty() {
                h2 { "Granted but denied (a DENY carves the exception)" }
                ul { @for g in &who.denied { li { code { (g.principal) } " from " code { (g.host) }
                    ul { @for acl in &g.acls { li { "by " code { (acl) } } } } } } }
            }
            @if !who.super_users.is_empty() {
                p { "Super users (allowed everything): " @for s in &who.super_users { code { (s) } " " } }
            }
        };
    }
    respond(200, page("Who can", Some(&session), "/who-can", body))
}

async fn effective(LoggedIn(session): LoggedIn, Query(f): Query<WhyForm>) -> Response {
    let mut body =
        html! { (tabs("/effective")) (form("/effective", &f, true, false, "Show permissions")) };
    if !f.principal.trim().is_empty() {
        let principal: kacl_acl::KafkaPrincipal = match f.principal.trim().parse() {
            Ok(p) => p,
            Err(e) => {
                return html::refused(
                    400,
                    "Effective permissions",
                    &format!("principal: {e}"),
                    Some(&session),
                )
            }
        };
        let principal = principal.to_string();
        let all = match cluster::effective_inputs(&session.admin, &principal, None).await {
            Ok(all) => all,
            Err(e) => {
                return html::problem_page(
                    &problem(&e, &session.principal, Action::ReadAcls),
                    Some(&session),
                )
            }
        };
        let host = Some(f.host.trim()).filter(|h| !h.is_empty());
        let effective = kacl_policy::effective(&all, &principal, host, None);
        body = html! {
            (body)
            h2 { "What " code { (principal) } " may do" }
            @if effective.is_empty() { p { "No ACL names this principal (or User:*)." } }
            @else {
                table { thead { tr { th scope="col" { "Resource pattern" } th scope="col" { "Allowed" } th scope="col" { "Denied" } } } tbody {
                    @for e in &effective { tr { td { code { (e.pattern) } } td.allow { (e.allowed.join(", ")) } td.deny { (e.denied.join(", ")) } } }
                } }
            }
        };
    }
    respond(
        200,
        page("Effective permissions", Some(&session), "/who-can", body),
    )
}
