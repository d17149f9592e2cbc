//! The reference implementation: a plain list of ACLs, scanned linearly with Kafka's
//! rules written out as directly as possible. The property tests check the index
//! against it, and the benches run it side by side (a full scan is also what Kafka's
//! `AclCache.acls(filter)` does for every DescribeAcls).
#![allow(dead_code)]

use std::collections::{BTreeSet, HashSet};

use kacl_acl::{
    AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AuthorizationResult,
    AuthorizerConfig, PatternType, ResourceType, ResourceTypeCheckError,
};

/// Every ACL once, in insertion order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Oracle {
    acls: Vec<AclBinding>,
    present: HashSet<AclBinding>,
}

impl Oracle {
    pub(crate) fn new() -> Self {
        Oracle::default()
    }

    pub(crate) fn add(&mut self, binding: AclBinding) -> bool {
        if self.present.insert(binding.clone()) {
            self.acls.push(binding);
            true
        } else {
            false
        }
    }

    pub(crate) fn remove(&mut self, binding: &AclBinding) -> bool {
        if self.present.remove(binding) {
            self.acls.retain(|b| b != binding);
            true
        } else {
            false
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.acls.len()
    }

    pub(crate) fn acls(&self) -> &[AclBinding] {
        &self.acls
    }

    /// Every ACL the filter matches.
    pub(crate) fn describe(&self, filter: &AclBindingFilter) -> Vec<AclBinding> {
        self.acls
            .iter()
            .filter(|b| filter.matches(b))
            .cloned()
            .collect()
    }

    /// How many ACLs the filter matches (what a describe costs without building).
    pub(crate) fn count_matching(&self, filter: &AclBindingFilter) -> usize {
        self.acls.iter().filter(|b| filter.matches(b)).count()
    }

    pub(crate) fn authorize(
        &self,
        config: &AuthorizerConfig,
        principal: &str,
        host: &str,
        op: AclOperation,
        rt: ResourceType,
        name: &str,
    ) -> AuthorizationResult {
        if config.super_users.iter().any(|s| s == principal) {
            return AuthorizationResult::Allowed;
        }
        let mut applies = false;
        let mut allowed = false;
        for b in &self.acls {
            if b.pattern.resource_type != rt {
                continue;
            }
            let applicable = match b.pattern.pattern_type {
                PatternType::Literal => b.pattern.name == name || b.pattern.name == "*",
                PatternType::Prefixed => name.starts_with(b.pattern.name.as_str()),
                _ => false,
            };
            if !applicable {
                continue;
            }
            applies = true;
            let e = &b.entry;
            if e.principal != principal && e.principal != "User:*" {
                continue;
            }
            if !kacl_acl::host_matches(&e.host, host) {
                continue;
            }
            let op_matches = if e.operation == AclOperation::All {
                true
            } else if e.permission_type == AclPermissionType::Allow {
                match op {
                    AclOperation::Describe => matches!(
                        e.operation,
                        AclOperation::Describe
                            | AclOperation::Read
                            | AclOperation::Write
                            | AclOperation::Delete
                            | AclOperation::Alter
                    ),
                    AclOperation::DescribeConfigs => matches!(
                        e.operation,
                        AclOperation::DescribeConfigs | AclOperation::AlterConfigs
                    ),
                    _ => e.operation == op,
                }
            } else {
                e.operation == op
            };
            if !op_matches {
                continue;
            }
            match e.permission_type {
                AclPermissionType::Deny => return AuthorizationResult::Denied,
                AclPermissionType::Allow => allowed = true,
                _ => {}
            }
        }
        let default_allows = !applies && config.allow_everyone_if_no_acl_found;
        if allowed || default_allows {
            AuthorizationResult::Allowed
        } else {
            AuthorizationResult::Denied
        }
    }

    /// Kafka's default `Authorizer.authorizeByResourceType`, step by step.
    pub(crate) fn authorize_by_resource_type(
        &self,
        config: &AuthorizerConfig,
        principal: &str,
        host: &str,
        op: AclOperation,
        rt: ResourceType,
    ) -> Result<AuthorizationResult, ResourceTypeCheckError> {
        match rt {
            ResourceType::Any => return Err(ResourceTypeCheckError::FilterResourceType),
            ResourceType::Unknown => return Err(ResourceTypeCheckError::UnknownResourceType),
            _ => {}
        }
        match op {
            AclOperation::Any => return Err(ResourceTypeCheckError::FilterOperation),
            AclOperation::Unknown => return Err(ResourceTypeCheckError::UnknownOperation),
            _ => {}
        }
        if self.authorize(config, principal, host, op, rt, "hardcode")
            == AuthorizationResult::Allowed
        {
            return Ok(AuthorizationResult::Allowed);
        }
        let mut deny_literal = BTreeSet::new();
        let mut deny_prefixed = BTreeSet::new();
        let mut allow_literal = BTreeSet::new();
        let mut allow_prefixed = BTreeSet::new();
        let mut wildcard_allow = false;
        for b in self.acls.iter().filter(|b| b.pattern.resource_type == rt) {
            let e = &b.entry;
            if !kacl_acl::host_matches(&e.host, host) {
                continue;
            }
            if e.principal != principal && e.principal != "User:*" {
                continue;
            }
            if e.operation != op && e.operation != AclOperation::All {
                continue;
            }
            let name = b.pattern.name.clone();
            match (e.permission_type, b.pattern.pattern_type) {
                (AclPermissionType::Deny, PatternType::Literal) => {
                    if name == "*" {
                        return Ok(AuthorizationResult::Denied);
                    }
                    deny_literal.insert(name);
                }
                (AclPermissionType::Deny, PatternType::Prefixed) => {
                    deny_prefixed.insert(name);
                }
                (AclPermissionType::Allow, PatternType::Literal) => {
                    if name == "*" {
                        wildcard_allow = true;
                    } else {
                        allow_literal.insert(name);
                    }
                }
                (AclPermissionType::Allow, PatternType::Prefixed) => {
                    allow_prefixed.insert(name);
                }
                _ => {}
            }
        }
        if wildcard_allow {
            return Ok(AuthorizationResult::Allowed);
        }
        let dominated_by_prefix = |name: &str| {
            name.char_indices()
                .map(|(i, c)| &name[..i + c.len_utf8()])
                .any(|prefix| deny_prefixed.contains(prefix))
        };
        for name in &allow_literal {
            if deny_literal.contains(name) {
                continue;
            }
            if !dominated_by_prefix(name) {
                return Ok(AuthorizationResult::Allowed);
            }
        }
        for name in &allow_prefixed {
            if !dominated_by_prefix(name) {
                return Ok(AuthorizationResult::Allowed);
            }
        }
        Ok(AuthorizationResult::Denied)
    }
}
