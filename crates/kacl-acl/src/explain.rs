//! Why the authorizer decided as it did: the rule behind a decision, named as Kafka's
//! `StandardAuthorizerData` names it in its audit line (`... based on rule SuperUser`,
//! `MatchingAcl(acl=StandardAcl(...))`, `DefaultAllow`, `DefaultDeny`).
//!
//! The decision itself is never recomputed here: [`crate::AuthorizerSession::explain`]
//! takes the same verdict from the index that `authorize` takes, and only then looks for
//! the ACL that carries it, among the ACLs that apply to the resource (a MATCH describe).
//! So `authorize` pays nothing for explanations, and an explanation cannot disagree with
//! the decision it explains.
//!
//! Deliberate difference from Kafka: when several ACLs could carry the decision, Kafka
//! names the first DENY (or the last ALLOW) of its reverse-name walk; kacl names the
//! first in the order LITERAL name, PREFIXED prefixes longest first, then LITERAL `*`,
//! and within one pattern the requester's own principal before `User:*`, its host
//! before `*` before a CIDR range holding it, the lowest operation code first. The
//! decision is the same; only which of several equally deciding ACLs is quoted may
//! differ.

use std::fmt;

use crate::enums::{
    AclOperation, AclPermissionType, AuthorizationResult, PatternType, ResourceType,
};
use crate::filter::{AccessControlEntryFilter, AclBindingFilter, ResourcePatternFilter};
use crate::host::host_in_range;
use crate::index::AclIndex;
use crate::types::{AclBinding, WILDCARD_HOST, WILDCARD_PRINCIPAL, WILDCARD_RESOURCE};

/// The rule that decided, as Kafka's `MatchingRule`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DecidingRule {
    /// The principal is in `super.users`: allowed.
    SuperUser,
    /// An ACL matched the principal (or `User:*`), the host (or `*`) and the operation:
    /// a DENY (of the operation or ALL) denies, else an ALLOW allows.
    MatchingAcl {
        /// The stored ACL that decided.
        acl: AclBinding,
        /// True when an ALLOW of another operation granted the one asked for
        /// (READ/WRITE/DELETE/ALTER ⇒ DESCRIBE, ALTER_CONFIGS ⇒ DESCRIBE_CONFIGS);
        /// false for the operation itself or ALL.
        implied: bool,
    },
    /// No ACL of anyone applies to the resource and `allow.everyone.if.no.acl.found`
    /// is true: allowed (Kafka's `DefaultAllow`).
    DefaultAllow,
    /// Denied by default: either no ACL applies to the resource (and
    /// `allow.everyone.if.no.acl.found` is false), or ACLs apply but none matches the
    /// requester (Kafka's `DefaultDeny` in both cases).
    DefaultDeny {
        /// True when some ACL applies to the resource (only not to this requester).
        resource_has_acls: bool,
    },
}

impl DecidingRule {
    /// The result this rule gives.
    pub fn result(&self) -> AuthorizationResult {
        match self {
            DecidingRule::SuperUser | DecidingRule::DefaultAllow => AuthorizationResult::Allowed,
            DecidingRule::MatchingAcl { acl, .. } => match acl.entry.permission_type {
                AclPermissionType::Allow => AuthorizationResult::Allowed,
                _ => AuthorizationResult::Denied,
            },
            DecidingRule::DefaultDeny { .. } => AuthorizationResult::Denied,
        }
    }
}

/// Kafka's `MatchingRule.toString()`, the tail of its audit line after `based on rule `:
/// `SuperUser`, `DefaultAllow`, `DefaultDeny`, or
/// `MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders,
/// patternType=LITERAL, principal=User:alice, host=*, operation=READ, permissionType=ALLOW))`.
impl fmt::Display for DecidingRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecidingRule::SuperUser => f.write_str("SuperUser"),
            DecidingRule::DefaultAllow => f.write_str("DefaultAllow"),
            DecidingRule::DefaultDeny { .. } => f.write_str("DefaultDeny"),
            DecidingRule::MatchingAcl { acl, .. } => write!(
                f,
                "MatchingAcl(acl=StandardAcl(resourceType={}, resourceName={}, patternType={}, \
                 principal={}, host={}, operation={}, permissionType={}))",
                acl.pattern.resource_type,
                acl.pattern.name,
                acl.pattern.pattern_type,
                acl.entry.principal,
                acl.entry.host,
                acl.entry.operation,
                acl.entry.permission_type
            ),
        }
    }
}

