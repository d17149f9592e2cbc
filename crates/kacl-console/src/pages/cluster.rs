//! The cluster page: id, nodes, controller, and (for a kacl server whose `/metrics` the
//! console was told about) a live chart of request and denial rates, and in cluster mode
//! its view of etcd from the same `/metrics`.

use std::sync::Arc;

use axum::extract::State as Extract;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use kacl_client::DescribeClusterOptions;
use maud::{html, PreEscaped};

use super::guard::{AppState, LoggedIn};
use crate::connect::problem;
use crate::html::{self, page, respond};
use crate::needs::Action;
use crate::State;

pub(super) fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/cluster", get(cluster))
        .route("/cluster/chart.svg", get(chart))
}

async fn cluster(Extract(state): AppState, LoggedIn(session): LoggedIn) -> Response {
    let cluster = match session
        .admin
        .describe_cluster(DescribeClusterOptions::default())
        .await
    {
        Ok(c) => c,
        Err(e) => {
            return html::problem_page(
                &problem(&e, &session.principal, Action::DescribeCluster),
                Some(&session),
            )
        }
    };
    let controller = cluster.controller.as_ref().map(|c| c.id);
    let body = html! {
        div.cards {
            div.card { h2 { "Cluster id" } code { (cluster.cluster_id.as_deref().unwrap_or("(none)")) } }
            div.card { h2 { "Nodes" } strong { (cluster.nodes.len()) } }
            div.card { h2 { "Controller" } (controller.map(|c| c.to_string()).unwrap_or_else(|| "none".into())) }
        }
        h2 { "Nodes" }
        table { thead { tr { th scope="col" { "Id" } th scope="col" { "Host" } th scope="col" { "Port" } th scope="col" { "Rack" } th scope="col" { "Role" } } } tbody {
            @for n in &cluster.nodes { tr {
                td { (n.id) } td { code { (n.host) } } td { (n.port) } td { (n.rack.as_deref().unwrap_or("")) }
                td { (if Some(n.id) == controller { "controller" } else { "" }) }
            } }
        } }
        @if let Some(etcd) = state.metrics.etcd() {
            h2 { "etcd (cluster mode)" }
            p.muted { "This kacl server keeps its metadata in etcd; as its /metrics reported at the last sample." }
            table id="etcd-state" { tbody {
                tr { th scope="row" { "Applied revision" } td { (etcd.applied_revision) } }
                tr { th scope="row" { "Lag" } td { (etcd.lag_revisions) " revisions, " (format!("{:.3}", etcd.lag_seconds)) " s" } }
                tr { th scope="row" { "Watch restarts" } td { (etcd.watch_restarts) } }
                tr { th scope="row" { "Re-lists after compaction" } td { (etcd.relists) } }
                tr { th scope="row" { "Requests (errors)" } td { (etcd.requests) " (" (etcd.request_errors) ")" } }
            } }
        }
        h2 { "Requests and denials" }
        @if state.metrics.configured() {
            div id="metrics-chart" { (PreEscaped(state.metrics.svg())) }
            @if let Some(e) = state.metrics.last_error() { p.muted { "Last sample failed: " code { (e) } } }
            p.muted { "From the kacl server's /metrics, sampled every 5 s; the chart refreshes itself when JavaScript is on (else reload)." }
        } @else {
            p.muted { "Start the console with --metrics-url http://HOST:PORT/metrics (a kacl server's kacl.metrics.listen) to see request and denial rates." }
        }
    };
    respond(200, page("Cluster", Some(&session), "/cluster", body))
}

async fn chart(Extract(state): AppState, _: LoggedIn) -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        state.metrics.svg(),
    )
        .into_response()
}
