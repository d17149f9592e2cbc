//! The checks Kafka makes before it stores a new ACL, with Kafka's error code and its
//! exact message for each, and the `Type:name` principal parser.
//!
//! Kafka checks a CreateAcls entry in two places, and the order decides which message
//! a client sees when several rules are broken:
//! 1. `AclApis.handleCreateAcls` (broker and controller alike): a CLUSTER resource
//!    whose name is not `kafka-cluster`, then an empty name.
//! 2. `AclControlManager.validateNewAcl`: resource type, pattern type, operation,
//!    permission type, (empty name again, unreachable after step 1), since
//!    KAFKA-18051 a principal with no colon, and since Kafka 4.4 the host (not empty; a
//!    CIDR range if it holds `/`).
//!
//! Before either, Kafka's request parser builds `ResourcePattern`/`AccessControlEntry`
//! objects whose constructors throw for the filter-only values (see
//! [`fails_kafka_construction`]); that fails the whole request with -1 and is the
//! server's business, not a per-ACL validation error.

use std::fmt;
use std::str::FromStr;

use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};
use crate::types::{AclBinding, CLUSTER_NAME};

/// Kafka's `INVALID_REQUEST` error code, the code of every validation failure here.
pub const INVALID_REQUEST: i16 = 42;

/// Why a new ACL was refused, each with Kafka's message text as its `Display`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AclValidationError {
    /// A CLUSTER resource must be named exactly `kafka-cluster` (any pattern type).
    #[error("The only valid name for the CLUSTER resource is kafka-cluster")]
    InvalidClusterName,
    /// The resource name is empty (AclApis' wording, which is what clients see).
    #[error("Invalid empty resource name")]
    EmptyResourceName,
    /// The resource type is `UNKNOWN` or `ANY`.
    #[error("Invalid resourceType {0}")]
    InvalidResourceType(ResourceType),
    /// The pattern type is neither `LITERAL` nor `PREFIXED`.
    #[error("Invalid patternType {0}")]
    InvalidPatternType(PatternType),
    /// The operation is `UNKNOWN` or `ANY`.
    #[error("Invalid operation {0}")]
    InvalidOperation(AclOperation),
    /// The permission type is neither `ALLOW` nor `DENY`.
    #[error("Invalid permissionType {0}")]
    InvalidPermissionType(AclPermissionType),
    /// The principal has no `:` (KAFKA-18051). Only the colon is checked: `a:` passes.
    #[error(
        "Could not parse principal from `{0}` (no colon is present separating the principal type from the principal name)"
    )]
    PrincipalWithoutColon(String),
    /// The host is empty (`AclControlManager.validateHostPattern`).
    #[error("Host pattern cannot be null or empty")]
    EmptyHost,
    /// The host holds `/` but is not a CIDR range Kafka's `CidrUtils.validate` accepts;
    /// the second field is Commons Net's reason.
    #[error("Invalid CIDR notation '{0}': {1}")]
    InvalidCidr(String, String),
}

impl AclValidationError {
    /// The Kafka error code to put in the CreateAcls result: always 42 INVALID_REQUEST.
    pub fn error_code(&self) -> i16 {
        INVALID_REQUEST
    }
}

/// Checks a new ACL as Kafka does, in Kafka's order, returning the first failure.
pub fn validate_new_acl(binding: &AclBinding) -> Result<(), AclValidationError> {
    let pattern = &binding.pattern;
    let entry = &binding.entry;
    if pattern.resource_type == ResourceType::Cluster && pattern.name != CLUSTER_NAME {
        return Err(AclValidationError::InvalidClusterName);
    }
    if pattern.name.is_empty() {
        return Err(AclValidationError::EmptyResourceName);
    }
    if matches!(
        pattern.resource_type,
        ResourceType::Unknown | ResourceType::Any
    ) {
        return Err(AclValidationError::InvalidResourceType(
            pattern.resource_type,
        ));
    }
    if !matches!(
        pattern.pattern_type,
        PatternType::Literal | PatternType::Prefixed
    ) {
        return Err(AclValidationError::InvalidPatternType(pattern.pattern_type));
    }
    if matches!(entry.operation, AclOperation::Unknown | AclOperation::Any) {
        return Err(AclValidationError::InvalidOperation(entry.operation));
    }
    if !matches!(
        entry.permission_type,
        AclPermissionType::Allow | AclPermissionType::Deny
    ) {
        return Err(AclValidationError::InvalidPermissionType(
            entry.permission_type,
        ));
    }
    if !entry.principal.contains(':') {
        return Err(AclValidationError::PrincipalWithoutColon(
            entry.principal.clone(),
        ));
    }
    validate_host(&entry.host)
}