/// A decision and the rule behind it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Explanation {
    /// What `authorize` answers for the same question.
    pub result: AuthorizationResult,
    /// Why.
    pub rule: DecidingRule,
}

/// Does an ALLOW of `stored` grant `asked`, and if so is it by implication?
/// `Some(false)`: the operation itself or ALL; `Some(true)`: implied; `None`: no.
pub fn allow_grants(stored: AclOperation, asked: AclOperation) -> Option<bool> {
    use AclOperation::*;
    if stored == All || stored == asked {
        return Some(false);
    }
    let implied = match asked {
        Describe => matches!(stored, Read | Write | Delete | Alter),
        DescribeConfigs => stored == AlterConfigs,
        _ => false,
    };
    implied.then_some(true)
}

/// Does a DENY of `stored` refuse `asked`? Only the operation itself or ALL: a DENY is
/// never implied.
pub fn deny_refuses(stored: AclOperation, asked: AclOperation) -> bool {
    stored == AclOperation::All || stored == asked
}

/// Where a pattern stands in the order explanations quote ACLs in (lower first).
fn pattern_rank(pattern_type: PatternType, name: &str) -> (u8, usize) {
    match pattern_type {
        PatternType::Literal if name == WILDCARD_RESOURCE => (2, 0),
        PatternType::Literal => (0, 0),
        _ => (1, usize::MAX - name.len()),
    }
}

/// (pattern kind, inverse prefix length, principal, host, operation code): lower first.
type Rank = (u8, usize, u8, u8, i8);

/// The ACL that carries `wanted` (ALLOW or DENY) for the requester on the resource,
/// from the ACLs that apply to it, in the order the module doc gives.
pub(crate) fn deciding_acl(
    acls: &AclIndex,
    principal: &str,
    host: &str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: &str,
    wanted: AclPermissionType,
) -> Option<(AclBinding, bool)> {
    let filter = AclBindingFilter::new(
        ResourcePatternFilter::new(resource_type, Some(name), PatternType::Match),
        AccessControlEntryFilter::new(None::<&str>, None::<&str>, AclOperation::Any, wanted),
    );
    let principal_rank = |p: &str| match p {
        _ if p == principal => Some(0u8),
        WILDCARD_PRINCIPAL => Some(1),
        _ => None,
    };
    let host_rank = |h: &str| match h {
        _ if h == host => Some(0u8),
        WILDCARD_HOST => Some(1),
        _ if host_in_range(host, h) => Some(2),
        _ => None,
    };
    let mut best: Option<(Rank, AclBinding, bool)> = None;
    acls.for_each_group(&filter, |group| {
        let pattern = group.pattern;
        let (kind, length) = pattern_rank(pattern.pattern_type, pattern.name);
        for entry in group.entries {
            let (Some(p), Some(h)) = (principal_rank(entry.principal), host_rank(entry.host))
            else {
                continue;
            };
            let implied = match wanted {
                AclPermissionType::Deny if deny_refuses(entry.operation, operation) => false,
                AclPermissionType::Allow => match allow_grants(entry.operation, operation) {
                    Some(implied) => implied,
                    None => continue,
                },
                _ => continue,
            };
            let rank = (kind, length, p, h, entry.operation.code());
            if best.as_ref().is_none_or(|(r, _, _)| rank < *r) {
                let acl = AclBinding::new(pattern.to_pattern(), entry.to_entry());
                best = Some((rank, acl, implied));
            }
        }
    });
    best.map(|(_, acl, implied)| (acl, implied))
}
