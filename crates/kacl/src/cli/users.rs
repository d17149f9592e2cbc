//! `kacl users`: the SCRAM part of `kafka-configs.sh --entity-type users` (KIP-554). The
//! password is read from a file or stdin, never from the command line, and only its salted
//! form leaves the client.

use std::io::{IsTerminal, Read as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use kacl_client::{
    Admin, ScramCredentialInfo, ScramMechanism, UserScramCredentialAlteration, UserScramOptions,
};
use serde_json::json;

use crate::cli::common::{self, ConnectionArgs, OutputFormat};

const EXAMPLES: &str = "\
Examples:
  kacl users --bootstrap-server localhost:9092 --add --user alice \\
      --mechanism SCRAM-SHA-256 --iterations 8192 --password-file alice.pw
  echo -n secret | kacl users --bootstrap-server localhost:9092 --add --user bob \\
      --mechanism SCRAM-SHA-512 --password-stdin
  kacl users --bootstrap-server localhost:9092 --list
  kacl users --bootstrap-server localhost:9092 --describe --user alice
  kacl users --bootstrap-server localhost:9092 --delete --user alice --mechanism SCRAM-SHA-256";

/// Kafka's default SCRAM iteration count (`ScramMechanism` default in kafka-configs.sh).
pub(crate) const DEFAULT_ITERATIONS: u32 = 4096;

/// Add, delete, list and describe SCRAM users (kafka-configs.sh --entity-type users).
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct UsersArgs {
    #[command(flatten)]
    connection: ConnectionArgs,
    /// Add or replace a SCRAM credential.
    #[arg(long)]
    add: bool,
    /// Delete a SCRAM credential.
    #[arg(long)]
    delete: bool,
    /// List users that have SCRAM credentials.
    #[arg(long)]
    list: bool,
    /// Show mechanisms and iterations of users (all when no --user).
    #[arg(long)]
    describe: bool,
    /// The user name (repeatable for --describe).
    #[arg(long, value_name = "NAME")]
    user: Vec<String>,
    /// SCRAM-SHA-256 or SCRAM-SHA-512.
    #[arg(long, value_name = "MECHANISM")]
    mechanism: Option<String>,
    /// Read the password from the first line of this file.
    #[arg(long, value_name = "FILE", conflicts_with = "password_stdin")]
    password_file: Option<PathBuf>,
    /// Read the password from the first line of standard input.
    #[arg(long)]
    password_stdin: bool,
    /// PBKDF2 iterations (Kafka accepts 4096 to 16384).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ITERATIONS)]
    iterations: u32,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    output: OutputFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Add,
    Delete,
    List,
    Describe,
}

/// The first line of `text`, without its line ending.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

impl UsersArgs {
    fn check(&self) -> anyhow::Result<(Action, Option<ScramMechanism>)> {
        let action = match (self.add, self.delete, self.list, self.describe) {
            (true, false, false, false) => Action::Add,
            (false, true, false, false) => Action::Delete,
            (false, false, true, false) => Action::List,
            (false, false, false, true) => Action::Describe,
            _ => bail!(
                "Command must include exactly one action: --add, --delete, --list or --describe"
            ),
        };
        let mechanism = self
            .mechanism
            .as_deref()
            .map(|m| {
                ScramMechanism::from_name(m.trim()).with_context(|| {
                    format!("Invalid mechanism `{m}`: use SCRAM-SHA-256 or SCRAM-SHA-512")
                })
            })
            .transpose()?;
        if matches!(action, Action::Add | Action::Delete) {
            if self.user.len() != 1 {
                bail!("--add and --delete need exactly one --user");
            }
            if mechanism.is_none() {
                bail!("--add and --delete need --mechanism SCRAM-SHA-256 or SCRAM-SHA-512");
            }
        }
        if action == Action::Add && self.password_file.is_none() && !self.password_stdin {
            bail!("--add needs the password: --password-file FILE or --password-stdin");
        }
        Ok((action, mechanism))
    }

    fn password(&self) -> anyhow::Result<String> {
        let text = if let Some(path) = &self.password_file {
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?
        } else {
            if std::io::stdin().is_terminal() {
                eprint!("Password: ");
            }
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the password")?;
            text
        };
        let password = first_line(&text).to_owned();
        if password.is_empty() {
            bail!("the password is empty");
        }
        Ok(password)
    }
}

/// Runs `kacl users`.
pub(crate) fn run(args: UsersArgs) -> anyhow::Result<ExitCode> {
    let (action, mechanism) = args.check()?;
    let config = args.connection.admin_config()?;
    let password = if action == Action::Add {
        Some(args.password()?)
    } else {
        None
    };
    common::block_on(async move {
        let admin = Admin::connect(config).await?;
        let options = UserScramOptions::default();
        let user = args.user.first().cloned().unwrap_or_default();
        match (action, mechanism) {
            (Action::Add, Some(mechanism)) => {
                let alteration = UserScramCredentialAlteration::Upsert {
                    user: user.clone(),
                    mechanism,
                    iterations: args.iterations,
                    password: password.unwrap_or_default(),
                };
                alter(&admin, &args, alteration).await
            }
            (Action::Delete, Some(mechanism)) => {
                let alteration = UserScramCredentialAlteration::Delete {
                    user: user.clone(),
                    mechanism,
                };
                alter(&admin, &args, alteration).await
            }
            (Action::List, _) => {
                let users = admin.describe_user_scram_credentials(None, options).await?;
                let mut names: Vec<&str> = users.iter().map(|u| u.user.as_str()).collect();
                names.sort_unstable();
                match args.output {
                    OutputFormat::Json => println!(
                        "{}",
                        serde_json::to_string_pretty(&json!({"users": names}))?
                    ),
                    OutputFormat::Text => names.iter().for_each(|n| println!("{n}")),
                }
                Ok(())
            }
            (Action::Describe, _) => describe(&admin, &args, options).await,
            (Action::Add | Action::Delete, None) => bail!("--mechanism is required"),
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn alter(
    admin: &Admin,
    args: &UsersArgs,
    alteration: UserScramCredentialAlteration,
) -> anyhow::Result<()> {
    let user = alteration.user().to_owned();
    apply(admin, vec![alteration]).await?;
    match args.output {
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json!({"updated": user}))?
        ),
        OutputFormat::Text => println!("Completed updating config for user {user}."),
    }
    Ok(())
}

async fn describe(
    admin: &Admin,
    args: &UsersArgs,
    options: UserScramOptions,
) -> anyhow::Result<()> {
    let wanted = (!args.user.is_empty()).then(|| args.user.clone());
    let mut users = admin
        .describe_user_scram_credentials(wanted, options)
        .await?;
    users.sort_by(|a, b| a.user.cmp(&b.user));
    let mut docs = Vec::new();
    for user in &users {
        let credentials = user.credentials.clone()?;
        match args.output {
            OutputFormat::Text => println!("{}", credentials_line(&user.user, &credentials)),
            OutputFormat::Json => docs.push(credentials_json(&user.user, &credentials)),
        }
    }
    if args.output == OutputFormat::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "users": docs }))?
        );
    }
    Ok(())
}

