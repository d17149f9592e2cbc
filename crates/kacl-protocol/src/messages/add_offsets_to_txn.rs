//! AddOffsetsToTxn (API key 25): add a consumer group's offsets partition to a transaction, so
//! that a later TxnOffsetCommit commits with it. Forwarded by a gateway node.
//!
//! v1 is the same as v0 (the broker answers before throttling on a quota violation); v2 may
//! return PRODUCER_FENCED (KIP-588); v3 is the first flexible version; v4 may return
//! TRANSACTION_ABORTABLE (KIP-890).

use std::borrow::Cow;

kafka_message! {
    /// The transaction and the group whose offsets join it.
    pub struct AddOffsetsToTxnRequest<'a> {
        api_key: AddOffsetsToTxn, versions: 0-4, flexible: 3+;
        /// The transactional id of the transaction.
        transactional_id: Cow<'a, str> [versions 0+],
        /// The producer id in use by the transactional id.
        producer_id: i64 [versions 0+],
        /// The epoch of the producer id.
        producer_epoch: i16 [versions 0+],
        /// The consumer group id.
        group_id: Cow<'a, str> [versions 0+],
    }
}

kafka_message! {
    /// Whether the group's offsets joined the transaction.
    pub struct AddOffsetsToTxnResponse<'a> {
        api_key: AddOffsetsToTxn, versions: 0-4, flexible: 3+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
    }
}
