//! Conversions between kacl-acl's bindings and filters and the ACL messages on the wire, with
//! the version rules Kafka's request builders apply: v0 carries no pattern type, so a v0
//! filter may only be LITERAL (ANY is sent as LITERAL, as Kafka does) and a v0 creation only
//! LITERAL; anything else is an UNSUPPORTED_VERSION error before sending.

use std::borrow::Cow;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclBindingFilter, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType,
};
use kacl_protocol::messages::create_acls::{AclCreation, CreateAclsRequest};
use kacl_protocol::messages::delete_acls::{
    DeleteAclsFilter, DeleteAclsMatchingAcl, DeleteAclsRequest,
};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::ApiKey;

use crate::error::AdminError;

const V0_LITERAL_ONLY: &str = "Version 0 only supports literal resource pattern types";

fn v0_unsupported(api: ApiKey) -> AdminError {
    AdminError::UnsupportedVersion {
        api,
        detail: V0_LITERAL_ONLY.into(),
    }
}

/// The pattern type a filter is sent with at `version`.
fn filter_pattern_type(
    api: ApiKey,
    pattern_type: PatternType,
    version: i16,
) -> Result<i8, AdminError> {
    match (version, pattern_type) {
        (0, PatternType::Literal | PatternType::Any) => Ok(PatternType::Literal.code()),
        (0, _) => Err(v0_unsupported(api)),
        (_, other) => Ok(other.code()),
    }
}

/// The DescribeAcls request for `filter` at `version`.
pub fn describe_request(
    filter: &AclBindingFilter,
    version: i16,
) -> Result<DescribeAclsRequest<'_>, AdminError> {
    Ok(DescribeAclsRequest {
        resource_type_filter: filter.pattern.resource_type.code(),
        resource_name_filter: filter.pattern.name.as_deref().map(Cow::Borrowed),
        pattern_type_filter: filter_pattern_type(
            ApiKey::DescribeAcls,
            filter.pattern.pattern_type,
            version,
        )?,
        principal_filter: filter.entry.principal.as_deref().map(Cow::Borrowed),
        host_filter: filter.entry.host.as_deref().map(Cow::Borrowed),
        operation: filter.entry.operation.code(),
        permission_type: filter.entry.permission_type.code(),
        ..Default::default()
    })
}

/// The bindings of a DescribeAcls response, flattened (Kafka's `DescribeAclsResponse.acls`).
/// At v0 the pattern type is absent and decodes as LITERAL.
pub fn bindings_from_describe(response: &DescribeAclsResponse<'_>) -> Vec<AclBinding> {
    let total = response.resources.iter().map(|r| r.acls.len()).sum();
    let mut bindings = Vec::with_capacity(total);
    for resource in &response.resources {
        let pattern = ResourcePattern::new(
            ResourceType::from_code(resource.resource_type),
            resource.resource_name.as_ref(),
            PatternType::from_code(resource.pattern_type),
        );
        for acl in &resource.acls {
            bindings.push(AclBinding::new(
                pattern.clone(),
                AccessControlEntry::new(
                    acl.principal.as_ref(),
                    acl.host.as_ref(),
                    AclOperation::from_code(acl.operation),
                    AclPermissionType::from_code(acl.permission_type),
                ),
            ));
        }
    }
    bindings
}

/// The CreateAcls request for `bindings` at `version`.
pub fn create_request(
    bindings: &[AclBinding],
    version: i16,
) -> Result<CreateAclsRequest<'_>, AdminError> {
    let creations = bindings
        .iter()
        .map(|b| {
            if version == 0 && b.pattern.pattern_type != PatternType::Literal {
                return Err(v0_unsupported(ApiKey::CreateAcls));
            }
            Ok(AclCreation {
                resource_type: b.pattern.resource_type.code(),
                resource_name: Cow::Borrowed(&b.pattern.name),
                resource_pattern_type: b.pattern.pattern_type.code(),
                principal: Cow::Borrowed(&b.entry.principal),
                host: Cow::Borrowed(&b.entry.host),
                operation: b.entry.operation.code(),
                permission_type: b.entry.permission_type.code(),
                ..Default::default()
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(CreateAclsRequest {
        creations,
        ..Default::default()
    })
}

/// The DeleteAcls request for `filters` at `version`.
pub fn delete_request(
    filters: &[AclBindingFilter],
    version: i16,
) -> Result<DeleteAclsRequest<'_>, AdminError> {
    let filters = filters
        .iter()
        .map(|f| {
            Ok(DeleteAclsFilter {
                resource_type_filter: f.pattern.resource_type.code(),
                resource_name_filter: f.pattern.name.as_deref().map(Cow::Borrowed),
                pattern_type_filter: filter_pattern_type(
                    ApiKey::DeleteAcls,
                    f.pattern.pattern_type,
                    version,
                )?,
                principal_filter: f.entry.principal.as_deref().map(Cow::Borrowed),
                host_filter: f.entry.host.as_deref().map(Cow::Borrowed),
                operation: f.entry.operation.code(),
                permission_type: f.entry.permission_type.code(),
                ..Default::default()
            })
        })
        .collect::<Result<_, AdminError>>()?;
    Ok(DeleteAclsRequest {
        filters,
        ..Default::default()
    })
}

/// The binding a DeleteAcls matching entry describes.
pub fn binding_from_deleted(acl: &DeleteAclsMatchingAcl<'_>) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::from_code(acl.resource_type),
            acl.resource_name.as_ref(),
            PatternType::from_code(acl.pattern_type),
        ),
        AccessControlEntry::new(
            acl.principal.as_ref(),
            acl.host.as_ref(),
            AclOperation::from_code(acl.operation),
            AclPermissionType::from_code(acl.permission_type),
        ),
    )
}

