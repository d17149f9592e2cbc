//! `--workload propagation` (cluster mode, issue 16): how long one CreateAcls answered by
//! node A takes to show in node B's DescribeAcls. Each sample creates one ACL on a fresh
//! resource on a raw connection to the first bootstrap server (A), then asks `--observer`
//! (B) for that resource's ACLs back to back until they hold it; the delay is from A's
//! answer to B's first answer holding it (A's own latency is reported apart). A sample that
//! B does not show within 10 s is an error. The ACLs are deleted again at the end.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation,
    AclPermissionType, PatternType, ResourcePattern, ResourcePatternFilter, ResourceType,
};
use kacl_client::net::{self, BrokerConnection};
use kacl_client::{acl_wire, AdminConfig, AdminError};
use kacl_protocol::messages::create_acls::{CreateAclsRequest, CreateAclsResponse};
use kacl_protocol::messages::delete_acls::{DeleteAclsRequest, DeleteAclsResponse};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::{ApiKey, Message};
use tokio::time::Instant;

use super::args::AclsPerfArgs;
use super::report::{OpStats, Report};

/// How long B may take to show one ACL before the sample counts as an error.
const GIVE_UP: Duration = Duration::from_secs(10);

/// Runs `args.samples` samples from the first bootstrap server to `observer`.
pub async fn run(args: &AclsPerfArgs, config: &AdminConfig) -> anyhow::Result<Report> {
    let observer = args
        .observer
        .as_deref()
        .context("--workload propagation needs --observer HOST:PORT (node B)")?;
    let writer = connect(config, None).await?;
    let reader = connect(config, Some(observer)).await?;
    let mut delay = OpStats::new("propagation")?;
    let mut create = OpStats::new("createAcls")?;
    let run_id = std::process::id();
    let started = Instant::now();
    for sample in 0..args.samples {
        let binding = AclBinding::new(
            ResourcePattern::new(
                ResourceType::Topic,
                format!("kacl-perf-propagation-{run_id}-{sample}"),
                PatternType::Literal,
            ),
            AccessControlEntry::new(
                "User:kacl-perf-propagation",
                "*",
                AclOperation::Read,
                AclPermissionType::Allow,
            ),
        );
        let sent = Instant::now();
        if let Err(err) = create_one(&writer, &binding).await {
            create.error(err);
            continue;
        }
        let answered = Instant::now();
        create.record(answered - sent, 1);
        match wait_visible(&reader, &binding).await {
            Ok(true) => delay.record(answered.elapsed(), 1),
            Ok(false) => delay.error(format!("{binding} not on the observer within 10 s")),
            Err(err) => delay.error(err),
        }
    }
    let elapsed = started.elapsed();
    cleanup(&writer).await?;
    Ok(Report::new("propagation", 1, 0, elapsed, &[delay, create]))
}

async fn connect(
    config: &AdminConfig,
    addr: Option<&str>,
) -> anyhow::Result<Arc<BrokerConnection>> {
    let addr = match addr {
        Some(addr) => addr.to_owned(),
        None => config
            .bootstrap_servers
            .first()
            .cloned()
            .context("no bootstrap server")?,
    };
    net::open(&addr, config)
        .await
        .with_context(|| format!("cannot connect to {addr}"))
}

async fn create_one(conn: &BrokerConnection, binding: &AclBinding) -> Result<(), AdminError> {
    let version = conn
        .versions
        .pick(ApiKey::CreateAcls, CreateAclsRequest::VERSIONS)?;
    let bindings = [binding.clone()];
    let request = acl_wire::create_request(&bindings, version)?;
    let response = conn.conn.send(version, &request).await?;
    let body: CreateAclsResponse<'_> = response.decode()?;
    for result in &body.results {
        AdminError::check(result.error_code, result.error_message.as_deref())?;
    }
    Ok(())
}

/// Describes the binding's resource on `conn` back to back until it shows (bounded).
async fn wait_visible(conn: &BrokerConnection, binding: &AclBinding) -> Result<bool, AdminError> {
    let version = conn
        .versions
        .pick(ApiKey::DescribeAcls, DescribeAclsRequest::VERSIONS)?;
    let filter = AclBindingFilter::new(
        ResourcePatternFilter::new(
            binding.pattern.resource_type,
            Some(binding.pattern.name.as_str()),
            PatternType::Literal,
        ),
        AccessControlEntryFilter::ANY,
    );
    let request = acl_wire::describe_request(&filter, version)?;
    let deadline = Instant::now() + GIVE_UP;
    while Instant::now() < deadline {
        let response = conn.conn.send(version, &request).await?;
        let body: DescribeAclsResponse<'_> = response.decode()?;
        AdminError::check(body.error_code, body.error_message.as_deref())?;
        if body.resources.iter().any(|r| !r.acls.is_empty()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Deletes every ACL of the workload's principal.
async fn cleanup(conn: &BrokerConnection) -> anyhow::Result<()> {
    let version = conn
        .versions
        .pick(ApiKey::DeleteAcls, DeleteAclsRequest::VERSIONS)?;
    let filter = AclBindingFilter::new(
        ResourcePatternFilter::new(ResourceType::Any, None::<String>, PatternType::Any),
        AccessControlEntryFilter {
            principal: Some("User:kacl-perf-propagation".into()),
            ..AccessControlEntryFilter::ANY
        },
    );
    let filters = [filter];
    let request = acl_wire::delete_request(&filters, version)?;
    let response = conn.conn.send(version, &request).await?;
    let body: DeleteAclsResponse<'_> = response.decode()?;
    for result in &body.filter_results {
        AdminError::check(result.error_code, result.error_message.as_deref())?;
    }
    Ok(())
}
