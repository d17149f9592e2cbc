//! How `kacl acls` prints: Kafka's text (`Current ACLs for resource ...`, `Adding ACLs for
//! resource ...`, `Acl ... already exists.`) and the JSON document of `--output json`, which
//! is also the `--from-file` import format (documented in docs/cli.md).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use anyhow::{bail, Context};
use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_client::{AclGroups, SharedEntry};
use serde::{Deserialize, Serialize};

/// Version of the JSON document; bumped if its meaning ever changes.
pub(super) const JSON_VERSION: u32 = 1;

/// One ACL in JSON, with Kafka's upper-case enum names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct JsonAcl {
    /// TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN or USER.
    pub resource_type: String,
    /// The resource name (or prefix).
    pub name: String,
    /// LITERAL or PREFIXED.
    pub pattern_type: String,
    /// `Type:name`.
    pub principal: String,
    /// A host or `*`.
    pub host: String,
    /// READ, WRITE, ... ALL.
    pub operation: String,
    /// ALLOW or DENY.
    pub permission_type: String,
}

/// The document `--list --output json` prints and `--add --from-file` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JsonAcls {
    /// Always 1.
    pub version: u32,
    /// The ACLs, sorted.
    pub acls: Vec<JsonAcl>,
}

impl From<&AclBinding> for JsonAcl {
    fn from(b: &AclBinding) -> Self {
        JsonAcl {
            resource_type: b.pattern.resource_type.kafka_name().to_owned(),
            name: b.pattern.name.clone(),
            pattern_type: b.pattern.pattern_type.kafka_name().to_owned(),
            principal: b.entry.principal.clone(),
            host: b.entry.host.clone(),
            operation: b.entry.operation.kafka_name().to_owned(),
            permission_type: b.entry.permission_type.kafka_name().to_owned(),
        }
    }
}

impl JsonAcl {
    /// The binding, accepting Kafka's names or the CLI spellings (`Read`, `prefixed`).
    pub(super) fn to_binding(&self) -> anyhow::Result<AclBinding> {
        Ok(AclBinding::new(
            ResourcePattern::new(
                self.resource_type.parse::<ResourceType>()?,
                self.name.as_str(),
                self.pattern_type.parse::<PatternType>()?,
            ),
            AccessControlEntry::new(
                self.principal.as_str(),
                self.host.as_str(),
                self.operation.parse::<AclOperation>()?,
                self.permission_type.parse::<AclPermissionType>()?,
            ),
        ))
    }
}

/// The JSON document for `bindings`, sorted.
pub(super) fn to_json(bindings: &BTreeSet<AclBinding>) -> anyhow::Result<String> {
    let doc = JsonAcls {
        version: JSON_VERSION,
        acls: bindings.iter().map(JsonAcl::from).collect(),
    };
    Ok(serde_json::to_string_pretty(&doc)?)
}

/// Reads a JSON document of ACLs, naming the offending entry on error.
pub(super) fn from_json(text: &str) -> anyhow::Result<Vec<AclBinding>> {
    let doc: JsonAcls = serde_json::from_str(text).context("not a kacl ACL document")?;
    if doc.version != JSON_VERSION {
        bail!(
            "unsupported ACL document version {} (expected {JSON_VERSION})",
            doc.version
        );
    }
    doc.acls
        .iter()
        .enumerate()
        .map(|(i, acl)| acl.to_binding().with_context(|| format!("acls[{i}]")))
        .collect()
}

/// Groups bindings by resource pattern, sorted.
pub(crate) fn by_resource(
    bindings: impl IntoIterator<Item = AclBinding>,
) -> BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>> {
    let mut map: BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>> = BTreeMap::new();
    for binding in bindings {
        map.entry(binding.pattern)
            .or_default()
            .insert(binding.entry);
    }
    map
}

/// Kafka's `printResourceAcls`: per resource, the heading, one tab-indented entry per line,
/// and a blank line.
pub(crate) fn write_resource_acls(
    out: &mut String,
    resources: &BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>>,
) {
    for (resource, acls) in resources {
        let _ = writeln!(out, "Current ACLs for resource `{resource}`:");
        for acl in acls {
            let _ = writeln!(out, "\t{acl}");
        }
        out.push('\n');
    }
}

/// [`write_resource_acls`] for a whole answer kept grouped (`kacl acls --list` of every ACL):
/// the same text, sorted the same way, written as it goes, without an owned binding or a
/// sorted map of every ACL (at 2M ACLs those copies were most of the command's time).
pub(super) fn write_groups(
    out: &mut impl std::io::Write,
    groups: AclGroups,
) -> std::io::Result<()> {
    let mut groups = groups.groups;
    if !groups.is_sorted_by(|a, b| a.pattern <= b.pattern) {
        groups.sort_by(|a, b| a.pattern.cmp(&b.pattern));
    }
    // Compared borrowed: a key of cloned `Arc`s cost a third of a 2M listing's time.
    fn key(e: &SharedEntry) -> (&str, &str, AclOperation, AclPermissionType) {
        (&e.principal, &e.host, e.operation, e.permission_type)
    }
    let mut at = 0;
    while at < groups.len() {
        // A broker may send one pattern in several resources: merged, as a map would.
        let same = groups[at..]
            .iter()
            .take_while(|g| g.pattern == groups[at].pattern)
            .count();
        let mut entries: Vec<SharedEntry> = groups[at..at + same]
            .iter_mut()
            .flat_map(|g| std::mem::take(&mut g.entries))
            .collect();
        if !entries.is_sorted_by(|a, b| key(a) <= key(b)) {
            entries.sort_by(|a, b| key(a).cmp(&key(b)));
        }
        entries.dedup();
        if !entries.is_empty() {
            writeln!(out, "Current ACLs for resource `{}`:", groups[at].pattern)?;
            for e in &entries {
                writeln!(
                    out,
                    "\t(principal={}, host={}, operation={}, permissionType={})",
                    e.principal, e.host, e.operation, e.permission_type
                )?;
            }
            writeln!(out)?;
        }
        at += same;
    }
    Ok(())
}

