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

    /// The pattern this entry names.
    pub fn pattern(&self) -> Result<ResourcePattern, String> {
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
            [] => Err("a scope resource names no resource".into()),
            _ => Err("a scope resource names more than one resource".into()),
        }
    }

    /// Does this entry own `pattern`?
    pub fn owns(&self, pattern: &ResourcePattern) -> bool {
        let Ok(mine) = self.pattern() else {
            return false;
        };
        mine.resource_type == pattern.resource_type
            && match mine.pattern_type {
                PatternType::Prefixed => pattern.name.starts_with(&mine.name),
                _ => pattern.pattern_type == PatternType::Literal && pattern.name == mine.name,
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
        (self.principals.is_empty()
            || self
                .principals
                .iter()
                .any(|p| p.0 == binding.entry.principal))
            && (self.resources.is_empty()
                || self.resources.iter().any(|r| r.0.owns(&binding.pattern)))
    }
}
