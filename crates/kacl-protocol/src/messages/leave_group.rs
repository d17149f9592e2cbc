//! LeaveGroup (API key 13): leave a classic group, so that it rebalances without waiting for
//! the session timeout. Forwarded by a gateway node.
//!
//! v1 adds the throttle time to the response; v2 answers before throttling on a quota
//! violation; v3 batches several members ([`MemberIdentity`], with their group instance ids, in
//! place of the single member id; one [`MemberResponse`] each, KIP-345); v4 is the first
//! flexible version; v5 adds the leave reason (KIP-800).

use std::borrow::Cow;

kafka_message! {
    /// The member (v0-2) or members (v3+) leaving a group.
    pub struct LeaveGroupRequest<'a> {
        api_key: LeaveGroup, versions: 0-5, flexible: 4+;
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The member id leaving (v0-2).
        member_id: Cow<'a, str> [versions 0-2],
        /// The members leaving (v3+).
        members: Vec<MemberIdentity<'a>> [versions 3+],
    }

    /// One member leaving (v3+).
    pub struct MemberIdentity<'a> {
        /// The member id.
        member_id: Cow<'a, str> [versions 3+],
        /// The static member's instance id, or null.
        group_instance_id: Option<Cow<'a, str>> [versions 3+, nullable 3+],
        /// Why the member leaves, or null (v5+).
        reason: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
    }
}

kafka_message! {
    /// The outcome, overall and (v3+) per member.
    pub struct LeaveGroupResponse<'a> {
        api_key: LeaveGroup, versions: 0-5, flexible: 4+;
        /// Time the request was throttled for a quota violation, or zero (v1+).
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The outcome for each member (v3+).
        members: Vec<MemberResponse<'a>> [versions 3+],
    }

    /// The outcome for one member (v3+).
    pub struct MemberResponse<'a> {
        /// The member id.
        member_id: Cow<'a, str> [versions 3+],
        /// The static member's instance id, or null.
        group_instance_id: Option<Cow<'a, str>> [versions 3+, nullable 3+,
            default Some(Cow::Borrowed(""))],
        /// The error code, or 0.
        error_code: i16 [versions 3+],
    }
}
