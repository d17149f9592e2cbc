//! EndTxn (API key 26): commit or abort a transaction. Forwarded by a gateway node.
//!
//! v1 is the same as v0 (the broker answers before throttling on a quota violation); v2 may
//! return PRODUCER_FENCED (KIP-588); v3 is the first flexible version; v4 may return
//! TRANSACTION_ABORTABLE (KIP-890); v5 bumps the producer epoch on every transaction
//! (transactions v2, KIP-890 part 2) and returns the producer id and epoch.

use std::borrow::Cow;

kafka_message! {
    /// The transaction to end and how.
    pub struct EndTxnRequest<'a> {
        api_key: EndTxn, versions: 0-5, flexible: 3+;
        /// The transactional id of the transaction to end.
        transactional_id: Cow<'a, str> [versions 0+],
        /// The producer id.
        producer_id: i64 [versions 0+],
        /// The current epoch of the producer.
        producer_epoch: i16 [versions 0+],
        /// True to commit the transaction, false to abort it.
        committed: bool [versions 0+],
    }
}

kafka_message! {
    /// The outcome, and (v5+) the producer's id and new epoch.
    pub struct EndTxnResponse<'a> {
        api_key: EndTxn, versions: 0-5, flexible: 3+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The producer id, or -1 (v5+).
        producer_id: i64 [versions 5+, ignorable, default -1],
        /// The current epoch of the producer, or -1 (v5+).
        producer_epoch: i16 [versions 5+, ignorable, default -1],
    }
}
