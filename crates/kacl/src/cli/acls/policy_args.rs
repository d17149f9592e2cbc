//! The flags of `kacl acls plan | apply | import | explain | who-can | effective`: ACLs as
//! code and answers to "why" (the [`kacl_policy`] crate), next to the kafka-acls.sh flags.

use std::path::PathBuf;

use anyhow::{bail, Context};
use kacl_acl::{
    AclOperation, AuthorizerConfig, PatternType, ResourcePattern, ResourceType, CLUSTER_NAME,
};

use crate::cli::common::{ConnectionArgs, OutputFormat};

/// ACLs as code and "why" questions.
#[derive(Debug, Clone, clap::Subcommand)]
pub(crate) enum PolicyCommand {
    /// Diff a desired-state file against the cluster, within the file's scope. Exit code 0:
    /// no change, 2: changes pending, 1: error (for CI drift checks).
    Plan(PlanArgs),
    /// Make the cluster match the file within its scope (or apply a saved plan).
    Apply(ApplyArgs),
    /// Write the desired-state file of what the cluster holds in a scope.
    Import(ImportArgs),
    /// Would this principal be allowed this operation, and by which rule?
    Explain(ExplainArgs),
    /// Every principal and host allowed an operation on a resource, and the DENY exceptions.
    WhoCan(WhoCanArgs),
    /// What a principal can do, per resource pattern, with implied operations.
    Effective(EffectiveArgs),
}

/// `kacl acls plan`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// The desired-state file (YAML, or JSON for `.json`).
    #[arg(long, value_name = "FILE")]
    pub file: PathBuf,
    /// text, or json (the saved-plan format that `apply --plan-file` reads).
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
    /// Refuse a file larger than this many bytes (the work per byte is bounded anyway).
    #[arg(long, value_name = "BYTES", default_value_t = kacl_policy::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,
}

/// `kacl acls apply`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ApplyArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// The desired-state file.
    #[arg(long, value_name = "FILE", required_unless_present = "plan_file")]
    pub file: Option<PathBuf>,
    /// Apply exactly this saved plan (`plan --output json`); refused if the cluster changed
    /// within its scope since.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub plan_file: Option<PathBuf>,
    /// Apply without asking (required when there is no terminal to ask on).
    #[arg(long)]
    pub auto_approve: bool,
    /// Refuse a plan that removes more ACLs than this.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_removals: usize,
    /// ACLs per CreateAcls/DeleteAcls request (at most 10000, Kafka's limit).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub batch_size: usize,
    /// Output format of the plan and the result.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
    /// Refuse a file larger than this many bytes (the work per byte is bounded anyway).
    #[arg(long, value_name = "BYTES", default_value_t = kacl_policy::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,
}

/// `kacl acls import`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ImportArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// What the file will own: `principal=User:alice`, `topic=orders` (LITERAL),
    /// `topic=orders-*` (PREFIXED `orders-`), `group=…`, `cluster`, `transactional-id=…`,
    /// `delegation-token=…`, `user=…`, or `all`. Repeatable.
    #[arg(long, value_name = "KIND=VALUE", required = true)]
    pub scope: Vec<String>,
    /// yaml or json.
    #[arg(long, value_enum, default_value = "yaml")]
    pub output: FileFormat,
}

/// The format `import` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FileFormat {
    /// YAML.
    Yaml,
    /// JSON.
    Json,
}

/// One resource, as kafka-acls.sh names it.
#[derive(Debug, Clone, clap::Args)]
#[group(required = true, multiple = false)]
pub(crate) struct ResourceArgs {
    /// A topic.
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,
    /// A consumer group.
    #[arg(long, value_name = "GROUP")]
    pub group: Option<String>,
    /// The cluster.
    #[arg(long)]
    pub cluster: bool,
    /// A transactional id.
    #[arg(long, value_name = "ID")]
    pub transactional_id: Option<String>,
    /// A delegation token.
    #[arg(long, value_name = "TOKEN")]
    pub delegation_token: Option<String>,
    /// A user principal as a resource.
    #[arg(long, value_name = "PRINCIPAL")]
    pub user_principal: Option<String>,
}

impl ResourceArgs {
    /// The resource's type and name.
    pub(crate) fn resource(&self) -> (ResourceType, String) {
        let pick = |t, v: &Option<String>| v.as_ref().map(|n| (t, n.clone()));
        pick(ResourceType::Topic, &self.topic)
            .or_else(|| pick(ResourceType::Group, &self.group))
            .or_else(|| pick(ResourceType::TransactionalId, &self.transactional_id))
            .or_else(|| pick(ResourceType::DelegationToken, &self.delegation_token))
            .or_else(|| pick(ResourceType::User, &self.user_principal))
            .unwrap_or((ResourceType::Cluster, CLUSTER_NAME.to_owned()))
    }
}

