//! The ACL search page when its result must be fetched, sent while the answer arrives: a
//! DescribeAcls of millions of ACLs takes a second to arrive whole (Kafka's protocol has no
//! paging), so the page head goes out at once, the first page of rows as soon as it has been
//! decoded, and the counts and pager (known only at the end) last. It reads without JS; the
//! page's script moves the counts and pager above the rows once the page is complete.
//!
//! The first page is sent early only when it can be known early: page 1 of the resource order
//! (the default) of an answer that arrives in that order, as a kacl broker's does. Should a
//! later resource break the order, the early rows were not the first page after all: a style
//! rule at the end hides them and the right page follows (no JS needed either).
//!
//! An answer that fails fast (refused, unreachable) still gets its error page and status: the
//! page waits up to [`HEAD_WAIT`] for the answer's head before it commits to a 200.
//!
//! What "server time" means here (BENCHMARKS.md, issue 18): the page's head is sent after at
//! most `HEAD_WAIT`, and its `Server-Timing` header can only say what is known then (`head`:
//! request to head sent, `describe`: the answer's head, when it came in time). The time to the
//! first row, to the complete page, and the console's own work on the page (decoding,
//! counting, rendering, not waiting) are written at the end of the page (`#acl-timing`'s data
//! attributes and text), and logged.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use kacl_acl::AclBindingFilter;
use kacl_client::{AdminError, DescribeAclsOptions, DescribeAclsStream};
use maud::{html, Markup, PreEscaped};
use tokio::sync::{mpsc, oneshot};

use super::view::{counts_and_pager, pager, search_form, table};
use crate::connect::problem;
use crate::filter::{AclQuery, Sort, PAGE_SIZE};
use crate::html::{self, page};
use crate::needs::Action;
use crate::results::AclCache;
use crate::session::Session;
use crate::State;

/// How long a fetch may wait for the answer's head before the page is sent without it.
const HEAD_WAIT: Duration = Duration::from_millis(50);

/// Where the page frame is cut: everything before it is the page head. maud escapes `<` in
/// every interpolated value, so no user input can contain it.
const CUT: &str = "<!--kacl:result-->";

/// Hides the early rows when the answer left the resource order after they were sent.
const HIDE_EARLY_ROWS: &str = "#early-rows{display:none}";
/// Hides the "reading" line once the page is complete.
const HIDE_LOADING: &str = "#acl-loading{display:none}";
/// The page's only inline styles (they come after the content they hide, which a style
/// sheet loaded in the head cannot do without `:has()`): the Content-Security-Policy allows
/// exactly these, by hash, and no other.
pub(crate) const INLINE_STYLES: [&str; 2] = [HIDE_EARLY_ROWS, HIDE_LOADING];

/// A response body fed through a channel, one chunk per send.
struct Streamed(mpsc::UnboundedReceiver<Bytes>);

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

type Start =
    Pin<Box<dyn std::future::Future<Output = Result<DescribeAclsStream, AdminError>> + Send>>;

/// The search page for `q`, fetching its result (see the module documentation).
pub(super) async fn fetch_and_stream(
    state: Arc<State>,
    session: Arc<Session>,
    q: AclQuery,
    filter: AclBindingFilter,
) -> Response {
    let asked = Instant::now();
    let (tx, rx) = mpsc::unbounded_channel();
    let (committed, commit) = oneshot::channel();
    tokio::spawn(fill(state, session, q, filter, asked, tx, committed));
    let timing = match commit.await {
        Ok(Ok(timing)) => timing,
        Ok(Err(page)) => return page,
        Err(_) => return html::refused(500, "ACLs", "the search ended early", None),
    };
    let mut response = (
        StatusCode::OK,
        [(header::CACHE_CONTROL, "no-store")],
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        Body::new(Streamed(rx)),
    )
        .into_response();
    if let Ok(value) = header::HeaderValue::from_str(&timing) {
        response.headers_mut().insert("server-timing", value);
    }
    response
}

