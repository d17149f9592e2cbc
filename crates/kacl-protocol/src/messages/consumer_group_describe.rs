//! ConsumerGroupDescribe (API key 69): the state, epochs, members and assignments of KIP-848
//! consumer groups. Forwarded by a gateway node.
//!
//! Flexible in every version. v1 adds each member's type (classic or consumer, KIP-1099).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// The groups to describe.
    pub struct ConsumerGroupDescribeRequest<'a> {
        api_key: ConsumerGroupDescribe, versions: 0-1, flexible: 0+;
        /// The ids of the groups to describe.
        group_ids: Vec<Cow<'a, str>> [versions 0+],
        /// Whether to include the groups' authorized operations.
        include_authorized_operations: bool [versions 0+],
    }
}

kafka_message! {
    /// One description per requested group.
    pub struct ConsumerGroupDescribeResponse<'a> {
        api_key: ConsumerGroupDescribe, versions: 0-1, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// Each described group.
        groups: Vec<DescribedGroup<'a>> [versions 0+],
    }

    /// One group.
    pub struct DescribedGroup<'a> {
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The group id.
        group_id: Cow<'a, str> [versions 0+],
        /// The group state, or empty.
        group_state: Cow<'a, str> [versions 0+],
        /// The group epoch.
        group_epoch: i32 [versions 0+],
        /// The assignment epoch.
        assignment_epoch: i32 [versions 0+],
        /// The selected assignor.
        assignor_name: Cow<'a, str> [versions 0+],
        /// The group's members.
        members: Vec<Member<'a>> [versions 0+],
        /// 32-bit bitfield of the operations authorized on the group, or `i32::MIN` when not
        /// requested.
        authorized_operations: i32 [versions 0+, default i32::MIN],
    }

    /// One member of a group.
    pub struct Member<'a> {
        /// The member id.
        member_id: Cow<'a, str> [versions 0+],
        /// The static member's instance id, or null.
        instance_id: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The member's rack id, or null.
        rack_id: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The current member epoch.
        member_epoch: i32 [versions 0+],
        /// The member's client id.
        client_id: Cow<'a, str> [versions 0+],
        /// The member's host.
        client_host: Cow<'a, str> [versions 0+],
        /// The subscribed topic names.
        subscribed_topic_names: Vec<Cow<'a, str>> [versions 0+],
        /// The subscribed topic regex, or null.
        subscribed_topic_regex: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The member's current assignment.
        assignment: Assignment<'a> [versions 0+],
        /// The member's target assignment.
        target_assignment: Assignment<'a> [versions 0+],
        /// The member type: -1 unknown, 0 classic, 1 consumer (v1+).
        member_type: i8 [versions 1+, ignorable, default -1],
    }

    /// A member's assignment.
    pub struct Assignment<'a> {
        /// The assigned partitions.
        topic_partitions: Vec<TopicPartitions<'a>> [versions 0+],
    }

    /// Partitions of one topic.
    pub struct TopicPartitions<'a> {
        /// The topic id.
        topic_id: Uuid [versions 0+],
        /// The topic name.
        topic_name: Cow<'a, str> [versions 0+],
        /// The partition indexes.
        partitions: Vec<i32> [versions 0+],
    }
}
