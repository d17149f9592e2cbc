//! Wire ACL fields → `kacl-acl` filters and bindings, with the checks each API makes on them.

use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation,
    AclPermissionType, PatternType, ResourcePattern, ResourcePatternFilter, ResourceType,
};

/// The seven filter fields of a DescribeAcls request or a DeleteAcls filter, as sent.
#[derive(Debug, Clone, Copy)]
pub struct WireFilter<'a> {
    /// `ResourceTypeFilter`.
    pub resource_type: i8,
    /// `ResourceNameFilter` (null matches any).
    pub resource_name: Option<&'a str>,
    /// `PatternTypeFilter` (LITERAL, 3, at v0).
    pub pattern_type: i8,
    /// `PrincipalFilter` (null matches any).
    pub principal: Option<&'a str>,
    /// `HostFilter` (null matches any).
    pub host: Option<&'a str>,
    /// `Operation`.
    pub operation: i8,
    /// `PermissionType`.
    pub permission_type: i8,
}

impl WireFilter<'_> {
    /// The filter as `kacl-acl` models it; codes Kafka does not know become UNKNOWN, as
    /// Kafka's `fromCode` does.
    pub fn to_filter(&self) -> AclBindingFilter {
        AclBindingFilter::new(
            ResourcePatternFilter::new(
                ResourceType::from_code(self.resource_type),
                self.resource_name,
                PatternType::from_code(self.pattern_type),
            ),
            AccessControlEntryFilter::new(
                self.principal,
                self.host,
                AclOperation::from_code(self.operation),
                AclPermissionType::from_code(self.permission_type),
            ),
        )
    }

    /// The filter for DescribeAcls, or a message naming the first field (in wire order) that
    /// holds UNKNOWN (code 0) or a code Kafka does not define.
    ///
    /// Deliberate difference from Kafka: Kafka closes the connection when a field is 0 and
    /// answers an empty success when a code is out of range; kacl answers INVALID_REQUEST
    /// naming the field in both cases.
    pub fn describe_filter(&self) -> Result<AclBindingFilter, String> {
        let fields: [(&str, i8, bool, &str); 4] = [
            (
                "resourceTypeFilter",
                self.resource_type,
                ResourceType::from_code(self.resource_type).is_unknown(),
                "resource type",
            ),
            (
                "patternTypeFilter",
                self.pattern_type,
                PatternType::from_code(self.pattern_type).is_unknown(),
                "pattern type",
            ),
            (
                "operation",
                self.operation,
                AclOperation::from_code(self.operation).is_unknown(),
                "operation",
            ),
            (
                "permissionType",
                self.permission_type,
                AclPermissionType::from_code(self.permission_type).is_unknown(),
                "permission type",
            ),
        ];
        for (field, code, unknown, kind) in fields {
            if unknown {
                return Err(if code == 0 {
                    format!("Invalid {field} 0: UNKNOWN is not a valid {kind} filter")
                } else {
                    format!("Invalid {field} {code}: no {kind} has this code")
                });
            }
        }
        Ok(self.to_filter())
    }

    /// The filter for DeleteAcls, checked as Kafka's `AclControlManager.validateFilter`:
    /// the pattern half, then the entry half, each with Kafka's message.
    pub fn delete_filter(&self) -> Result<AclBindingFilter, &'static str> {
        let filter = self.to_filter();
        if filter.pattern.is_unknown() {
            return Err("Unknown patternFilter.");
        }
        if filter.entry.is_unknown() {
            return Err("Unknown entryFilter.");
        }
        Ok(filter)
    }
}

/// The binding a CreateAcls entry asks for, codes mapped as Kafka's `fromCode` maps them.
pub fn creation_binding(
    resource_type: i8,
    resource_name: &str,
    pattern_type: i8,
    principal: &str,
    host: &str,
    operation: i8,
    permission_type: i8,
) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::from_code(resource_type),
            resource_name,
            PatternType::from_code(pattern_type),
        ),
        AccessControlEntry::new(
            principal,
            host,
            AclOperation::from_code(operation),
            AclPermissionType::from_code(permission_type),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(rt: i8, pt: i8, op: i8, perm: i8) -> WireFilter<'static> {
        WireFilter {
            resource_type: rt,
            resource_name: None,
            pattern_type: pt,
            principal: None,
            host: None,
            operation: op,
            permission_type: perm,
        }
    }

    #[test]
    fn describe_names_the_first_unknown_field() {
        assert_eq!(
            wire(0, 0, 0, 0).describe_filter().unwrap_err(),
            "Invalid resourceTypeFilter 0: UNKNOWN is not a valid resource type filter"
        );
        assert_eq!(
            wire(1, 1, 99, 1).describe_filter().unwrap_err(),
            "Invalid operation 99: no operation has this code"
        );
        assert!(wire(1, 1, 1, 1).describe_filter().is_ok());
    }

    #[test]
    fn delete_uses_kafkas_messages() {
        assert_eq!(
            wire(0, 1, 1, 1).delete_filter(),
            Err("Unknown patternFilter.")
        );
        assert_eq!(
            wire(1, 9, 0, 1).delete_filter(),
            Err("Unknown patternFilter.")
        );
        assert_eq!(
            wire(1, 1, 1, 0).delete_filter(),
            Err("Unknown entryFilter.")
        );
        assert!(wire(2, 3, 3, 3).delete_filter().is_ok());
    }
}
