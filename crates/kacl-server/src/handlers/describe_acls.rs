//! DescribeAcls (29), v0-3: the ACLs matching one filter, grouped by resource pattern.
//!
//! Kafka's rules: DESCRIBE on the cluster is required (else CLUSTER_AUTHORIZATION_FAILED at the
//! top level); a success carries `ErrorMessage = ""`, not null; each pattern appears once, with
//! no duplicate ACLs. At v0 the filter's pattern type is LITERAL (the field does not exist and
//! defaults to LITERAL, as Kafka's message classes default it), so a v0 answer only ever holds
//! LITERAL patterns, which is all v0 can express.
//!
//! Read from memory only: the index's grouped view is encoded straight from borrowed strings,
//! under one read lock, without an allocation per ACL.

use std::borrow::Cow;

use kacl_acl::{AclBindingFilter, AclOperation, AclPermissionType};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::ErrorCode;

use super::acl_filter::WireFilter;
use super::decode_in;
use crate::context::RequestContext;
use crate::router::Outcome;

/// Answers one DescribeAcls request.
pub fn handle(ctx: &RequestContext<'_>, frame: &RequestFrame<'_>) -> Outcome {
    let request: DescribeAclsRequest<'_> = match decode_in(ctx, frame) {
        Ok(request) => request,
        Err(outcome) => return outcome,
    };
    let wire = WireFilter {
        resource_type: request.resource_type_filter,
        resource_name: request.resource_name_filter.as_deref(),
        pattern_type: request.pattern_type_filter,
        principal: request.principal_filter.as_deref(),
        host: request.host_filter.as_deref(),
        operation: request.operation,
        permission_type: request.permission_type,
    };
    let filter = match wire.describe_filter() {
        Ok(filter) => filter,
        // Deliberate difference from Kafka (see `WireFilter::describe_filter`).
        Err(message) => return error(ctx, ErrorCode::InvalidRequest, message),
    };
    let filter = if ctx.cluster_allows(AclOperation::Describe) {
        Some(filter)
    } else if ctx.state.config.describe_self_service {
        own_allow_acls(filter, ctx.principal)
    } else {
        return error(
            ctx,
            ErrorCode::ClusterAuthorizationFailed,
            ctx.cluster_denied_message(),
        );
    };
    let index = ctx.state.acls.read();
    let groups = match &filter {
        Some(filter) => index.describe_grouped(filter),
        None => Vec::new(),
    };
    let resources = groups
        .into_iter()
        .map(|group| DescribeAclsResource {
            resource_type: group.pattern.resource_type.code(),
            resource_name: Cow::Borrowed(group.pattern.name),
            pattern_type: group.pattern.pattern_type.code(),
            acls: group
                .entries
                .map(|entry| AclDescription {
                    principal: Cow::Borrowed(entry.principal),
                    host: Cow::Borrowed(entry.host),
                    operation: entry.operation.code(),
                    permission_type: entry.permission_type.code(),
                    unknown_tagged_fields: Default::default(),
                })
                .collect(),
            unknown_tagged_fields: Default::default(),
        })
        .collect();
    let response = DescribeAclsResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: Some(Cow::Borrowed("")),
        resources,
        unknown_tagged_fields: Default::default(),
    };
    ctx.respond(&response)
}

/// `kacl.describe.self.service.enable` (KIP-4's idea, not in Kafka): a principal without
/// Cluster:Describe sees only its own ALLOW ACLs that match the filter. `None` when the filter
/// asks for another principal's ACLs or for DENY ACLs only: nothing to show.
fn own_allow_acls(mut filter: AclBindingFilter, principal: &str) -> Option<AclBindingFilter> {
    if filter
        .entry
        .principal
        .as_deref()
        .is_some_and(|wanted| wanted != principal)
    {
        return None;
    }
    if !matches!(
        filter.entry.permission_type,
        AclPermissionType::Any | AclPermissionType::Allow
    ) {
        return None;
    }
    filter.entry.principal = Some(principal.to_owned());
    filter.entry.permission_type = AclPermissionType::Allow;
    Some(filter)
}

fn error(ctx: &RequestContext<'_>, code: ErrorCode, message: String) -> Outcome {
    ctx.respond(&DescribeAclsResponse {
        error_code: code.code(),
        error_message: Some(Cow::Owned(message)),
        ..Default::default()
    })
}
