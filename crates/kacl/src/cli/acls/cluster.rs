//! What the policy commands read from the cluster: its ACLs (by filter) and the two
//! authorizer settings, with where those came from.

use kacl_acl::{AclBinding, AclBindingFilter, AuthorizerConfig};
use kacl_client::{
    Admin, ConfigResource, DescribeAclsOptions, DescribeClusterOptions, DescribeConfigsOptions,
};

use kacl_policy::Scope;

use super::policy_args::AuthorizerArgs;

/// The cluster's ACLs that `scope` owns, and how many others it holds, from one describe of
/// every ACL. The answer stays grouped by resource as decoded (shared strings) and only the
/// in-scope ACLs become owned bindings, so a plan of a small scope on a cluster of millions
/// never holds millions of bindings: the scope's resources are asked once per resource, its
/// principals once per entry.
pub(super) async fn acls_in_scope(
    admin: &Admin,
    scope: &Scope,
) -> anyhow::Result<(Vec<AclBinding>, usize)> {
    let groups = admin
        .describe_acls_grouped(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await?;
    let mut in_scope = Vec::new();
    let mut outside = 0;
    for group in &groups.groups {
        if !scope.owns_pattern(&group.pattern) {
            outside += group.entries.len();
            continue;
        }
        for entry in &group.entries {
            if scope.owns_principal(&entry.principal) {
                in_scope.push(AclBinding::new(group.pattern.clone(), entry.to_entry()));
            } else {
                outside += 1;
            }
        }
    }
    Ok((in_scope, outside))
}

/// Every ACL matching `filter`.
pub(super) async fn acls(
    admin: &Admin,
    filter: AclBindingFilter,
) -> anyhow::Result<Vec<AclBinding>> {
    Ok(admin
        .describe_acls(filter, DescribeAclsOptions::default())
        .await?)
}

/// Every ACL matching `filter` (a MATCH of one resource), pushed into `set` as read, borrowed
/// from the answer: no owned binding per ACL.
pub(super) async fn visit_acls(
    admin: &Admin,
    filter: AclBindingFilter,
    set: &mut kacl_policy::Candidates,
) -> anyhow::Result<()> {
    admin
        .describe_acls_visit(filter, DescribeAclsOptions::default(), |group| {
            group.acl_refs().for_each(|acl| set.push(acl));
        })
        .await?;
    Ok(())
}

/// Where `super.users` and `allow.everyone.if.no.acl.found` were taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ConfigSource {
    /// The broker's DescribeConfigs.
    Broker,
    /// `--super-users` / `--allow-everyone-if-no-acl-found`.
    Flags,
}

impl ConfigSource {
    /// The sentence the output carries.
    pub(super) fn describe(self) -> &'static str {
        match self {
            ConfigSource::Broker => "super.users and allow.everyone.if.no.acl.found: from the broker (DescribeConfigs)",
            ConfigSource::Flags => "super.users and allow.everyone.if.no.acl.found: from --super-users / --allow-everyone-if-no-acl-found (the broker did not serve them)",
        }
    }

    /// `broker` or `flags`, for JSON.
    pub(super) fn name(self) -> &'static str {
        match self {
            ConfigSource::Broker => "broker",
            ConfigSource::Flags => "flags",
        }
    }
}

/// The authorizer settings: the broker's where it serves them, else the flags.
pub(super) async fn authorizer_config(
    admin: &Admin,
    flags: &AuthorizerArgs,
) -> anyhow::Result<(AuthorizerConfig, ConfigSource)> {
    match broker_authorizer_config(admin).await {
        Some(config) => Ok((config, ConfigSource::Broker)),
        None => Ok((flags.config()?, ConfigSource::Flags)),
    }
}

/// The broker's own `super.users` and `allow.everyone.if.no.acl.found`, from DescribeConfigs
/// on the BROKER resource of the first broker DescribeCluster names. `None` (the caller then
/// uses the flags and says so) when the broker does not serve DescribeConfigs, refuses it, or
/// does not report `super.users` (Kafka lists only the keys it knows; an unset
/// `allow.everyone.if.no.acl.found` is Kafka's default, false).
async fn broker_authorizer_config(admin: &Admin) -> Option<AuthorizerConfig> {
    let cluster = admin
        .describe_cluster(DescribeClusterOptions::default())
        .await
        .ok()?;
    let broker = cluster.nodes.first()?.id;
    let options = DescribeConfigsOptions {
        configuration_keys: Some(vec![SUPER_USERS.into(), ALLOW_EVERYONE.into()]),
        ..DescribeConfigsOptions::default()
    };
    let entries = admin
        .describe_configs(vec![ConfigResource::broker(broker.to_string())], options)
        .await
        .into_iter()
        .next()?
        .ok()?;
    let value = |key: &str| {
        entries
            .iter()
            .find(|e| e.name == key)
            .map(|e| e.value.clone().unwrap_or_default())
    };
    let super_users = AuthorizerConfig::parse_super_users(&value(SUPER_USERS)?).ok()?;
    let allow_everyone_if_no_acl_found =
        value(ALLOW_EVERYONE).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    Some(AuthorizerConfig {
        super_users,
        allow_everyone_if_no_acl_found,
    })
}

const SUPER_USERS: &str = "super.users";
const ALLOW_EVERYONE: &str = "allow.everyone.if.no.acl.found";
