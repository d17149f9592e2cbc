//! SyncGroup (API key 14): after a classic group's JoinGroup, the leader sends every member's
//! assignment and each member receives its own. Forwarded by a gateway node.
//!
//! v1 adds the throttle time to the response; v2 answers before throttling on a quota
//! violation; v3 adds the group instance id (static membership, KIP-345); v4 is the first
//! flexible version; v5 carries the protocol type and name both ways, checked by the broker
//! against the group's (KIP-559).

use std::borrow::Cow;

kafka_message! {
    /// A member's sync, with every member's assignment when sent by the leader.
    pub struct SyncGroupRequest<'a> {
        api_key: SyncGroup, versions: 0-5, flexible: 4+;
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The generation of the group.
        generation_id: i32 [versions 0+],
        /// The member id assigned by the coordinator.
        member_id: Cow<'a, str> [versions 0+],
        /// The static member's instance id, or null (v3+).
        group_instance_id: Option<Cow<'a, str>> [versions 3+, nullable 3+],
        /// The group's protocol type, or null (v5+).
        protocol_type: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
        /// The group's protocol name, or null (v5+).
        protocol_name: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
        /// Each member's assignment (from the leader; empty from the others).
        assignments: Vec<SyncGroupRequestAssignment<'a>> [versions 0+],
    }

    /// One member's assignment.
    pub struct SyncGroupRequestAssignment<'a> {
        /// The member id.
        member_id: Cow<'a, str> [versions 0+],
        /// The member's assignment.
        assignment: Cow<'a, [u8]> [versions 0+],
    }
}

kafka_message! {
    /// This member's assignment.
    pub struct SyncGroupResponse<'a> {
        api_key: SyncGroup, versions: 0-5, flexible: 4+;
        /// Time the request was throttled for a quota violation, or zero (v1+).
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The group's protocol type, or null (v5+).
        protocol_type: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
        /// The group's protocol name, or null (v5+).
        protocol_name: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
        /// The member's assignment.
        assignment: Cow<'a, [u8]> [versions 0+],
    }
}
