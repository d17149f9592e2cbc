//! The client-quota half of `kacl configs` for `--entity-type users` and `clients` (and both
//! together, a user and client-id entity), as kafka-configs.sh does it through the admin API:
//! `--describe` is one DescribeClientQuotas whose filter holds exactly the given components
//! (a name, `--entity-default`, or none: every entity of the type), printed as
//! `Quota configs for user-principal 'alice', client-id 'app' are producer_byte_rate=1048576.0`;
//! `--alter` checks that every deleted key is set on the entity, then sends one
//! AlterClientQuotas. Works against kacl and a Kafka cluster alike.

use anyhow::{bail, Context};
use kacl_client::{Admin, ClientQuotaEntry, QuotaEntityParts, QuotaMatch, QuotaOptions};
use serde_json::json;

use super::{Command, ConfigsArgs};
use crate::cli::common::OutputFormat;

/// Kafka's client-quota keys, valid for users and client ids.
pub(super) const QUOTA_KEYS: [&str; 4] = [
    "producer_byte_rate",
    "consumer_byte_rate",
    "request_percentage",
    "controller_mutation_rate",
];

/// The wire entity type of a kafka-configs.sh entity type.
fn wire_type(entity_type: &str) -> &'static str {
    if entity_type == "clients" {
        "client-id"
    } else {
        "user"
    }
}

/// The quota entity a command names: each (`users`/`clients`, name) pair, `Some("")` for
/// `--entity-default`, `None` for no name (describe every entity of the type).
pub(super) type Targets = Vec<(String, Option<String>)>;

/// Java's `Double.toString`, as kafka-configs.sh prints quota values: `1048576.0`, `12.5`,
/// `1.048576E7` from ten million on (and below 0.001).
pub(super) fn java_double(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || (1e-3..1e7).contains(&magnitude) {
        let text = format!("{value}");
        if text.contains('.') || text.contains("inf") || text.contains("NaN") {
            text
        } else {
            format!("{text}.0")
        }
    } else {
        let text = format!("{value:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_owned()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exponent}")
    }
}

/// kafka-configs.sh's text of an entity: `user-principal 'alice', client-id 'app'`, `the
/// default user-principal`.
fn entity_text(entity: &QuotaEntityParts) -> String {
    let part = |wanted: &str, label: &str| {
        entity
            .iter()
            .find(|(t, _)| t == wanted)
            .map(|(_, name)| match name {
                Some(name) => format!("{label} '{name}'"),
                None => format!("the default {label}"),
            })
    };
    [
        part("user", "user-principal"),
        part("client-id", "client-id"),
        part("ip", "ip"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}

fn filter(targets: &Targets) -> Vec<(String, QuotaMatch)> {
    targets
        .iter()
        .map(|(entity_type, name)| {
            let matching = match name.as_deref() {
                None => QuotaMatch::Specified,
                Some("") => QuotaMatch::Default,
                Some(name) => QuotaMatch::Exact(name.to_owned()),
            };
            (wire_type(entity_type).to_owned(), matching)
        })
        .collect()
}

async fn fetch(admin: &Admin, targets: &Targets) -> anyhow::Result<Vec<ClientQuotaEntry>> {
    let mut entries = admin
        .describe_client_quotas(filter(targets), true, QuotaOptions::default())
        .await?;
    entries.sort_by_key(|e| entity_text(&e.entity));
    for entry in &mut entries {
        entry.values.sort_by(|a, b| a.0.cmp(&b.0));
    }
    Ok(entries)
}

/// `--describe`: the quota line of every matching entity (text), or their values (json).
pub(super) async fn describe(
    admin: &Admin,
    args: &ConfigsArgs,
    targets: &Targets,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let entries = fetch(admin, targets).await?;
    let mut docs = Vec::new();
    for entry in &entries {
        match args.output {
            OutputFormat::Text => {
                let values: Vec<String> = entry
                    .values
                    .iter()
                    .map(|(k, v)| format!("{k}={}", java_double(*v)))
                    .collect();
                println!(
                    "Quota configs for {} are {}",
                    entity_text(&entry.entity),
                    values.join(", ")
                );
            }
            OutputFormat::Json => docs.push(json!({
                "entity": entry.entity.iter().map(|(t, n)| json!({"entityType": t, "entityName": n})).collect::<Vec<_>>(),
                "quotas": entry.values.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
            })),
        }
    }
    Ok(docs)
}

/// `--alter` of the quota keys in `command` (the caller has split off any SCRAM keys).
pub(super) async fn alter(
    admin: &Admin,
    targets: &Targets,
    add: &[(&String, &String)],
    delete: &[&String],
) -> anyhow::Result<()> {
    let mut ops = Vec::new();
    for (key, value) in add {
        let parsed: f64 = value.trim().parse().map_err(|_| {
            anyhow::anyhow!("Cannot parse quota configuration value for {key}: {value}")
        })?;
        ops.push(((*key).clone(), Some(parsed)));
    }
    if !delete.is_empty() {
        let current = fetch(admin, targets).await?;
        let set: Vec<&String> = current
            .iter()
            .flat_map(|e| e.values.iter().map(|(k, _)| k))
            .collect();
        let invalid: Vec<&str> = delete
            .iter()
            .filter(|k| !set.contains(k))
            .map(|k| k.as_str())
            .collect();
        if !invalid.is_empty() {
            bail!("Invalid config(s): {}", invalid.join(","));
        }
        ops.extend(delete.iter().map(|k| ((*k).clone(), None)));
    }
    let entity: QuotaEntityParts = targets
        .iter()
        .map(|(entity_type, name)| {
            let name = name.clone().filter(|n| !n.is_empty());
            (wire_type(entity_type).to_owned(), name)
        })
        .collect();
    admin
        .alter_client_quotas(vec![(entity, ops)], QuotaOptions::default())
        .await
        .into_iter()
        .next()
        .context("the client returned no result")??;
    Ok(())
}

/// The quota targets of a checked command.
pub(super) fn targets(command: &Command) -> Targets {
    command.targets.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_does() {
        assert_eq!(java_double(1_048_576.0), "1048576.0");
        assert_eq!(java_double(12.5), "12.5");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(10_485_760.0), "1.048576E7");
        assert_eq!(java_double(0.0005), "5.0E-4");
        assert_eq!(java_double(200.0), "200.0");
    }

    #[test]
    fn entities_read_as_kafka_configs_prints_them() {
        let both = vec![
            ("user".to_owned(), Some("alice".to_owned())),
            ("client-id".to_owned(), None),
        ];
        assert_eq!(
            entity_text(&both),
            "user-principal 'alice', the default client-id"
        );
    }
}
