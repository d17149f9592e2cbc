//! `kacl configs`: `kafka-configs.sh` for the entity types kacl has — `topics`, `brokers`,
//! `broker-loggers`, the SCRAM credentials and client quotas of `users` and the client quotas
//! of `clients` — with its checks, its messages and its output lines (`ConfigCommand.scala`),
//! plus `--output json`.
//!
//! `--alter` of topics, brokers and broker loggers describes the entity's dynamic configs
//! first (a deleted key must be set), then sends one IncrementalAlterConfigs of SETs and
//! DELETEs (KIP-1011: Kafka 4 uses it for brokers too). Users go through
//! AlterUserScramCredentials, shared with `kacl users`; client quotas through
//! DescribeClientQuotas / AlterClientQuotas (see `quotas`). `--entity-type users
//! --entity-type clients` with a name (or `--entity-default`) for each, in order, is the
//! user and client-id entity.

mod parse;
mod quotas;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use kacl_client::{
    Admin, AdminError, AlterConfigOp, AlterConfigsOptions, ConfigEntry, ConfigResource,
    ConfigResourceType, ConfigSource, DescribeClusterOptions, DescribeConfigsOptions,
    ScramMechanism, TopicOptions, UserScramCredentialAlteration, UserScramOptions,
};
use serde_json::json;

use crate::cli::common::{self, ConnectionArgs, OutputFormat};
use crate::cli::users;

const EXAMPLES: &str = "\
Examples:
  kacl configs --bootstrap-server localhost:9092 --describe --entity-type topics \\
      --entity-name orders
  kacl configs --bootstrap-server localhost:9092 --describe --all --entity-type brokers \\
      --entity-name 1
  kacl configs --bootstrap-server localhost:9092 --alter --entity-type topics \\
      --entity-name orders --add-config retention.ms=86400000,cleanup.policy=[compact,delete]
  kacl configs --bootstrap-server localhost:9092 --alter --entity-type topics \\
      --entity-name orders --delete-config retention.ms
  kacl configs --bootstrap-server localhost:9092 --alter --entity-type users \\
      --entity-name alice --add-config 'SCRAM-SHA-512=[iterations=8192,password=secret]'
  kacl configs --bootstrap-server localhost:9092 --alter --entity-type users \\
      --entity-name alice --add-config producer_byte_rate=1048576,consumer_byte_rate=2097152
  kacl configs --bootstrap-server localhost:9092 --alter --entity-type users \\
      --entity-name alice --entity-type clients --entity-default \\
      --add-config request_percentage=50
  kacl configs --bootstrap-server localhost:9092 --describe --entity-type clients";

/// The entity types kacl serves, in kafka-configs.sh's names.
const ENTITY_TYPES: [&str; 5] = ["topics", "clients", "users", "brokers", "broker-loggers"];

use quotas::QUOTA_KEYS;

/// Describe and alter topic, broker and user configs (kafka-configs.sh flags).
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct ConfigsArgs {
    #[command(flatten)]
    connection: ConnectionArgs,
    /// List configs for the given entity.
    #[arg(long)]
    describe: bool,
    /// Alter the configuration for the entity.
    #[arg(long)]
    alter: bool,
    /// With --describe: list all configs, including static and default ones.
    #[arg(long)]
    all: bool,
    /// Type of entity (topics/clients/users/brokers/broker-loggers); `users` and `clients`
    /// together name a user and client-id quota entity.
    #[arg(long, value_name = "TYPE")]
    entity_type: Vec<String>,
    /// Name of entity (topic name/client id/user principal name/broker id), one per
    /// --entity-type in order.
    #[arg(long, value_name = "NAME")]
    entity_name: Vec<String>,
    /// The default entity (clients/users/brokers): the cluster-wide defaults; in place of an
    /// --entity-name.
    #[arg(long, action = clap::ArgAction::Count)]
    entity_default: u8,
    /// Configs to add: 'k1=v1,k2=[v1,v2,v2],k3=v3' (brackets group values with commas).
    #[arg(long, value_name = "CONFIGS")]
    add_config: Option<String>,
    /// A properties file of configs to add.
    #[arg(long, value_name = "FILE")]
    add_config_file: Option<PathBuf>,
    /// Config keys to remove: 'k1,k2'.
    #[arg(long, value_name = "KEYS")]
    delete_config: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    output: OutputFormat,
}

