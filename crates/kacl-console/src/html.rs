//! The page frame (navigation, who is logged in, the logout button), the style sheet and
//! the error page. Everything interpolated goes through maud, which escapes it.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use crate::connect::Problem;
use crate::session::Session;

/// The style sheet: system fonts, high contrast (text #1a1a1a on white, links #0b4fa8:
/// both above WCAG AA's 4.5:1), a visible focus ring for keyboard users.
pub(crate) const CSS: &str = include_str!("console.css");
/// The console's icon (a white K), so that no page's icon request fails.
pub(crate) const FAVICON: &str = include_str!("favicon.svg");

/// Progressive enhancement only: the pages work without it.
pub(crate) const JS: &str = include_str!("console.js");

/// The navigation entries: path and label.
const NAV: [(&str, &str); 6] = [
    ("/acls", "ACLs"),
    ("/explain", "Explain"),
    ("/topics", "Topics"),
    ("/cluster", "Cluster"),
    ("/plan", "Plan / apply"),
    ("/who-can", "Who can"),
];

/// A whole page. `current` is the navigation entry to mark.
pub(crate) fn page(title: &str, session: Option<&Session>, current: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · kacl console" }
                link rel="icon" type="image/svg+xml" href="/static/favicon.svg";
                link rel="stylesheet" href="/static/console.css";
                script src="/static/console.js" defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header.top {
                    span.brand { "kacl console" }
                    @if let Some(s) = session {
                        nav aria-label="Main" {
                            ul {
                                @for (path, label) in NAV {
                                    li {
                                        @if path == current {
                                            a href=(path) aria-current="page" { (label) }
                                        } @else {
                                            a href=(path) { (label) }
                                        }
                                    }
                                }
                            }
                        }
                        form.logout method="post" action="/logout" {
                            span.who { "Logged in as " strong { (s.principal) } }
                            input type="hidden" name="csrf" value=(s.csrf);
                            button type="submit" { "Log out" }
                        }
                    }
                }
                main id="main" tabindex="-1" {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// An HTML response with a status.
pub(crate) fn respond(status: u16, markup: Markup) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        visible_controls(markup.into_string()),
    )
        .into_response()
}

