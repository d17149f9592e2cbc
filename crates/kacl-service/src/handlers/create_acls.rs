//! CreateAcls (30), v0-3: add ACLs, idempotently, all of a request or none.
//!
//! Order, as Kafka: ALTER on the cluster (else CLUSTER_AUTHORIZATION_FAILED on every entry);
//! then each entry's validation with Kafka's codes and texts (`kacl_acl::validate_new_acl`);
//! then the valid entries are committed together. An ACL that exists, or repeats within the
//! request, succeeds without being written again. Success results carry `ErrorMessage = ""`
//! (Kafka's generated default), not null. The response is sent only after the store has
//! fsynced the commit.
//!
//! Deliberate differences from Kafka:
//! - an entry holding ANY or MATCH (a filter value) gets INVALID_REQUEST naming the field
//!   (`Invalid patternType MATCH`), like an entry holding UNKNOWN; Kafka fails every creation of
//!   the request with UNKNOWN_SERVER_ERROR because its request parser throws;
//! - above `kacl.acl.max.batch` new ACLs (Kafka: 10,000 records) every valid entry gets
//!   POLICY_VIOLATION and nothing is written; entries that failed validation keep their own
//!   error (Kafka fails the whole controller operation).
//! - a store that cannot write answers KAFKA_STORAGE_ERROR with the cause on each valid entry
//!   ([`store_failure_code`]).

use std::borrow::Cow;

use kacl_acl::{validate_new_acl, AclBinding, AclOperation};
use kacl_protocol::messages::create_acls::{
    AclCreationResult, CreateAclsRequest, CreateAclsResponse,
};
use kacl_protocol::ErrorCode;

use super::acl_filter::creation_binding;
use super::Handler;
use crate::acl_writer::CreateError;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Kafka's POLICY_VIOLATION text for an operation above the record limit.
pub const BATCH_TOO_LARGE: &str = "Unable to perform excessively large batch operation.";

/// CreateAcls: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct CreateAcls;

impl Handler for CreateAcls {
    type Request<'r> = CreateAclsRequest<'r>;
    type Response<'r> = CreateAclsResponse<'r>;

    /// Answers one CreateAcls request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: CreateAclsRequest<'r>,
    ) -> Result<CreateAclsResponse<'r>, Outcome> {
        if !ctx.cluster_allows(AclOperation::Alter) {
            let message = ctx.cluster_denied_message();
            let results = request
                .creations
                .iter()
                .map(|_| result(ErrorCode::ClusterAuthorizationFailed, Some(message.clone())))
                .collect();
            return Ok(response(results));
        }
        let mut results: Vec<Option<AclCreationResult<'static>>> = Vec::new();
        let mut valid: Vec<AclBinding> = Vec::new();
        for creation in &request.creations {
            let binding = creation_binding(
                creation.resource_type,
                &creation.resource_name,
                creation.resource_pattern_type,
                &creation.principal,
                &creation.host,
                creation.operation,
                creation.permission_type,
            );
            match validate_new_acl(&binding) {
                Ok(()) => {
                    valid.push(binding);
                    results.push(None);
                }
                Err(err) => results.push(Some(result(
                    ErrorCode::InvalidRequest,
                    Some(err.to_string()),
                ))),
            }
        }
        let outcome_for_valid = if valid.is_empty() {
            result(ErrorCode::None, Some(String::new()))
        } else {
            let state = ctx.state.clone();
            let max_batch = ctx.state.config.acl_max_batch;
            let count = valid.len();
            let written = tokio::task::spawn_blocking(move || {
                state.acl_writer.create_owned(valid, max_batch)
            })
            .await;
            match written {
                Ok(Ok(added)) => {
                    crate::audit::acls_added(ctx.requester(), &added);
                    tracing::info!(
                        principal = %kacl_logsafe::safe(ctx.principal),
                        requested = count,
                        added = added.len(),
                        "created ACLs"
                    );
                    result(ErrorCode::None, Some(String::new()))
                }
                Ok(Err(CreateError::TooLarge { new, max })) => {
                    tracing::info!(
                        principal = %kacl_logsafe::safe(ctx.principal),
                        new,
                        max,
                        "CreateAcls above the batch limit"
                    );
                    result(ErrorCode::PolicyViolation, Some(BATCH_TOO_LARGE.to_owned()))
                }
                Ok(Err(CreateError::Store(err))) => result(
                    store_failure_code(&err),
                    Some(format!("The ACLs could not be stored: {err}")),
                ),
                Err(err) => result(
                    ErrorCode::UnknownServerError,
                    Some(format!("The ACL writer failed: {err}")),
                ),
            }
        };
        let results = results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| outcome_for_valid.clone()))
            .collect();
        Ok(response(results))
    }
}

/// The code for an ACL write the store failed: KAFKA_STORAGE_ERROR when the storage itself
/// failed (disk full, read-only, I/O error), so that the client sees a retriable storage
/// problem; UNKNOWN_SERVER_ERROR for anything else. The message always carries the cause.
/// Deliberate difference from Kafka: its controller reports a failed metadata-log write as
/// UNKNOWN_SERVER_ERROR or NOT_CONTROLLER; kacl has no controller to fail over to.
/// A shared store (etcd) that did not answer within `kacl.etcd.request.timeout.ms` gets
/// REQUEST_TIMED_OUT, what Kafka's forwarding answers when the controller cannot be reached.
pub(crate) fn store_failure_code(err: &kacl_store::StoreError) -> ErrorCode {
    if matches!(err, kacl_store::StoreError::Unavailable { .. }) {
        ErrorCode::RequestTimedOut
    } else if err.is_storage_failure() {
        ErrorCode::KafkaStorageError
    } else {
        ErrorCode::UnknownServerError
    }
}

fn result(code: ErrorCode, message: Option<String>) -> AclCreationResult<'static> {
    AclCreationResult {
        error_code: code.code(),
        error_message: message.map(Cow::Owned),
        unknown_tagged_fields: Default::default(),
    }
}

fn response(results: Vec<AclCreationResult<'static>>) -> CreateAclsResponse<'static> {
    CreateAclsResponse {
        throttle_time_ms: 0,
        results,
        unknown_tagged_fields: Default::default(),
    }
}