/// An entity type, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entity {
    Topics,
    Clients,
    Users,
    Brokers,
    BrokerLoggers,
}

impl Entity {
    fn name(self) -> &'static str {
        match self {
            Entity::Topics => "topics",
            Entity::Clients => "clients",
            Entity::Users => "users",
            Entity::Brokers => "brokers",
            Entity::BrokerLoggers => "broker-loggers",
        }
    }

    /// kafka-configs.sh's singular (`entityType.dropRight(1)`).
    fn singular(self) -> &'static str {
        let name = self.name();
        &name[..name.len() - 1]
    }

    fn resource(self, name: &str) -> ConfigResource {
        ConfigResource {
            resource_type: match self {
                Entity::Topics => ConfigResourceType::Topic,
                Entity::BrokerLoggers => ConfigResourceType::BrokerLogger,
                Entity::Brokers | Entity::Users | Entity::Clients => ConfigResourceType::Broker,
            },
            name: name.to_owned(),
        }
    }

    /// The source `--describe` without `--all` keeps (Kafka's `dynamicConfigSource`).
    fn dynamic_source(self, name: &str) -> Option<ConfigSource> {
        match self {
            Entity::Topics => Some(ConfigSource::DynamicTopicConfig),
            Entity::Brokers if name.is_empty() => Some(ConfigSource::DynamicDefaultBrokerConfig),
            Entity::Brokers => Some(ConfigSource::DynamicBrokerConfig),
            Entity::BrokerLoggers | Entity::Users | Entity::Clients => None,
        }
    }
}

/// The checked command line.
#[derive(Debug)]
struct Command {
    alter: bool,
    entity: Entity,
    /// `Some("")` for `--entity-default`.
    name: Option<String>,
    add: BTreeMap<String, String>,
    delete: Vec<String>,
    /// For users and clients: the quota entity's (type, name) pairs, in command-line order.
    targets: quotas::Targets,
}