/// Fetches the result and writes the page into `tx`; `committed` gets the Server-Timing
/// value once the page is committed to, or the whole error page for a fast failure.
async fn fill(
    state: Arc<State>,
    session: Arc<Session>,
    q: AclQuery,
    filter: AclBindingFilter,
    asked: Instant,
    tx: mpsc::UnboundedSender<Bytes>,
    committed: oneshot::Sender<Result<String, Response>>,
) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // The session's result is replaced: held from here until the new one is in. The old one
    // goes first: its memory and its share of the budget are free again.
    let mut cache = session.acls.lock().await;
    *cache = None;
    let admin = session.admin.clone();
    let wanted = filter.clone();
    let mut start: Start = Box::pin(async move {
        admin
            .describe_acls_start(wanted, DescribeAclsOptions::default())
            .await
    });
    let early = tokio::select! {
        started = &mut start => Some(started),
        () = tokio::time::sleep(HEAD_WAIT) => None,
    };
    let timing = match &early {
        Some(_) => format!(
            "describe;dur={:.1}, head;dur={:.1}",
            ms(asked.elapsed()),
            ms(asked.elapsed())
        ),
        None => format!("head;dur={:.1}", ms(asked.elapsed())),
    };
    let stream = match early {
        Some(Err(e)) => {
            let page = html::problem_page(
                &problem(&e, &session.principal, Action::ReadAcls),
                Some(&session),
            );
            let _ = committed.send(Err(page));
            return;
        }
        Some(Ok(stream)) => Ok(stream),
        None => Err(start),
    };
    let frame = page(
        "ACLs",
        Some(&session),
        "/acls",
        html! { (search_form(&q)) (PreEscaped(CUT)) },
    )
    .into_string();
    let (head, tail) = frame.split_once(CUT).unwrap_or((&frame, ""));
    let _ = tx.send(Bytes::from(html::visible_controls(format!(
        "{head}<p id=\"acl-loading\" class=\"muted\" role=\"status\">Reading the cluster's answer…</p>"
    ))));
    let tail = tail.to_owned();
    if committed.send(Ok(timing)).is_err() {
        return;
    }

    let stream = match stream {
        Ok(s) => Ok(s),
        Err(start) => start.await,
    };
    let early_page = q.page == 0 && q.sort() == Sort::Resource;
    let mut reader = AclCache::reader();
    let mut busy = Duration::ZERO;
    let mut first_row = None;
    let mut early_rows = None;
    let visited = match stream {
        Ok(stream) => {
            stream
                .visit(|group| {
                    let t = Instant::now();
                    reader.visit(group);
                    if early_page
                        && early_rows.is_none()
                        && reader.len() >= PAGE_SIZE
                        && reader.in_order()
                    {
                        let rows = reader.first(PAGE_SIZE);
                        let markup = html! { div #early-rows { (table(true, &rows)) } };
                        let _ = tx.send(Bytes::from(html::visible_controls(markup.into_string())));
                        first_row = Some(asked.elapsed());
                        early_rows = Some(rows);
                    }
                    busy += t.elapsed();
                })
                .await
        }
        Err(e) => Err(e),
    };
    let t = Instant::now();
    let rest = match visited {
        Err(e) => {
            let p = problem(&e, &session.principal, Action::ReadAcls);
            html! {
                div.error role="alert" {
                    p { (p.explanation) }
                    p { "Kafka said: " code { (p.detail) } }
                }
            }
        }
        Ok(()) => {
            let mut fresh = AclCache::new(filter, q.sort(), reader);
            fresh.ticket = Some(state.sessions.admit(fresh.counts.acls, &session));
            let (page_no, rows) = fresh.page(q.page);
            let early_ok = early_rows.as_deref() == Some(rows.as_slice());
            let markup = html! {
                @if early_rows.is_some() && !early_ok {
                    // The answer left the resource order after the early rows were sent.
                    style { (HIDE_EARLY_ROWS) }
                }
                div #result-top { (counts_and_pager(&q, &fresh, page_no)) }
                @if !early_ok {
                    @if rows.is_empty() {
                        p { "No ACL matches this search." }
                    } @else {
                        (table(fresh.sort == Sort::Resource, &rows))
                    }
                }
                (pager(&q, page_no, fresh.pages(), fresh.sort))
            };
            first_row.get_or_insert_with(|| asked.elapsed());
            *cache = Some(fresh);
            markup
        }
    };
    drop(cache);
    busy += t.elapsed();
    let total = asked.elapsed();
    let first = first_row.unwrap_or(total);
    let end: Markup = html! {
        style { (HIDE_LOADING) }
        (rest)
        p #acl-timing .muted
            data-first-row-ms=(format!("{:.1}", ms(first)))
            data-complete-ms=(format!("{:.1}", ms(total)))
            data-console-ms=(format!("{:.1}", ms(busy))) {
            "First row after " (format!("{:.0}", ms(first))) " ms, page complete after "
            (format!("{:.0}", ms(total))) " ms (the console's own work: "
            (format!("{:.0}", ms(busy))) " ms)."
        }
    };
    tracing::debug!(
        first_row_ms = ms(first),
        complete_ms = ms(total),
        console_ms = ms(busy),
        "streamed ACL search"
    );
    let _ = tx.send(Bytes::from(html::visible_controls(
        end.into_string() + &tail,
    )));
}
