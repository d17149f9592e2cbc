//! DescribeGroups (API key 15): the state, protocol and members of classic groups. Forwarded by
//! a gateway node.
//!
//! v1 adds the throttle time to the response; v2 answers before throttling on a quota
//! violation; v3 can return the group's authorized operations (KIP-430); v4 the members' group
//! instance ids (KIP-345); v5 is the first flexible version; v6 adds a per-group error message
//! and answers GROUP_ID_NOT_FOUND for a group that does not exist (KIP-1043).

use std::borrow::Cow;

kafka_message! {
    /// The groups to describe.
    pub struct DescribeGroupsRequest<'a> {
        api_key: DescribeGroups, versions: 0-6, flexible: 5+;
        /// The ids of the groups to describe.
        groups: Vec<Cow<'a, str>> [versions 0+],
        /// Whether to include the groups' authorized operations (v3+).
        include_authorized_operations: bool [versions 3+],
    }
}

kafka_message! {
    /// One description per requested group.
    pub struct DescribeGroupsResponse<'a> {
        api_key: DescribeGroups, versions: 0-6, flexible: 5+;
        /// Time the request was throttled for a quota violation, or zero (v1+).
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// Each described group.
        groups: Vec<DescribedGroup<'a>> [versions 0+],
    }

    /// One group.
    pub struct DescribedGroup<'a> {
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null (v6+).
        error_message: Option<Cow<'a, str>> [versions 6+, nullable 6+],
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The group state, e.g. `Stable`, or empty.
        group_state: Cow<'a, str> [versions 0+],
        /// The group's protocol type, or empty.
        protocol_type: Cow<'a, str> [versions 0+],
        /// The group's protocol (for consumers: the assignor), or empty.
        protocol_data: Cow<'a, str> [versions 0+],
        /// The group's members (empty for a dead group).
        members: Vec<DescribedGroupMember<'a>> [versions 0+],
        /// 32-bit bitfield of the operations authorized on the group, or `i32::MIN` when not
        /// requested (v3+).
        authorized_operations: i32 [versions 3+, default i32::MIN],
    }

    /// One member of a group.
    pub struct DescribedGroupMember<'a> {
        /// The member id.
        member_id: Cow<'a, str> [versions 0+],
        /// The static member's instance id, or null (v4+).
        group_instance_id: Option<Cow<'a, str>> [versions 4+, nullable 4+, ignorable],
        /// The client id of the member's latest JoinGroup.
        client_id: Cow<'a, str> [versions 0+],
        /// The member's host.
        client_host: Cow<'a, str> [versions 0+],
        /// The member's metadata for the group's protocol (only for a stable group).
        member_metadata: Cow<'a, [u8]> [versions 0+],
        /// The member's assignment from the leader (only for a stable group).
        member_assignment: Cow<'a, [u8]> [versions 0+],
    }
}
