//! From flags to ACLs, as Kafka's `AclCommand` computes them: resource filters from the
//! resource flags, entries from principals × hosts × operations, the `--producer`,
//! `--consumer` and `--idempotent` shortcuts, and the operation/resource-type check
//! (`AclEntry.supportedOperations` plus ALL).
//!
//! Kafka keeps these in hash maps and sets, so its output order varies; kacl sorts them
//! (resource type, name, pattern type; then principal, host, operation, permission).

use std::collections::{BTreeMap, BTreeSet};

use anyhow::bail;
use kacl_acl::{
    AccessControlEntry, AclOperation, AclPermissionType, KafkaPrincipal, PatternType,
    ResourcePatternFilter, ResourceType, CLUSTER_NAME, WILDCARD_HOST,
};

// The operations each resource type supports: the policy library's table, so the CLI and the
// desired-state file check against the same one.
use kacl_policy::supported_operations;

use super::args::AclsArgs;

/// A resource pattern filter with a name, in a sortable form.
pub(super) type ResourceKey = (ResourceType, String, PatternType);

/// Resource filters and the entries to add or remove on each.
pub(super) type ResourceAcls = BTreeMap<ResourceKey, BTreeSet<AccessControlEntry>>;

/// The filter for a key.
pub(super) fn to_filter(key: &ResourceKey) -> ResourcePatternFilter {
    ResourcePatternFilter::new(key.0, Some(key.1.clone()), key.2)
}

/// `--resource-pattern-type`, parsed case-insensitively as Kafka's enum converter does.
pub(super) fn pattern_type(args: &AclsArgs) -> anyhow::Result<PatternType> {
    let text = args.resource_pattern_type.trim();
    match PatternType::ALL
        .iter()
        .find(|p| p.kafka_name().eq_ignore_ascii_case(text))
    {
        Some(PatternType::Unknown) | None => {
            bail!(
                "Unknown resource-pattern-type: {}",
                args.resource_pattern_type
            )
        }
        Some(p) => Ok(*p),
    }
}

/// Kafka's `getResourceFilter`: one filter per resource flag value. `--cluster` (and
/// `--idempotent`) add the cluster only with the literal pattern type, as in Kafka.
pub(super) fn resource_filters(
    args: &AclsArgs,
    pattern_type: PatternType,
    die_if_none: bool,
) -> anyhow::Result<BTreeSet<ResourceKey>> {
    let mut filters = BTreeSet::new();
    for topic in &args.topic {
        filters.insert((ResourceType::Topic, topic.trim().to_owned(), pattern_type));
    }
    if pattern_type == PatternType::Literal && (args.cluster || args.idempotent) {
        filters.insert(cluster_key());
    }
    for group in &args.group {
        filters.insert((ResourceType::Group, group.trim().to_owned(), pattern_type));
    }
    // Kafka does not trim transactional ids; neither does kacl.
    for id in &args.transactional_id {
        filters.insert((ResourceType::TransactionalId, id.clone(), pattern_type));
    }
    for token in &args.delegation_token {
        filters.insert((
            ResourceType::DelegationToken,
            token.trim().to_owned(),
            pattern_type,
        ));
    }
    for user in &args.user_principal {
        filters.insert((ResourceType::User, user.trim().to_owned(), pattern_type));
    }
    if filters.is_empty() && die_if_none {
        bail!(
            "You must provide at least one resource: --topic <topic> or --cluster or --group \
             <group> or --delegation-token <Delegation Token ID>"
        );
    }
    Ok(filters)
}

fn cluster_key() -> ResourceKey {
    (
        ResourceType::Cluster,
        CLUSTER_NAME.to_owned(),
        PatternType::Literal,
    )
}

/// Parses `Type:name` principals, as `SecurityUtils.parseKafkaPrincipal`.
pub(super) fn principals(values: &[String]) -> anyhow::Result<BTreeSet<String>> {
    values
        .iter()
        .map(|p| {
            let principal: KafkaPrincipal = p.trim().parse()?;
            Ok(principal.to_string())
        })
        .collect()
}

/// The hosts for a permission: the given ones, else `*` when principals were given.
fn hosts(hosts: &[String], principals_given: bool) -> BTreeSet<String> {
    if !hosts.is_empty() {
        hosts.iter().map(|h| h.trim().to_owned()).collect()
    } else if principals_given {
        BTreeSet::from([WILDCARD_HOST.to_owned()])
    } else {
        BTreeSet::new()
    }
}

/// `--operation` values (default All).
pub(super) fn operations(args: &AclsArgs) -> anyhow::Result<BTreeSet<AclOperation>> {
    if args.operation.is_empty() {
        return Ok(BTreeSet::from([AclOperation::All]));
    }
    args.operation
        .iter()
        .map(|op| Ok(op.trim().parse::<AclOperation>()?))
        .collect()
}

