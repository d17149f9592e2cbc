//! The desired-state file: its schema (one for YAML and JSON), reading it with errors that
//! name the file, line and column, and expanding it to the ACLs it declares.
//!
//! ```yaml
//! version: 1
//! scope:                       # what this file owns; nothing outside is ever changed
//!   principals: [User:alice]
//!   resources:
//!     - topic: orders-
//!       pattern: prefixed
//! acls:
//!   - principal: User:alice
//!     hosts: ["*"]             # default; a rule may override it
//!     allow:
//!       - topic: orders-
//!         pattern: prefixed
//!         operations: [Read, Describe]
//!     deny:
//!       - topic: orders-secret
//!         operations: [Read]
//!     producer: { topics: [orders-in], idempotent: true }
//!     consumer: { topics: [orders-in], groups: [billing] }
//! ```

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use kacl_acl::{
    validate_new_acl, AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType, CLUSTER_NAME, WILDCARD_HOST,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::limits::{self, DEFAULT_MAX_FILE_BYTES};
use crate::located::{Check, Checked};
use crate::scope::Scope;
use crate::values::is_literal;
pub use crate::values::{Operation, Pattern, Principal};

/// The only schema version so far.
pub const VERSION: u32 = 1;

/// Why a file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// The file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// The content is wrong; where is known for everything the parser sees.
    #[error("{}:{}:{}: {message}", path.display(), line.unwrap_or(0), column.unwrap_or(0))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line, when known.
        line: Option<usize>,
        /// 1-based column, when known.
        column: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// The file is larger than the caller's limit (`--max-file-bytes`): refused before it
    /// is read.
    #[error(
        "{}: the file is {} bytes, more than the limit of {} (--max-file-bytes)",
        path.display(),
        crate::thousands(usize::try_from(*bytes).unwrap_or(usize::MAX)),
        crate::thousands(usize::try_from(*limit).unwrap_or(usize::MAX))
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The limit it exceeds.
        limit: u64,
    },
}

/// The format of a file: by extension (`.json` is JSON, anything else YAML).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// YAML 1.1 as libyaml reads it.
    Yaml,
    /// JSON.
    Json,
}

impl Format {
    /// `.json` → JSON, else YAML.
    pub fn of(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Yaml,
        }
    }
}

/// A parsed, validated desired-state file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// Schema version, [`VERSION`].
    #[serde(deserialize_with = "version")]
    pub version: u32,
    /// What the file owns.
    pub scope: Scope,
    /// Per principal, what it may and may not do.
    #[serde(default, deserialize_with = "blocks")]
    pub acls: Vec<PrincipalBlock>,
}

/// The ACLs of one principal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrincipalBlock {
    /// `Type:name`.
    pub principal: Principal,
    /// Hosts of every rule that names none (default `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<String>>,
    /// ALLOW rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<Checked<Rule>>,
    /// DENY rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<Checked<Rule>>,
    /// kafka-acls.sh `--producer` (with `--idempotent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
    /// kafka-acls.sh `--consumer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer: Option<Consumer>,
}

/// One resource (or prefix) and operations on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A topic name (or prefix, or `*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// A consumer group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The cluster: always `kafka-cluster`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// A transactional id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactional_id: Option<String>,
    /// A delegation token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation_token: Option<String>,
    /// A user principal as a resource (CreateTokens / DescribeTokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// `literal` (default) or `prefixed`.
    #[serde(default, skip_serializing_if = "is_literal")]
    pub pattern: Pattern,
    /// Operations, kafka-acls.sh spelling (`Read`, `IdempotentWrite`, `All`).
    pub operations: Vec<Operation>,
    /// Hosts, overriding the block's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<String>>,
}

