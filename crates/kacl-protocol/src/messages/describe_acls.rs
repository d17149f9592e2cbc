//! DescribeAcls (API key 29): list the ACL bindings that match one filter.
//!
//! v0 is Kafka 3.x's (no pattern type; Kafka 4 removed it, kacl keeps it for old clients),
//! v1 adds the pattern type, v2 is the first flexible version, v3 adds the USER resource type.

use std::borrow::Cow;

use crate::wire::SmallArray;

kafka_message! {
    /// A filter over the ACL set; null strings match anything.
    pub struct DescribeAclsRequest<'a> {
        api_key: DescribeAcls, versions: 0-3, flexible: 2+;
        /// The resource type.
        resource_type_filter: i8 [versions 0+],
        /// The resource name, or null to match any resource name.
        resource_name_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The resource pattern type to match (v1+; v0 implies LITERAL, code 3).
        pattern_type_filter: i8 [versions 1+, default 3],
        /// The principal, or null to match any principal.
        principal_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The host, or null to match any host.
        host_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The operation to match.
        operation: i8 [versions 0+],
        /// The permission type to match.
        permission_type: i8 [versions 0+],
    }
}

kafka_message! {
    /// The matching ACLs, grouped by resource pattern.
    pub struct DescribeAclsResponse<'a> {
        api_key: DescribeAcls, versions: 0-3, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// Each resource pattern that has matching ACLs.
        resources: Vec<DescribeAclsResource<'a>> [versions 0+],
    }

    /// A resource pattern and its matching ACLs.
    pub struct DescribeAclsResource<'a> {
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
        /// The resource pattern type (v1+; v0 can only carry LITERAL, code 3).
        pattern_type: i8 [versions 1+, default 3],
        /// The ACLs.
        acls: SmallArray<AclDescription<'a>> [versions 0+],
    }

    /// One access control entry.
    pub struct AclDescription<'a> {
        /// The ACL principal.
        principal: Cow<'a, str> [versions 0+],
        /// The ACL host.
        host: Cow<'a, str> [versions 0+],
        /// The ACL operation.
        operation: i8 [versions 0+],
        /// The ACL permission type.
        permission_type: i8 [versions 0+],
    }
}
