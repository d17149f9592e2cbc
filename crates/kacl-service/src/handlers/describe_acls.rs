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
//! A large answer is encoded off the connection task and written while it is encoded (see
//! [`acl_resources`]).

use std::borrow::Cow;

use kacl_acl::{AclBindingFilter, AclGroup, AclOperation, AclPermissionType};
use kacl_protocol::messages::describe_acls::{
    DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::wire::Field;
use kacl_protocol::{EncodeError, ErrorCode};

use super::acl_filter::WireFilter;
use super::acl_resources;
use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// DescribeAcls: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeAcls;

impl Handler for DescribeAcls {
    type Request<'r> = DescribeAclsRequest<'r>;
    type Response<'r> = DescribeAclsResponse<'r>;

    /// Answers one DescribeAcls request, after waiting (with `kacl.describe.consistent` on a
    /// shared store) until this node has applied everything the store had committed when the
    /// request arrived, so that a tool writing on one node and reading on another reads its
    /// writes. A store that does not answer in time gets REQUEST_TIMED_OUT (retriable).
    ///
    /// Refusals are typed responses; a success is the one answer a handler encodes itself
    /// (`Err` with the encoded or streamed frame, see [`answer`]).
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeAclsRequest<'r>,
    ) -> Result<DescribeAclsResponse<'r>, Outcome> {
        // An embedded store's catch-up returns at once (its commits reach memory inside them).
        if ctx.state.config.describe_consistent {
            let store = ctx.state.store.clone();
            let caught_up = tokio::task::spawn_blocking(move || store.catch_up())
                .await
                .map_err(|e| e.to_string())
                .and_then(|r| r.map_err(|e| e.to_string()));
            if let Err(message) = caught_up {
                return Ok(error(ErrorCode::RequestTimedOut, message));
            }
        }
        let planned = plan(
            &request,
            ctx.principal,
            ctx.state.config.describe_self_service,
            || ctx.cluster_allows(AclOperation::Describe),
        );
        match planned {
            Ok(Some(filter)) => Err(answer(ctx, filter)),
            Ok(None) => Ok(acl_resources::shell()),
            Err(Refused::InvalidFilter(message)) => Ok(error(ErrorCode::InvalidRequest, message)),
            Err(Refused::ClusterDenied) => Ok(error(
                ErrorCode::ClusterAuthorizationFailed,
                ctx.cluster_denied_message(),
            )),
        }
    }
}

/// Why a DescribeAcls request is refused.
#[derive(Debug, PartialEq, Eq)]
enum Refused {
    /// INVALID_REQUEST with this message.
    InvalidFilter(String),
    /// CLUSTER_AUTHORIZATION_FAILED: no DESCRIBE on the cluster, and no self-service.
    ClusterDenied,
}

/// The pure step: the filter to answer, `None` for a self-service request that may see
/// nothing (an empty success), or the refusal. `cluster_describe` (an audited decision) is
/// asked only once the filter is valid, as in Kafka.
fn plan(
    request: &DescribeAclsRequest<'_>,
    principal: &str,
    self_service: bool,
    cluster_describe: impl FnOnce() -> bool,
) -> Result<Option<AclBindingFilter>, Refused> {
    let wire = WireFilter {
        resource_type: request.resource_type_filter,
        resource_name: request.resource_name_filter.as_deref(),
        pattern_type: request.pattern_type_filter,
        principal: request.principal_filter.as_deref(),
        host: request.host_filter.as_deref(),
        operation: request.operation,
        permission_type: request.permission_type,
    };
    // Deliberate difference from Kafka (see `WireFilter::describe_filter`).
    let filter = wire.describe_filter().map_err(Refused::InvalidFilter)?;
    if cluster_describe() {
        Ok(Some(filter))
    } else if self_service {
        Ok(own_allow_acls(filter, principal))
    } else {
        Err(Refused::ClusterDenied)
    }
}

