//! `kacl acls plan | apply | import`: a desired-state file against the cluster, within the
//! file's scope (the logic, the reads and the apply with its guards are [`kacl_policy`]'s;
//! this is arguments, printing and the prompt).

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

use anyhow::{bail, Context};
use kacl_client::Admin;
use kacl_policy::cluster::{self, ApplyError, Progress};
use kacl_policy::{thousands, Document, Plan};

use super::policy_args::{ApplyArgs, FileFormat, ImportArgs, PlanArgs};
use crate::cli::common::{self, OutputFormat};

/// Exit code of `plan` when changes are pending (`terraform plan -detailed-exitcode`).
const CHANGES_PENDING: u8 = 2;

/// `kacl acls plan`.
pub(super) fn plan(args: PlanArgs) -> anyhow::Result<ExitCode> {
    let doc = Document::load_limited(&args.file, args.max_file_bytes)?;
    let config = args.connection.admin_config()?;
    let plan = common::block_on(async move {
        let admin = Admin::connect(config).await?;
        Ok(cluster::plan(&admin, &doc).await?)
    })?;
    match args.output {
        OutputFormat::Json => write_out(&format!("{}\n", serde_json::to_string_pretty(&plan)?))?,
        OutputFormat::Text => print_plan(&plan)?,
    }
    Ok(if plan.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(CHANGES_PENDING)
    })
}

/// `kacl acls import`.
pub(super) fn import(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let scope = super::policy_args::scope(&args.scope)?;
    let config = args.connection.admin_config()?;
    let in_scope = common::block_on({
        let scope = scope.clone();
        async move {
            let admin = Admin::connect(config).await?;
            Ok(cluster::acls_in_scope(&admin, &scope).await?.0)
        }
    })?;
    let doc = Document::import(scope, &in_scope);
    let text = match args.output {
        FileFormat::Yaml => doc.to_yaml(),
        FileFormat::Json => format!("{}\n", doc.to_json()),
    };
    write_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `kacl acls apply`.
pub(super) fn apply(args: ApplyArgs) -> anyhow::Result<ExitCode> {
    if args.batch_size == 0 || args.batch_size > cluster::MAX_BATCH {
        bail!("--batch-size must be between 1 and {}", cluster::MAX_BATCH);
    }
    let saved: Option<Plan> = match &args.plan_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("{}: not a saved plan", path.display()))?,
            )
        }
        None => None,
    };
    let doc = match &args.file {
        Some(path) => Some(Document::load_limited(path, args.max_file_bytes)?),
        None => None,
    };
    let config = args.connection.admin_config()?;
    common::block_on(async move {
        let admin = Admin::connect(config).await?;
        let plan = match (saved, doc) {
            (Some(plan), _) => {
                if cluster::drifted(&admin, &plan).await? {
                    bail!(
                        "the cluster's ACLs changed within the plan's scope since the plan \
                         was made; run `kacl acls plan` again"
                    );
                }
                plan
            }
            (None, Some(doc)) => cluster::plan(&admin, &doc).await?,
            (None, None) => bail!("give --file or --plan-file"),
        };
        if args.output == OutputFormat::Text {
            print_plan(&plan)?;
        }
        if plan.is_empty() {
            if args.output == OutputFormat::Json {
                let done = serde_json::json!({"added": 0, "removed": 0, "errors": []});
                write_out(&format!("{done}\n"))?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        if plan.removals.len() > args.max_removals {
            bail!(
                "the plan removes {} ACLs, more than --max-removals {}; check the plan, then \
                 raise --max-removals to apply it",
                thousands(plan.removals.len()),
                args.max_removals
            );
        }
        if !args.auto_approve {
            if !common::can_prompt() {
                bail!("refusing to apply without confirmation: there is no terminal to ask on; pass --auto-approve");
            }
            print!("\nDo you want to apply these changes? Only 'yes' will be accepted: ");
            std::io::stdout().flush()?;
            let mut answer = String::new();
            std::io::stdin().read_line(&mut answer)?;
            if answer.trim() != "yes" {
                println!("Apply cancelled.");
                return Ok(ExitCode::FAILURE);
            }
        }
        // The plan may have waited for an answer: another apply of this scope may have run
        // meanwhile. The apply re-reads the scope first and refuses this now-stale plan.
        let mut progress = TerminalProgress::default();
        let mut outcome = match cluster::apply(&admin, &plan, args.batch_size, &mut progress).await
        {
            Ok(outcome) => outcome,
            Err(ApplyError::Drifted) => bail!(
                "the cluster's ACLs changed within the plan's scope since the plan was made \
                 (another apply?); nothing was sent; run `kacl acls plan` again"
            ),
            Err(err) => return Err(err.into()),
        };
        if outcome.raced {
            outcome.errors.push(
                "the scope changed while the plan was applied (another apply?): the cluster \
                 matches neither; run `kacl acls plan` again"
                    .to_owned(),
            );
        }
        for error in &outcome.errors {
            eprintln!("Error: {error}");
        }
        match args.output {
            OutputFormat::Json => write_out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&serde_json::json!({
                    "added": outcome.added,
                    "removed": outcome.removed,
                    "errors": outcome.errors,
                }))?
            ))?,
            OutputFormat::Text => write_out(&format!(
                "Apply {}: {} added, {} removed{}.\n",
                if outcome.errors.is_empty() {
                    "complete"
                } else {
                    "failed"
                },
                thousands(outcome.added),
                thousands(outcome.removed),
                if outcome.errors.is_empty() {
                    String::new()
                } else {
                    format!(", {} failed", thousands(outcome.errors.len()))
                }
            ))?,
        }
        Ok(if outcome.errors.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    })
}

/// A one-line progress counter on stderr, only when stderr is a terminal.
#[derive(Default)]
struct TerminalProgress {
    label: &'static str,
    total: usize,
    done: usize,
    shown: bool,
}

impl Progress for TerminalProgress {
    fn start(&mut self, label: &'static str, total: usize) {
        *self = TerminalProgress {
            label,
            total,
            done: 0,
            shown: total > 0 && std::io::stderr().is_terminal(),
        };
    }

    fn advance(&mut self, n: usize) {
        self.done += n;
        if self.shown {
            let width = 30;
            let filled = self.done * width / self.total.max(1);
            eprint!(
                "\r{} [{}{}] {}/{}",
                self.label,
                "#".repeat(filled),
                " ".repeat(width - filled),
                thousands(self.done),
                thousands(self.total)
            );
        }
    }

    fn done(&mut self) {
        if self.shown {
            eprintln!();
        }
    }
}

/// The plan grouped by resource in kafka-acls.sh's vocabulary, coloured on a terminal,
/// then the summary line.
fn print_plan(plan: &Plan) -> anyhow::Result<()> {
    let colour = std::io::stdout().is_terminal();
    let (green, red, reset) = if colour {
        ("\x1b[32m", "\x1b[31m", "\x1b[0m")
    } else {
        ("", "", "")
    };
    let by_resource = plan.changes_by_resource();
    let mut out = String::new();
    for (resource, entries) in by_resource {
        out.push_str(&format!("Resource `{resource}`:\n"));
        for (sign, entry) in entries {
            let c = if sign == '+' { green } else { red };
            out.push_str(&format!("{c}  {sign} {entry}{reset}\n"));
        }
        out.push('\n');
    }
    if plan.is_empty() {
        out.push_str("No changes: the cluster matches the file within its scope.\n");
    }
    out.push_str(&plan.summary());
    out.push('\n');
    write_out(&out)
}

/// Writes `text` to stdout; a reader that went away (`| head`) ends the output quietly.
pub(super) fn write_out(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
