//! DeleteAcls (31), v0-3: delete the ACLs matching each filter, atomically.
//!
//! Kafka's rules: ALTER on the cluster (else CLUSTER_AUTHORIZATION_FAILED on every filter);
//! each filter checked as `validateFilter` (INVALID_REQUEST `Unknown patternFilter.` /
//! `Unknown entryFilter.`); every ACL a filter matches is listed under it with code 0 and a
//! null message, even when another filter matched it too, and deleted once; a filter that
//! matches nothing succeeds with an empty list; success messages are null. The response is
//! sent only after the store has fsynced the removals.
//!
//! Deliberate differences from Kafka:
//! - a filter holding UNKNOWN (code 0) gets `Unknown patternFilter.`/`Unknown entryFilter.`
//!   (Kafka's answer for out-of-range codes); Kafka closes the connection for code 0;
//! - the batch limit (`kacl.acl.max.batch`, Kafka: 10,000 removals): filters are taken in
//!   order and a filter whose matches would take the request's total above the limit gets
//!   POLICY_VIOLATION `Unable to perform excessively large batch operation.` and deletes
//!   nothing, while the others proceed. Kafka 3.x/4.0 answer that filter with
//!   UNKNOWN_SERVER_ERROR and may commit part of its removals; KAFKA-19411 (later) fails the
//!   whole request. kacl never half-applies a filter.

use std::borrow::Cow;

use kacl_acl::{AclBinding, AclBindingFilter, AclOperation};
use kacl_protocol::messages::delete_acls::{
    DeleteAclsFilterResult, DeleteAclsMatchingAcl, DeleteAclsRequest, DeleteAclsResponse,
};
use kacl_protocol::ErrorCode;

use super::acl_filter::WireFilter;
use super::create_acls::{store_failure_code, BATCH_TOO_LARGE};
use crate::acl_writer::FilterDeletion;
use crate::context::RequestContext;

/// Answers one DeleteAcls request.
pub async fn handle(
    ctx: &RequestContext<'_>,
    request: DeleteAclsRequest<'_>,
) -> DeleteAclsResponse<'static> {
    if !ctx.cluster_allows(AclOperation::Alter) {
        let message = ctx.cluster_denied_message();
        let results = request
            .filters
            .iter()
            .map(|_| failed(ErrorCode::ClusterAuthorizationFailed, message.clone()))
            .collect();
        return response(results);
    }
    let checked: Vec<Result<AclBindingFilter, &'static str>> = request
        .filters
        .iter()
        .map(|f| {
            WireFilter {
                resource_type: f.resource_type_filter,
                resource_name: f.resource_name_filter.as_deref(),
                pattern_type: f.pattern_type_filter,
                principal: f.principal_filter.as_deref(),
                host: f.host_filter.as_deref(),
                operation: f.operation,
                permission_type: f.permission_type,
            }
            .delete_filter()
        })
        .collect();
    let planned: Vec<Option<AclBindingFilter>> =
        checked.iter().map(|c| c.as_ref().ok().cloned()).collect();
    let state = ctx.state.clone();
    let max_batch = ctx.state.config.acl_max_batch;
    let deleted =
        tokio::task::spawn_blocking(move || state.acl_writer.delete(&planned, max_batch)).await;
    let outcomes = match deleted {
        Ok(Ok(outcomes)) => outcomes,
        Ok(Err(err)) => {
            return all_failed(
                &checked,
                store_failure_code(&err),
                format!("The ACLs could not be deleted: {err}"),
            );
        }
        Err(err) => {
            return all_failed(
                &checked,
                ErrorCode::UnknownServerError,
                format!("The ACL writer failed: {err}"),
            );
        }
    };
    let mut logged = std::collections::HashSet::new();
    crate::audit::acls_removed(
        ctx.requester(),
        outcomes
            .iter()
            .flat_map(|o| match o {
                FilterDeletion::Deleted(list) => list.as_slice(),
                _ => &[],
            })
            .filter(|binding| logged.insert(*binding)),
    );
    let removed: usize = outcomes
        .iter()
        .map(|o| match o {
            FilterDeletion::Deleted(list) => list.len(),
            _ => 0,
        })
        .sum();
    tracing::info!(
        principal = ctx.principal,
        filters = checked.len(),
        matched = removed,
        "deleted ACLs"
    );
    let results = checked
        .iter()
        .zip(outcomes)
        .map(|(check, outcome)| match (check, outcome) {
            (Err(message), _) => failed(ErrorCode::InvalidRequest, (*message).to_owned()),
            (Ok(_), FilterDeletion::Deleted(matched)) => DeleteAclsFilterResult {
                error_code: 0,
                error_message: None,
                matching_acls: matched.into_iter().map(matching_acl).collect(),
                unknown_tagged_fields: Default::default(),
            },
            (Ok(_), FilterDeletion::TooLarge) => {
                failed(ErrorCode::PolicyViolation, BATCH_TOO_LARGE.to_owned())
            }
            (Ok(_), FilterDeletion::Skipped) => failed(
                ErrorCode::UnknownServerError,
                "The filter was not applied.".to_owned(),
            ),
        })
        .collect();
    response(results)
}

fn matching_acl(binding: AclBinding) -> DeleteAclsMatchingAcl<'static> {
    DeleteAclsMatchingAcl {
        error_code: 0,
        error_message: None,
        resource_type: binding.pattern.resource_type.code(),
        resource_name: Cow::Owned(binding.pattern.name),
        pattern_type: binding.pattern.pattern_type.code(),
        principal: Cow::Owned(binding.entry.principal),
        host: Cow::Owned(binding.entry.host),
        operation: binding.entry.operation.code(),
        permission_type: binding.entry.permission_type.code(),
        unknown_tagged_fields: Default::default(),
    }
}

fn failed(code: ErrorCode, message: String) -> DeleteAclsFilterResult<'static> {
    DeleteAclsFilterResult {
        error_code: code.code(),
        error_message: Some(Cow::Owned(message)),
        matching_acls: Default::default(),
        unknown_tagged_fields: Default::default(),
    }
}

fn all_failed(
    checked: &[Result<AclBindingFilter, &'static str>],
    code: ErrorCode,
    message: String,
) -> DeleteAclsResponse<'static> {
    let results = checked
        .iter()
        .map(|check| match check {
            Err(invalid) => failed(ErrorCode::InvalidRequest, (*invalid).to_owned()),
            Ok(_) => failed(code, message.clone()),
        })
        .collect();
    response(results)
}

fn response(results: Vec<DeleteAclsFilterResult<'static>>) -> DeleteAclsResponse<'static> {
    DeleteAclsResponse {
        throttle_time_ms: 0,
        filter_results: results,
        unknown_tagged_fields: Default::default(),
    }
}
