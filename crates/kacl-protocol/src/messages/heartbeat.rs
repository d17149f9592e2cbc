//! Heartbeat (API key 12): keep a classic group membership alive and learn of a rebalance
//! (REBALANCE_IN_PROGRESS). Forwarded by a gateway node.
//!
//! v1 adds the throttle time to the response; v2 answers before throttling on a quota
//! violation; v3 adds the group instance id (static membership, KIP-345); v4 is the first
//! flexible version.

use std::borrow::Cow;

kafka_message! {
    /// The member and generation that are still alive.
    pub struct HeartbeatRequest<'a> {
        api_key: Heartbeat, versions: 0-4, flexible: 4+;
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The generation of the group.
        generation_id: i32 [versions 0+],
        /// The member id.
        member_id: Cow<'a, str> [versions 0+],
        /// The static member's instance id, or null (v3+).
        group_instance_id: Option<Cow<'a, str>> [versions 3+, nullable 3+],
    }
}

kafka_message! {
    /// The heartbeat's outcome.
    pub struct HeartbeatResponse<'a> {
        api_key: Heartbeat, versions: 0-4, flexible: 4+;
        /// Time the request was throttled for a quota violation, or zero (v1+).
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
    }
}
