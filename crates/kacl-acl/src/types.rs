//! Resource patterns, access control entries and bindings: the 2-tuple and 4-tuple of
//! KIP-140, joined into the 7-tuple that is an ACL's identity.

use std::fmt;

use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};

/// The only valid name of the CLUSTER resource (`Resource.CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";
/// The resource name that, as a LITERAL pattern, applies to every resource of its type.
pub const WILDCARD_RESOURCE: &str = "*";
/// The host that matches every client address.
pub const WILDCARD_HOST: &str = "*";
/// The principal that matches every user.
pub const WILDCARD_PRINCIPAL: &str = "User:*";

/// A resource, or a family of resources, that ACLs are bound to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourcePattern {
    /// The kind of resource.
    pub resource_type: ResourceType,
    /// The name, a prefix of names (PREFIXED), or `*` (LITERAL wildcard).
    pub name: String,
    /// LITERAL or PREFIXED for a stored ACL.
    pub pattern_type: PatternType,
}

impl ResourcePattern {
    /// A pattern from its three parts.
    pub fn new(
        resource_type: ResourceType,
        name: impl Into<String>,
        pattern_type: PatternType,
    ) -> Self {
        ResourcePattern {
            resource_type,
            name: name.into(),
            pattern_type,
        }
    }
}

/// Kafka's `toString()`: `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`.
impl fmt::Display for ResourcePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ResourcePattern(resourceType={}, name={}, patternType={})",
            self.resource_type, self.name, self.pattern_type
        )
    }
}

/// Who may (or may not) do what from where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccessControlEntry {
    /// `Type:name`, e.g. `User:alice`, or `User:*` for everyone.
    pub principal: String,
    /// A client address, or `*` for any.
    pub host: String,
    /// The operation this entry governs.
    pub operation: AclOperation,
    /// ALLOW or DENY.
    pub permission_type: AclPermissionType,
}

impl AccessControlEntry {
    /// An entry from its four parts.
    pub fn new(
        principal: impl Into<String>,
        host: impl Into<String>,
        operation: AclOperation,
        permission_type: AclPermissionType,
    ) -> Self {
        AccessControlEntry {
            principal: principal.into(),
            host: host.into(),
            operation,
            permission_type,
        }
    }
}

/// Kafka's `AccessControlEntryData.toString()`:
/// `(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)`.
impl fmt::Display for AccessControlEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(principal={}, host={}, operation={}, permissionType={})",
            self.principal, self.host, self.operation, self.permission_type
        )
    }
}

/// One ACL: an entry bound to a resource pattern. Its 7 fields are its identity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AclBinding {
    /// What the ACL protects.
    pub pattern: ResourcePattern,
    /// Who, where, what, and whether.
    pub entry: AccessControlEntry,
}

impl AclBinding {
    /// A binding from a pattern and an entry.
    pub fn new(pattern: ResourcePattern, entry: AccessControlEntry) -> Self {
        AclBinding { pattern, entry }
    }
}

/// Kafka's `AclBinding.toString()`: `(pattern=ResourcePattern(...), entry=(...))`.
impl fmt::Display for AclBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(pattern={}, entry={})", self.pattern, self.entry)
    }
}