/// kafka-configs.sh's line for a user's SCRAM credentials (shared with `kacl configs`).
pub(crate) fn credentials_line(user: &str, credentials: &[ScramCredentialInfo]) -> String {
    let listed: Vec<String> = credentials
        .iter()
        .map(|c| {
            let name = c.mechanism.map_or("UNKNOWN", ScramMechanism::name);
            format!("{name}=iterations={}", c.iterations)
        })
        .collect();
    format!(
        "SCRAM credential configs for user-principal '{user}' are {}",
        listed.join(", ")
    )
}

/// The JSON form of a user's SCRAM credentials (shared with `kacl configs`).
pub(crate) fn credentials_json(
    user: &str,
    credentials: &[ScramCredentialInfo],
) -> serde_json::Value {
    json!({
        "user": user,
        "credentials": credentials.iter().map(|c| json!({
            "mechanism": c.mechanism.map_or("UNKNOWN", ScramMechanism::name),
            "iterations": c.iterations,
        })).collect::<Vec<_>>(),
    })
}

/// Applies SCRAM alterations and fails on the first refused one (shared with `kacl configs`).
pub(crate) async fn apply(
    admin: &Admin,
    alterations: Vec<UserScramCredentialAlteration>,
) -> anyhow::Result<()> {
    let results = admin
        .alter_user_scram_credentials(alterations, UserScramOptions::default())
        .await;
    for result in results {
        result?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_the_first_line() {
        assert_eq!(first_line("secret\n"), "secret");
        assert_eq!(first_line("secret\r\nignored"), "secret");
        assert_eq!(first_line(""), "");
    }
}
