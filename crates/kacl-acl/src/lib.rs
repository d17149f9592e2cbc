//! Kafka's ACL model for kacl: the enums with Kafka's wire codes, resource patterns,
//! access control entries, bindings and their filters with Kafka's exact matching
//! rules, validation of new ACLs, an indexed ACL set, an authorizer that decides
//! as Kafka's `StandardAuthorizer` does, and the rule behind each decision (what Kafka's
//! audit line names).
//!
//! This crate knows nothing of the network or of disks; the server, the store and the
//! client all speak in these types.
#![forbid(unsafe_code)]

mod authorizer;
mod enums;
mod explain;
mod filter;
mod host;
mod index;
mod types;
mod validate;

pub use authorizer::{Authorizer, AuthorizerConfig, AuthorizerSession, ResourceTypeCheckError};
pub use enums::{
    AclOperation, AclPermissionType, AuthorizationResult, ParseEnumError, PatternType, ResourceType,
};
pub use explain::{allow_grants, deny_refuses, DecidingRule, Explanation};
pub use filter::{AccessControlEntryFilter, AclBindingFilter, ResourcePatternFilter};
pub use host::{canonical_host, host_in_range, host_matches};
pub use index::{
    is_storable, AclChanges, AclDigest, AclGroup, AclIndex, AclIndexBuilder, AclIndexReadGuard,
    AclRef, ApplyOutcome, DeletePlan, EntryRef, GroupEntries, IndexBytesError, IndexError,
    PatternRef, SharedAclIndex,
};
pub use types::{
    AccessControlEntry, AclBinding, ResourcePattern, CLUSTER_NAME, WILDCARD_HOST,
    WILDCARD_PRINCIPAL, WILDCARD_RESOURCE,
};
pub use validate::{
    fails_kafka_construction, validate_host, validate_new_acl, AclValidationError, KafkaPrincipal,
    PrincipalParseError, INVALID_REQUEST,
};