/// `producer:` — WRITE, DESCRIBE, CREATE on topics; WRITE, DESCRIBE on transactional ids;
/// IDEMPOTENT_WRITE on the cluster with `idempotent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Producer {
    /// Topics.
    pub topics: Vec<String>,
    /// Transactional ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transactional_ids: Vec<String>,
    /// Also IDEMPOTENT_WRITE on the cluster.
    #[serde(default)]
    pub idempotent: bool,
    /// Pattern of the topics and ids.
    #[serde(default, skip_serializing_if = "is_literal")]
    pub pattern: Pattern,
}

/// `consumer:` — READ, DESCRIBE on topics; READ on groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consumer {
    /// Topics.
    pub topics: Vec<String>,
    /// Groups.
    pub groups: Vec<String>,
    /// Pattern of the topics and groups.
    #[serde(default, skip_serializing_if = "is_literal")]
    pub pattern: Pattern,
}

fn version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = u32;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "version {VERSION}")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u32, E> {
            if v == u64::from(VERSION) {
                Ok(VERSION)
            } else {
                Err(E::custom(format!(
                    "unsupported version {v} (this kacl reads version {VERSION})"
                )))
            }
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u32, E> {
            self.visit_u64(u64::try_from(v).unwrap_or(u64::MAX))
        }
    }
    d.deserialize_u64(V)
}

impl Serialize for Checked<Rule> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// The operations each resource type supports (Kafka's `AclEntry.supportedOperations`),
/// ALL aside.
pub fn supported_operations(resource_type: ResourceType) -> &'static [AclOperation] {
    use AclOperation::*;
    match resource_type {
        ResourceType::Topic => &[
            Read,
            Write,
            Create,
            Delete,
            Alter,
            Describe,
            DescribeConfigs,
            AlterConfigs,
        ],
        ResourceType::Group => &[Read, Delete, Describe, DescribeConfigs, AlterConfigs],
        ResourceType::Cluster => &[
            Create,
            Alter,
            Describe,
            ClusterAction,
            DescribeConfigs,
            AlterConfigs,
            IdempotentWrite,
        ],
        ResourceType::TransactionalId => &[Write, Describe, TwoPhaseCommit],
        ResourceType::DelegationToken => &[Describe],
        ResourceType::User => &[CreateTokens, DescribeTokens],
        ResourceType::Unknown | ResourceType::Any => &[],
    }
}

impl Rule {
    /// The one resource the rule names, or why not.
    pub fn resource(&self) -> Result<ResourcePattern, String> {
        let named: Vec<(ResourceType, &String)> = [
            (ResourceType::Topic, &self.topic),
            (ResourceType::Group, &self.group),
            (ResourceType::Cluster, &self.cluster),
            (ResourceType::TransactionalId, &self.transactional_id),
            (ResourceType::DelegationToken, &self.delegation_token),
            (ResourceType::User, &self.user),
        ]
        .into_iter()
        .filter_map(|(t, n)| n.as_ref().map(|n| (t, n)))
        .collect();
        match named.as_slice() {
            [(t, name)] => Ok(ResourcePattern::new(*t, name.as_str(), self.pattern.0)),
            [] => Err(
                "a rule names no resource: give one of topic, group, cluster, \
                       transactional_id, delegation_token, user"
                    .into(),
            ),
            _ => Err("a rule names more than one resource: write one rule per resource".into()),
        }
    }
}

impl Check for Rule {
    fn check(&self) -> Result<(), String> {
        let pattern = self.resource()?;
        if pattern.resource_type == ResourceType::Cluster && pattern.name != CLUSTER_NAME {
            return Err(format!(
                "the CLUSTER resource is named `{CLUSTER_NAME}`, not `{}`",
                pattern.name
            ));
        }
        if pattern.name.is_empty() {
            return Err("a resource name is empty".into());
        }
        if self.operations.is_empty() {
            return Err("a rule has no operations".into());
        }
        // Which operations suit which resource type is kafka-acls.sh's check, not the
        // broker's: a cluster may hold any combination, and a file must be able to say
        // what the cluster holds (import, then plan, is always empty).
        let mut seen = HashSet::new();
        for op in &self.operations {
            if !seen.insert(op.0) {
                return Err(format!("operation {} is listed twice", op.0.cli_name()));
            }
        }
        Ok(())
    }
}