/// Characters that change how the text around them reads without being seen: C0 and C1
/// controls (but tab and line ends), bidi embeddings, overrides, isolates and marks (a
/// principal `User:alice\u{202e}nimda` would read as another name), zero-width
/// characters, line and paragraph separators.
fn is_hidden_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// `html` with every hidden control character (see [`is_hidden_control`]) in its text shown
/// as `\u{202e}`, so a string from the cluster reads as what it is. maud has escaped the
/// markup characters already; this covers what escaping does not. Inside tags (attribute
/// values: a hidden field must post the exact name back) and inside `<textarea>` (the
/// user's own pasted file) they are kept as they are. Every page is filtered here, and the
/// streamed ACL page chunk by chunk, so no template can forget it.
pub(crate) fn visible_controls(html: String) -> String {
    if !html.chars().any(is_hidden_control) {
        return html;
    }
    let mut out = String::with_capacity(html.len() + 64);
    let (mut in_tag, mut in_textarea) = (false, false);
    let mut rest = html.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            in_tag = true;
            if rest.starts_with("<textarea") {
                in_textarea = true;
            } else if rest.starts_with("</textarea") {
                in_textarea = false;
            }
        } else if c == '>' {
            in_tag = false;
        }
        if is_hidden_control(c) && !in_tag && !in_textarea {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The error page for an admin failure.
pub(crate) fn problem_page(problem: &Problem, session: Option<&Session>) -> Response {
    respond(
        problem.status,
        page(
            problem.title,
            session,
            "",
            html! {
                div.error role="alert" {
                    p { (problem.explanation) }
                    p { "Kafka said: " code { (problem.detail) } }
                }
                @if problem.status == 502 || session.is_none() {
                    p { a href="/login" { "Back to the login page" } }
                }
            },
        ),
    )
}

/// A page for a request the console itself refuses (bad form field, missing CSRF token).
pub(crate) fn refused(
    status: u16,
    title: &str,
    message: &str,
    session: Option<&Session>,
) -> Response {
    respond(
        status,
        page(
            title,
            session,
            "",
            html! { div.error role="alert" { p { (message) } } },
        ),
    )
}

/// A notice above a page's content.
pub(crate) fn notice(text: &str) -> Markup {
    html! { div.notice role="status" { (text) } }
}

/// A `<select>` with a label, its options given as (value, text), `selected` marked.
pub(crate) fn select(name: &str, label: &str, options: &[(&str, &str)], selected: &str) -> Markup {
    html! {
        label for=(name) { (label) }
        select id=(name) name=(name) {
            @for (value, text) in options {
                @if *value == selected {
                    option value=(value) selected { (text) }
                } @else {
                    option value=(value) { (text) }
                }
            }
        }
    }
}

/// A labelled text input.
pub(crate) fn input(name: &str, label: &str, value: &str, placeholder: &str) -> Markup {
    html! {
        label for=(name) { (label) }
        input type="text" id=(name) name=(name) value=(value) placeholder=(placeholder);
    }
}

/// A hidden CSRF field.
pub(crate) fn csrf(session: &Session) -> Markup {
    html! { input type="hidden" name="csrf" value=(session.csrf); }
}

/// A resource pattern as a person reads it: its type, its name, and what the pattern covers,
/// with the wildcard and the prefix said in words (`Topic orders`, `Every topic (*)`,
/// `Topics starting with pay-`). kafka-acls.sh's `ResourcePattern(resourceType=…)` text stays
/// the CLI's and the export's.
pub(crate) fn resource(pattern: &kacl_acl::ResourcePattern) -> Markup {
    use kacl_acl::{PatternType, ResourceType};
    let (one, many) = match pattern.resource_type {
        ResourceType::Topic => ("Topic", "topic"),
        ResourceType::Group => ("Group", "group"),
        ResourceType::Cluster => ("Cluster", "cluster"),
        ResourceType::TransactionalId => ("Transactional id", "transactional id"),
        ResourceType::DelegationToken => ("Delegation token", "delegation token"),
        ResourceType::User => ("User", "user"),
        ResourceType::Any | ResourceType::Unknown => ("Resource", "resource"),
    };
    let name = pattern.name.as_str();
    html! {
        span.resource {
            @match pattern.pattern_type {
                PatternType::Literal if name == kacl_acl::WILDCARD_RESOURCE => {
                    "Every " (many) " " span.muted { "(wildcard " code { "*" } ")" }
                }
                PatternType::Literal => { (one) " " code { (name) } }
                PatternType::Prefixed => {
                    (one) "s starting with " code { (name) } " " span.muted { "(prefixed)" }
                }
                other => { (one) " " code { (name) } " " span.muted { "(" (other.cli_name()) ")" } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_controls_show_in_text_and_stay_in_attributes_and_pasted_files() {
        let name = "User:alice\u{202e}nimda\u{0}\u{2066}";
        let markup = html! {
            p { (name) }
            input type="hidden" name="principal" value=(name);
            textarea { (name) }
        };
        let shown = visible_controls(markup.into_string());
        assert_eq!(
            shown,
            "<p>User:alice\\u{202e}nimda\\u{0}\\u{2066}</p>\
             <input type=\"hidden\" name=\"principal\" value=\"User:alice\u{202e}nimda\u{0}\u{2066}\">\
             <textarea>User:alice\u{202e}nimda\u{0}\u{2066}</textarea>"
        );
        let plain = "<p>tab\tand\nline, ünïcödé, 名前</p>".to_owned();
        assert_eq!(visible_controls(plain.clone()), plain);
    }
}
