//! `kacl acls`: `kafka-acls.sh` without a JVM. Same flags, same checks, same text output
//! (sorted, where Kafka's order varies), plus `--output json` and bulk `--from-file`; and the
//! subcommands `plan`, `apply`, `import` (ACLs as code) and `explain`, `who-can`, `effective`
//! (answers to "why"), over the [`kacl_policy`] crate.

mod args;
mod bulk;
mod cluster;
mod expand;
mod output;
mod policy;
mod policy_args;
#[cfg(test)]
mod policy_tests;
mod sorted_text;
#[cfg(test)]
mod tests;
mod why;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::process::ExitCode;

use kacl_acl::{AccessControlEntryFilter, AclBinding, AclBindingFilter};
use kacl_client::{Admin, CreateAclsOptions, DeleteAclsOptions, DescribeAclsOptions};
use serde_json::json;

pub(crate) use args::AclsArgs;
use args::Action;
use expand::{resource_acls, resource_acls_to_add, resource_filters, to_filter};

use crate::cli::common::{self, OutputFormat};

/// Runs `kacl acls`.
pub(crate) fn run(args: AclsArgs) -> anyhow::Result<ExitCode> {
    if let Some(command) = args.command {
        use policy_args::PolicyCommand;
        return match command {
            PolicyCommand::Plan(a) => policy::plan(a),
            PolicyCommand::Apply(a) => policy::apply(a),
            PolicyCommand::Import(a) => policy::import(a),
            PolicyCommand::Explain(a) => why::explain(a),
            PolicyCommand::WhoCan(a) => why::who_can(a),
            PolicyCommand::Effective(a) => why::effective(a),
        };
    }
    let action = args.check()?;
    // Validate everything that needs no broker before connecting, as Kafka's tool does.
    let pattern_type = expand::pattern_type(&args)?;
    let config = args.connection.admin_config()?;
    if args.from_file.is_none() {
        match action {
            Action::Add => drop(resource_acls_to_add(&args, pattern_type)?),
            Action::Remove => drop(resource_acls(&args, pattern_type)?),
            Action::List => drop(expand::principals(&args.principal)?),
        }
    }
    // Without a terminal nobody can answer the confirmation: a script whose filter is empty or
    // wrong must not delete silently (Kafka's tool reads the answer from stdin whatever it is).
    if matches!(action, Action::Remove) && !args.force && !common::can_prompt() {
        anyhow::bail!(
            "--remove asks for confirmation and stdin is not a terminal: add --force to remove \
             without asking"
        );
    }
    common::block_on(async move {
        let admin = Admin::connect(config).await?;
        match (action, &args.from_file) {
            (Action::List, _) => list(&admin, &args, pattern_type).await,
            (Action::Add, Some(path)) => bulk::import(&admin, &args, path).await,
            (Action::Remove, Some(path)) => bulk::remove(&admin, &args, path).await,
            (Action::Add, None) => add(&admin, &args, pattern_type).await,
            (Action::Remove, None) => remove(&admin, &args, pattern_type).await,
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Kafka's `listAcls`: one DescribeAcls per resource filter (all ACLs when none), grouped by
/// resource; `--principal` filters on the client.
async fn list(
    admin: &Admin,
    args: &AclsArgs,
    pattern_type: kacl_acl::PatternType,
) -> anyhow::Result<()> {
    let filters = resource_filters(args, pattern_type, false)?;
    if filters.is_empty() && args.principal.is_empty() && args.output == OutputFormat::Text {
        // Every ACL, possibly millions: each resource formatted as it arrives, the blocks
        // sorted at the end; an answer naming a pattern twice is kept grouped and merged.
        let mut text = sorted_text::SortedText::default();
        admin
            .describe_acls_visit(
                AclBindingFilter::ANY,
                DescribeAclsOptions::default(),
                |group| text.visit(group),
            )
            .await?;
        let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        if !text.finish(&mut stdout)? {
            tracing::debug!("the answer names a pattern twice: describing again to merge it");
            let groups = admin
                .describe_acls_grouped(AclBindingFilter::ANY, DescribeAclsOptions::default())
                .await?;
            output::write_groups(&mut stdout, groups)?;
        }
        stdout.flush()?;
        return Ok(());
    }
    let mut bindings: Vec<AclBinding> = Vec::new();
    if filters.is_empty() {
        bindings = admin
            .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
            .await?;
    } else {
        // All filters in flight at once on the pipelined connection.
        let mut pending = tokio::task::JoinSet::new();
        for key in &filters {
            let admin = admin.clone();
            let filter = AclBindingFilter::new(to_filter(key), AccessControlEntryFilter::ANY);
            pending.spawn(async move {
                admin
                    .describe_acls(filter, DescribeAclsOptions::default())
                    .await
            });
        }
        while let Some(done) = pending.join_next().await {
            bindings.extend(done??);
        }
    }
    let principals = expand::principals(&args.principal)?;
    match args.output {
        OutputFormat::Json => {
            let selected: BTreeSet<AclBinding> = bindings
                .into_iter()
                .filter(|b| principals.is_empty() || principals.contains(&b.entry.principal))
                .collect();
            print(&output::to_json(&selected)?)?;
            print("\n")
        }
        OutputFormat::Text => {
            let resources = output::by_resource(bindings);
            let mut out = String::with_capacity(resources.len() * 160);
            if principals.is_empty() {
                output::write_resource_acls(&mut out, &resources);
            } else {
                for principal in &principals {
                    out.push_str(&format!("ACLs for principal `{principal}`\n"));
                    let mine = resources
                        .iter()
                        .map(|(resource, acls)| {
                            let acls = acls
                                .iter()
                                .filter(|a| a.principal == *principal)
                                .cloned()
                                .collect::<BTreeSet<_>>();
                            (resource.clone(), acls)
                        })
                        .filter(|(_, acls)| !acls.is_empty())
                        .collect();
                    output::write_resource_acls(&mut out, &mine);
                }
            }
            print(&out)
        }
    }
}

/// Kafka's `addAcls`: per resource, skip the ACLs that exist (`Acl ... already exists.`),
/// print `Adding ACLs for resource ...` and create the rest.
async fn add(
    admin: &Admin,
    args: &AclsArgs,
    pattern_type: kacl_acl::PatternType,
) -> anyhow::Result<()> {
    let map = resource_acls_to_add(args, pattern_type)?;
    let mut added = Vec::new();
    let mut existing = Vec::new();
    for (key, acls) in &map {
        let resource = kacl_acl::ResourcePattern::new(key.0, key.1.as_str(), key.2);
        let filter = AclBindingFilter::new(resource.to_filter(), AccessControlEntryFilter::ANY);
        let present: BTreeSet<AclBinding> = admin
            .describe_acls(filter, DescribeAclsOptions::default())
            .await?
            .into_iter()
            .collect();
        let mut out = String::new();
        let mut to_create = Vec::new();
        for acl in acls {
            let binding = AclBinding::new(resource.clone(), acl.clone());
            if present.contains(&binding) {
                if args.output == OutputFormat::Text {
                    out.push_str(&format!("Acl {binding} already exists.\n"));
                }
                existing.push(binding);
            } else {
                to_create.push(binding);
            }
        }
        if !to_create.is_empty() && args.output == OutputFormat::Text {
            let entries: Vec<_> = to_create.iter().map(|b| &b.entry).collect();
            output::write_adding(&mut out, &resource, &entries);
        }
        print(&out)?;
        if !to_create.is_empty() {
            let results = admin
                .create_acls(to_create.clone(), CreateAclsOptions::default())
                .await;
            for result in results {
                result?;
            }
            added.extend(to_create);
        }
    }
    if args.output == OutputFormat::Json {
        let doc = json!({
            "added": added.iter().map(output::JsonAcl::from).collect::<Vec<_>>(),
            "existing": existing.iter().map(output::JsonAcl::from).collect::<Vec<_>>(),
        });
        print(&format!("{}\n", serde_json::to_string_pretty(&doc)?))?;
    }
    Ok(())
}

/// Kafka's `removeAcls`: per resource filter, confirm (unless `--force`), then
/// delete the given entries, or every ACL of the filter when no principal was given.
async fn remove(
    admin: &Admin,
    args: &AclsArgs,
    pattern_type: kacl_acl::PatternType,
) -> anyhow::Result<()> {
    let map = resource_acls(args, pattern_type)?;
    let ask = !args.force && common::can_prompt();
    let mut removed = Vec::new();
    for (key, acls) in &map {
        let filter = to_filter(key);
        let question = if acls.is_empty() {
            format!(
                "Are you sure you want to delete all ACLs for resource filter `{filter}`? (y/n)"
            )
        } else {
            let lines: Vec<String> = acls.iter().map(|a| format!("\t{a}")).collect();
            format!(
                "Are you sure you want to remove ACLs: \n {}\n from resource filter `{filter}`? (y/n)",
                lines.join("\n")
            )
        };
        if ask && !common::confirm(&question)? {
            continue;
        }
        let filters: Vec<AclBindingFilter> = if acls.is_empty() {
            vec![AclBindingFilter::new(
                filter.clone(),
                AccessControlEntryFilter::ANY,
            )]
        } else {
            acls.iter()
                .map(|acl| AclBindingFilter::new(filter.clone(), acl.to_filter()))
                .collect()
        };
        for result in admin
            .delete_acls(filters, DeleteAclsOptions::default())
            .await
        {
            for deleted in result? {
                removed.push(deleted?);
            }
        }
    }
    if args.output == OutputFormat::Json {
        let removed: BTreeSet<AclBinding> = removed.into_iter().collect();
        let doc = json!({
            "removed": removed.iter().map(output::JsonAcl::from).collect::<Vec<_>>(),
        });
        print(&format!("{}\n", serde_json::to_string_pretty(&doc)?))?;
    }
    Ok(())
}
