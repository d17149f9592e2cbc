//! DescribeTransactions (65), v0 (KIP-664): transactions by transactional id. A standalone
//! kacl node runs no transaction coordinator, so every id it may describe is answered
//! TRANSACTIONAL_ID_NOT_FOUND, as Kafka's coordinator answers an id it has no state for;
//! without DESCRIBE on the transactional id, TRANSACTIONAL_ID_AUTHORIZATION_FAILED. Results
//! come in request order, as in Kafka. On a gateway node DescribeTransactions is forwarded to
//! the upstream.

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::describe_transactions::{
    DescribeTransactionsRequest, DescribeTransactionsResponse, TransactionState,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// DescribeTransactions: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeTransactions;

impl Handler for DescribeTransactions {
    type Request<'r> = DescribeTransactionsRequest<'r>;
    type Response<'r> = DescribeTransactionsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeTransactionsRequest<'r>,
    ) -> Result<DescribeTransactionsResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one DescribeTransactions request.
fn answer<'r>(
    ctx: &RequestContext<'_>,
    request: DescribeTransactionsRequest<'r>,
) -> DescribeTransactionsResponse<'r> {
    let session = ctx.authorizer();
    let transaction_states = request
        .transactional_ids
        .into_iter()
        .map(|transactional_id| {
            let allowed = session.allows(
                AclOperation::Describe,
                ResourceType::TransactionalId,
                &transactional_id,
                AuditPolicy::ENFORCED,
            );
            let code = if allowed {
                ErrorCode::TransactionalIdNotFound
            } else {
                ErrorCode::TransactionalIdAuthorizationFailed
            };
            TransactionState {
                error_code: code.code(),
                transactional_id,
                ..Default::default()
            }
        })
        .collect();
    DescribeTransactionsResponse {
        transaction_states,
        ..Default::default()
    }
}