/// The `acls:` list: each block is expanded and checked while it is read, so a duplicate
/// (within a block or against an earlier one) is reported at the block's position.
fn blocks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PrincipalBlock>, D::Error> {
    use serde::de::{DeserializeSeed, SeqAccess, Visitor};
    use std::cell::RefCell;

    struct Seen<'a>(&'a RefCell<HashSet<AclBinding>>);
    impl<'de> DeserializeSeed<'de> for Seen<'_> {
        type Value = PrincipalBlock;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<PrincipalBlock, D::Error> {
            struct BlockVisitor<'a>(&'a RefCell<HashSet<AclBinding>>);
            impl<'de> Visitor<'de> for BlockVisitor<'_> {
                type Value = PrincipalBlock;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a principal's ACLs")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    map: A,
                ) -> Result<PrincipalBlock, A::Error> {
                    let block = PrincipalBlock::deserialize(
                        serde::de::value::MapAccessDeserializer::new(map),
                    )?;
                    let mut seen = self.0.borrow_mut();
                    for binding in block.bindings().map_err(serde::de::Error::custom)? {
                        if let Err(err) = validate_new_acl(&binding) {
                            return Err(serde::de::Error::custom(format!("{binding}: {err}")));
                        }
                        if !seen.insert(binding.clone()) {
                            return Err(serde::de::Error::custom(format!(
                                "duplicate ACL {binding}: it is declared twice"
                            )));
                        }
                    }
                    if seen.len() > limits::acl_limit() {
                        return Err(serde::de::Error::custom(too_many_acls()));
                    }
                    Ok(block)
                }
            }
            d.deserialize_map(BlockVisitor(self.0))
        }
    }
    struct ListVisitor;
    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<PrincipalBlock>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list of principals' ACLs")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let seen = RefCell::new(HashSet::new());
            let mut out = Vec::new();
            while let Some(block) = seq.next_element_seed(Seen(&seen))? {
                out.push(block);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(ListVisitor)
}

impl PrincipalBlock {
    /// Every ACL the block declares (shortcuts expanded as kafka-acls.sh expands them).
    pub fn bindings(&self) -> Result<Vec<AclBinding>, String> {
        let principal = self.principal.0.as_str();
        let default_hosts = vec![WILDCARD_HOST.to_owned()];
        let block_hosts = self.hosts.as_ref().unwrap_or(&default_hosts);
        let mut out = Vec::new();
        let mut push = |pattern: &ResourcePattern,
                        hosts: &[String],
                        ops: &[AclOperation],
                        permission: AclPermissionType|
         -> Result<(), String> {
            // Counted before anything is built: hosts × operations can be far more ACLs
            // than the file has bytes.
            let max = limits::acl_limit();
            if hosts.len().saturating_mul(ops.len()) > max.saturating_sub(out.len()) {
                return Err(too_many_acls());
            }
            for host in hosts {
                for op in ops {
                    out.push(AclBinding::new(
                        pattern.clone(),
                        AccessControlEntry::new(principal, host.as_str(), *op, permission),
                    ));
                }
            }
            Ok(())
        };
        for (rules, permission) in [
            (&self.allow, AclPermissionType::Allow),
            (&self.deny, AclPermissionType::Deny),
        ] {
            for Checked(rule) in rules {
                let pattern = rule.resource()?;
                let ops: Vec<AclOperation> = rule.operations.iter().map(|o| o.0).collect();
                push(
                    &pattern,
                    rule.hosts.as_ref().unwrap_or(block_hosts),
                    &ops,
                    permission,
                )?;
            }
        }
        use AclOperation::*;
        let allow = AclPermissionType::Allow;
        if let Some(p) = &self.producer {
            for topic in &p.topics {
                let pattern =
                    ResourcePattern::new(ResourceType::Topic, topic.as_str(), p.pattern.0);
                push(&pattern, block_hosts, &[Write, Describe, Create], allow)?;
            }
            for id in &p.transactional_ids {
                let pattern =
                    ResourcePattern::new(ResourceType::TransactionalId, id.as_str(), p.pattern.0);
                push(&pattern, block_hosts, &[Write, Describe], allow)?;
            }
            if p.idempotent {
                let pattern =
                    ResourcePattern::new(ResourceType::Cluster, CLUSTER_NAME, PatternType::Literal);
                push(&pattern, block_hosts, &[IdempotentWrite], allow)?;
            }
        }
        if let Some(c) = &self.consumer {
            for topic in &c.topics {
                let pattern =
                    ResourcePattern::new(ResourceType::Topic, topic.as_str(), c.pattern.0);
                push(&pattern, block_hosts, &[Read, Describe], allow)?;
            }
            for group in &c.groups {
                let pattern =
                    ResourcePattern::new(ResourceType::Group, group.as_str(), c.pattern.0);
                push(&pattern, block_hosts, &[Read], allow)?;
            }
        }
        // A shortcut may repeat what a rule says (kafka-acls.sh merges them too).
        let mut seen = HashSet::new();
        out.retain(|b| seen.insert(b.clone()));
        Ok(out)
    }
}

