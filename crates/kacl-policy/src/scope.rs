//! Ownership: which ACLs a file manages. A plan never adds, removes or even counts as
//! "changed" an ACL outside its file's scope, so several files (teams) can share a
//! cluster, and ACLs made by hand elsewhere stay untouched.
//!
//! An ACL is in scope when its principal is one of `principals` (or that list is empty)
//! and its resource pattern lies under one of `resources` (or that list is empty): a
//! LITERAL scope entry owns exactly that LITERAL pattern, a PREFIXED one owns every
//! pattern (LITERAL or PREFIXED) of that type whose name starts with the prefix. A scope
//! with neither list must say `all: true`, so that owning the whole cluster is a choice.

use kacl_acl::{AclBinding, PatternType, ResourcePattern, ResourceType};
use serde::{Deserialize, Serialize};

use crate::located::{Check, Checked};
use crate::values::{is_literal, Pattern, Principal};

/// What a file owns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The file owns every ACL of the cluster (only when both lists are empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// Principals the file owns (exact `Type:name`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub principals: Vec<Principal>,
    /// Resource patterns the file owns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Checked<ScopeResource>>,
}

/// One resource (LITERAL) or family of resources (PREFIXED) a file owns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeResource {
    /// Topics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The cluster (`kafka-cluster`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// Transactional ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactional_id: Option<String>,
    /// Delegation tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation_token: Option<String>,
    /// User principals as resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// `literal` (default) or `prefixed`.
    #[serde(default, skip_serializing_if = "is_literal")]
    pub pattern: Pattern,
}

impl Serialize for Checked<ScopeResource> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl ScopeResource {
    /// A scope entry for `pattern`.
    pub fn new(pattern: &ResourcePattern) -> ScopeResource {
        let mut out = ScopeResource {
            pattern: Pattern(pattern.pattern_type),
            ..ScopeResource::default()
        };
        let name = Some(pattern.name.clone());
        match pattern.resource_type {
            ResourceType::Topic => out.topic = name,
            ResourceType::Group => out.group = name,
            ResourceType::Cluster => out.cluster = name,
            ResourceType::TransactionalId => out.transactional_id = name,
            ResourceType::DelegationToken => out.delegation_token = name,
            _ => out.user = name,
        }
        out
    }

    /// The one resource type and name this entry names, without allocating (a plan asks this
    /// of every ACL of the cluster).
    fn named(&self) -> Result<(ResourceType, &str), &'static str> {
        let mut named = [
            (ResourceType::Topic, &self.topic),
            (ResourceType::Group, &self.group),
            (ResourceType::Cluster, &self.cluster),
            (ResourceType::TransactionalId, &self.transactional_id),
            (ResourceType::DelegationToken, &self.delegation_token),
            (ResourceType::User, &self.user),
        ]
        .into_iter()
        .filter_map(|(t, n)| n.as_deref().map(|n| (t, n)));
        match (named.next(), named.next()) {
            (Some(one), None) => Ok(one),
            (None, _) => Err("a scope resource names no resource"),
            (Some(_), Some(_)) => Err("a scope resource names more than one resource"),
        }
    }

    /// The pattern this entry names.
    pub fn pattern(&self) -> Result<ResourcePattern, String> {
        let (resource_type, name) = self.named()?;
        Ok(ResourcePattern::new(resource_type, name, self.pattern.0))
    }

    /// Does this entry own `pattern`?
    pub fn owns(&self, pattern: &ResourcePattern) -> bool {
        let Ok((resource_type, name)) = self.named() else {
            return false;
        };
        resource_type == pattern.resource_type
            && match self.pattern.0 {
                PatternType::Prefixed => pattern.name.starts_with(name),
                _ => pattern.pattern_type == PatternType::Literal && pattern.name == name,
            }
    }
}

impl Check for ScopeResource {
    fn check(&self) -> Result<(), String> {
        self.pattern().map(drop)
    }
}

impl Scope {
    /// A scope of principals and resource patterns.
    pub fn new(principals: Vec<String>, resources: Vec<ResourcePattern>) -> Scope {
        Scope {
            all: principals.is_empty() && resources.is_empty(),
            principals: principals.into_iter().map(Principal).collect(),
            resources: resources
                .iter()
                .map(|p| Checked(ScopeResource::new(p)))
                .collect(),
        }
    }

    /// `Err` for a scope that owns everything without saying so, or says so with lists.
    pub fn check(&self) -> Result<(), String> {
        let empty = self.principals.is_empty() && self.resources.is_empty();
        match (self.all, empty) {
            (false, true) => Err("the scope names no principal and no resource; \
                                  write `all: true` to own every ACL of the cluster"
                .into()),
            (true, false) => {
                Err("`all: true` cannot be combined with principals or resources".into())
            }
            _ => Ok(()),
        }
    }

    /// Is `binding` owned by this scope?
    pub fn contains(&self, binding: &AclBinding) -> bool {
        self.owns_principal(&binding.entry.principal) && self.owns_pattern(&binding.pattern)
    }

    /// Does the scope own ACLs of `principal` (on the resources it owns)?
    pub fn owns_principal(&self, principal: &str) -> bool {
        self.principals.is_empty() || self.principals.iter().any(|p| p.0 == principal)
    }

    /// Does the scope own ACLs on `pattern` (of the principals it owns)? A caller holding ACLs
    /// grouped by resource asks this once per group.
    pub fn owns_pattern(&self, pattern: &ResourcePattern) -> bool {
        self.resources.is_empty() || self.resources.iter().any(|r| r.0.owns(pattern))
    }
}
