//! DeleteGroups (API key 42): delete empty groups and their committed offsets. Answered by a
//! standalone node (it has no groups), forwarded by a gateway node.
//!
//! v1 answers before throttling on a quota violation; v2 is the first flexible version.

use std::borrow::Cow;

kafka_message! {
    /// The groups to delete.
    pub struct DeleteGroupsRequest<'a> {
        api_key: DeleteGroups, versions: 0-2, flexible: 2+;
        /// The ids of the groups to delete.
        groups_names: Vec<Cow<'a, str>> [versions 0+],
    }
}

kafka_message! {
    /// One result per group.
    pub struct DeleteGroupsResponse<'a> {
        api_key: DeleteGroups, versions: 0-2, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The deletion results.
        results: Vec<DeletableGroupResult<'a>> [versions 0+],
    }

    /// The result for one group.
    pub struct DeletableGroupResult<'a> {
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The error code, or 0 if the group was deleted.
        error_code: i16 [versions 0+],
    }
}