/// Kafka's `getAcl(opts, operations)`: allow entries, then deny entries, each the product of
/// principals, operations and hosts.
pub(super) fn entries(
    args: &AclsArgs,
    operations: &BTreeSet<AclOperation>,
) -> anyhow::Result<BTreeSet<AccessControlEntry>> {
    let mut acls = BTreeSet::new();
    let sides = [
        (
            &args.allow_principal,
            &args.allow_host,
            AclPermissionType::Allow,
        ),
        (
            &args.deny_principal,
            &args.deny_host,
            AclPermissionType::Deny,
        ),
    ];
    for (principal_flags, host_flags, permission) in sides {
        let principals = principals(principal_flags)?;
        let hosts = hosts(host_flags, !principal_flags.is_empty());
        for principal in &principals {
            for operation in operations {
                for host in &hosts {
                    acls.insert(AccessControlEntry::new(
                        principal.as_str(),
                        host.as_str(),
                        *operation,
                        permission,
                    ));
                }
            }
        }
    }
    Ok(acls)
}

/// Kafka's `getResourceFilterToAcls`: the entries per resource filter for `--add` and
/// `--remove`, shortcuts expanded, operations checked against each resource type.
pub(super) fn resource_acls(
    args: &AclsArgs,
    pattern_type: PatternType,
) -> anyhow::Result<ResourceAcls> {
    let mut map = ResourceAcls::new();
    if !args.producer && !args.consumer {
        let acls = entries(args, &operations(args)?)?;
        for key in resource_filters(args, pattern_type, true)? {
            map.insert(key, acls.clone());
        }
    }
    if args.producer {
        let filters = resource_filters(args, pattern_type, true)?;
        let topic_acls = entries(
            args,
            &BTreeSet::from([
                AclOperation::Write,
                AclOperation::Describe,
                AclOperation::Create,
            ]),
        )?;
        let transactional_acls = entries(
            args,
            &BTreeSet::from([AclOperation::Write, AclOperation::Describe]),
        )?;
        for key in filters {
            match key.0 {
                ResourceType::Topic => {
                    map.insert(key, topic_acls.clone());
                }
                ResourceType::TransactionalId => {
                    map.insert(key, transactional_acls.clone());
                }
                _ => {}
            }
        }
        if args.idempotent {
            map.insert(
                cluster_key(),
                entries(args, &BTreeSet::from([AclOperation::IdempotentWrite]))?,
            );
        }
    }
    if args.consumer {
        let filters = resource_filters(args, pattern_type, true)?;
        let topic_acls = entries(
            args,
            &BTreeSet::from([AclOperation::Read, AclOperation::Describe]),
        )?;
        let group_acls = entries(args, &BTreeSet::from([AclOperation::Read]))?;
        for key in filters {
            let acls = match key.0 {
                ResourceType::Topic => &topic_acls,
                ResourceType::Group => &group_acls,
                _ => continue,
            };
            map.entry(key).or_default().extend(acls.iter().cloned());
        }
    }
    validate_operations(&map)?;
    Ok(map)
}

/// Kafka's `validateOperation`: every entry's operation must be supported by its resource type
/// or be ALL. (Kafka prints the set in hash order; kacl in code order.)
pub(super) fn validate_operations(map: &ResourceAcls) -> anyhow::Result<()> {
    for (key, acls) in map {
        let supported = supported_operations(key.0);
        let valid = |op: AclOperation| op == AclOperation::All || supported.contains(&op);
        if acls.iter().any(|acl| !valid(acl.operation)) {
            let mut names: Vec<AclOperation> = supported.to_vec();
            names.push(AclOperation::All);
            names.sort();
            let names: Vec<&str> = names.iter().map(|op| op.kafka_name()).collect();
            bail!(
                "ResourceType {} only supports operations [{}]",
                key.0,
                names.join(", ")
            );
        }
    }
    Ok(())
}

/// `--add`'s `getResourceToAcls`: a specific pattern type and at least one principal.
pub(super) fn resource_acls_to_add(
    args: &AclsArgs,
    pattern_type: PatternType,
) -> anyhow::Result<ResourceAcls> {
    if !matches!(pattern_type, PatternType::Literal | PatternType::Prefixed) {
        bail!(
            "A '--resource-pattern-type' value of '{pattern_type}' is not valid when adding acls."
        );
    }
    let map = resource_acls(args, pattern_type)?;
    if map.values().any(BTreeSet::is_empty) {
        bail!(
            "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."
        );
    }
    Ok(map)
}
