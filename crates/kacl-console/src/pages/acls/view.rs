//! How the ACL search renders: the form, the rows of a page, the counts and the pager. Shared
//! by the page rendered whole (a cached result, [`super`]) and the page sent while the
//! answer arrives ([`super::stream`]).

use kacl_acl::{AclBinding, AclOperation, AclPermissionType, ResourceType};
use maud::{html, Markup};

use crate::filter::{encode_query, AclQuery, Sort};
use crate::html;
use crate::results::AclCache;

/// `(value, text)` options of an enum select, with an "any" entry first when `any`.
pub(crate) fn enum_options<T: Copy>(
    all: &[T],
    name: impl Fn(T) -> &'static str,
    skip: impl Fn(T) -> bool,
    any: Option<&'static str>,
) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = any.map(|a| ("", a)).into_iter().collect();
    out.extend(
        all.iter()
            .copied()
            .filter(|v| !skip(*v))
            .map(|v| (name(v), name(v))),
    );
    out
}

pub(crate) fn resource_types(any: Option<&'static str>) -> Vec<(&'static str, &'static str)> {
    enum_options(
        ResourceType::ALL,
        ResourceType::cli_name,
        |t| matches!(t, ResourceType::Unknown | ResourceType::Any),
        any,
    )
}

pub(crate) fn operations(any: Option<&'static str>) -> Vec<(&'static str, &'static str)> {
    enum_options(
        AclOperation::ALL,
        AclOperation::cli_name,
        |o| matches!(o, AclOperation::Unknown | AclOperation::Any),
        any,
    )
}
pub(crate) fn search_form(q: &AclQuery) -> Markup {
    let patterns = [
        ("", "any"),
        ("literal", "literal"),
        ("prefixed", "prefixed"),
        ("match", "match (every ACL that applies to the name)"),
    ];
    let permissions = [("", "any"), ("Allow", "Allow"), ("Deny", "Deny")];
    html! {
        form.search method="get" action="/acls" role="search" aria-label="ACL search" {
            div.field { (html::input("principal", "Principal", &q.principal, "User:alice")) }
            div.field { (html::select("resource_type", "Resource type", &resource_types(Some("any")), &q.resource_type)) }
            div.field { (html::input("name", "Resource name", &q.name, "orders")) }
            div.field { (html::select("pattern_type", "Pattern type", &patterns, &q.pattern_type)) }
            div.field { (html::select("operation", "Operation", &operations(Some("any")), &q.operation)) }
            div.field { (html::select("permission", "Permission", &permissions, &q.permission)) }
            div.field { (html::input("host", "Host", &q.host, "*")) }
            div.field {
                (html::select("sort", "Sort by", &Sort::ALL.map(|s| (s.name(), s.name())), q.sort().name()))
            }
            div.actions {
                button type="submit" { "Search" }
                a.button.secondary href="/acls" { "Clear" }
                a.button.secondary href="/acls/add" { "Add an ACL" }
            }
        }
    }
}

/// The remove link's query: the binding's exact fields.
pub(crate) fn binding_query(b: &AclBinding) -> String {
    encode_query(&[
        (
            "resource_type",
            b.pattern.resource_type.cli_name().to_owned(),
        ),
        ("name", b.pattern.name.clone()),
        ("pattern_type", b.pattern.pattern_type.cli_name().to_owned()),
        ("principal", b.entry.principal.clone()),
        ("host", b.entry.host.clone()),
        ("operation", b.entry.operation.cli_name().to_owned()),
        ("permission", b.entry.permission_type.cli_name().to_owned()),
    ])
}

pub(crate) fn permission_cell(p: AclPermissionType) -> Markup {
    html! {
        @match p {
            AclPermissionType::Allow => span.allow { "Allow" },
            AclPermissionType::Deny => span.deny { "Deny" },
            other => span { (other.cli_name()) },
        }
    }
}

/// The rows of a page; `grouped` (the resource order) puts each resource's heading first.
pub(crate) fn table(grouped: bool, rows: &[AclBinding]) -> Markup {
    html! {
        table {
            caption.muted { "ACLs on this page" }
            thead { tr {
                @if !grouped { th scope="col" { "Resource" } }
                th scope="col" { "Principal" } th scope="col" { "Host" }
                th scope="col" { "Operation" } th scope="col" { "Permission" }
                th scope="col" { span.muted { "Change" } }
            } }
            tbody {
                @for (i, b) in rows.iter().enumerate() {
                    @if grouped && (i == 0 || rows[i - 1].pattern != b.pattern) {
                        tr.group { th colspan="5" scope="rowgroup" {
                            (html::resource(&b.pattern))
                        } }
                    }
                    tr {
                        @if !grouped { td { (html::resource(&b.pattern)) } }
                        td { code { (b.entry.principal) } }
                        td { code { (b.entry.host) } }
                        td { (b.entry.operation.cli_name()) }
                        td { (permission_cell(b.entry.permission_type)) }
                        td { a href={ "/acls/remove?" (binding_query(b)) } aria-label={ "Remove " (b) } { "Remove…" } }
                    }
                }
            }
        }
    }
}
/// The counts of a result, its refresh and export links, and the pager above its rows.
pub(crate) fn counts_and_pager(q: &AclQuery, cache: &AclCache, page_no: usize) -> Markup {
    let c = &cache.counts;
    let sort = cache.sort;
    html! {
        p.counts aria-live="polite" {
            span { strong { (kacl_policy::thousands(c.acls)) } " ACLs" }
            span { strong { (kacl_policy::thousands(c.resources)) } " resources" }
            span { strong { (kacl_policy::thousands(c.principals)) } " principals" }
            span { span.allow { (kacl_policy::thousands(c.allow)) } " allow" }
            span { span.deny { (kacl_policy::thousands(c.deny)) } " deny" }
            span.muted { "fetched " (cache.fetched.elapsed().as_secs()) " s ago · "
                a href={ "/acls?" (q.link(page_no, sort)) "&refresh=1" } { "refresh" } }
            a href={ "/acls/export?" (q.link(0, sort)) } { "Export as desired-state file" }
        }
        (pager(q, page_no, cache.pages(), sort))
    }
}

pub(crate) fn pager(q: &AclQuery, page_no: usize, pages: usize, sort: Sort) -> Markup {
    html! {
        nav.pager aria-label="Pages" {
            @if page_no > 0 {
                a href={ "/acls?" (q.link(page_no - 1, sort)) } rel="prev" { "← Previous" }
            }
            span { "Page " (page_no + 1) " of " (kacl_policy::thousands(pages)) }
            @if page_no + 1 < pages {
                a href={ "/acls?" (q.link(page_no + 1, sort)) } rel="next" { "Next →" }
            }
        }
    }
}
