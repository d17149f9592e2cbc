//! ListTransactions (66), v0-2 (KIP-664, KIP-994, KIP-1152): the transactions this node
//! coordinates. A standalone kacl node runs no transaction coordinator, so it has none and
//! answers an empty list with no error, whatever the filters (Kafka filters its transactions
//! by DESCRIBE on each transactional id, which leaves nothing to check here). On a gateway node
//! ListTransactions is forwarded to the upstream.
//!
//! Kafka lists the state filters it does not know in `unknown_state_filters`; kacl does the
//! same with Kafka's transaction state names.

use kacl_protocol::messages::list_transactions::{
    ListTransactionsRequest, ListTransactionsResponse,
};

use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Kafka's transaction state names (`TransactionState`), the only valid state filters.
const STATES: [&str; 8] = [
    "Empty",
    "Ongoing",
    "PrepareCommit",
    "PrepareAbort",
    "CompleteCommit",
    "CompleteAbort",
    "Dead",
    "PrepareEpochFence",
];

/// ListTransactions: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct ListTransactions;

impl Handler for ListTransactions {
    type Request<'r> = ListTransactionsRequest<'r>;
    type Response<'r> = ListTransactionsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: ListTransactionsRequest<'r>,
    ) -> Result<ListTransactionsResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one ListTransactions request.
fn answer<'r>(
    _ctx: &RequestContext<'_>,
    request: ListTransactionsRequest<'r>,
) -> ListTransactionsResponse<'r> {
    ListTransactionsResponse {
        unknown_state_filters: request
            .state_filters
            .into_iter()
            .filter(|state| !STATES.contains(&&**state))
            .collect(),
        ..Default::default()
    }
}
