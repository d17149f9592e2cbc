//! `kacl topics`: the `kafka-topics.sh` actions kacl serves (`--create`, `--delete`, `--list`,
//! `--describe`, `--alter --partitions`), with its output lines; `--describe` prints each
//! topic's non-default configs (DescribeConfigs) on its `Configs:` line. Topic names are exact
//! (kacl does not take `kafka-topics.sh`'s regular expressions).

use std::process::ExitCode;

use anyhow::{bail, Context};
use kacl_client::{
    Admin, AdminError, ConfigResource, DescribeConfigsOptions, NewPartitions, NewTopic,
    TopicDescription, TopicOptions,
};
use kacl_protocol::ErrorCode;
use serde_json::json;

use crate::cli::common::{self, ConnectionArgs, OutputFormat};

const EXAMPLES: &str = "\
Examples:
  kacl topics --bootstrap-server localhost:9092 --create --topic orders --partitions 3 \\
      --replication-factor 1 --config cleanup.policy=compact
  kacl topics --bootstrap-server localhost:9092 --create --topic t --replica-assignment 1:2,2:1
  kacl topics --bootstrap-server localhost:9092 --list
  kacl topics --bootstrap-server localhost:9092 --describe --topic orders
  kacl topics --bootstrap-server localhost:9092 --alter --topic orders --partitions 6
  kacl topics --bootstrap-server localhost:9092 --delete --topic orders";

/// Create, delete, list, describe and alter topics (kafka-topics.sh flags).
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct TopicsArgs {
    #[command(flatten)]
    connection: ConnectionArgs,
    /// Create a topic.
    #[arg(long)]
    create: bool,
    /// Delete topics.
    #[arg(long)]
    delete: bool,
    /// List topic names.
    #[arg(long)]
    list: bool,
    /// Describe topics (all when no --topic).
    #[arg(long)]
    describe: bool,
    /// Raise a topic's partition count.
    #[arg(long)]
    alter: bool,
    /// The topic (repeatable for --delete and --describe).
    #[arg(long, value_name = "TOPIC")]
    topic: Vec<String>,
    /// Partition count (--create: default the broker's num.partitions; --alter: new total).
    #[arg(long, value_name = "N")]
    partitions: Option<i32>,
    /// Replication factor (default the broker's default.replication.factor).
    #[arg(long, value_name = "R")]
    replication_factor: Option<i16>,
    /// Replicas per partition: `p0r1:p0r2,p1r1:p1r2,...` (broker ids).
    #[arg(long, value_name = "ASSIGNMENT")]
    replica_assignment: Option<String>,
    /// A topic config `key=value` (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    config: Vec<String>,
    /// With --create: succeed if the topic exists.
    #[arg(long)]
    if_not_exists: bool,
    /// With --delete, --alter or --describe: succeed if the topic does not exist.
    #[arg(long)]
    if_exists: bool,
    /// With --list and --describe: leave out internal topics.
    #[arg(long)]
    exclude_internal: bool,
    /// With --describe: most partitions per DescribeTopicPartitions answer (default 2000;
    /// the answers are followed by their cursor, so every partition is shown).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    partition_size_limit_per_response: Option<i32>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    output: OutputFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Create,
    Delete,
    List,
    Describe,
    Alter,
}

/// Parses `0:1,1:2`: partitions separated by commas, replica broker ids by colons.
pub(crate) fn parse_replica_assignment(text: &str) -> anyhow::Result<Vec<Vec<i32>>> {
    text.split(',')
        .enumerate()
        .map(|(partition, replicas)| {
            let ids: Vec<i32> = replicas
                .split(':')
                .map(|id| {
                    id.trim().parse::<i32>().with_context(|| {
                        format!("invalid broker id `{id}` for partition {partition} in --replica-assignment")
                    })
                })
                .collect::<anyhow::Result<_>>()?;
            let mut unique = ids.clone();
            unique.sort_unstable();
            unique.dedup();
            if unique.len() != ids.len() {
                bail!("Partition replica lists may not contain duplicate entries: {replicas}");
            }
            Ok(ids)
        })
        .collect()
}

fn parse_config(pairs: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => bail!(
                "Invalid topic config: all configs to be added must be in the format \"key=val\"."
            ),
        })
        .collect()
}

