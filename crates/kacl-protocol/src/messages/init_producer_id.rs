//! InitProducerId (API key 22): a producer id and epoch for an idempotent producer (no
//! transactional id) or a transactional one (whose earlier epochs it fences). Forwarded by a
//! gateway node.
//!
//! v1 is the same as v0 (the broker answers before throttling on a quota violation); v2 is the
//! first flexible version; v3 adds the request's producer id and epoch, so that a producer can
//! resume after INVALID_PRODUCER_EPOCH (KIP-360); v4 may return PRODUCER_FENCED (KIP-588); v5
//! TRANSACTION_ABORTABLE (KIP-890). Kafka 4.1's v6 (two-phase commit, KIP-939) is unstable there
//! and not declared.

use std::borrow::Cow;

kafka_message! {
    /// The producer asking for an id.
    pub struct InitProducerIdRequest<'a> {
        api_key: InitProducerId, versions: 0-5, flexible: 2+;
        /// The transactional id, or null if the producer is not transactional.
        transactional_id: Option<Cow<'a, str>> [versions 0+, nullable 0+,
            default Some(Cow::Borrowed(""))],
        /// How long in ms a transaction of this producer may stay idle before it is aborted
        /// (only relevant with a transactional id).
        transaction_timeout_ms: i32 [versions 0+],
        /// The producer id, or -1 (v3+): disambiguates a reused transactional id.
        producer_id: i64 [versions 3+, default -1],
        /// The producer's current epoch, or -1 (v3+); checked against the broker's.
        producer_epoch: i16 [versions 3+, default -1],
    }
}

kafka_message! {
    /// The producer id and epoch granted.
    pub struct InitProducerIdResponse<'a> {
        api_key: InitProducerId, versions: 0-5, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The current producer id.
        producer_id: i64 [versions 0+, default -1],
        /// The current epoch of the producer id.
        producer_epoch: i16 [versions 0+],
    }
}
