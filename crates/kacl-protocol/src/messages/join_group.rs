//! JoinGroup (API key 11): join a classic consumer group (or any classic-protocol group, e.g.
//! Connect workers) and, for the leader, learn every member's metadata. Forwarded by a gateway
//! node.
//!
//! v1 adds the rebalance timeout; v2 the throttle time; v3 answers before throttling on a quota
//! violation; v4 makes a new member join twice, the first time to be given its member id
//! (MEMBER_ID_REQUIRED, KIP-394); v5 adds the group instance id (static membership, KIP-345);
//! v6 is the first flexible version; v7 returns the protocol type and lets the protocol name be
//! null (KIP-559); v8 adds the join reason (KIP-800); v9 adds `skip_assignment`, set when the
//! leader must not run the assignment (KIP-814).

use std::borrow::Cow;

kafka_message! {
    /// A member joining a group, with the protocols it supports.
    pub struct JoinGroupRequest<'a> {
        api_key: JoinGroup, versions: 0-9, flexible: 6+;
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// How long in milliseconds without a heartbeat before the member is considered dead.
        session_timeout_ms: i32 [versions 0+],
        /// How long in milliseconds the coordinator waits for each member to rejoin in a
        /// rebalance, or -1 (v1+; v0 uses the session timeout).
        rebalance_timeout_ms: i32 [versions 1+, ignorable, default -1],
        /// The member id assigned by the coordinator, or empty on a first join.
        member_id: Cow<'a, str> [versions 0+],
        /// The static member's instance id, or null (v5+).
        group_instance_id: Option<Cow<'a, str>> [versions 5+, nullable 5+],
        /// The class of protocols the group implements, e.g. `consumer`.
        protocol_type: Cow<'a, str> [versions 0+],
        /// The protocols the member supports, in order of preference.
        protocols: Vec<JoinGroupRequestProtocol<'a>> [versions 0+],
        /// Why the member (re)joins, or null (v8+).
        reason: Option<Cow<'a, str>> [versions 8+, nullable 8+, ignorable],
    }

    /// One protocol the member supports.
    pub struct JoinGroupRequestProtocol<'a> {
        /// The protocol name, e.g. an assignor.
        name: Cow<'a, str> [versions 0+],
        /// The protocol metadata (for consumers: the subscription).
        metadata: Cow<'a, [u8]> [versions 0+],
    }
}

kafka_message! {
    /// The generation joined, the chosen protocol and, for the leader, every member.
    pub struct JoinGroupResponse<'a> {
        api_key: JoinGroup, versions: 0-9, flexible: 6+;
        /// Time the request was throttled for a quota violation, or zero (v2+).
        throttle_time_ms: i32 [versions 2+, ignorable],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The generation id of the group, or -1.
        generation_id: i32 [versions 0+, default -1],
        /// The protocol type of the group, or null (v7+).
        protocol_type: Option<Cow<'a, str>> [versions 7+, nullable 7+, ignorable],
        /// The protocol the coordinator selected; null (v7+) when none was.
        protocol_name: Option<Cow<'a, str>> [versions 0+, nullable 7+,
            default Some(Cow::Borrowed(""))],
        /// The member id of the group leader.
        leader: Cow<'a, str> [versions 0+],
        /// Whether the leader must skip running the assignment (v9+).
        skip_assignment: bool [versions 9+, default false],
        /// The member id the coordinator assigned to this member.
        member_id: Cow<'a, str> [versions 0+],
        /// The group's members, sent to the leader only.
        members: Vec<JoinGroupResponseMember<'a>> [versions 0+],
    }

    /// One member of the group.
    pub struct JoinGroupResponseMember<'a> {
        /// The member id.
        member_id: Cow<'a, str> [versions 0+],
        /// The static member's instance id, or null (v5+).
        group_instance_id: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
        /// The member's metadata for the selected protocol.
        metadata: Cow<'a, [u8]> [versions 0+],
    }
}
