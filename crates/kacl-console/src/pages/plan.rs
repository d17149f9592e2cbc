//! Plan / apply: paste (or, with JavaScript, load) a desired-state file, see the plan, and
//! apply it with the CLI's guards, through the same code ([`kacl_policy::cluster`]): the plan
//! applied is the one shown (the in-scope ACLs' fingerprint must not have changed since, and
//! is checked again right before sending), at most `max removals` removals, an explicit
//! "yes", additions before removals, batches of at most 10,000, and the scope read back
//! afterwards.

use std::path::Path;
use std::sync::Arc;

use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use kacl_acl::{
    AccessControlEntryFilter, AclBindingFilter, PatternType, ResourcePatternFilter, ResourceType,
};
use kacl_client::{AdminError, DeleteAclsOptions, DescribeAclsOptions};
use kacl_policy::cluster::{self, ApplyError, Quiet, MAX_BATCH};
use kacl_policy::{thousands, Document, Format, Plan};
use maud::{html, Markup};
use serde::Deserialize;

use super::guard::{Change, LoggedIn};
use crate::connect::problem;
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::session::Session;
use crate::State;

/// The CLI's `--max-removals` default.
const MAX_REMOVALS: usize = 100;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/plan", get(form).post(plan))
        .route("/apply", post(apply))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PlanForm {
    document: String,
    fingerprint: String,
    max_removals: String,
    confirm: String,
}

fn editor(session: &Session, text: &str, error: Option<&str>) -> Markup {
    html! {
        @if let Some(e) = error { div.error role="alert" { p { (e) } } }
        form method="post" action="/plan" {
            (html::csrf(session))
            p { label for="document" { "Desired-state file (YAML or JSON), as " code { "kacl acls plan --file" } " reads it" } }
            textarea id="document" name="document" spellcheck="false" { (text) }
            p { input type="file" id="plan-file" accept=".yaml,.yml,.json" hidden aria-label="Load a file into the text area"; }
            button type="submit" { "Plan" } " " span.muted { "Planning changes nothing." }
        }
    }
}

async fn form(LoggedIn(s): LoggedIn) -> Response {
    respond(
        200,
        page("Plan / apply", Some(&s), "/plan", editor(&s, "", None)),
    )
}

fn parse_now(text: &str) -> Result<Document, String> {
    let format = if text.trim_start().starts_with('{') {
        Format::Json
    } else {
        Format::Yaml
    };
    Document::parse(Path::new("pasted"), text, format).map_err(|e| e.to_string())
}

/// Pastes parsed or planned at once, console-wide: each is bounded by kacl-policy's limits
/// (size, nesting, alias expansion, ACL count), and at most this many run together, so a
/// burst of pastes cannot grow the process by more than a few times one.
const PARSES_AT_ONCE: usize = 2;

fn parse_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(PARSES_AT_ONCE);
    &SLOTS
}

/// Runs `work` (parsing or planning a paste: CPU, up to seconds for a large file) on a
/// blocking thread, one of [`PARSES_AT_ONCE`], so that it never holds up the async runtime
/// and with it every other visitor's page.
async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let _slot = parse_slots()
        .acquire()
        .await
        .map_err(|_| "the console is stopping".to_owned())?;
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err("reading the file failed".to_owned()))
}

/// The pasted file, parsed off the runtime.
async fn parse(text: &str) -> Result<Document, String> {
    let text = text.to_owned();
    off_runtime(move || parse_now(&text)).await
}

/// The ACLs of one literal resource name no cluster uses: what the permission probes ask
/// for, so that they read and delete nothing.
fn probe_filter() -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::new(
            ResourceType::Topic,
            Some("kacl-console-permission-probe"),
            PatternType::Literal,
        ),
        AccessControlEntryFilter::ANY,
    )
}

/// Refuses, before a paste is read at all, a user who may not read ACLs: a plan reads the
/// scope's ACLs (Describe on the cluster), so a user without it learns so at once and the
/// console spends nothing on the paste.
async fn may_read_acls(session: &Session) -> Result<(), Response> {
    let refused = |e: AdminError| {
        html::problem_page(
            &problem(&e, &session.principal, Action::ReadAcls),
            Some(session),
        )
    };
    session
        .admin
        .describe_acls(probe_filter(), DescribeAclsOptions::default())
        .await
        .map(drop)
        .map_err(refused)
}

/// Refuses, before a paste is read, a user who may not change ACLs (Alter on the cluster):
/// a DeleteAcls of [`probe_filter`] is authorized as any other and deletes nothing.
async fn may_change_acls(session: &Session) -> Result<(), Response> {
    let answer = session
        .admin
        .delete_acls(vec![probe_filter()], DeleteAclsOptions::default())
        .await
        .into_iter()
        .next();
    match answer {
        Some(Err(e)) => Err(html::problem_page(
            &problem(&e, &session.principal, Action::ChangeAcls),
            Some(session),
        )),
        _ => Ok(()),
    }
}

