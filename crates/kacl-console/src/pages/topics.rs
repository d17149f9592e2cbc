//! Topics: list and search, one topic's partitions and configs, create and delete (with a
//! confirmation). Validation is the cluster's, as for `kafka-topics.sh`; the one local
//! check (configs as `key=val`) has the CLI's message.

use std::sync::Arc;

use axum::extract::{Path, Query};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use kacl_client::{ConfigResource, DescribeConfigsOptions, NewTopic, TopicOptions};
use maud::html;
use serde::Deserialize;

use super::guard::{Change, LoggedIn};
use crate::connect::problem;
use crate::filter::encode;
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::State;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/topics", get(list))
        .route("/topics/create", post(create))
        .route("/topics/delete", post(delete))
        .route("/topic/{name}", get(describe))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ListQuery {
    q: String,
    internal: String,
}

async fn list(LoggedIn(session): LoggedIn, Query(q): Query<ListQuery>) -> Response {
    let options = TopicOptions {
        list_internal: !q.internal.is_empty(),
        ..TopicOptions::default()
    };
    let topics = match session.admin.list_topics(options).await {
        Ok(t) => t,
        Err(e) => {
            return html::problem_page(
                &problem(&e, &session.principal, Action::DescribeTopic("*")),
                Some(&session),
            )
        }
    };
    let needle = q.q.trim().to_lowercase();
    let shown: Vec<_> = topics
        .iter()
        .filter(|t| t.name.to_lowercase().contains(&needle))
        .collect();
    let body = html! {
        form.search method="get" action="/topics" role="search" {
            div.field { (html::input("q", "Name contains", &q.q, "orders")) }
            div.field { label for="internal" { "Internal topics" }
                @if q.internal.is_empty() { input type="checkbox" id="internal" name="internal" value="1"; }
                @else { input type="checkbox" id="internal" name="internal" value="1" checked; } }
            div.actions { button type="submit" { "Search" } }
        }
        p.counts { span { strong { (shown.len()) } " of " (topics.len()) " topics" } }
        table { thead { tr { th scope="col" { "Topic" } th scope="col" { "Topic id" } th scope="col" { "Internal" } } } tbody {
            @for t in &shown { tr {
                td { a href={ "/topic/" (encode(&t.name)) } { (t.name) } }
                td { code { (t.topic_id.as_deref().unwrap_or("")) } }
                td { (if t.is_internal { "yes" } else { "" }) }
            } }
        } }
        h2 { "Create a topic" }
        form.box method="post" action="/topics/create" {
            (html::csrf(&session))
            div.field { (html::input("name", "Name", "", "orders")) }
            div.field { (html::input("partitions", "Partitions", "", "broker default")) }
            div.field { (html::input("replication_factor", "Replication factor", "", "broker default")) }
            div.field { (html::input("configs", "Configs (key=val, comma-separated)", "", "cleanup.policy=compact")) }
            div.actions { button type="submit" { "Create topic" } }
        }
    };
    respond(200, page("Topics", Some(&session), "/topics", body))
}