impl TopicsArgs {
    fn check(&self) -> anyhow::Result<Action> {
        let actions = [
            (self.create, Action::Create),
            (self.delete, Action::Delete),
            (self.list, Action::List),
            (self.describe, Action::Describe),
            (self.alter, Action::Alter),
        ];
        let chosen: Vec<Action> = actions
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, a)| *a)
            .collect();
        let [action] = chosen[..] else {
            bail!("Command must include exactly one action: --list, --describe, --create, --alter or --delete");
        };
        let needs_topic = matches!(action, Action::Create | Action::Delete | Action::Alter);
        if needs_topic && self.topic.is_empty() {
            bail!("--topic is required with --create, --delete and --alter");
        }
        if matches!(action, Action::Create | Action::Alter) && self.topic.len() > 1 {
            bail!("--create and --alter take exactly one --topic");
        }
        if action == Action::Alter && self.partitions.is_none() {
            bail!("--alter needs --partitions (kacl alters the partition count only)");
        }
        if self.replica_assignment.is_some()
            && (self.partitions.is_some() || self.replication_factor.is_some())
            && action == Action::Create
        {
            bail!("Option \"[replica-assignment]\" can't be used with option \"[partitions]\" or \"[replication-factor]\"");
        }
        Ok(action)
    }
}