impl ConfigsArgs {
    /// Kafka's `checkArgs`, in its order and with its messages.
    fn check(&self) -> anyhow::Result<Command> {
        if self.describe == self.alter {
            bail!("Command must include exactly one action: --describe, --alter");
        }
        if self.describe {
            if self.add_config.is_some() {
                bail!("Option \"[describe]\" can't be used with option \"[add-config]\"");
            }
            if !self.delete_config.is_empty() {
                bail!("Option \"[describe]\" can't be used with option \"[delete-config]\"");
            }
        }
        let Some(type_name) = self.entity_type.first().map(String::as_str) else {
            bail!("At least one entity type must be specified");
        };
        if self.entity_type.len() > 1 {
            let mut types: Vec<&str> = self.entity_type.iter().map(String::as_str).collect();
            types.sort_unstable();
            if types != ["clients", "users"] {
                bail!("Only '--entity-type users' and '--entity-type clients' may be combined");
            }
        }
        let entity = match type_name {
            "topics" => Entity::Topics,
            "clients" => Entity::Clients,
            "users" => Entity::Users,
            "brokers" => Entity::Brokers,
            "broker-loggers" => Entity::BrokerLoggers,
            other => bail!(
                "Invalid entity type {other}, the entity type must be one of {} with a \
                 --bootstrap-server or --bootstrap-controller argument",
                ENTITY_TYPES.join(", ")
            ),
        };
        let names = self.names()?;
        let name = names.first().cloned().flatten();
        let targets: quotas::Targets = self
            .entity_type
            .iter()
            .cloned()
            .zip(names.iter().cloned().chain(std::iter::repeat(None)))
            .collect();
        let has_name = name.as_deref().is_some_and(|n| !n.is_empty());
        if has_name && matches!(entity, Entity::Brokers | Entity::BrokerLoggers) {
            let id = name.as_deref().unwrap_or_default();
            if id.parse::<i32>().is_err() {
                bail!(
                    "The entity name for {} must be a valid integer broker id, but it is: {id}",
                    entity.name()
                );
            }
        }
        if self.describe {
            if self.entity_default > 0 && matches!(entity, Entity::Topics | Entity::BrokerLoggers) {
                bail!(
                    "--entity-default must not be specified with --describe of {}",
                    entity.name()
                );
            }
            if entity == Entity::BrokerLoggers && !has_name {
                bail!("An entity name must be specified with --describe of broker-loggers");
            }
        }
        let mut add = BTreeMap::new();
        let mut delete = Vec::new();
        if self.alter {
            match entity {
                Entity::Users | Entity::Clients | Entity::Brokers
                    if targets.iter().any(|(_, name)| name.is_none()) =>
                {
                    bail!(
                        "An entity-name or default entity must be specified with --alter of \
                         users, clients, brokers or ips"
                    )
                }
                Entity::Topics | Entity::BrokerLoggers if !has_name => bail!(
                    "An entity name must be specified with --alter of {}",
                    entity.name()
                ),
                _ => {}
            }
            if self.add_config.is_some() && self.add_config_file.is_some() {
                bail!("Only one of --add-config or --add-config-file must be specified");
            }
            if self.add_config.is_none()
                && self.add_config_file.is_none()
                && self.delete_config.is_empty()
            {
                bail!(
                    "At least one of --add-config, --add-config-file, or --delete-config must be \
                     specified with --alter"
                );
            }
            if let Some(path) = &self.add_config_file {
                add = parse::add_config_file(path)?;
            }
            if let Some(text) = &self.add_config {
                add = parse::add_config(text)?;
            }
            parse::check_keys(&add)?;
            delete = parse::delete_config(&self.delete_config);
        }
        Ok(Command {
            alter: self.alter,
            entity,
            name,
            add,
            delete,
            targets,
        })
    }

    /// The names given, one per entity type in command-line order: `Some("")` for
    /// `--entity-default`. kafka-configs.sh pairs `--entity-name` and `--entity-default` with
    /// the entity types in the order they appear, which clap does not keep between two
    /// flags; with both kinds given for two types, the order is read from the command line.
    fn names(&self) -> anyhow::Result<Vec<Option<String>>> {
        let defaults = usize::from(self.entity_default);
        let given = self.entity_name.len() + defaults;
        if given > self.entity_type.len() && self.entity_type.len() == 1 {
            bail!("--entity-name and --entity-default cannot both be given for one --entity-type");
        }
        if given > self.entity_type.len() {
            bail!(
                "--entity-name and --entity-default may be given once for each --entity-type \
                 (in the same order)"
            );
        }
        let mut names = self.entity_name.iter().cloned().map(Some);
        let mut out: Vec<Option<String>> = Vec::new();
        if defaults > 0 && !self.entity_name.is_empty() {
            for arg in std::env::args() {
                if arg == "--entity-default" {
                    out.push(Some(String::new()));
                } else if arg == "--entity-name" || arg.starts_with("--entity-name=") {
                    out.push(names.next().flatten());
                }
            }
            if out.len() != given {
                // Not this process's command line (a test): names first, then defaults.
                out = self.entity_name.iter().cloned().map(Some).collect();
                out.extend(std::iter::repeat_n(Some(String::new()), defaults));
            }
        } else {
            out.extend(names);
            out.extend(std::iter::repeat_n(Some(String::new()), defaults));
        }
        Ok(out)
    }
}