/// The plan of `doc` against the cluster as the session's user sees it now: the scope's ACLs
/// read (kacl_policy::cluster, as the CLI reads them), the diff computed off the runtime.
async fn current_plan(session: &Session, doc: Document) -> Result<Plan, Response> {
    let (in_scope, outside) = cluster::acls_in_scope(&session.admin, &doc.scope)
        .await
        .map_err(|e| {
            html::problem_page(
                &problem(&e, &session.principal, Action::ReadAcls),
                Some(session),
            )
        })?;
    off_runtime(move || Ok(Plan::from_in_scope(&doc, in_scope, outside)))
        .await
        .map_err(|e| html::refused(500, "Plan", &e, Some(session)))
}

fn plan_view(plan: &Plan) -> Markup {
    let by_resource = plan.changes_by_resource();
    html! {
        p role="status" { strong { (plan.summary()) } }
        @if plan.is_empty() { p { "No changes: the cluster matches the file within its scope." } }
        @for (resource, entries) in &by_resource {
            h2 { (html::resource(resource)) }
            ul { @for (sign, entry) in entries {
                @if *sign == '+' { li.change-add { "+ add " code { (entry) } } }
                @else { li.change-remove { "− remove " code { (entry) } } }
            } }
        }
    }
}

async fn plan(Change { session, form: f }: Change<PlanForm>) -> Response {
    if let Err(refused) = may_read_acls(&session).await {
        return refused;
    }
    let doc = match parse(&f.document).await {
        Ok(d) => d,
        Err(e) => {
            return respond(
                400,
                page(
                    "Plan / apply",
                    Some(&session),
                    "/plan",
                    editor(&session, &f.document, Some(&e)),
                ),
            )
        }
    };
    let plan = match current_plan(&session, doc).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let body = html! {
        (plan_view(&plan))
        @if !plan.is_empty() {
            h2 { "Apply" }
            form.box method="post" action="/apply" {
                (html::csrf(&session))
                input type="hidden" name="document" value=(f.document);
                input type="hidden" name="fingerprint" value=(plan.fingerprint);
                div.field { (html::input("max_removals", "Refuse more removals than", &MAX_REMOVALS.to_string(), "100")) }
                div.field { (html::input("confirm", "Type yes to apply exactly this plan", "", "yes")) }
                div.actions { button type="submit" { "Apply" } }
            }
        }
        h2 { "Edit" }
        (editor(&session, &f.document, None))
    };
    respond(200, page("Plan", Some(&session), "/plan", body))
}

async fn apply(Change { session, form: f }: Change<PlanForm>) -> Response {
    let refuse = |msg: &str| html::refused(409, "Apply refused", msg, Some(&session));
    const DRIFTED: &str = "The cluster's ACLs changed within the plan's scope since the plan \
                           was made; plan again. Nothing was changed.";
    if f.confirm.trim() != "yes" {
        return refuse(
            "Apply cancelled: only 'yes' is accepted as confirmation. Nothing was changed.",
        );
    }
    let Ok(max_removals) = f.max_removals.trim().parse::<usize>() else {
        return refuse("The removal limit must be a number.");
    };
    if let Err(refused) = may_read_acls(&session).await {
        return refused;
    }
    if let Err(refused) = may_change_acls(&session).await {
        return refused;
    }
    let doc = match parse(&f.document).await {
        Ok(d) => d,
        Err(e) => return refuse(&e),
    };
    let plan = match current_plan(&session, doc).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    if plan.fingerprint != f.fingerprint {
        return refuse(DRIFTED);
    }
    if plan.removals.len() > max_removals {
        return refuse(&format!(
            "The plan removes {} ACLs, more than the limit {max_removals}; check the plan, then raise the limit to apply it. Nothing was changed.",
            thousands(plan.removals.len())
        ));
    }
    let applied = cluster::apply(&session.admin, &plan, MAX_BATCH, &mut Quiet).await;
    session.forget_acls().await;
    let mut applied = match applied {
        Ok(applied) => applied,
        Err(ApplyError::Drifted) => return refuse(DRIFTED),
        Err(ApplyError::Admin(e)) => {
            return html::problem_page(
                &problem(&e, &session.principal, Action::ChangeAcls),
                Some(&session),
            )
        }
        Err(e) => return refuse(&e.to_string()),
    };
    if applied.raced {
        applied.errors.push(
            "the scope changed while the plan was applied (another apply?): the cluster matches \
             neither; plan again"
                .to_owned(),
        );
    }
    let (added, removed, errors) = (applied.added, applied.removed, applied.errors);
    let status = if errors.is_empty() { 200 } else { 207 };
    respond(
        status,
        page(
            "Apply complete",
            Some(&session),
            "/plan",
            html! {
                (html::notice(&format!("Apply complete: {} added, {} removed{}.", thousands(added), thousands(removed),
                    if errors.is_empty() { String::new() } else { format!(", {} failed", thousands(errors.len())) })))
                @if !errors.is_empty() { div.error role="alert" { ul { @for e in &errors { li { code { (e) } } } } } }
                p { a href="/acls" { "See the ACLs" } }
            },
        ),
    )
}
