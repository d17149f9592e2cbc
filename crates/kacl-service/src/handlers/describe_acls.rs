//! DescribeAcls (29), v0-3: the ACLs matching one filter, grouped by resource pattern.
//!
//! Kafka's rules: DESCRIBE on the cluster is required (else CLUSTER_AUTHORIZATION_FAILED at the
//! top level); a success carries `ErrorMessage = ""`, not null; each pattern appears once, with
//! no duplicate ACLs. At v0 the filter's pattern type is LITERAL (the field does not exist and
//! defaults to LITERAL, as Kafka's message classes default it), so a v0 answer only ever holds
//! LITERAL patterns, which is all v0 can express.
//!
//! Read from memory only: the index's grouped view is encoded straight from borrowed strings,
//! under one read lock, one resource at a time, without an allocation per ACL or per resource.

use std::borrow::Cow;

use kacl_acl::{AclBindingFilter, AclGroup, AclOperation, AclPermissionType};
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::wire::{Cx, Field};
use kacl_protocol::{EncodeError, ErrorCode, Message};

use super::acl_filter::WireFilter;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// [`handle`], after waiting (with `kacl.describe.consistent` on a shared store) until this
/// node has applied everything the store had committed when the request arrived, so that a
/// tool writing on one node and reading on another reads its writes. A store that does not
/// answer in time gets REQUEST_TIMED_OUT (retriable).
pub async fn handle_consistent(
    ctx: &RequestContext<'_>,
    request: DescribeAclsRequest<'_>,
) -> Outcome {
    if ctx.state.config.describe_consistent && ctx.state.store.feeds_changes() {
        let store = ctx.state.store.clone();
        let caught_up = tokio::task::spawn_blocking(move || store.catch_up())
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        if let Err(message) = caught_up {
            return error(ctx, ErrorCode::RequestTimedOut, message);
        }
    }
    handle(ctx, request)
}

/// Answers one DescribeAcls request. The one handler that encodes its own answer: the resources
/// are streamed into the frame (see below), so it returns the [`Outcome`] rather than a response.
pub fn handle(ctx: &RequestContext<'_>, request: DescribeAclsRequest<'_>) -> Outcome {
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
    let shell = DescribeAclsResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: Some(Cow::Borrowed("")),
        resources: Vec::new(),
        unknown_tagged_fields: Default::default(),
    };
    let Some(filter) = filter else {
        return ctx.respond(&shell);
    };
    // Resources are built one at a time in reused storage and written straight into the
    // frame, which a first walk over the same groups sized: a full describe of millions of
    // ACLs never holds them as message values or even as a list of groups (that was 160 MB
    // of fresh memory per call at 2M ACLs, most of the server's time in it). Both walks see
    // the same groups in the same order under one read lock.
    let cx = Cx::top(
        ctx.version,
        DescribeAclsResponse::FLEXIBLE.contains(ctx.version),
    );
    // A small answer (most requests: one principal's or one resource's ACLs) keeps its
    // groups from the sizing walk, so the index is searched once, not twice.
    let mut resource = DescribeAclsResource::default();
    let (mut count, mut body_len) = (0, 0);
    let mut kept: Vec<AclGroup<'_>> = Vec::new();
    let mut all_kept = true;
    index.for_each_group(&filter, |group| {
        fill_resource(&mut resource, &group);
        count += 1;
        body_len += resource.field_len(cx);
        if all_kept {
            if kept.len() < KEPT_GROUPS {
                kept.push(group);
            } else {
                all_kept = false;
                kept = Vec::new();
            }
        }
    });
    ctx.respond_with_array(&shell, count, body_len, |out, cx| {
        const WHAT: &str = "DescribeAclsResponse.resources";
        let mut written = 0;
        let mut result = Ok(());
        let mut encode = |group| {
            if result.is_ok() {
                fill_resource(&mut resource, &group);
                result = resource.encode_field(out, cx, WHAT);
                written += 1;
            }
        };
        if all_kept {
            kept.into_iter().for_each(&mut encode);
        } else {
            index.for_each_group(&filter, &mut encode);
        }
        result?;
        if written != count {
            return Err(EncodeError::ArrayCountMismatch {
                what: WHAT,
                declared: count,
                written,
            });
        }
        Ok(())
    })
}

/// Up to this many groups are kept from the sizing walk for the encoding (see [`handle`]);
/// more are walked again instead, so that a full describe never holds a list of its groups.
const KEPT_GROUPS: usize = 64;

/// Sets `resource` to `group`, reusing its ACL storage.
fn fill_resource<'i>(resource: &mut DescribeAclsResource<'i>, group: &AclGroup<'i>) {
    resource.resource_type = group.pattern.resource_type.code();
    resource.resource_name = Cow::Borrowed(group.pattern.name);
    resource.pattern_type = group.pattern.pattern_type.code();
    resource.acls.clear();
    resource
        .acls
        .extend(group.entries.clone().map(|entry| AclDescription {
            principal: Cow::Borrowed(entry.principal),
            host: Cow::Borrowed(entry.host),
            operation: entry.operation.code(),
            permission_type: entry.permission_type.code(),
            unknown_tagged_fields: Default::default(),
        }));
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
