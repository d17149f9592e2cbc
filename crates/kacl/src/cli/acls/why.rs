//! `kacl acls explain | who-can | effective`: answers to "why" before the fact, computed
//! by kacl-acl's `Authorizer` over ACLs fetched from the cluster (kacl or Kafka).

use std::process::ExitCode;

use kacl_acl::{AclBinding, AuthorizationResult, DecidingRule, ResourceType};
use kacl_client::Admin;
use kacl_policy::{cluster, Query};
use serde_json::json;

use super::cluster::{authorizer_config, ConfigSource};
use super::policy::write_out;
use super::policy_args::{self, EffectiveArgs, ExplainArgs, WhoCanArgs};
use crate::cli::common::{self, OutputFormat};

/// Kafka's audit-line resource: `Topic:LITERAL:orders`.
fn audit_resource(resource_type: ResourceType, name: &str) -> String {
    format!("{}:LITERAL:{name}", resource_type.cli_name())
}

/// `kacl acls explain`.
pub(super) fn explain(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    let operation = policy_args::operation(&args.operation)?;
    let principal: kacl_acl::KafkaPrincipal = args
        .principal
        .parse()
        .map_err(|e| anyhow::anyhow!("--principal: {e}"))?;
    let (resource_type, name) = args.resource.resource();
    let query = Query {
        principal: principal.to_string(),
        host: kacl_acl::canonical_host(&args.host),
        operation,
        resource_type,
        name,
    };
    let config = args.connection.admin_config()?;
    let bootstrap = args
        .connection
        .bootstrap_server
        .clone()
        .or_else(|| args.connection.bootstrap_controller.clone())
        .unwrap_or_default();
    let flags = args.authorizer.clone();
    let q = query.clone();
    let output = args.output;
    let (report, source) = common::block_on(async move {
        let admin = Admin::connect(config).await?;
        // Only the candidates the output shows become owned bindings (all of them for JSON).
        let listing = match output {
            OutputFormat::Json => kacl_policy::Listing::All,
            OutputFormat::Text => kacl_policy::Listing::Relevant,
        };
        let inputs = cluster::explain_inputs(&admin, &q, listing).await?;
        let (config, source) = authorizer_config(inputs.broker_config, &flags)?;
        Ok((
            kacl_policy::explain_candidates(&config, inputs.candidates, &inputs.related, &q),
            source,
        ))
    })?;
    let e = &report.explanation;
    let decision = match e.result {
        AuthorizationResult::Allowed => "ALLOWED",
        AuthorizationResult::Denied => "DENIED",
    };
    let grant = report
        .grant
        .as_ref()
        .map(|g| format!("kacl acls --bootstrap-server {bootstrap} {g}"));
    match args.output {
        OutputFormat::Json => {
            let (acl, implied) = match &e.rule {
                DecidingRule::MatchingAcl { acl, implied } => (Some(acl.to_string()), *implied),
                _ => (None, false),
            };
            let doc = json!({
                "decision": decision,
                "rule": e.rule.to_string(),
                "acl": acl,
                "implied": implied,
                "config_source": source.name(),
                "candidates": report.candidates.iter().map(|c| json!({
                    "acl": c.acl.to_string(),
                    "applies": c.mismatches.is_empty(),
                    "implied": c.implied,
                    "mismatches": c.mismatches,
                })).collect::<Vec<_>>(),
                "near_misses": report.near_misses.iter().map(|n| json!({
                    "acl": n.acl.to_string(),
                    "reason": n.reason,
                })).collect::<Vec<_>>(),
                "grant": grant,
            });
            write_out(&format!("{}\n", serde_json::to_string_pretty(&doc)?))?;
        }
        OutputFormat::Text => {
            write_out(&explain_text(&report, decision, source, grant.as_deref()))?
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn explain_text(
    report: &kacl_policy::Report,
    decision: &str,
    source: ConfigSource,
    grant: Option<&str>,
) -> String {
    let q = &report.query;
    let e = &report.explanation;
    let mut out = format!(
        "{decision}: Principal = {} is {} operation = {} from host = {} on resource = {} based on rule {}\n",
        q.principal,
        if e.result == AuthorizationResult::Allowed { "Allowed" } else { "Denied" },
        q.operation,
        q.host,
        audit_resource(q.resource_type, &q.name),
        e.rule
    );
    let why = kacl_policy::decision_reason(&e.rule, &q.principal, q.operation);
    out.push_str(&format!("Why: {why}.\n{}.\n", source.describe()));
    out.push_str(&format!(
        "\nCandidate ACLs (LITERAL name, LITERAL *, PREFIXED prefixes): {}\n",
        report.candidates.len() + report.unlisted
    ));
    // ACLs of other principals are counted, not listed (a LITERAL `*` may carry thousands);
    // those that differ only in case or by a DN component show under near misses.
    let mut others = report.unlisted;
    for c in &report.candidates {
        let p = c.acl.entry.principal.as_str();
        if p != q.principal && p != kacl_acl::WILDCARD_PRINCIPAL {
            others += 1;
        } else if c.mismatches.is_empty() {
            let how = if c.implied {
                "applies (implied)"
            } else {
                "applies"
            };
            out.push_str(&format!("  {how}: {}\n", c.acl));
        } else {
            out.push_str(&format!(
                "  does not apply: {} — {}\n",
                c.acl,
                c.mismatches.join("; ")
            ));
        }
    }
    if others > 0 {
        out.push_str(&format!(
            "  and {others} ACL(s) of other principals (listed with --output json)\n"
        ));
    }
    if !report.near_misses.is_empty() {
        out.push_str("\nNear misses:\n");
        for n in &report.near_misses {
            out.push_str(&format!("  {}: {}\n", n.acl, n.reason));
        }
    }
    if let Some(grant) = grant {
        out.push_str(&format!("\nTo grant it:\n  {grant}\n"));
    }
    out
}

/// `kacl acls who-can`.
pub(super) fn who_can(args: WhoCanArgs) -> anyhow::Result<ExitCode> {
    let operation = policy_args::operation(&args.operation)?;
    let (resource_type, name) = args.resource.resource();
    let config = args.connection.admin_config()?;
    let flags = args.authorizer.clone();
    let n = name.clone();
    let (who, source) = common::block_on(async move {
        let admin = Admin::connect(config).await?;
        let (broker, candidates) = cluster::who_can_inputs(&admin, resource_type, &n).await?;
        let (config, source) = authorizer_config(broker, &flags)?;
        Ok((
            kacl_policy::who_can(&config, &candidates, operation, resource_type, &n),
            source,
        ))
    })?;
    match args.output {
        OutputFormat::Json => {
            let mut doc = serde_json::to_value(&who)?;
            doc["config_source"] = json!(source.name());
            doc["deny_acls"] = json!(who
                .denies
                .iter()
                .map(AclBinding::to_string)
                .collect::<Vec<_>>());
            write_out(&format!("{}\n", serde_json::to_string_pretty(&doc)?))?;
        }
        OutputFormat::Text => {
            let mut out = format!(
                "Who can {operation} on {}\n{}.\n",
                audit_resource(resource_type, &name),
                source.describe()
            );
            out.push_str("\nAllowed:\n");
            if who.allowed.is_empty() && !who.everyone_by_default {
                out.push_str("  nobody through ACLs\n");
            }
            if who.everyone_by_default {
                out.push_str(
                    "  everyone: no ACL applies and allow.everyone.if.no.acl.found is true\n",
                );
            }
            for g in &who.allowed {
                out.push_str(&format!("  {} from {}\n", g.principal, g.host));
                for acl in &g.acls {
                    out.push_str(&format!("    via {acl}\n"));
                }
            }
            if !who.denied.is_empty() {
                out.push_str("\nGranted but denied (a DENY carves the exception):\n");
                for g in &who.denied {
                    out.push_str(&format!("  {} from {}\n", g.principal, g.host));
                    for acl in &g.acls {
                        out.push_str(&format!("    by {acl}\n"));
                    }
                }
            }
            if !who.denies.is_empty() {
                out.push_str("\nDENY ACLs that refuse it:\n");
                for acl in &who.denies {
                    out.push_str(&format!("  {acl}\n"));
                }
            }
            if !who.super_users.is_empty() {
                out.push_str(&format!(
                    "\nSuper users (allowed everything): {}\n",
                    who.super_users.join(", ")
                ));
            }
            write_out(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `kacl acls effective`.
pub(super) fn effective(args: EffectiveArgs) -> anyhow::Result<ExitCode> {
    let principal: kacl_acl::KafkaPrincipal = args
        .principal
        .parse()
        .map_err(|e| anyhow::anyhow!("--principal: {e}"))?;
    let principal = principal.to_string();
    let resource_type = args
        .resource_type
        .as_deref()
        .map(policy_args::resource_type)
        .transpose()?;
    let config = args.connection.admin_config()?;
    let p = principal.clone();
    let acls = common::block_on(async move {
        let admin = Admin::connect(config).await?;
        Ok(cluster::effective_inputs(&admin, &p, resource_type).await?)
    })?;
    let rows = kacl_policy::effective(&acls, &principal, args.host.as_deref(), resource_type);
    match args.output {
        OutputFormat::Json => write_out(&format!("{}\n", serde_json::to_string_pretty(&rows)?))?,
        OutputFormat::Text => {
            let mut out = format!("What {principal} can do (its ACLs and User:*'s):\n");
            if rows.is_empty() {
                out.push_str("  nothing through ACLs\n");
            }
            for r in &rows {
                out.push_str(&format!("  {}\n", r.pattern));
                if !r.allowed.is_empty() {
                    out.push_str(&format!("    allowed: {}\n", r.allowed.join(", ")));
                }
                if !r.denied.is_empty() {
                    out.push_str(&format!("    denied: {}\n", r.denied.join(", ")));
                }
            }
            write_out(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