/// Runs `kacl configs`.
pub(crate) fn run(args: ConfigsArgs) -> anyhow::Result<ExitCode> {
    let command = args.check()?;
    let config = args.connection.admin_config()?;
    common::block_on(async move {
        let admin = Admin::connect(config).await?;
        match (command.alter, command.entity) {
            (false, Entity::Users | Entity::Clients) => {
                describe_users(&admin, &args, &command).await
            }
            (false, _) => describe(&admin, &args, &command).await,
            (true, Entity::Users | Entity::Clients) => alter_users(&admin, &args, &command).await,
            (true, _) => alter(&admin, &args, &command).await,
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// One entity's configs as kafka-configs.sh fetches them: with synonyms, only the dynamic
/// ones unless `--all`, sorted by name (Kafka's `getResourceConfig`).
async fn resource_configs(
    admin: &Admin,
    entity: Entity,
    name: &str,
    include_synonyms: bool,
    all: bool,
) -> anyhow::Result<Vec<ConfigEntry>> {
    let options = DescribeConfigsOptions {
        timeout: Some(std::time::Duration::from_secs(30)),
        include_synonyms,
        ..Default::default()
    };
    let result = admin
        .describe_configs(vec![entity.resource(name)], options)
        .await
        .into_iter()
        .next()
        .context("the client returned no result")?;
    let keep = if all {
        None
    } else {
        entity.dynamic_source(name)
    };
    let mut entries: Vec<ConfigEntry> = result?
        .into_iter()
        .filter(|e| keep.is_none_or(|source| e.source == source))
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// kafka-configs.sh's line for one entry (Java prints a null value as `null`).
fn entry_line(entry: &ConfigEntry) -> String {
    let synonyms: Vec<String> = entry
        .synonyms
        .iter()
        .map(|s| {
            let value = s.value.as_deref().unwrap_or("null");
            format!("{}:{}={value}", s.source, s.name)
        })
        .collect();
    format!(
        "  {}={} sensitive={} synonyms={{{}}}",
        entry.name,
        entry.value.as_deref().unwrap_or("null"),
        entry.is_sensitive,
        synonyms.join(", ")
    )
}

fn entry_json(entry: &ConfigEntry) -> serde_json::Value {
    json!({
        "name": entry.name,
        "value": entry.value,
        "source": entry.source.name(),
        "sensitive": entry.is_sensitive,
        "readOnly": entry.is_read_only,
        "synonyms": entry.synonyms.iter().map(|s| json!({
            "name": s.name,
            "value": s.value,
            "source": s.source.name(),
        })).collect::<Vec<_>>(),
    })
}

/// The header kafka-configs.sh prints before an entity's entries.
fn header(entity: Entity, name: &str, all: bool) -> String {
    if name.is_empty() {
        format!("Default configs for {} in the cluster are:", entity.name())
    } else {
        let which = if all { "All" } else { "Dynamic" };
        format!("{which} configs for {} {name} are:", entity.singular())
    }
}

/// `--describe` of topics, brokers and broker loggers (Kafka's `describeResourceConfig`):
/// without a name, every topic (internal ones too) or every broker and then the default.
async fn describe(admin: &Admin, args: &ConfigsArgs, command: &Command) -> anyhow::Result<()> {
    let names: Vec<String> = match &command.name {
        Some(name) => vec![name.clone()],
        None if command.entity == Entity::Topics => {
            let options = TopicOptions {
                list_internal: true,
                ..Default::default()
            };
            let mut names: Vec<String> = admin
                .list_topics(options)
                .await?
                .into_iter()
                .map(|t| t.name)
                .collect();
            names.sort();
            names
        }
        None => {
            let cluster = admin
                .describe_cluster(DescribeClusterOptions::default())
                .await?;
            let mut names: Vec<String> = cluster.nodes.iter().map(|n| n.id.to_string()).collect();
            names.push(String::new());
            names
        }
    };
    let mut docs = Vec::new();
    for name in &names {
        let entries = resource_configs(admin, command.entity, name, true, args.all).await?;
        match args.output {
            OutputFormat::Text => {
                println!("{}", header(command.entity, name, args.all));
                for entry in &entries {
                    println!("{}", entry_line(entry));
                }
            }
            OutputFormat::Json => docs.push(json!({
                "entityType": command.entity.name(),
                "entityName": name,
                "configs": entries.iter().map(entry_json).collect::<Vec<_>>(),
            })),
        }
    }
    if args.output == OutputFormat::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "entities": docs }))?
        );
    }
    Ok(())
}