/// Kafka 4.4's `AclControlManager.validateHostPattern`: not empty; `*` or a plain
/// address as given; a host holding `/` must be a CIDR range `CidrUtils.validate`
/// accepts. (Kafka also refuses CIDR below metadata.version 4.4-IV1; kacl always
/// speaks at 4.4's level, so CIDR hosts are always allowed.)
pub fn validate_host(host: &str) -> Result<(), AclValidationError> {
    if host.is_empty() {
        return Err(AclValidationError::EmptyHost);
    }
    if host != crate::types::WILDCARD_HOST && host.contains('/') {
        if let Err(reason) = crate::host::CidrRange::parse(host) {
            return Err(AclValidationError::InvalidCidr(host.to_string(), reason));
        }
    }
    Ok(())
}

/// True for a binding Kafka's request parser cannot even build: resource type `ANY`,
/// pattern type `ANY` or `MATCH`, operation `ANY` or permission `ANY` (the
/// constructors of `ResourcePattern` and `AccessControlEntry` throw). Kafka then answers
/// every creation of the request with -1 UNKNOWN_SERVER_ERROR and a null message.
pub fn fails_kafka_construction(binding: &AclBinding) -> bool {
    binding.pattern.resource_type == ResourceType::Any
        || matches!(
            binding.pattern.pattern_type,
            PatternType::Any | PatternType::Match
        )
        || binding.entry.operation == AclOperation::Any
        || binding.entry.permission_type == AclPermissionType::Any
}

/// A principal split into its type and name (`User:alice` → `User`, `alice`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KafkaPrincipal {
    /// The part before the first colon, e.g. `User`.
    pub principal_type: String,
    /// Everything after the first colon; it may itself contain colons.
    pub name: String,
}

impl KafkaPrincipal {
    /// The type Kafka gives to authenticated users.
    pub const USER_TYPE: &'static str = "User";

    /// A principal from its two parts.
    pub fn new(principal_type: impl Into<String>, name: impl Into<String>) -> Self {
        KafkaPrincipal {
            principal_type: principal_type.into(),
            name: name.into(),
        }
    }
}

/// A principal string without a colon, with Kafka's `SecurityUtils.parseKafkaPrincipal` text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a string in format principalType:principalName but got {0}")]
pub struct PrincipalParseError(pub String);

/// Splits at the first colon, as `SecurityUtils.parseKafkaPrincipal` does.
impl FromStr for KafkaPrincipal {
    type Err = PrincipalParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (principal_type, name) = s
            .split_once(':')
            .ok_or_else(|| PrincipalParseError(s.to_string()))?;
        Ok(KafkaPrincipal::new(principal_type, name))
    }
}