#[cfg(test)]
mod tests {
    use kacl_acl::{AccessControlEntryFilter, ResourcePatternFilter};
    use kacl_protocol::messages::describe_acls::{AclDescription, DescribeAclsResource};
    use kacl_protocol::SmallArray;

    use super::*;
    use crate::net::encode_request;

    fn topic_filter(pattern_type: PatternType) -> AclBindingFilter {
        AclBindingFilter::new(
            ResourcePatternFilter::new(ResourceType::Topic, Some("orders"), pattern_type),
            AccessControlEntryFilter::new(
                Some("User:alice"),
                None::<String>,
                AclOperation::Read,
                AclPermissionType::Any,
            ),
        )
    }

    /// Seed 000: DescribeAcls v3 for the all-zero, empty-strings filter, correlation id 0 and
    /// an empty client id is exactly these 23 bytes.
    #[test]
    fn describe_v3_empty_strings_filter_is_the_seeds_23_bytes() {
        let filter = AclBindingFilter::new(
            ResourcePatternFilter::new(ResourceType::Unknown, Some(""), PatternType::Unknown),
            AccessControlEntryFilter::new(
                Some(""),
                Some(""),
                AclOperation::Unknown,
                AclPermissionType::Unknown,
            ),
        );
        let request = describe_request(&filter, 3).unwrap();
        let frame = encode_request("", 0, 3, &request).unwrap();
        assert_eq!(
            frame,
            [0, 0, 0, 19, 0, 29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0]
        );
    }

    #[test]
    fn filters_carry_every_field_and_nulls() {
        let filter = topic_filter(PatternType::Prefixed);
        let request = describe_request(&filter, 1).unwrap();
        assert_eq!(request.resource_type_filter, 2);
        assert_eq!(request.resource_name_filter.as_deref(), Some("orders"));
        assert_eq!(request.pattern_type_filter, 4);
        assert_eq!(request.principal_filter.as_deref(), Some("User:alice"));
        assert_eq!(request.host_filter, None);
        assert_eq!(request.operation, 3);
        assert_eq!(request.permission_type, 1);
        let any = describe_request(&AclBindingFilter::ANY, 3).unwrap();
        assert_eq!((any.resource_type_filter, any.pattern_type_filter), (1, 1));
        assert_eq!(any.resource_name_filter, None);
    }

    #[test]
    fn version_0_carries_only_literal_patterns() {
        let filter = topic_filter(PatternType::Any);
        let any = describe_request(&filter, 0).unwrap();
        assert_eq!(any.pattern_type_filter, PatternType::Literal.code());
        let err = describe_request(&topic_filter(PatternType::Match), 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "UNSUPPORTED_VERSION: Version 0 only supports literal resource pattern types"
        );
        assert!(delete_request(&[topic_filter(PatternType::Prefixed)], 0).is_err());
        assert!(delete_request(&[topic_filter(PatternType::Prefixed)], 1).is_ok());
        let prefixed = AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, "t-", PatternType::Prefixed),
            AccessControlEntry::new("User:a", "*", AclOperation::Read, AclPermissionType::Allow),
        );
        assert!(create_request(std::slice::from_ref(&prefixed), 0).is_err());
        let request = create_request(std::slice::from_ref(&prefixed), 2).unwrap();
        assert_eq!(request.creations[0].resource_pattern_type, 4);
        assert_eq!(request.creations[0].principal, "User:a");
    }

    #[test]
    fn describe_responses_flatten_to_bindings() {
        let response = DescribeAclsResponse {
            resources: vec![DescribeAclsResource {
                resource_type: 3,
                resource_name: "g".into(),
                pattern_type: 3,
                acls: SmallArray::from(vec![
                    AclDescription {
                        principal: "User:a".into(),
                        host: "*".into(),
                        operation: 3,
                        permission_type: 3,
                        ..Default::default()
                    },
                    AclDescription {
                        principal: "User:b".into(),
                        host: "10.0.0.1".into(),
                        operation: 8,
                        permission_type: 2,
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            }],
            ..Default::default()
        };
        let bindings = bindings_from_describe(&response);
        assert_eq!(bindings.len(), 2);
        assert_eq!(
            bindings[1].to_string(),
            "(pattern=ResourcePattern(resourceType=GROUP, name=g, patternType=LITERAL), \
             entry=(principal=User:b, host=10.0.0.1, operation=DESCRIBE, permissionType=DENY))"
        );
    }
}
