//! The flags of `kacl acls`, named and checked as `kafka-acls.sh` (Kafka 4's `AclCommand`)
//! names and checks them, with its error messages.

use std::path::PathBuf;

use anyhow::bail;

use crate::cli::common::{ConnectionArgs, OutputFormat};

const EXAMPLES: &str = "\
Examples:
  kacl acls --bootstrap-server localhost:9092 --list
  kacl acls --bootstrap-server localhost:9092 --add --allow-principal User:alice \\
      --operation Read --topic orders
  kacl acls --bootstrap-server localhost:9092 --add --allow-principal User:app \\
      --producer --idempotent --topic events- --resource-pattern-type prefixed
  kacl acls --bootstrap-server localhost:9092 --remove --force --topic orders
  kacl acls --bootstrap-server localhost:9092 --list --output json > acls.json
  kacl acls --bootstrap-server localhost:9092 --add --from-file acls.json
  kacl acls import --bootstrap-server localhost:9092 --scope topic=orders-* > acls.yaml
  kacl acls plan --bootstrap-server localhost:9092 --file acls.yaml
  kacl acls explain --bootstrap-server localhost:9092 --principal User:alice \
      --operation Read --topic orders-eu";

/// List, add and remove ACLs (kafka-acls.sh flags).
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES, args_conflicts_with_subcommands = true)]
pub(crate) struct AclsArgs {
    /// ACLs as code (plan, apply, import) and "why" (explain, who-can, effective); without
    /// one, the kafka-acls.sh flags below.
    #[command(subcommand)]
    pub command: Option<super::policy_args::PolicyCommand>,

    #[command(flatten)]
    pub connection: ConnectionArgs,

    /// List ACLs for the given resources (all ACLs when none is given).
    #[arg(long)]
    pub list: bool,
    /// Add ACLs.
    #[arg(long)]
    pub add: bool,
    /// Remove ACLs.
    #[arg(long)]
    pub remove: bool,

    /// Topic to which ACLs apply; `*` means all topics. Repeatable.
    #[arg(long, value_name = "TOPIC")]
    pub topic: Vec<String>,
    /// Consumer group to which ACLs apply; `*` means all groups. Repeatable.
    #[arg(long, value_name = "GROUP")]
    pub group: Vec<String>,
    /// The cluster resource (only with the literal pattern type).
    #[arg(long)]
    pub cluster: bool,
    /// Transactional id to which ACLs apply; `*` means all. Repeatable.
    #[arg(long, value_name = "ID")]
    pub transactional_id: Vec<String>,
    /// Delegation token to which ACLs apply; `*` means all tokens. Repeatable.
    #[arg(long, value_name = "TOKEN")]
    pub delegation_token: Vec<String>,
    /// User principal as a resource (for CreateTokens / DescribeTokens). Repeatable.
    #[arg(long, value_name = "PRINCIPAL")]
    pub user_principal: Vec<String>,
    /// literal or prefixed when adding; any, match, literal or prefixed when listing or
    /// removing ('match' with --remove removes every ACL that affects the resource).
    #[arg(long, value_name = "TYPE", default_value = "literal")]
    pub resource_pattern_type: String,

    /// Principal to allow, as Type:name (User:* for everyone). Repeatable.
    #[arg(long, value_name = "PRINCIPAL")]
    pub allow_principal: Vec<String>,
    /// Principal to deny, as Type:name. Deny rules take precedence. Repeatable.
    #[arg(long, value_name = "PRINCIPAL")]
    pub deny_principal: Vec<String>,
    /// Host the allowed principals may connect from (default * when a principal is given).
    #[arg(long, value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// Host the denied principals are denied from (default * when a principal is given).
    #[arg(long, value_name = "HOST")]
    pub deny_host: Vec<String>,
    /// Operation to allow or deny (Read, Write, Create, Delete, Alter, Describe,
    /// ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, CreateTokens,
    /// DescribeTokens, TwoPhaseCommit, All). Repeatable; default All.
    #[arg(long, value_name = "OPERATION")]
    pub operation: Vec<String>,
    /// With --list: show only ACLs of this principal (exact match, client side). Repeatable.
    #[arg(long, value_name = "PRINCIPAL")]
    pub principal: Vec<String>,

    /// Producer role: WRITE, DESCRIBE, CREATE on topics; WRITE, DESCRIBE on transactional ids.
    #[arg(long)]
    pub producer: bool,
    /// With --producer: IDEMPOTENT_WRITE on the cluster.
    #[arg(long)]
    pub idempotent: bool,
    /// Consumer role: READ, DESCRIBE on topics; READ on groups.
    #[arg(long)]
    pub consumer: bool,
    /// Do not ask for confirmation before removing (required when stdin is not a terminal).
    #[arg(long)]
    pub force: bool,

    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub output: OutputFormat,
    /// With --add or --remove: the ACLs to add or remove, in the JSON format of
    /// `--list --output json` (see docs/cli.md).
    #[arg(long, value_name = "FILE")]
    pub from_file: Option<PathBuf>,
    /// With --from-file: how many ACLs to send per request (Kafka refuses more than 10000).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub batch_size: usize,
}

/// The one action of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// `--list`.
    List,
    /// `--add`.
    Add,
    /// `--remove`.
    Remove,
}

impl AclsArgs {
    /// Kafka's `checkArgs`, in its order and with its messages; returns the action.
    pub(crate) fn check(&self) -> anyhow::Result<Action> {
        let action = match (self.list, self.add, self.remove) {
            (true, false, false) => Action::List,
            (false, true, false) => Action::Add,
            (false, false, true) => Action::Remove,
            _ => bail!("Command must include exactly one action: --list, --add, --remove. "),
        };
        let used = |name: &str| -> bool {
            match name {
                "list" => self.list,
                "producer" => self.producer,
                "consumer" => self.consumer,
                "allow-host" => !self.allow_host.is_empty(),
                "allow-principal" => !self.allow_principal.is_empty(),
                "deny-host" => !self.deny_host.is_empty(),
                "deny-principal" => !self.deny_principal.is_empty(),
                "operation" => !self.operation.is_empty(),
                _ => false,
            }
        };
        let incompatible: [(&str, &[&str]); 3] = [
            (
                "list",
                &[
                    "producer",
                    "consumer",
                    "allow-host",
                    "allow-principal",
                    "deny-host",
                    "deny-principal",
                ],
            ),
            ("producer", &["operation", "deny-principal", "deny-host"]),
            ("consumer", &["operation", "deny-principal", "deny-host"]),
        ];
        for (option, invalid) in incompatible {
            if used(option) {
                if let Some(other) = invalid.iter().find(|o| used(o)) {
                    bail!("Option \"[{option}]\" can't be used with option \"[{other}]\"");
                }
            }
        }
        if !self.principal.is_empty() && !self.list {
            bail!("The --principal option is only available if --list is set");
        }
        if self.producer && self.topic.is_empty() {
            bail!("With --producer you must specify a --topic");
        }
        if self.idempotent && !self.producer {
            bail!("The --idempotent option is only available if --producer is set");
        }
        if self.consumer
            && (self.topic.is_empty()
                || self.group.is_empty()
                || (!self.producer && (self.cluster || !self.transactional_id.is_empty())))
        {
            bail!(
                "With --consumer you must specify a --topic and a --group and no --cluster or \
                 --transactional-id option should be specified."
            );
        }
        if self.from_file.is_some() && action == Action::List {
            bail!("The --from-file option is only available with --add or --remove");
        }
        if self.batch_size == 0 || self.batch_size > 10_000 {
            bail!("--batch-size must be between 1 and 10000");
        }
        Ok(action)
    }
}