/// `--alter` of topics, brokers and broker loggers: every deleted key must be among the
/// entity's dynamic configs (broker loggers: among its loggers, and so must every added key),
/// then one IncrementalAlterConfigs of SETs and DELETEs.
async fn alter(admin: &Admin, args: &ConfigsArgs, command: &Command) -> anyhow::Result<()> {
    let name = command.name.clone().unwrap_or_default();
    let loggers = command.entity == Entity::BrokerLoggers;
    let existing: Vec<String> = resource_configs(admin, command.entity, &name, loggers, false)
        .await?
        .into_iter()
        .map(|e| e.name)
        .collect();
    let missing = |key: &&String| !existing.contains(key);
    if loggers {
        let invalid: Vec<&String> = command
            .delete
            .iter()
            .filter(missing)
            .chain(command.add.keys().filter(missing))
            .collect();
        if !invalid.is_empty() {
            bail!("Invalid broker logger(s): {}", join(&invalid));
        }
    } else {
        let invalid: Vec<&String> = command.delete.iter().filter(missing).collect();
        if !invalid.is_empty() {
            bail!("Invalid config(s): {}", join(&invalid));
        }
    }
    let ops: Vec<AlterConfigOp> = command
        .add
        .iter()
        .map(|(k, v)| AlterConfigOp::set(k, v))
        .chain(command.delete.iter().map(AlterConfigOp::delete))
        .collect();
    let options = AlterConfigsOptions {
        timeout: Some(std::time::Duration::from_secs(30)),
        validate_only: false,
    };
    let result = admin
        .incremental_alter_configs(vec![(command.entity.resource(&name), ops)], options)
        .await
        .into_iter()
        .next()
        .context("the client returned no result")?;
    result?;
    completed(args, command.entity, &name)
}

fn join(keys: &[&String]) -> String {
    keys.iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// kafka-configs.sh's closing line of a successful `--alter`.
fn completed(args: &ConfigsArgs, entity: Entity, name: &str) -> anyhow::Result<()> {
    match args.output {
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "updated": {"entityType": entity.name(), "entityName": name}
            }))?
        ),
        OutputFormat::Text if name.is_empty() => println!(
            "Completed updating default config for {} in the cluster.",
            entity.name()
        ),
        OutputFormat::Text => println!(
            "Completed updating config for {} {name}.",
            entity.singular()
        ),
    }
    Ok(())
}

/// `--alter --entity-type users` / `clients`: client quota changes (AlterClientQuotas) and,
/// for a named user alone, SCRAM upserts and deletions (Kafka's
/// `alterUserScramCredentialConfigs`), with Kafka's refusals of anything else.
async fn alter_users(admin: &Admin, args: &ConfigsArgs, command: &Command) -> anyhow::Result<()> {
    let is_scram = |key: &str| ScramMechanism::from_name(key).is_some();
    let is_quota = |key: &str| QUOTA_KEYS.contains(&key);
    let users_only = command.targets.len() == 1 && command.entity == Entity::Users;
    let allowed = |k: &str| is_quota(k) || (users_only && is_scram(k));
    let (what, quoted) = if users_only {
        ("quota and SCRAM credential", "users")
    } else {
        ("quota", command.entity.name())
    };
    let unknown: Vec<&str> = command
        .add
        .keys()
        .map(String::as_str)
        .filter(|k| !allowed(k))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "Only {what} configs can be added for '{quoted}' using --bootstrap-server. \
             Unexpected config names: Set({})",
            unknown.join(", ")
        );
    }
    let unknown: Vec<&str> = command
        .delete
        .iter()
        .map(String::as_str)
        .filter(|k| !allowed(k))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "Only {what} configs can be deleted for '{quoted}' using --bootstrap-server. \
             Unexpected config names: List({})",
            unknown.join(", ")
        );
    }
    let name = command.name.clone().unwrap_or_default();
    let scram_add: Vec<(&String, &String)> =
        command.add.iter().filter(|(k, _)| is_scram(k)).collect();
    let scram_delete: Vec<&String> = command.delete.iter().filter(|k| is_scram(k)).collect();
    let quota_add: Vec<(&String, &String)> =
        command.add.iter().filter(|(k, _)| is_quota(k)).collect();
    let quota_delete: Vec<&String> = command.delete.iter().filter(|k| is_quota(k)).collect();
    if name.is_empty() && (!scram_add.is_empty() || !scram_delete.is_empty()) {
        bail!(
            "The use of --entity-default or --user-defaults is not allowed with User SCRAM \
             Credentials using --bootstrap-server."
        );
    }
    if !quota_add.is_empty() || !quota_delete.is_empty() {
        quotas::alter(admin, &quotas::targets(command), &quota_add, &quota_delete).await?;
    }
    let mut alterations = Vec::new();
    for key in scram_delete {
        let mechanism = ScramMechanism::from_name(key).context("a SCRAM mechanism")?;
        alterations.push(UserScramCredentialAlteration::Delete {
            user: name.clone(),
            mechanism,
        });
    }
    for (key, value) in scram_add {
        let mechanism = ScramMechanism::from_name(key).context("a SCRAM mechanism")?;
        let (iterations, password) = parse::scram_credential(mechanism, value)?;
        alterations.push(UserScramCredentialAlteration::Upsert {
            user: name.clone(),
            mechanism,
            iterations,
            password,
        });
    }
    if !alterations.is_empty() {
        users::apply(admin, alterations).await?;
    }
    completed(args, command.entity, &name)
}