impl Document {
    /// Every ACL the file declares, each once.
    pub fn bindings(&self) -> Vec<AclBinding> {
        let mut out = BTreeSet::new();
        for block in &self.acls {
            // Checked while parsing; a hand-built document with a bad rule yields nothing.
            out.extend(block.bindings().unwrap_or_default());
        }
        out.into_iter().collect()
    }

    /// Reads and validates `text`, naming `path` in errors. The work bounds of
    /// [`crate::limits`] are checked first (nesting, alias expansion), so a hostile text
    /// costs time and memory in proportion to its size; its size is the caller's to bound.
    pub fn parse(path: &Path, text: &str, format: Format) -> Result<Document, FileError> {
        let invalid = |line, column, message: String| FileError::Invalid {
            path: path.to_owned(),
            line,
            column,
            message,
        };
        let _acls = limits::AclLimit::set(limits::max_acls(text.len()));
        let json_error = |e: serde_json::Error| {
            let message = strip_position(&e.to_string());
            invalid(Some(e.line()), Some(e.column()), message)
        };
        let yaml_error = |e: serde_norway::Error| {
            let location = e.location();
            invalid(
                location.as_ref().map(|l| l.line()),
                location.as_ref().map(|l| l.column()),
                strip_position(&e.to_string()),
            )
        };
        let doc: Document = match format {
            Format::Json => {
                limits::walk(&mut serde_json::Deserializer::from_str(text), text.len())
                    .map_err(json_error)?;
                serde_json::from_str(text).map_err(json_error)?
            }
            Format::Yaml => {
                limits::prescan(text)
                    .map_err(|(line, message)| invalid(Some(line), None, message))?;
                limits::walk(serde_norway::Deserializer::from_str(text), text.len())
                    .map_err(yaml_error)?;
                serde_norway::from_str(text).map_err(yaml_error)?
            }
        };
        doc.scope
            .check()
            .map_err(|m| invalid(None, None, format!("scope: {m}")))?;
        for (i, block) in doc.acls.iter().enumerate() {
            for binding in block.bindings().map_err(|m| invalid(None, None, m))? {
                if !doc.scope.contains(&binding) {
                    return Err(invalid(
                        None,
                        None,
                        format!(
                            "acls[{i}] ({}): ACL {binding} is outside the file's scope; \
                             widen the scope or drop the ACL",
                            block.principal.0
                        ),
                    ));
                }
            }
        }
        Ok(doc)
    }

    /// Reads the file at `path` (YAML, or JSON for `.json`), refusing one larger than
    /// [`DEFAULT_MAX_FILE_BYTES`].
    pub fn load(path: &Path) -> Result<Document, FileError> {
        Document::load_limited(path, DEFAULT_MAX_FILE_BYTES)
    }