/// `super.users` and `allow.everyone.if.no.acl.found` when the broker does not say.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct AuthorizerArgs {
    /// `super.users` (`User:a;User:b`), used when the broker's DescribeConfigs does not
    /// give it.
    #[arg(long, value_name = "PRINCIPALS", default_value = "")]
    pub super_users: String,
    /// `allow.everyone.if.no.acl.found`, used when the broker's DescribeConfigs does not
    /// give it.
    #[arg(long, value_name = "BOOL", default_value_t = false, action = clap::ArgAction::Set)]
    pub allow_everyone_if_no_acl_found: bool,
}

impl AuthorizerArgs {
    /// The configuration the flags give.
    pub(crate) fn config(&self) -> anyhow::Result<AuthorizerConfig> {
        Ok(AuthorizerConfig {
            super_users: AuthorizerConfig::parse_super_users(&self.super_users)
                .context("--super-users")?,
            allow_everyone_if_no_acl_found: self.allow_everyone_if_no_acl_found,
        })
    }
}

/// `kacl acls explain`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// The requesting principal, Type:name.
    #[arg(long, value_name = "PRINCIPAL")]
    pub principal: String,
    /// The operation (Read, Write, Describe, ...).
    #[arg(long, value_name = "OPERATION")]
    pub operation: String,
    #[command(flatten)]
    pub resource: ResourceArgs,
    /// The client's address (default `*`: a host no ACL names).
    #[arg(long, value_name = "HOST", default_value = "*")]
    pub host: String,
    #[command(flatten)]
    pub authorizer: AuthorizerArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
}

/// `kacl acls who-can`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct WhoCanArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// The operation.
    #[arg(long, value_name = "OPERATION")]
    pub operation: String,
    #[command(flatten)]
    pub resource: ResourceArgs,
    #[command(flatten)]
    pub authorizer: AuthorizerArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
}

/// `kacl acls effective`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct EffectiveArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// The principal, Type:name.
    #[arg(long, value_name = "PRINCIPAL")]
    pub principal: String,
    /// Only ACLs that concern this client address.
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Only this resource type (topic, group, cluster, transactional-id, ...).
    #[arg(long, value_name = "TYPE")]
    pub resource_type: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
}

/// An operation an ACL can name.
pub(super) fn operation(text: &str) -> anyhow::Result<AclOperation> {
    match text.parse::<AclOperation>() {
        Ok(op) if !matches!(op, AclOperation::Any | AclOperation::Unknown) => Ok(op),
        _ => bail!("unknown operation `{text}`"),
    }
}

/// A concrete resource type (`topic`, `transactional-id`, ...).
pub(super) fn resource_type(text: &str) -> anyhow::Result<ResourceType> {
    match text.parse::<ResourceType>() {
        Ok(t) if !matches!(t, ResourceType::Any | ResourceType::Unknown) => Ok(t),
        _ => bail!("unknown resource type `{text}`"),
    }
}

/// `--scope` values: principals and resource patterns (empty both for `all`).
pub(super) fn scope(values: &[String]) -> anyhow::Result<kacl_policy::Scope> {
    let mut principals = Vec::new();
    let mut resources = Vec::new();
    let mut all = false;
    for value in values {
        if value == "all" {
            all = true;
            continue;
        }
        if value == "cluster" {
            resources.push(ResourcePattern::new(
                ResourceType::Cluster,
                CLUSTER_NAME,
                PatternType::Literal,
            ));
            continue;
        }
        let Some((kind, name)) = value.split_once('=') else {
            bail!(
                "--scope {value}: write KIND=VALUE (principal=User:alice, topic=orders-*) or all"
            );
        };
        if kind == "principal" {
            if !name.contains(':') {
                bail!("--scope {value}: a principal is Type:name");
            }
            principals.push(name.to_owned());
            continue;
        }
        let resource_type = resource_type(kind).with_context(|| format!("--scope {value}"))?;
        let (name, pattern_type) = match name.strip_suffix('*') {
            Some(prefix) if !prefix.is_empty() => (prefix, PatternType::Prefixed),
            _ => (name, PatternType::Literal),
        };
        if name.is_empty() {
            bail!("--scope {value}: empty name");
        }
        resources.push(ResourcePattern::new(resource_type, name, pattern_type));
    }
    if all && !(principals.is_empty() && resources.is_empty()) {
        bail!("--scope all cannot be combined with other --scope values");
    }
    Ok(kacl_policy::Scope::new(principals, resources))
}
