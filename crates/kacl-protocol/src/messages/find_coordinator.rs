//! FindCoordinator (API key 10): which broker coordinates a consumer group, a transactional id or
//! a share group. Forwarded by a gateway node.
//!
//! v1 adds the key type (0 group, 1 transaction) and, in the response, the throttle time and
//! error message; v2 answers before throttling on a quota violation; v3 is the first flexible
//! version; v4 batches several keys of one type (`coordinator_keys` and one [`Coordinator`] per
//! key replace the single key and answer, KIP-699); v5 may return TRANSACTION_ABORTABLE
//! (KIP-890); v6 adds share groups (key type 2, KIP-932).

use std::borrow::Cow;

kafka_message! {
    /// The key (v0-3) or keys (v4+) to find coordinators for.
    pub struct FindCoordinatorRequest<'a> {
        api_key: FindCoordinator, versions: 0-6, flexible: 3+;
        /// The coordinator key (v0-3).
        key: Cow<'a, str> [versions 0-3],
        /// The key type: 0 group, 1 transaction, 2 share group (v1+).
        key_type: i8 [versions 1+, default 0],
        /// The coordinator keys (v4+).
        coordinator_keys: Vec<Cow<'a, str>> [versions 4+],
    }
}

kafka_message! {
    /// The coordinator (v0-3) or one coordinator per key (v4+).
    pub struct FindCoordinatorResponse<'a> {
        api_key: FindCoordinator, versions: 0-6, flexible: 3+;
        /// Time the request was throttled for a quota violation, or zero (v1+).
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The error code, or 0 (v0-3).
        error_code: i16 [versions 0-3],
        /// The error message, or null (v1-3).
        error_message: Option<Cow<'a, str>> [versions 1-3, nullable 1-3, ignorable,
            default Some(Cow::Borrowed(""))],
        /// The coordinator's broker id (v0-3).
        node_id: i32 [versions 0-3],
        /// The coordinator's host name (v0-3).
        host: Cow<'a, str> [versions 0-3],
        /// The coordinator's port (v0-3).
        port: i32 [versions 0-3],
        /// One result per requested key (v4+).
        coordinators: Vec<Coordinator<'a>> [versions 4+],
    }

    /// The coordinator of one key (v4+).
    pub struct Coordinator<'a> {
        /// The coordinator key.
        key: Cow<'a, str> [versions 4+],
        /// The coordinator's broker id.
        node_id: i32 [versions 4+],
        /// The coordinator's host name.
        host: Cow<'a, str> [versions 4+],
        /// The coordinator's port.
        port: i32 [versions 4+],
        /// The error code, or 0.
        error_code: i16 [versions 4+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 4+, nullable 4+, ignorable,
            default Some(Cow::Borrowed(""))],
    }
}
