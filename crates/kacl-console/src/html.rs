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
        markup.into_string(),
    )
        .into_response()
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
