//! DeleteAcls (API key 31): delete the ACL bindings matching each of several filters.
//!
//! v0 is Kafka 3.x's (no pattern type), v1 adds the pattern type, v2 is the first flexible
//! version, v3 adds the USER resource type.

use std::borrow::Cow;

use crate::wire::SmallArray;

kafka_message! {
    /// The filters whose matching ACLs are to be deleted.
    pub struct DeleteAclsRequest<'a> {
        api_key: DeleteAcls, versions: 0-3, flexible: 2+;
        /// The filters to use when deleting ACLs.
        filters: Vec<DeleteAclsFilter<'a>> [versions 0+],
    }

    /// One filter; null strings match anything.
    pub struct DeleteAclsFilter<'a> {
        /// The resource type.
        resource_type_filter: i8 [versions 0+],
        /// The resource name, or null to match any.
        resource_name_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The pattern type (v1+; v0 implies LITERAL, code 3).
        pattern_type_filter: i8 [versions 1+, default 3],
        /// The principal, or null to match any.
        principal_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The host, or null to match any.
        host_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The operation.
        operation: i8 [versions 0+],
        /// The permission type.
        permission_type: i8 [versions 0+],
    }
}

kafka_message! {
    /// One result per filter, in request order.
    pub struct DeleteAclsResponse<'a> {
        api_key: DeleteAcls, versions: 0-3, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The results for each filter.
        filter_results: Vec<DeleteAclsFilterResult<'a>> [versions 0+],
    }

    /// The outcome of one filter.
    pub struct DeleteAclsFilterResult<'a> {
        /// The error code, or 0 if the filter succeeded.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The ACLs that matched this filter.
        matching_acls: SmallArray<DeleteAclsMatchingAcl<'a>> [versions 0+],
    }

    /// One deleted (or undeletable) ACL binding.
    pub struct DeleteAclsMatchingAcl<'a> {
        /// The deletion error code, or 0.
        error_code: i16 [versions 0+],
        /// The deletion error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
        /// The pattern type (v1+; v0 can only carry LITERAL, code 3).
        pattern_type: i8 [versions 1+, default 3],
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
