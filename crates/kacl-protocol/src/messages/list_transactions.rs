//! ListTransactions (API key 66, KIP-664): the transactions a broker coordinates, filtered by
//! state, producer id, duration or transactional id pattern (an admin API). Forwarded by a
//! gateway node.
//!
//! Every version is flexible. v1 adds the duration filter (KIP-994); v2 the transactional id
//! pattern (KIP-1152).

use std::borrow::Cow;

kafka_message! {
    /// The filters of the listing.
    pub struct ListTransactionsRequest<'a> {
        api_key: ListTransactions, versions: 0-2, flexible: 0+;
        /// The states to list; empty lists every state.
        state_filters: Vec<Cow<'a, str>> [versions 0+],
        /// The producer ids to list; empty lists every producer.
        producer_id_filters: Vec<i64> [versions 0+],
        /// List only transactions running longer than this many ms; negative lists all (v1+).
        duration_filter: i64 [versions 1+, default -1],
        /// A regular expression the transactional ids must match; null or empty matches all
        /// (v2+).
        transactional_id_pattern: Option<Cow<'a, str>> [versions 2+, nullable 2+],
    }
}

kafka_message! {
    /// The matching transactions.
    pub struct ListTransactionsResponse<'a> {
        api_key: ListTransactions, versions: 0-2, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The requested state filters the coordinator does not know.
        unknown_state_filters: Vec<Cow<'a, str>> [versions 0+],
        /// The matching transactions.
        transaction_states: Vec<TransactionState<'a>> [versions 0+],
    }

    /// One transaction.
    pub struct TransactionState<'a> {
        /// The transactional id.
        transactional_id: Cow<'a, str> [versions 0+],
        /// The producer id.
        producer_id: i64 [versions 0+],
        /// The transaction's state, e.g. "Ongoing".
        transaction_state: Cow<'a, str> [versions 0+],
    }
}