/// The success answer to `filter`, encoded from the index: the resources are written into
/// the frame one at a time, and a large frame is written to the socket while it is encoded.
fn answer(ctx: &RequestContext<'_>, filter: AclBindingFilter) -> Outcome {
    // Resources are built one at a time in reused storage and written straight into the
    // frame, which a first walk over the same groups sized: a full describe of millions of
    // ACLs never holds them as message values or even as a list of groups (that was 160 MB
    // of fresh memory per call at 2M ACLs, most of the server's time in it). Both walks see
    // the same groups in the same order under one read view.
    let cx = acl_resources::resource_cx(ctx.version);
    let index = ctx.state.acls.read();
    // A small answer (most requests: one principal's or one resource's ACLs) keeps its
    // groups from the sizing walk, so the index is searched once, not twice.
    let mut kept: Vec<AclGroup<'_>> = Vec::new();
    let mut all_kept = true;
    let sized = acl_resources::size(&index, &filter, cx, |group| {
        if all_kept {
            if kept.len() < KEPT_GROUPS {
                kept.push(group);
            } else {
                all_kept = false;
                kept = Vec::new();
            }
        }
    });
    if sized.len > acl_resources::STREAM_AT {
        // A success: no error code for the metrics to count.
        drop(kept);
        drop(index);
        return acl_resources::stream(
            ctx.state.acls.clone(),
            ctx.state.describe_encoders.clone(),
            filter,
            ctx.version,
            ctx.correlation_id,
            sized,
        );
    }
    let mut resource = DescribeAclsResource::default();
    ctx.respond_with_array(
        &acl_resources::shell(),
        sized.count,
        sized.len,
        |out, cx| {
            const WHAT: &str = "DescribeAclsResponse.resources";
            let mut written = 0;
            let mut result = Ok(());
            let mut encode = |group| {
                if result.is_ok() {
                    acl_resources::fill_resource(&mut resource, &group);
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
            if written != sized.count {
                return Err(EncodeError::ArrayCountMismatch {
                    what: WHAT,
                    declared: sized.count,
                    written,
                });
            }
            Ok(())
        },
    )
}

/// Up to this many groups are kept from the sizing walk for the encoding (see [`answer`]);
/// more are walked again instead, so that a full describe never holds a list of its groups.
const KEPT_GROUPS: usize = 64;

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

fn error(code: ErrorCode, message: String) -> DescribeAclsResponse<'static> {
    DescribeAclsResponse {
        error_code: code.code(),
        error_message: Some(Cow::Owned(message)),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ANY resource, MATCH pattern, any principal/host, ANY operation and permission.
    fn describe_all() -> DescribeAclsRequest<'static> {
        DescribeAclsRequest {
            resource_type_filter: 1,
            pattern_type_filter: 2,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }
    }

    #[test]
    fn an_invalid_filter_is_refused_before_the_cluster_is_asked() {
        let request = DescribeAclsRequest {
            resource_type_filter: 0, // UNKNOWN
            ..describe_all()
        };
        let planned = plan(&request, "User:alice", false, || {
            panic!("the authorization of an invalid filter was asked")
        });
        assert!(
            matches!(planned, Err(Refused::InvalidFilter(_))),
            "{planned:?}"
        );
    }

    #[test]
    fn without_cluster_describe_only_self_service_sees_its_own_allow_acls() {
        let request = describe_all();
        assert_eq!(
            plan(&request, "User:alice", false, || false),
            Err(Refused::ClusterDenied)
        );
        let own = plan(&request, "User:alice", true, || false)
            .expect("self service")
            .expect("a filter");
        assert_eq!(own.entry.principal.as_deref(), Some("User:alice"));
        assert_eq!(own.entry.permission_type, AclPermissionType::Allow);
        let other = DescribeAclsRequest {
            principal_filter: Some(Cow::Borrowed("User:bob")),
            ..describe_all()
        };
        assert_eq!(plan(&other, "User:alice", true, || false), Ok(None));
        let everyone = plan(&request, "User:alice", true, || true)
            .expect("allowed")
            .expect("a filter");
        assert_eq!(everyone.entry.principal, None);
    }
}
