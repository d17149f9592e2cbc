//! DescribeTransactions (API key 65, KIP-664): the state, producer and partitions of
//! transactions, by transactional id (an admin API). Forwarded by a gateway node.
//!
//! v0 is the only version, and flexible.

use std::borrow::Cow;

kafka_message! {
    /// The transactions to describe.
    pub struct DescribeTransactionsRequest<'a> {
        api_key: DescribeTransactions, versions: 0-0, flexible: 0+;
        /// The transactional ids to describe; empty describes none.
        transactional_ids: Vec<Cow<'a, str>> [versions 0+],
    }
}

kafka_message! {
    /// One state per requested transactional id.
    pub struct DescribeTransactionsResponse<'a> {
        api_key: DescribeTransactions, versions: 0-0, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The state of each transaction.
        transaction_states: Vec<TransactionState<'a>> [versions 0+],
    }

    /// One transaction.
    pub struct TransactionState<'a> {
        /// The error code for this transactional id, or 0.
        error_code: i16 [versions 0+],
        /// The transactional id.
        transactional_id: Cow<'a, str> [versions 0+],
        /// The transaction's state, e.g. "Ongoing" or "CompleteCommit".
        transaction_state: Cow<'a, str> [versions 0+],
        /// The transaction timeout in ms.
        transaction_timeout_ms: i32 [versions 0+],
        /// When the transaction started, in ms since the epoch.
        transaction_start_time_ms: i64 [versions 0+],
        /// The current producer id of the transaction.
        producer_id: i64 [versions 0+],
        /// The current epoch of the producer id.
        producer_epoch: i16 [versions 0+],
        /// The partitions in the transaction (while preparing to commit or abort, only those
        /// still without a marker).
        topics: Vec<TopicData<'a>> [versions 0+],
    }

    /// The partitions of one topic in a transaction.
    pub struct TopicData<'a> {
        /// The topic name.
        topic: Cow<'a, str> [versions 0+],
        /// The partition indexes in the transaction.
        partitions: Vec<i32> [versions 0+],
    }
}