/// Kafka's line before creating: `Adding ACLs for resource `R`: ` then ` \t(e1)`, `\t(e2)`.
pub(super) fn write_adding(
    out: &mut String,
    resource: &ResourcePattern,
    acls: &[&AccessControlEntry],
) {
    let _ = writeln!(out, "Adding ACLs for resource `{resource}`: ");
    for (i, acl) in acls.iter().enumerate() {
        let lead = if i == 0 { " " } else { "" };
        let _ = writeln!(out, "{lead}\t{acl}");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(name: &str, principal: &str, op: AclOperation) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, name, PatternType::Literal),
            AccessControlEntry::new(principal, "*", op, AclPermissionType::Allow),
        )
    }

    #[test]
    fn json_round_trips_and_accepts_cli_spellings() {
        let bindings: BTreeSet<AclBinding> = [
            binding("orders", "User:alice", AclOperation::Read),
            binding("orders", "User:bob", AclOperation::DescribeConfigs),
        ]
        .into_iter()
        .collect();
        let text = to_json(&bindings).unwrap();
        assert!(text.contains("\"resourceType\": \"TOPIC\""), "{text}");
        assert!(
            text.contains("\"operation\": \"DESCRIBE_CONFIGS\""),
            "{text}"
        );
        let back: BTreeSet<AclBinding> = from_json(&text).unwrap().into_iter().collect();
        assert_eq!(back, bindings);

        let cli = r#"{"version":1,"acls":[{"resourceType":"Group","name":"g",
            "patternType":"prefixed","principal":"User:a","host":"*","operation":"Read",
            "permissionType":"Deny"}]}"#;
        let parsed = from_json(cli).unwrap();
        assert_eq!(parsed[0].pattern.resource_type, ResourceType::Group);
        assert_eq!(parsed[0].pattern.pattern_type, PatternType::Prefixed);
        assert_eq!(parsed[0].entry.permission_type, AclPermissionType::Deny);
    }

    #[test]
    fn json_errors_name_the_entry() {
        let bad = r#"{"version":1,"acls":[{"resourceType":"TOPIC","name":"t",
            "patternType":"LITERAL","principal":"User:a","host":"*","operation":"Reed",
            "permissionType":"ALLOW"}]}"#;
        let err = format!("{:#}", from_json(bad).unwrap_err());
        assert!(err.contains("acls[0]") && err.contains("Reed"), "{err}");
        let err = format!("{:#}", from_json(r#"{"version":2,"acls":[]}"#).unwrap_err());
        assert!(err.contains("version 2"), "{err}");
        assert!(from_json(r#"{"version":1,"acls":[],"extra":1}"#).is_err());
    }

    #[test]
    fn grouped_text_is_the_sorted_text() {
        use kacl_client::AclGroup;
        let shared = |b: &AclBinding| SharedEntry {
            principal: b.entry.principal.as_str().into(),
            host: b.entry.host.as_str().into(),
            operation: b.entry.operation,
            permission_type: b.entry.permission_type,
        };
        let bindings = [
            binding("zeta", "User:bob", AclOperation::Write),
            binding("orders", "User:bob", AclOperation::Write),
            binding("orders", "User:alice", AclOperation::Read),
            binding("alpha", "User:alice", AclOperation::Read),
            binding("orders", "User:alice", AclOperation::Write),
        ];
        // As a broker could send them: unsorted, one pattern split over two resources, an
        // entry repeated.
        let groups = AclGroups {
            groups: vec![
                AclGroup {
                    pattern: bindings[1].pattern.clone(),
                    entries: vec![shared(&bindings[1]), shared(&bindings[2])],
                },
                AclGroup {
                    pattern: bindings[0].pattern.clone(),
                    entries: vec![shared(&bindings[0])],
                },
                AclGroup {
                    pattern: bindings[3].pattern.clone(),
                    entries: vec![shared(&bindings[3])],
                },
                AclGroup {
                    pattern: bindings[4].pattern.clone(),
                    entries: vec![shared(&bindings[4]), shared(&bindings[2])],
                },
            ],
        };
        let mut grouped = Vec::new();
        write_groups(&mut grouped, groups).unwrap();
        let mut expected = String::new();
        write_resource_acls(&mut expected, &by_resource(bindings));
        assert_eq!(String::from_utf8(grouped).unwrap(), expected);
    }

    #[test]
    fn text_matches_kafkas_acl_command() {
        let resources = by_resource([
            binding("orders", "User:bob", AclOperation::Write),
            binding("orders", "User:alice", AclOperation::Read),
        ]);
        let mut out = String::new();
        write_resource_acls(&mut out, &resources);
        assert_eq!(
            out,
            "Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, \
             patternType=LITERAL)`:\n\
             \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n\
             \t(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)\n\n"
        );
        let (pattern, acls) = resources.iter().next().unwrap();
        let acls: Vec<&AccessControlEntry> = acls.iter().collect();
        let mut out = String::new();
        write_adding(&mut out, pattern, &acls);
        assert_eq!(
            out,
            "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, \
             patternType=LITERAL)`: \n \
             \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n\
             \t(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)\n\n"
        );
    }
}