    /// Reads the file at `path`, never more than `max_bytes` of it.
    pub fn load_limited(path: &Path, max_bytes: u64) -> Result<Document, FileError> {
        use std::io::Read as _;
        let io = |e: std::io::Error| FileError::Io {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        let too_large = |bytes| FileError::TooLarge {
            path: path.to_owned(),
            bytes,
            limit: max_bytes,
        };
        if bytes > max_bytes {
            return Err(too_large(bytes));
        }
        let mut text = String::with_capacity(usize::try_from(bytes).unwrap_or(0));
        file.take(max_bytes.saturating_add(1))
            .read_to_string(&mut text)
            .map_err(io)?;
        if text.len() as u64 > max_bytes {
            return Err(too_large(text.len() as u64));
        }
        Document::parse(path, &text, Format::of(path))
    }

    /// The file that declares exactly `bindings` (those in `scope`; the others are left
    /// out): one block per principal, one rule per (pattern, permission, hosts).
    pub fn import(scope: Scope, bindings: &[AclBinding]) -> Document {
        type RuleKey = (ResourcePattern, AclPermissionType);
        let mut by_principal: BTreeMap<
            &str,
            BTreeMap<RuleKey, BTreeMap<AclOperation, BTreeSet<&str>>>,
        > = BTreeMap::new();
        for b in bindings.iter().filter(|b| scope.contains(b)) {
            by_principal
                .entry(b.entry.principal.as_str())
                .or_default()
                .entry((b.pattern.clone(), b.entry.permission_type))
                .or_default()
                .entry(b.entry.operation)
                .or_default()
                .insert(b.entry.host.as_str());
        }
        let mut acls = Vec::new();
        for (principal, rules) in by_principal {
            let mut block = PrincipalBlock {
                principal: Principal(principal.to_owned()),
                hosts: None,
                allow: Vec::new(),
                deny: Vec::new(),
                producer: None,
                consumer: None,
            };
            for ((pattern, permission), ops) in rules {
                // Operations that share the same host set go in one rule.
                let mut by_hosts: BTreeMap<Vec<&str>, Vec<Operation>> = BTreeMap::new();
                for (op, hosts) in ops {
                    by_hosts
                        .entry(hosts.into_iter().collect())
                        .or_default()
                        .push(Operation(op));
                }
                for (hosts, operations) in by_hosts {
                    let mut rule = Rule {
                        pattern: Pattern(pattern.pattern_type),
                        operations,
                        hosts: (hosts != [WILDCARD_HOST])
                            .then(|| hosts.iter().map(|h| (*h).to_owned()).collect()),
                        ..Rule::default()
                    };
                    let name = Some(pattern.name.clone());
                    match pattern.resource_type {
                        ResourceType::Topic => rule.topic = name,
                        ResourceType::Group => rule.group = name,
                        ResourceType::Cluster => rule.cluster = name,
                        ResourceType::TransactionalId => rule.transactional_id = name,
                        ResourceType::DelegationToken => rule.delegation_token = name,
                        _ => rule.user = name,
                    }
                    match permission {
                        AclPermissionType::Deny => block.deny.push(Checked(rule)),
                        _ => block.allow.push(Checked(rule)),
                    }
                }
            }
            acls.push(block);
        }
        Document {
            version: VERSION,
            scope,
            acls,
        }
    }

    /// The document as YAML.
    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }

    /// The document as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn too_many_acls() -> String {
    format!(
        "the file declares more than {} ACLs, the most a file of its size may (at least {}, \
         or one per {} bytes): its rules multiply hosts by operations beyond what it writes out",
        crate::thousands(limits::acl_limit()),
        crate::thousands(limits::MAX_ACLS),
        limits::BYTES_PER_ACL
    )
}

/// The parsers append ` at line L column C` (and serde_norway a path prefix); the
/// position is reported in its own fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}