/// `--describe --entity-type users` / `clients`: the client quotas of the matching entities
/// (Kafka's `describeClientQuotaAndUserScramCredentialConfigs`), then, for users alone and
/// not the default, the SCRAM credentials of the named user or of every user with any. A
/// user's error is printed on its line, as Kafka does.
async fn describe_users(
    admin: &Admin,
    args: &ConfigsArgs,
    command: &Command,
) -> anyhow::Result<()> {
    let quota_docs = quotas::describe(admin, args, &quotas::targets(command)).await?;
    let scram = command.entity == Entity::Users
        && command.targets.len() == 1
        && command.name.as_deref() != Some("");
    let mut docs = Vec::new();
    if scram {
        let wanted = command.name.clone().map(|n| vec![n]);
        let mut found = admin
            .describe_user_scram_credentials(wanted, UserScramOptions::default())
            .await?;
        found.sort_by(|a, b| a.user.cmp(&b.user));
        for user in &found {
            match (&user.credentials, args.output) {
                (Ok(credentials), OutputFormat::Text) => {
                    println!("{}", users::credentials_line(&user.user, credentials));
                }
                (Ok(credentials), OutputFormat::Json) => {
                    docs.push(users::credentials_json(&user.user, credentials));
                }
                (Err(err), OutputFormat::Text) => println!(
                    "Error retrieving SCRAM credential configs for user-principal '{}': {}: {}",
                    user.user,
                    exception_name(err),
                    error_message(err)
                ),
                (Err(err), OutputFormat::Json) => {
                    docs.push(json!({"user": user.user, "error": err.to_string()}));
                }
            }
        }
    }
    if args.output == OutputFormat::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "users": docs, "quotas": quota_docs }))?
        );
    }
    Ok(())
}

/// The simple name of the Java exception Kafka's client raises for an error, as
/// kafka-configs.sh prints it (`ResourceNotFoundException`).
fn exception_name(err: &AdminError) -> String {
    let Some(code) = err.code() else {
        return "KafkaException".to_owned();
    };
    let name = code.name();
    if let Some(kind) = name.strip_suffix("_AUTHORIZATION_FAILED") {
        return format!("{}AuthorizationException", camel(kind));
    }
    let base = camel(name.strip_suffix("_EXCEPTION").unwrap_or(name));
    format!("{base}Exception")
}

fn camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let lower = word.to_ascii_lowercase();
            let mut chars = lower.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn error_message(err: &AdminError) -> String {
    match err {
        AdminError::Server { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
