//! Adding and removing one ACL, each through a confirmation page that shows exactly the
//! change; the change itself is a [`Change`] form (session, same origin, CSRF token).

use axum::extract::Query;
use axum::response::Response;
use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_client::{CreateAclsOptions, DeleteAclsOptions};
use maud::{html, Markup};
use serde::Deserialize;

use super::view::{binding_query, operations, permission_cell, resource_types};
use crate::connect::problem;
use crate::filter::encode_query;
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::pages::guard::{Change, LoggedIn};
use crate::session::Session;

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

pub(super) async fn add_form(LoggedIn(s): LoggedIn, Query(f): Query<AclFields>) -> Response {
    respond(200, add_page(&s, &f, None))
}

pub(super) async fn add_confirm(
    LoggedIn(session): LoggedIn,
    Query(f): Query<AclFields>,
) -> Response {
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

pub(super) async fn add(Change { session, form: f }: Change<AclFields>) -> Response {
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
        return html::problem_page(
            &problem(&e, &session.principal, Action::ChangeAcls),
            Some(&session),
        );
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

pub(super) async fn remove_confirm(
    LoggedIn(session): LoggedIn,
    Query(f): Query<AclFields>,
) -> Response {
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

pub(super) async fn remove(Change { session, form: f }: Change<AclFields>) -> Response {
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
                        return html::problem_page(
                            &problem(&e, &session.principal, Action::ChangeAcls),
                            Some(&session),
                        )
                    }
                }
            }
            deleted
        }
        Some(Err(e)) => {
            return html::problem_page(
                &problem(&e, &session.principal, Action::ChangeAcls),
                Some(&session),
            )
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