/// `Type:name`, Kafka's `toString()`.
impl fmt::Display for KafkaPrincipal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.principal_type, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AccessControlEntry, ResourcePattern};

    fn binding(
        rt: ResourceType,
        name: &str,
        pt: PatternType,
        principal: &str,
        op: AclOperation,
        perm: AclPermissionType,
    ) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(rt, name, pt),
            AccessControlEntry::new(principal, "*", op, perm),
        )
    }

    fn good() -> AclBinding {
        binding(
            ResourceType::Topic,
            "orders",
            PatternType::Literal,
            "User:alice",
            AclOperation::Read,
            AclPermissionType::Allow,
        )
    }

    fn message(b: &AclBinding) -> Option<String> {
        validate_new_acl(b).err().map(|e| {
            assert_eq!(e.error_code(), 42);
            e.to_string()
        })
    }

    #[test]
    fn accepts_a_plain_acl_and_a_principal_with_an_empty_name() {
        assert_eq!(validate_new_acl(&good()), Ok(()));
        let mut b = good();
        b.entry.principal = "a:".into();
        assert_eq!(validate_new_acl(&b), Ok(()));
        let cluster = binding(
            ResourceType::Cluster,
            "kafka-cluster",
            PatternType::Literal,
            "User:a",
            AclOperation::Alter,
            AclPermissionType::Deny,
        );
        assert_eq!(validate_new_acl(&cluster), Ok(()));
    }

    #[test]
    fn each_rule_with_kafkas_text() {
        let mut b = good();
        b.pattern.resource_type = ResourceType::Cluster;
        assert_eq!(
            message(&b).as_deref(),
            Some("The only valid name for the CLUSTER resource is kafka-cluster")
        );
        b.pattern.pattern_type = PatternType::Prefixed;
        b.pattern.name = "kafka-cluster-x".into();
        assert_eq!(
            message(&b).as_deref(),
            Some("The only valid name for the CLUSTER resource is kafka-cluster")
        );
        b.pattern.name = String::new();
        assert_eq!(
            message(&b).as_deref(),
            Some("The only valid name for the CLUSTER resource is kafka-cluster"),
            "CLUSTER check comes first"
        );

        let mut b = good();
        b.pattern.name = String::new();
        b.pattern.resource_type = ResourceType::Unknown;
        assert_eq!(
            message(&b).as_deref(),
            Some("Invalid empty resource name"),
            "AclApis checks come before the controller's"
        );

        let mut b = good();
        b.pattern.resource_type = ResourceType::Unknown;
        assert_eq!(message(&b).as_deref(), Some("Invalid resourceType UNKNOWN"));
        b.pattern.resource_type = ResourceType::Any;
        assert_eq!(message(&b).as_deref(), Some("Invalid resourceType ANY"));

        for pt in [PatternType::Unknown, PatternType::Any, PatternType::Match] {
            let mut b = good();
            b.pattern.pattern_type = pt;
            assert_eq!(message(&b), Some(format!("Invalid patternType {pt}")));
        }
        for op in [AclOperation::Unknown, AclOperation::Any] {
            let mut b = good();
            b.entry.operation = op;
            assert_eq!(message(&b), Some(format!("Invalid operation {op}")));
        }
        for perm in [AclPermissionType::Unknown, AclPermissionType::Any] {
            let mut b = good();
            b.entry.permission_type = perm;
            assert_eq!(message(&b), Some(format!("Invalid permissionType {perm}")));
        }
        let mut b = good();
        b.entry.principal = "alice".into();
        assert_eq!(
            message(&b).as_deref(),
            Some("Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)")
        );
    }

    #[test]
    fn hosts_as_kafka_4_4_validates_them() {
        let mut b = good();
        b.entry.host = String::new();
        assert_eq!(
            message(&b).as_deref(),
            Some("Host pattern cannot be null or empty")
        );
        b.entry.host = "10.0.0.0/33".into();
        assert_eq!(
            message(&b).as_deref(),
            Some("Invalid CIDR notation '10.0.0.0/33': Value [33] not in range [0,32]")
        );
        b.entry.principal = "alice".into();
        assert!(
            message(&b).is_some_and(|m| m.starts_with("Could not parse principal")),
            "the principal is checked before the host"
        );
        for host in [
            "10.0.0.0/8",
            "10.1.2.3/8",
            "fd00::/16",
            "10.0.0.1",
            "fd00::1",
            "*",
        ] {
            let mut b = good();
            b.entry.host = host.into();
            assert_eq!(validate_new_acl(&b), Ok(()), "{host}");
        }
    }

    #[test]
    fn construction_failures_are_the_filter_only_values() {
        assert!(!fails_kafka_construction(&good()));
        let mut b = good();
        b.pattern.pattern_type = PatternType::Match;
        assert!(fails_kafka_construction(&b));
        let mut b = good();
        b.pattern.resource_type = ResourceType::Unknown;
        assert!(
            !fails_kafka_construction(&b),
            "UNKNOWN is built, then refused with 42"
        );
        let mut b = good();
        b.entry.permission_type = AclPermissionType::Any;
        assert!(fails_kafka_construction(&b));
    }

    #[test]
    fn principal_splits_at_the_first_colon() {
        let p: KafkaPrincipal = "User:CN=a:b"
            .parse()
            .unwrap_or_else(|_| KafkaPrincipal::new("", ""));
        assert_eq!(p, KafkaPrincipal::new("User", "CN=a:b"));
        assert_eq!(p.to_string(), "User:CN=a:b");
        assert_eq!(
            "bob".parse::<KafkaPrincipal>().map_err(|e| e.to_string()),
            Err("expected a string in format principalType:principalName but got bob".to_string())
        );
    }
}
