//! Bulk import and removal: `--add --from-file acls.json` and `--remove --from-file
//! acls.json`, in batches of `--batch-size` (Kafka refuses more than 10,000 ACL changes in one
//! request), with a progress line on a terminal.

use std::io::{IsTerminal, Write as _};
use std::path::Path;

use anyhow::{bail, Context};
use kacl_acl::AclBinding;
use kacl_client::{Admin, AdminError, CreateAclsOptions, DeleteAclsOptions};
use serde_json::json;

use super::args::AclsArgs;
use super::output::{self, JsonAcl};
use crate::cli::common::{self, OutputFormat};

fn read(path: &Path) -> anyhow::Result<Vec<AclBinding>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    output::from_json(&text).with_context(|| format!("{}", path.display()))
}

/// A `\r`-rewritten progress line on stderr, only when stderr is a terminal.
struct Progress {
    verb: &'static str,
    total: usize,
    enabled: bool,
}

impl Progress {
    fn new(verb: &'static str, total: usize) -> Self {
        Progress {
            verb,
            total,
            enabled: std::io::stderr().is_terminal() && total > 0,
        }
    }

    fn update(&self, done: usize) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{} {done}/{} ACLs", self.verb, self.total);
            let _ = err.flush();
        }
    }

    fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}

/// How many failed ACLs are named on stderr before the rest are only counted.
const MAX_FAILURES_SHOWN: usize = 10;

/// Reports the outcome and fails if any ACL failed: with a single line when every failure has
/// the same cause (an authorization error, say), else naming the first few failed ACLs.
fn conclude(
    args: &AclsArgs,
    verb: &str,
    done: &[AclBinding],
    failed: &[(AclBinding, AdminError)],
    total: usize,
) -> anyhow::Result<()> {
    let one_cause = failed
        .first()
        .filter(|(_, first)| failed.iter().all(|(_, e)| e == first));
    if let (Some((_, cause)), true) = (one_cause, done.is_empty()) {
        return Err(cause.clone().into());
    }
    match args.output {
        OutputFormat::Json => {
            let doc = json!({
                verb: done.iter().map(JsonAcl::from).collect::<Vec<_>>(),
                "failed": failed.iter().map(|(b, e)| json!({
                    "acl": JsonAcl::from(b),
                    "error": e.to_string(),
                })).collect::<Vec<_>>(),
            });
            println!("{}", serde_json::to_string_pretty(&doc)?);
        }
        OutputFormat::Text => {
            for (binding, error) in failed.iter().take(MAX_FAILURES_SHOWN) {
                eprintln!("Failed: {binding}: {error}");
            }
            if failed.len() > MAX_FAILURES_SHOWN {
                eprintln!("... and {} more", failed.len() - MAX_FAILURES_SHOWN);
            }
            println!("{} {} of {total} ACLs.", capitalized(verb), done.len());
        }
    }
    if let Some((_, first)) = failed.first() {
        bail!("{} of {total} ACLs failed; first: {first}", failed.len());
    }
    Ok(())
}

fn capitalized(verb: &str) -> String {
    let mut chars = verb.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Creates every ACL of the file, `--batch-size` per CreateAcls request. Creation is
/// idempotent, so re-running an import is safe.
pub(super) async fn import(admin: &Admin, args: &AclsArgs, path: &Path) -> anyhow::Result<()> {
    let bindings = read(path)?;
    let progress = Progress::new("Added", bindings.len());
    let mut added = Vec::new();
    let mut failed = Vec::new();
    for batch in bindings.chunks(args.batch_size) {
        let results = admin
            .create_acls(batch.to_vec(), CreateAclsOptions::default())
            .await;
        for (binding, result) in batch.iter().zip(results) {
            match result {
                Ok(()) => added.push(binding.clone()),
                Err(err) => failed.push((binding.clone(), err)),
            }
        }
        progress.update(added.len() + failed.len());
    }
    progress.finish();
    conclude(args, "added", &added, &failed, bindings.len())
}

/// Removes exactly the ACLs of the file (each as an exact filter), after confirmation.
pub(super) async fn remove(admin: &Admin, args: &AclsArgs, path: &Path) -> anyhow::Result<()> {
    let bindings = read(path)?;
    if !args.force
        && common::can_prompt()
        && !common::confirm(&format!(
            "Are you sure you want to remove the {} ACLs listed in {}? (y/n)",
            bindings.len(),
            path.display()
        ))?
    {
        return Ok(());
    }
    let progress = Progress::new("Removed", bindings.len());
    let mut removed = Vec::new();
    let mut failed = Vec::new();
    for batch in bindings.chunks(args.batch_size) {
        let filters = batch.iter().map(AclBinding::to_filter).collect();
        let results = admin
            .delete_acls(filters, DeleteAclsOptions::default())
            .await;
        for (binding, result) in batch.iter().zip(results) {
            match result {
                Ok(matches) => {
                    for deleted in matches {
                        match deleted {
                            Ok(b) => removed.push(b),
                            Err(err) => failed.push((binding.clone(), err)),
                        }
                    }
                }
                Err(err) => failed.push((binding.clone(), err)),
            }
        }
        progress.update(removed.len() + failed.len());
    }
    progress.finish();
    conclude(args, "removed", &removed, &failed, bindings.len())
}
