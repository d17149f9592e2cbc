//! CreateAcls (API key 30): add ACL bindings.
//!
//! v0 is Kafka 3.x's (no pattern type), v1 adds the pattern type, v2 is the first flexible
//! version, v3 adds the USER resource type.

use std::borrow::Cow;

kafka_message! {
    /// The ACL bindings to create.
    pub struct CreateAclsRequest<'a> {
        api_key: CreateAcls, versions: 0-3, flexible: 2+;
        /// The ACLs to create.
        creations: Vec<AclCreation<'a>> [versions 0+],
    }

    /// One ACL binding to create.
    pub struct AclCreation<'a> {
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
        /// The resource pattern type (v1+; v0 implies LITERAL, code 3).
        resource_pattern_type: i8 [versions 1+, default 3],
        /// The principal.
        principal: Cow<'a, str> [versions 0+],
        /// The host.
        host: Cow<'a, str> [versions 0+],
        /// The operation.
        operation: i8 [versions 0+],
        /// The permission type.
        permission_type: i8 [versions 0+],
    }
}

kafka_message! {
    /// One result per requested creation, in request order.
    pub struct CreateAclsResponse<'a> {
        api_key: CreateAcls, versions: 0-3, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The results for each ACL creation.
        results: Vec<AclCreationResult<'a>> [versions 0+],
    }

    /// The outcome of one creation.
    pub struct AclCreationResult<'a> {
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}
