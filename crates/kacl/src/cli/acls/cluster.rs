//! Where the policy commands' authorizer settings come from: the broker's (read by
//! [`kacl_policy::cluster`], which also reads the ACLs), else the command's flags.

use kacl_acl::AuthorizerConfig;

use super::policy_args::AuthorizerArgs;

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
            ConfigSource::Flags => "super.users and allow.everyone.if.no.acl.found: from --super-users / --allow-everyone-if-no-acl-found (the broker did not report them; Kafka 4.4 and kacl mask them)",
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

/// The authorizer settings: the broker's where it serves them (`broker`), else the flags.
pub(super) fn authorizer_config(
    broker: Option<AuthorizerConfig>,
    flags: &AuthorizerArgs,
) -> anyhow::Result<(AuthorizerConfig, ConfigSource)> {
    match broker {
        Some(config) => Ok((config, ConfigSource::Broker)),
        None => Ok((flags.config()?, ConfigSource::Flags)),
    }
}
