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
//! - the response limit: the answer lists every match of every filter (an ACL matched by
//!   several filters under each), so a small request can ask for an enormous answer (1,000
//!   ANY filters over 2,000 ACLs: 2M entries, 45 MB). Before anything is deleted the answer's
//!   size is counted over the index; above `socket.request.max.bytes` every filter gets
//!   POLICY_VIOLATION and nothing is deleted. Kafka has no such bound;
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
use kacl_protocol::wire::{Cx, Field};
use kacl_protocol::{ErrorCode, Message};

use super::acl_filter::WireFilter;
use super::create_acls::{store_failure_code, BATCH_TOO_LARGE};
use super::Handler;
use crate::acl_writer::{Deletion, FilterDeletion};
use crate::context::RequestContext;
use crate::metrics::ResponseErrors;
use crate::outcome::Outcome;

/// DeleteAcls: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DeleteAcls;

impl Handler for DeleteAcls {
    type Request<'r> = DeleteAclsRequest<'r>;
    type Response<'r> = DeleteAclsResponse<'r>;

    /// Answers one DeleteAcls request; a successful deletion's answer is encoded here (`Err`
    /// carries it, see [`respond`]), the refusals are returned as responses.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DeleteAclsRequest<'r>,
    ) -> Result<DeleteAclsResponse<'r>, Outcome> {
        if !ctx.cluster_allows(AclOperation::Alter) {
            let message = ctx.cluster_denied_message();
            let results = request
                .filters
                .iter()
                .map(|_| failed(ErrorCode::ClusterAuthorizationFailed, message.clone()))
                .collect();
            return Ok(response(results));
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
        let max_response = ctx.state.config.socket_request_max_bytes as usize;
        let deleted = tokio::task::spawn_blocking(move || {
            state
                .acl_writer
                .delete_within(&planned, max_batch, max_response)
        })
        .await;
        let deletion = match deleted {
            Ok(Ok(Ok(deletion))) => deletion,
            Ok(Ok(Err(bytes))) => {
                return Ok(all_failed(
                    &checked,
                    ErrorCode::PolicyViolation,
                    format!(
                        "The response would list about {bytes} bytes of matching ACLs, more than \
                         socket.request.max.bytes ({max_response}); nothing was deleted. Use fewer \
                         or narrower filters per request."
                    ),
                ));
            }
            Ok(Err(err)) => {
                return Ok(all_failed(
                    &checked,
                    store_failure_code(&err),
                    format!("The ACLs could not be deleted: {err}"),
                ));
            }
            Err(err) => {
                return Ok(all_failed(
                    &checked,
                    ErrorCode::UnknownServerError,
                    format!("The ACL writer failed: {err}"),
                ));
            }
        };
        // Each ACL is deleted (and audited) once, whatever the number of filters that matched it.
        crate::audit::acls_removed(ctx.requester(), deletion.acls.iter());
        tracing::info!(
            principal = %kacl_logsafe::safe(ctx.principal),
            filters = checked.len(),
            matched = deletion.acls.len(),
            "deleted ACLs"
        );
        // Encoded here, one filter result at a time, instead of built as a response struct.
        Err(respond(ctx, &checked, &deletion))
    }
}

/// The answer, encoded one filter result at a time from the deletion's single copy of each
/// ACL (borrowed, in one reused result): the request's memory is the bindings once, four
/// bytes per listed match and the encoded frame, never a value per listed match.
fn respond(
    ctx: &RequestContext<'_>,
    checked: &[Result<AclBindingFilter, &'static str>],
    deletion: &Deletion,
) -> Outcome {
    const WHAT: &str = "DeleteAclsResponse.filter_results";
    let count = checked.len();
    let cx = Cx::top(
        ctx.version,
        DeleteAclsResponse::FLEXIBLE.contains(ctx.version),
    );
    let mut result = DeleteAclsFilterResult::default();
    let mut codes = Vec::with_capacity(count);
    let mut body_len = 0usize;
    for at in 0..count {
        fill(&mut result, at, checked, deletion);
        codes.push(result.error_code);
        body_len += result.field_len(cx);
    }
    ctx.state.metrics.count_errors(ctx.api, &Codes(codes));
    ctx.respond_with_array(&response(Vec::new()), count, body_len, |out, cx| {
        for at in 0..count {
            fill(&mut result, at, checked, deletion);
            result.encode_field(out, cx, WHAT)?;
        }
        Ok(())
    })
}

/// Sets `result` to filter `at`'s outcome, its matches borrowed from `deletion`.
fn fill<'d>(
    result: &mut DeleteAclsFilterResult<'d>,
    at: usize,
    checked: &[Result<AclBindingFilter, &'static str>],
    deletion: &'d Deletion,
) {
    let outcome = deletion.filters.get(at).unwrap_or(&FilterDeletion::Skipped);
    let (code, message) = match (checked.get(at), outcome) {
        (Some(Err(message)), _) => (ErrorCode::InvalidRequest, Some(*message)),
        (_, FilterDeletion::Deleted(_)) => (ErrorCode::None, None),
        (_, FilterDeletion::TooLarge) => (ErrorCode::PolicyViolation, Some(BATCH_TOO_LARGE)),
        (_, FilterDeletion::Skipped) => (
            ErrorCode::UnknownServerError,
            Some("The filter was not applied."),
        ),
    };
    result.error_code = code.code();
    result.error_message = message.map(Cow::Borrowed);
    result.matching_acls.clear();
    if let FilterDeletion::Deleted(matched) = outcome {
        result.matching_acls.extend(
            matched
                .iter()
                .filter_map(|&id| deletion.acls.get(id as usize))
                .map(matching_acl),
        );
    }
}

/// The filter results' error codes, for the metrics (the answer is encoded without them).
struct Codes(Vec<i16>);

impl ResponseErrors for Codes {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.0.iter().for_each(|&c| code(c));
    }
}

fn matching_acl(binding: &AclBinding) -> DeleteAclsMatchingAcl<'_> {
    DeleteAclsMatchingAcl {
        error_code: 0,
        error_message: None,
        resource_type: binding.pattern.resource_type.code(),
        resource_name: Cow::Borrowed(&binding.pattern.name),
        pattern_type: binding.pattern.pattern_type.code(),
        principal: Cow::Borrowed(&binding.entry.principal),
        host: Cow::Borrowed(&binding.entry.host),
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
