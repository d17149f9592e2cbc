//! What the policy commands read from the cluster: its ACLs (by filter) and the two
//! authorizer settings, with where those came from.

use kacl_acl::{AclBinding, AclBindingFilter, AuthorizerConfig};
use kacl_client::{Admin, DescribeAclsOptions};

use super::policy_args::AuthorizerArgs;

/// Every ACL matching `filter`.
pub async fn acls(admin: &Admin, filter: AclBindingFilter) -> anyhow::Result<Vec<AclBinding>> {
    Ok(admin
        .describe_acls(filter, DescribeAclsOptions::default())
        .await?)
}

/// Where `super.users` and `allow.everyone.if.no.acl.found` were taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    /// The broker's DescribeConfigs.
    Broker,
    /// `--super-users` / `--allow-everyone-if-no-acl-found`.
    Flags,
}

impl ConfigSource {
    /// The sentence the output carries.
    pub fn describe(self) -> &'static str {
        match self {
            ConfigSource::Broker => "super.users and allow.everyone.if.no.acl.found: from the broker (DescribeConfigs)",
            ConfigSource::Flags => "super.users and allow.everyone.if.no.acl.found: from --super-users / --allow-everyone-if-no-acl-found (the broker did not serve them)",
        }
    }

    /// `broker` or `flags`, for JSON.
    pub fn name(self) -> &'static str {
        match self {
            ConfigSource::Broker => "broker",
            ConfigSource::Flags => "flags",
        }
    }
}

/// The authorizer settings: the broker's where it serves them, else the flags.
pub async fn authorizer_config(
    admin: &Admin,
    flags: &AuthorizerArgs,
) -> anyhow::Result<(AuthorizerConfig, ConfigSource)> {
    match broker_authorizer_config(admin).await {
        Some(config) => Ok((config, ConfigSource::Broker)),
        None => Ok((flags.config()?, ConfigSource::Flags)),
    }
}

/// PLUG-IN POINT for DescribeConfigs (issue 15, `Admin::describe_configs` in kacl-client):
/// describe the BROKER resource of any broker, read `super.users` (parse it with
/// `AuthorizerConfig::parse_super_users`) and `allow.everyone.if.no.acl.found` (`true` /
/// `false`), and return them. `None` (until then, and for a broker that refuses or does not
/// know DescribeConfigs) makes the caller use the flags and say so.
async fn broker_authorizer_config(admin: &Admin) -> Option<AuthorizerConfig> {
    let _ = admin;
    None
}