async fn describe(LoggedIn(session): LoggedIn, Path(name): Path<String>) -> Response {
    let described = session
        .admin
        .describe_topics(vec![name.clone()], TopicOptions::default())
        .await;
    let topic = match described.map(|mut v| v.pop()) {
        Ok(Some(Ok(t))) => t,
        Ok(Some(Err(e))) | Err(e) => {
            return html::problem_page(
                &problem(&e, &session.principal, Action::DescribeTopic(&name)),
                Some(&session),
            )
        }
        Ok(None) => return html::refused(404, "Topic", "no such topic", Some(&session)),
    };
    let configs = session
        .admin
        .describe_configs(
            vec![ConfigResource::topic(name.clone())],
            DescribeConfigsOptions::default(),
        )
        .await
        .pop();
    let body = html! {
        p { a href="/topics" { "← All topics" } " · "
            a href={ "/acls?resource_type=Topic&pattern_type=match&name=" (encode(&name)) } { "ACLs that apply" } }
        h2 { "Partitions (" (topic.partitions.len()) ")" }
        table { thead { tr { th scope="col" { "Partition" } th scope="col" { "Leader" } th scope="col" { "Replicas" } th scope="col" { "In sync" } } } tbody {
            @for p in &topic.partitions { tr {
                td { (p.partition) }
                td { (p.leader.map(|l| l.to_string()).unwrap_or_else(|| "none".into())) }
                td { (join(&p.replicas)) } td { (join(&p.isr)) }
            } }
        } }
        h2 { "Configs" }
        @match &configs {
            Some(Ok(entries)) => {
                table { thead { tr { th scope="col" { "Name" } th scope="col" { "Value" } th scope="col" { "Source" } } } tbody {
                    @for e in entries { tr {
                        td { code { (e.name) } }
                        td { code { (if e.is_sensitive { "(sensitive)" } else { e.value.as_deref().unwrap_or("") }) } }
                        td { (format!("{:?}", e.source)) }
                    } }
                } }
            }
            Some(Err(e)) => { p.muted { "Configs not available: " code { (e) } } }
            None => { p.muted { "Configs not available." } }
        }
        h2 { "Delete" }
        form method="post" action="/topics/delete" {
            (html::csrf(&session))
            input type="hidden" name="name" value=(name);
            label for="confirm" { "Type the topic name to confirm" } " "
            input type="text" id="confirm" name="confirm";
            " " button.danger type="submit" { "Delete topic" }
        }
    };
    respond(
        200,
        page(&format!("Topic {name}"), Some(&session), "/topics", body),
    )
}

fn join(ids: &[i32]) -> String {
    ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CreateForm {
    name: String,
    partitions: String,
    replication_factor: String,
    configs: String,
    confirm: String,
}

/// `key=val,key=val` with the CLI's message for a malformed pair.
fn parse_configs(text: &str) -> Result<Vec<(String, String)>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(
                "Invalid topic config: all configs to be added must be in the format \"key=val\"."
                    .to_owned(),
            ),
        })
        .collect()
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<Option<T>, String> {
    match text.trim() {
        "" => Ok(None),
        t => t
            .parse()
            .map(Some)
            .map_err(|_| format!("{what} must be a number, not `{t}`")),
    }
}

async fn create(Change { session, form: f }: Change<CreateForm>) -> Response {
    let topic = (|| {
        Ok::<_, String>(NewTopic {
            num_partitions: number(&f.partitions, "Partitions")?,
            replication_factor: number(&f.replication_factor, "Replication factor")?,
            configs: parse_configs(&f.configs)?,
            ..NewTopic::new(f.name.trim())
        })
    })();
    let topic = match topic {
        Ok(t) => t,
        Err(e) => return html::refused(400, "Create a topic", &e, Some(&session)),
    };
    let result = session
        .admin
        .create_topics(vec![topic], TopicOptions::default())
        .await
        .pop()
        .unwrap_or(Ok(()));
    if let Err(e) = result {
        return html::problem_page(
            &problem(&e, &session.principal, Action::CreateTopic(f.name.trim())),
            Some(&session),
        );
    }
    let name = f.name.trim();
    respond(
        200,
        page(
            "Topic created",
            Some(&session),
            "/topics",
            html! {
                (html::notice(&format!("Created topic {name}.")))
                p { a href={ "/topic/" (encode(name)) } { "Open " (name) } }
            },
        ),
    )
}

async fn delete(Change { session, form: f }: Change<CreateForm>) -> Response {
    if f.confirm.trim() != f.name {
        return html::refused(
            400,
            "Delete a topic",
            "The confirmation did not match the topic name; nothing was deleted.",
            Some(&session),
        );
    }
    let result = session
        .admin
        .delete_topics(vec![f.name.clone()], TopicOptions::default())
        .await
        .pop()
        .unwrap_or(Ok(()));
    if let Err(e) = result {
        return html::problem_page(
            &problem(&e, &session.principal, Action::DeleteTopic(&f.name)),
            Some(&session),
        );
    }
    respond(
        200,
        page(
            "Topic deleted",
            Some(&session),
            "/topics",
            html! {
                (html::notice(&format!("Deleted topic {}.", f.name)))
                p { a href="/topics" { "Back to the topics" } }
            },
        ),
    )
}
