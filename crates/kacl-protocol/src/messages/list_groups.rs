//! ListGroups (API key 16): the groups a broker coordinates, of every type (classic, consumer,
//! share, streams). Forwarded by a gateway node.
//!
//! v1 adds the throttle time to the response; v2 answers before throttling on a quota
//! violation; v3 is the first flexible version; v4 filters by and returns the group state
//! (KIP-518); v5 filters by and returns the group type (KIP-848).

use std::borrow::Cow;

kafka_message! {
    /// Optional filters on the groups to list.
    pub struct ListGroupsRequest<'a> {
        api_key: ListGroups, versions: 0-5, flexible: 3+;
        /// The group states to list, or empty for all (v4+).
        states_filter: Vec<Cow<'a, str>> [versions 4+],
        /// The group types to list, or empty for all (v5+).
        types_filter: Vec<Cow<'a, str>> [versions 5+],
    }
}

kafka_message! {
    /// The groups.
    pub struct ListGroupsResponse<'a> {
        api_key: ListGroups, versions: 0-5, flexible: 3+;
        /// Time the request was throttled for a quota violation, or zero (v1+).
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// Each group.
        groups: Vec<ListedGroup<'a>> [versions 0+],
    }

    /// One group.
    pub struct ListedGroup<'a> {
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The group's protocol type.
        protocol_type: Cow<'a, str> [versions 0+],
        /// The group state (v4+).
        group_state: Cow<'a, str> [versions 4+, ignorable],
        /// The group type (v5+).
        group_type: Cow<'a, str> [versions 5+, ignorable],
    }
}
