//! Kafka's ACL model for kacl: the enums with Kafka's wire codes, resource patterns,
//! access control entries, bindings and their filters with Kafka's exact matching
//! rules, validation of new ACLs, an indexed ACL set, and an authorizer that decides
//! as Kafka's `StandardAuthorizer` does.
//!
//! This crate knows nothing of the network or of disks; the server, the store and the
//! client all speak in these types.
#![forbid(unsafe_code)]

mod enums;
mod types;

pub use enums::{AclOperation, AclPermissionType, ParseEnumError, PatternType, ResourceType};
pub use types::{
    AccessControlEntry, AclBinding, ResourcePattern, CLUSTER_NAME, WILDCARD_HOST,
    WILDCARD_PRINCIPAL, WILDCARD_RESOURCE,
};