/// Runs `kacl topics`.
pub(crate) fn run(args: TopicsArgs) -> anyhow::Result<ExitCode> {
    let action = args.check()?;
    let config = args.connection.admin_config()?;
    let assignment = args
        .replica_assignment
        .as_deref()
        .map(parse_replica_assignment)
        .transpose()?;
    let configs = parse_config(&args.config)?;
    common::block_on(async move {
        let admin = Admin::connect(config).await?;
        let options = TopicOptions::default();
        match action {
            Action::Create => {
                let topic = NewTopic {
                    name: args.topic[0].clone(),
                    num_partitions: args.partitions,
                    replication_factor: args.replication_factor,
                    replica_assignment: assignment,
                    configs,
                };
                let result = one(admin.create_topics(vec![topic], options).await)?;
                match result {
                    Err(AdminError::Server {
                        code: ErrorCode::TopicAlreadyExists,
                        ..
                    }) if args.if_not_exists => {}
                    other => other?,
                }
                report(
                    &args,
                    json!({"created": &args.topic[0]}),
                    &format!("Created topic {}.", args.topic[0]),
                )
            }
            Action::Delete => {
                let results = admin.delete_topics(args.topic.clone(), options).await;
                for result in results {
                    skip_missing(result, args.if_exists)?;
                }
                report(&args, json!({"deleted": &args.topic}), "")
            }
            Action::Alter => {
                let change = NewPartitions {
                    total_count: args.partitions.unwrap_or_default(),
                    new_assignments: assignment,
                };
                let result = one(admin
                    .create_partitions(vec![(args.topic[0].clone(), change)], options)
                    .await)?;
                skip_missing(result, args.if_exists)?;
                report(&args, json!({"altered": &args.topic[0]}), "")
            }
            Action::List => {
                let options = TopicOptions {
                    list_internal: !args.exclude_internal,
                    ..options
                };
                let topics = admin.list_topics(options).await?;
                let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
                let text = names.iter().map(|n| format!("{n}\n")).collect::<String>();
                report(&args, json!({"topics": names}), text.trim_end())
            }
            Action::Describe => describe(&admin, &args, options).await,
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn one(results: Vec<Result<(), AdminError>>) -> anyhow::Result<Result<(), AdminError>> {
    results
        .into_iter()
        .next()
        .context("the client returned no result")
}

fn skip_missing(result: Result<(), AdminError>, if_exists: bool) -> Result<(), AdminError> {
    match result {
        Err(AdminError::Server {
            code: ErrorCode::UnknownTopicOrPartition,
            ..
        }) if if_exists => Ok(()),
        other => other,
    }
}

fn report(args: &TopicsArgs, doc: serde_json::Value, text: &str) -> anyhow::Result<()> {
    match args.output {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&doc)?),
        OutputFormat::Text if !text.is_empty() => println!("{text}"),
        OutputFormat::Text => {}
    }
    Ok(())
}

async fn describe(admin: &Admin, args: &TopicsArgs, options: TopicOptions) -> anyhow::Result<()> {
    let options = TopicOptions {
        partition_size_limit_per_response: args.partition_size_limit_per_response,
        ..options
    };
    let names = if args.topic.is_empty() {
        let options = TopicOptions {
            list_internal: !args.exclude_internal,
            ..options
        };
        admin
            .list_topics(options)
            .await?
            .into_iter()
            .map(|t| t.name)
            .collect()
    } else {
        args.topic.clone()
    };
    let mut found: Vec<TopicDescription> = Vec::new();
    for result in admin.describe_topics(names, options).await? {
        match result {
            Ok(topic) => found.push(topic),
            Err(AdminError::Server {
                code: ErrorCode::UnknownTopicOrPartition,
                ..
            }) if args.if_exists => {}
            Err(err) => return Err(err.into()),
        }
    }
    let configs = non_default_configs(admin, &found).await?;
    if args.output == OutputFormat::Json {
        let topics: Vec<_> = found
            .iter()
            .zip(&configs)
            .map(|(t, configs)| {
                let configs: serde_json::Map<String, serde_json::Value> =
                    configs.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                json!({
                    "name": t.name,
                    "topicId": t.topic_id,
                    "internal": t.is_internal,
                    "configs": configs,
                    "partitions": t.partitions.iter().map(|p| json!({
                        "partition": p.partition,
                        "leader": p.leader,
                        "replicas": p.replicas,
                        "isr": p.isr,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "topics": topics }))?
        );
        return Ok(());
    }
    let ids = |ids: &[i32]| ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
    let mut out = String::new();
    for (topic, configs) in found.iter().zip(&configs) {
        let replication = topic.partitions.first().map_or(0, |p| p.replicas.len());
        let topic_id = topic
            .topic_id
            .as_deref()
            .map_or_else(String::new, |id| format!("\tTopicId: {id}"));
        out.push_str(&format!(
            "Topic: {}{topic_id}\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}\n",
            topic.name,
            topic.partitions.len(),
            replication,
            configs_text(configs)
        ));
        for p in &topic.partitions {
            let leader = p
                .leader
                .map_or_else(|| "none".to_owned(), |l| l.to_string());
            out.push_str(&format!(
                "\tTopic: {}\tPartition: {}\tLeader: {leader}\tReplicas: {}\tIsr: {}\n",
                topic.name,
                p.partition,
                ids(&p.replicas),
                ids(&p.isr)
            ));
        }
    }
    print!("{out}");
    Ok(())
}

/// A topic's non-default configs as `(name, value)`: what kafka-topics.sh prints on its
/// `Configs:` line (every entry whose source is not DEFAULT_CONFIG, a broker-level override
/// included). Java prints a null (sensitive) value as `null`.
type TopicConfigs = Vec<(String, String)>;

/// The non-default configs of each topic, in order. A broker without DescribeConfigs (a kacl
/// before it served the config APIs) gives empty lists instead of failing the describe, which
/// Kafka's tool would do; a refused topic fails it, as in Kafka.
async fn non_default_configs(
    admin: &Admin,
    topics: &[TopicDescription],
) -> anyhow::Result<Vec<TopicConfigs>> {
    if topics.is_empty() {
        return Ok(Vec::new());
    }
    let resources = topics
        .iter()
        .map(|t| ConfigResource::topic(&t.name))
        .collect();
    let results = admin
        .describe_configs(resources, DescribeConfigsOptions::default())
        .await;
    let mut configs = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(entries) => configs.push(
                entries
                    .into_iter()
                    .filter(|e| !e.is_default())
                    .map(|e| (e.name, e.value.unwrap_or_else(|| "null".to_owned())))
                    .collect(),
            ),
            Err(AdminError::UnsupportedVersion { .. }) => configs.push(Vec::new()),
            Err(err) => return Err(err.into()),
        }
    }
    Ok(configs)
}

fn configs_text(configs: &[(String, String)]) -> String {
    configs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_assignments_parse_as_kafka_topics_does() {
        assert_eq!(
            parse_replica_assignment("0:1,1:2").unwrap(),
            [vec![0, 1], vec![1, 2]]
        );
        assert_eq!(parse_replica_assignment("3").unwrap(), [vec![3]]);
        let err = parse_replica_assignment("0:x").unwrap_err().to_string();
        assert!(err.contains("invalid broker id `x`"), "{err}");
        let err = parse_replica_assignment("1:1").unwrap_err().to_string();
        assert!(err.contains("duplicate"), "{err}");
    }

    #[test]
    fn the_configs_line_joins_name_value_pairs_with_commas() {
        let configs = vec![
            ("cleanup.policy".to_owned(), "compact".to_owned()),
            ("retention.ms".to_owned(), "1000".to_owned()),
        ];
        assert_eq!(
            configs_text(&configs),
            "cleanup.policy=compact,retention.ms=1000"
        );
        assert_eq!(configs_text(&[]), "");
    }

    #[test]
    fn configs_must_be_key_value_pairs() {
        let configs = parse_config(&["cleanup.policy=compact".into(), "a = b=c".into()]).unwrap();
        assert_eq!(configs[0], ("cleanup.policy".into(), "compact".into()));
        assert_eq!(configs[1], ("a".into(), "b=c".into()));
        assert!(parse_config(&["novalue".into()]).is_err());
    }
}
