//! Differential properties against `kafka-protocol` 0.18.0 (Kafka 4.1's schemas) for the
//! consumer-group messages a gateway node forwards: OffsetCommit, OffsetFetch, FindCoordinator,
//! JoinGroup, Heartbeat, LeaveGroup, SyncGroup, DescribeGroups, ListGroups, DeleteGroups,
//! OffsetDelete, ConsumerGroupHeartbeat and ConsumerGroupDescribe, at every version both crates
//! support: for random values, both encoders produce the same bytes, and each decoder reads the
//! other's bytes back to the same value.

#[macro_use]
mod differential_support;
mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    consumer_group_describe as ours_cgd, consumer_group_heartbeat as ours_cgh,
    delete_groups as ours_dlg, describe_groups as ours_dg, find_coordinator as ours_fc,
    heartbeat as ours_hb, join_group as ours_jg, leave_group as ours_lg, list_groups as ours_lsg,
    offset_commit as ours_oc, offset_delete as ours_od, offset_fetch as ours_of,
    sync_group as ours_sg,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{Message, Uuid};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

/// Our values as kafka-protocol values, field by field.
mod convert {
    use std::borrow::Cow;

    use super::*;

    fn s(value: &str) -> StrBytes {
        StrBytes::from_string(value.to_string())
    }

    fn ns(value: &Option<Cow<'_, str>>) -> Option<StrBytes> {
        value.as_deref().map(s)
    }

    fn group(value: &str) -> kp::GroupId {
        kp::GroupId(s(value))
    }

    fn topic(value: &str) -> kp::TopicName {
        kp::TopicName(s(value))
    }

    fn bytes(value: &[u8]) -> Bytes {
        Bytes::copy_from_slice(value)
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    /// kafka-protocol's topic ids are `uuid::Uuid`, a crate kacl-protocol does not depend on; a
    /// `TopicPartitions` decoded from the 16 bytes carries one.
    fn uuid_holder(id: &Uuid) -> kp::consumer_group_heartbeat_request::TopicPartitions {
        let mut wire = id.0.to_vec();
        wire.extend_from_slice(&[1, 0]); // empty compact partitions, no tagged fields
        Decodable::decode(&mut &wire[..], 0).unwrap()
    }

    // ---- OffsetCommit ---------------------------------------------------------------------

    pub(crate) fn offset_commit_request(
        m: &ours_oc::OffsetCommitRequest<'_>,
    ) -> kp::OffsetCommitRequest {
        let mut t = kp::OffsetCommitRequest::default();
        t.group_id = group(&m.group_id);
        t.generation_id_or_member_epoch = m.generation_id_or_member_epoch;
        t.member_id = s(&m.member_id);
        t.group_instance_id = ns(&m.group_instance_id);
        t.retention_time_ms = m.retention_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp::offset_commit_request::OffsetCommitRequestTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp =
                            kp::offset_commit_request::OffsetCommitRequestPartition::default();
                        tp.partition_index = p.partition_index;
                        tp.committed_offset = p.committed_offset;
                        tp.committed_leader_epoch = p.committed_leader_epoch;
                        tp.committed_metadata = ns(&p.committed_metadata);
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn offset_commit_response(
        m: &ours_oc::OffsetCommitResponse<'_>,
    ) -> kp::OffsetCommitResponse {
        let mut t = kp::OffsetCommitResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp::offset_commit_response::OffsetCommitResponseTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp =
                            kp::offset_commit_response::OffsetCommitResponsePartition::default();
                        tp.partition_index = p.partition_index;
                        tp.error_code = p.error_code;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- OffsetFetch ----------------------------------------------------------------------

    pub(crate) fn offset_fetch_request(
        m: &ours_of::OffsetFetchRequest<'_>,
    ) -> kp::OffsetFetchRequest {
        use kp::offset_fetch_request as k;
        let mut t = kp::OffsetFetchRequest::default();
        t.group_id = group(&m.group_id);
        t.topics = m.topics.as_ref().map(|topics| {
            topics
                .iter()
                .map(|x| {
                    let mut tt = k::OffsetFetchRequestTopic::default();
                    tt.name = topic(&x.name);
                    tt.partition_indexes = x.partition_indexes.clone();
                    tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                    tt
                })
                .collect()
        });
        t.groups = m
            .groups
            .iter()
            .map(|g| {
                let mut tg = k::OffsetFetchRequestGroup::default();
                tg.group_id = group(&g.group_id);
                tg.member_id = ns(&g.member_id);
                tg.member_epoch = g.member_epoch;
                tg.topics = g.topics.as_ref().map(|topics| {
                    topics
                        .iter()
                        .map(|x| {
                            let mut tt = k::OffsetFetchRequestTopics::default();
                            tt.name = topic(&x.name);
                            tt.partition_indexes = x.partition_indexes.clone();
                            tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                            tt
                        })
                        .collect()
                });
                tg.unknown_tagged_fields = tags(&g.unknown_tagged_fields);
                tg
            })
            .collect();
        t.require_stable = m.require_stable;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn offset_fetch_response(
        m: &ours_of::OffsetFetchResponse<'_>,
    ) -> kp::OffsetFetchResponse {
        use kp::offset_fetch_response as k;
        let mut t = kp::OffsetFetchResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::OffsetFetchResponseTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::OffsetFetchResponsePartition::default();
                        tp.partition_index = p.partition_index;
                        tp.committed_offset = p.committed_offset;
                        tp.committed_leader_epoch = p.committed_leader_epoch;
                        tp.metadata = ns(&p.metadata);
                        tp.error_code = p.error_code;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.error_code = m.error_code;
        t.groups = m
            .groups
            .iter()
            .map(|g| {
                let mut tg = k::OffsetFetchResponseGroup::default();
                tg.group_id = group(&g.group_id);
                tg.topics = g
                    .topics
                    .iter()
                    .map(|x| {
                        let mut tt = k::OffsetFetchResponseTopics::default();
                        tt.name = topic(&x.name);
                        tt.partitions = x
                            .partitions
                            .iter()
                            .map(|p| {
                                let mut tp = k::OffsetFetchResponsePartitions::default();
                                tp.partition_index = p.partition_index;
                                tp.committed_offset = p.committed_offset;
                                tp.committed_leader_epoch = p.committed_leader_epoch;
                                tp.metadata = ns(&p.metadata);
                                tp.error_code = p.error_code;
                                tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                                tp
                            })
                            .collect();
                        tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tt
                    })
                    .collect();
                tg.error_code = g.error_code;
                tg.unknown_tagged_fields = tags(&g.unknown_tagged_fields);
                tg
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- FindCoordinator ------------------------------------------------------------------

    pub(crate) fn find_coordinator_request(
        m: &ours_fc::FindCoordinatorRequest<'_>,
    ) -> kp::FindCoordinatorRequest {
        let mut t = kp::FindCoordinatorRequest::default();
        t.key = s(&m.key);
        t.key_type = m.key_type;
        t.coordinator_keys = m.coordinator_keys.iter().map(|k| s(k)).collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn find_coordinator_response(
        m: &ours_fc::FindCoordinatorResponse<'_>,
    ) -> kp::FindCoordinatorResponse {
        let mut t = kp::FindCoordinatorResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.node_id = kp::BrokerId(m.node_id);
        t.host = s(&m.host);
        t.port = m.port;
        t.coordinators = m
            .coordinators
            .iter()
            .map(|c| {
                let mut tc = kp::find_coordinator_response::Coordinator::default();
                tc.key = s(&c.key);
                tc.node_id = kp::BrokerId(c.node_id);
                tc.host = s(&c.host);
                tc.port = c.port;
                tc.error_code = c.error_code;
                tc.error_message = ns(&c.error_message);
                tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                tc
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- JoinGroup ------------------------------------------------------------------------

    pub(crate) fn join_group_request(m: &ours_jg::JoinGroupRequest<'_>) -> kp::JoinGroupRequest {
        let mut t = kp::JoinGroupRequest::default();
        t.group_id = group(&m.group_id);
        t.session_timeout_ms = m.session_timeout_ms;
        t.rebalance_timeout_ms = m.rebalance_timeout_ms;
        t.member_id = s(&m.member_id);
        t.group_instance_id = ns(&m.group_instance_id);
        t.protocol_type = s(&m.protocol_type);
        t.protocols = m
            .protocols
            .iter()
            .map(|p| {
                let mut tp = kp::join_group_request::JoinGroupRequestProtocol::default();
                tp.name = s(&p.name);
                tp.metadata = bytes(&p.metadata);
                tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                tp
            })
            .collect();
        t.reason = ns(&m.reason);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn join_group_response(m: &ours_jg::JoinGroupResponse<'_>) -> kp::JoinGroupResponse {
        let mut t = kp::JoinGroupResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.generation_id = m.generation_id;
        t.protocol_type = ns(&m.protocol_type);
        t.protocol_name = ns(&m.protocol_name);
        t.leader = s(&m.leader);
        t.skip_assignment = m.skip_assignment;
        t.member_id = s(&m.member_id);
        t.members = m
            .members
            .iter()
            .map(|x| {
                let mut tm = kp::join_group_response::JoinGroupResponseMember::default();
                tm.member_id = s(&x.member_id);
                tm.group_instance_id = ns(&x.group_instance_id);
                tm.metadata = bytes(&x.metadata);
                tm.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tm
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- Heartbeat ------------------------------------------------------------------------

    pub(crate) fn heartbeat_request(m: &ours_hb::HeartbeatRequest<'_>) -> kp::HeartbeatRequest {
        let mut t = kp::HeartbeatRequest::default();
        t.group_id = group(&m.group_id);
        t.generation_id = m.generation_id;
        t.member_id = s(&m.member_id);
        t.group_instance_id = ns(&m.group_instance_id);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn heartbeat_response(m: &ours_hb::HeartbeatResponse<'_>) -> kp::HeartbeatResponse {
        let mut t = kp::HeartbeatResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- LeaveGroup -----------------------------------------------------------------------

    pub(crate) fn leave_group_request(m: &ours_lg::LeaveGroupRequest<'_>) -> kp::LeaveGroupRequest {
        let mut t = kp::LeaveGroupRequest::default();
        t.group_id = group(&m.group_id);
        t.member_id = s(&m.member_id);
        t.members = m
            .members
            .iter()
            .map(|x| {
                let mut tm = kp::leave_group_request::MemberIdentity::default();
                tm.member_id = s(&x.member_id);
                tm.group_instance_id = ns(&x.group_instance_id);
                tm.reason = ns(&x.reason);
                tm.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tm
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn leave_group_response(
        m: &ours_lg::LeaveGroupResponse<'_>,
    ) -> kp::LeaveGroupResponse {
        let mut t = kp::LeaveGroupResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.members = m
            .members
            .iter()
            .map(|x| {
                let mut tm = kp::leave_group_response::MemberResponse::default();
                tm.member_id = s(&x.member_id);
                tm.group_instance_id = ns(&x.group_instance_id);
                tm.error_code = x.error_code;
                tm.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tm
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- SyncGroup ------------------------------------------------------------------------

    pub(crate) fn sync_group_request(m: &ours_sg::SyncGroupRequest<'_>) -> kp::SyncGroupRequest {
        let mut t = kp::SyncGroupRequest::default();
        t.group_id = group(&m.group_id);
        t.generation_id = m.generation_id;
        t.member_id = s(&m.member_id);
        t.group_instance_id = ns(&m.group_instance_id);
        t.protocol_type = ns(&m.protocol_type);
        t.protocol_name = ns(&m.protocol_name);
        t.assignments = m
            .assignments
            .iter()
            .map(|a| {
                let mut ta = kp::sync_group_request::SyncGroupRequestAssignment::default();
                ta.member_id = s(&a.member_id);
                ta.assignment = bytes(&a.assignment);
                ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                ta
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn sync_group_response(m: &ours_sg::SyncGroupResponse<'_>) -> kp::SyncGroupResponse {
        let mut t = kp::SyncGroupResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.protocol_type = ns(&m.protocol_type);
        t.protocol_name = ns(&m.protocol_name);
        t.assignment = bytes(&m.assignment);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- DescribeGroups -------------------------------------------------------------------

    pub(crate) fn describe_groups_request(
        m: &ours_dg::DescribeGroupsRequest<'_>,
    ) -> kp::DescribeGroupsRequest {
        let mut t = kp::DescribeGroupsRequest::default();
        t.groups = m.groups.iter().map(|g| group(g)).collect();
        t.include_authorized_operations = m.include_authorized_operations;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_groups_response(
        m: &ours_dg::DescribeGroupsResponse<'_>,
    ) -> kp::DescribeGroupsResponse {
        use kp::describe_groups_response as k;
        let mut t = kp::DescribeGroupsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.groups = m
            .groups
            .iter()
            .map(|g| {
                let mut tg = k::DescribedGroup::default();
                tg.error_code = g.error_code;
                tg.error_message = ns(&g.error_message);
                tg.group_id = group(&g.group_id);
                tg.group_state = s(&g.group_state);
                tg.protocol_type = s(&g.protocol_type);
                tg.protocol_data = s(&g.protocol_data);
                tg.members = g
                    .members
                    .iter()
                    .map(|x| {
                        let mut tm = k::DescribedGroupMember::default();
                        tm.member_id = s(&x.member_id);
                        tm.group_instance_id = ns(&x.group_instance_id);
                        tm.client_id = s(&x.client_id);
                        tm.client_host = s(&x.client_host);
                        tm.member_metadata = bytes(&x.member_metadata);
                        tm.member_assignment = bytes(&x.member_assignment);
                        tm.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tm
                    })
                    .collect();
                tg.authorized_operations = g.authorized_operations;
                tg.unknown_tagged_fields = tags(&g.unknown_tagged_fields);
                tg
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- ListGroups -----------------------------------------------------------------------

    pub(crate) fn list_groups_request(
        m: &ours_lsg::ListGroupsRequest<'_>,
    ) -> kp::ListGroupsRequest {
        let mut t = kp::ListGroupsRequest::default();
        t.states_filter = m.states_filter.iter().map(|x| s(x)).collect();
        t.types_filter = m.types_filter.iter().map(|x| s(x)).collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn list_groups_response(
        m: &ours_lsg::ListGroupsResponse<'_>,
    ) -> kp::ListGroupsResponse {
        let mut t = kp::ListGroupsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.groups = m
            .groups
            .iter()
            .map(|g| {
                let mut tg = kp::list_groups_response::ListedGroup::default();
                tg.group_id = group(&g.group_id);
                tg.protocol_type = s(&g.protocol_type);
                tg.group_state = s(&g.group_state);
                tg.group_type = s(&g.group_type);
                tg.unknown_tagged_fields = tags(&g.unknown_tagged_fields);
                tg
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- DeleteGroups ---------------------------------------------------------------------

    pub(crate) fn delete_groups_request(
        m: &ours_dlg::DeleteGroupsRequest<'_>,
    ) -> kp::DeleteGroupsRequest {
        let mut t = kp::DeleteGroupsRequest::default();
        t.groups_names = m.groups_names.iter().map(|g| group(g)).collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn delete_groups_response(
        m: &ours_dlg::DeleteGroupsResponse<'_>,
    ) -> kp::DeleteGroupsResponse {
        let mut t = kp::DeleteGroupsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.results = m
            .results
            .iter()
            .map(|r| {
                let mut tr = kp::delete_groups_response::DeletableGroupResult::default();
                tr.group_id = group(&r.group_id);
                tr.error_code = r.error_code;
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- OffsetDelete (never flexible: kafka-protocol keeps no tagged fields) --------------

    pub(crate) fn offset_delete_request(
        m: &ours_od::OffsetDeleteRequest<'_>,
    ) -> kp::OffsetDeleteRequest {
        use kp::offset_delete_request as k;
        let mut t = kp::OffsetDeleteRequest::default();
        t.group_id = group(&m.group_id);
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::OffsetDeleteRequestTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::OffsetDeleteRequestPartition::default();
                        tp.partition_index = p.partition_index;
                        tp
                    })
                    .collect();
                tt
            })
            .collect();
        t
    }

    pub(crate) fn offset_delete_response(
        m: &ours_od::OffsetDeleteResponse<'_>,
    ) -> kp::OffsetDeleteResponse {
        use kp::offset_delete_response as k;
        let mut t = kp::OffsetDeleteResponse::default();
        t.error_code = m.error_code;
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::OffsetDeleteResponseTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::OffsetDeleteResponsePartition::default();
                        tp.partition_index = p.partition_index;
                        tp.error_code = p.error_code;
                        tp
                    })
                    .collect();
                tt
            })
            .collect();
        t
    }

    // ---- ConsumerGroupHeartbeat -----------------------------------------------------------

    pub(crate) fn consumer_group_heartbeat_request(
        m: &ours_cgh::ConsumerGroupHeartbeatRequest<'_>,
    ) -> kp::ConsumerGroupHeartbeatRequest {
        let mut t = kp::ConsumerGroupHeartbeatRequest::default();
        t.group_id = group(&m.group_id);
        t.member_id = s(&m.member_id);
        t.member_epoch = m.member_epoch;
        t.instance_id = ns(&m.instance_id);
        t.rack_id = ns(&m.rack_id);
        t.rebalance_timeout_ms = m.rebalance_timeout_ms;
        t.subscribed_topic_names = m
            .subscribed_topic_names
            .as_ref()
            .map(|names| names.iter().map(|n| topic(n)).collect());
        t.subscribed_topic_regex = ns(&m.subscribed_topic_regex);
        t.server_assignor = ns(&m.server_assignor);
        t.topic_partitions = m.topic_partitions.as_ref().map(|tps| {
            tps.iter()
                .map(|x| {
                    let mut tt = uuid_holder(&x.topic_id);
                    tt.partitions = x.partitions.clone();
                    tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                    tt
                })
                .collect()
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn consumer_group_heartbeat_response(
        m: &ours_cgh::ConsumerGroupHeartbeatResponse<'_>,
    ) -> kp::ConsumerGroupHeartbeatResponse {
        use kp::consumer_group_heartbeat_response as k;
        let mut t = kp::ConsumerGroupHeartbeatResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.member_id = ns(&m.member_id);
        t.member_epoch = m.member_epoch;
        t.heartbeat_interval_ms = m.heartbeat_interval_ms;
        t.assignment = m.assignment.as_ref().map(|a| {
            let mut ta = k::Assignment::default();
            ta.topic_partitions = a
                .topic_partitions
                .iter()
                .map(|x| {
                    let mut tt = k::TopicPartitions::default();
                    tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                    tt.partitions = x.partitions.clone();
                    tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                    tt
                })
                .collect();
            ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
            ta
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- ConsumerGroupDescribe ------------------------------------------------------------

    pub(crate) fn consumer_group_describe_request(
        m: &ours_cgd::ConsumerGroupDescribeRequest<'_>,
    ) -> kp::ConsumerGroupDescribeRequest {
        let mut t = kp::ConsumerGroupDescribeRequest::default();
        t.group_ids = m.group_ids.iter().map(|g| group(g)).collect();
        t.include_authorized_operations = m.include_authorized_operations;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    fn cgd_assignment(
        a: &ours_cgd::Assignment<'_>,
    ) -> kp::consumer_group_describe_response::Assignment {
        use kp::consumer_group_describe_response as k;
        let mut ta = k::Assignment::default();
        ta.topic_partitions = a
            .topic_partitions
            .iter()
            .map(|x| {
                let mut tt = k::TopicPartitions::default();
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.topic_name = topic(&x.topic_name);
                tt.partitions = x.partitions.clone();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
        ta
    }

    pub(crate) fn consumer_group_describe_response(
        m: &ours_cgd::ConsumerGroupDescribeResponse<'_>,
    ) -> kp::ConsumerGroupDescribeResponse {
        use kp::consumer_group_describe_response as k;
        let mut t = kp::ConsumerGroupDescribeResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.groups = m
            .groups
            .iter()
            .map(|g| {
                let mut tg = k::DescribedGroup::default();
                tg.error_code = g.error_code;
                tg.error_message = ns(&g.error_message);
                tg.group_id = group(&g.group_id);
                tg.group_state = s(&g.group_state);
                tg.group_epoch = g.group_epoch;
                tg.assignment_epoch = g.assignment_epoch;
                tg.assignor_name = s(&g.assignor_name);
                tg.members = g
                    .members
                    .iter()
                    .map(|x| {
                        let mut tm = k::Member::default();
                        tm.member_id = s(&x.member_id);
                        tm.instance_id = ns(&x.instance_id);
                        tm.rack_id = ns(&x.rack_id);
                        tm.member_epoch = x.member_epoch;
                        tm.client_id = s(&x.client_id);
                        tm.client_host = s(&x.client_host);
                        tm.subscribed_topic_names =
                            x.subscribed_topic_names.iter().map(|n| topic(n)).collect();
                        tm.subscribed_topic_regex = ns(&x.subscribed_topic_regex);
                        tm.assignment = cgd_assignment(&x.assignment);
                        tm.target_assignment = cgd_assignment(&x.target_assignment);
                        tm.member_type = x.member_type;
                        tm.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tm
                    })
                    .collect();
                tg.authorized_operations = g.authorized_operations;
                tg.unknown_tagged_fields = tags(&g.unknown_tagged_fields);
                tg
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }
}

/// Proptest strategies per version: fields a version lacks hold their schema default and
/// unknown tagged fields appear only in flexible versions, so every generated value is
/// encodable at the version it was generated for.
mod strategies {
    use std::borrow::Cow;

    use kacl_protocol::Uuid;
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    use super::*;
    use crate::common::{bytes, nullable_string, string, unknown_tags, when};

    type S<T> = BoxedStrategy<T>;

    fn uuid() -> S<Uuid> {
        prop_oneof![Just(Uuid::ZERO), any::<[u8; 16]>().prop_map(Uuid)].boxed()
    }

    /// A string that may be null only where the schema allows it.
    fn nullable_from(nullable: bool) -> S<Option<Cow<'static, str>>> {
        if nullable {
            nullable_string()
        } else {
            string().prop_map(Some).boxed()
        }
    }

    fn strings() -> S<Vec<Cow<'static, str>>> {
        vec(string(), 0..4).boxed()
    }

    fn ints() -> S<Vec<i32>> {
        vec(any::<i32>(), 0..4).boxed()
    }

    // ---- OffsetCommit (flexible 8+) -------------------------------------------------------

    pub(crate) fn offset_commit_request(v: i16) -> S<ours_oc::OffsetCommitRequest<'static>> {
        use ours_oc::*;
        let f = v >= 8;
        let partition = (
            any::<i32>(),
            any::<i64>(),
            when(v >= 6, any::<i32>(), -1),
            nullable_string(),
            unknown_tags(f),
        )
            .prop_map(|(index, offset, epoch, metadata, tags)| {
                OffsetCommitRequestPartition {
                    partition_index: index,
                    committed_offset: offset,
                    committed_leader_epoch: epoch,
                    committed_metadata: metadata,
                    unknown_tagged_fields: tags,
                }
            });
        let topic = (string(), vec(partition, 0..3), unknown_tags(f)).prop_map(
            |(name, partitions, tags)| OffsetCommitRequestTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (
            string(),
            any::<i32>(),
            string(),
            when(v >= 7, nullable_string(), None),
            when(v <= 4, any::<i64>(), -1),
            vec(topic, 0..3),
            unknown_tags(f),
        )
            .prop_map(
                |(group_id, generation, member_id, instance, retention, topics, tags)| {
                    OffsetCommitRequest {
                        group_id,
                        generation_id_or_member_epoch: generation,
                        member_id,
                        group_instance_id: instance,
                        retention_time_ms: retention,
                        topics,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn offset_commit_response(v: i16) -> S<ours_oc::OffsetCommitResponse<'static>> {
        use ours_oc::*;
        let f = v >= 8;
        let partition =
            (any::<i32>(), any::<i16>(), unknown_tags(f)).prop_map(|(index, error_code, tags)| {
                OffsetCommitResponsePartition {
                    partition_index: index,
                    error_code,
                    unknown_tagged_fields: tags,
                }
            });
        let topic = (string(), vec(partition, 0..3), unknown_tags(f)).prop_map(
            |(name, partitions, tags)| OffsetCommitResponseTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (
            when(v >= 3, any::<i32>(), 0),
            vec(topic, 0..3),
            unknown_tags(f),
        )
            .prop_map(|(throttle, topics, tags)| OffsetCommitResponse {
                throttle_time_ms: throttle,
                topics,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- OffsetFetch (flexible 6+; v8+ batches groups) ------------------------------------

    pub(crate) fn offset_fetch_request(v: i16) -> S<ours_of::OffsetFetchRequest<'static>> {
        use ours_of::*;
        let f = v >= 6;
        let topic = (string(), ints(), unknown_tags(f)).prop_map(|(name, indexes, tags)| {
            OffsetFetchRequestTopic {
                name,
                partition_indexes: indexes,
                unknown_tagged_fields: tags,
            }
        });
        let topics = vec(topic, 0..3);
        let group_topic = (string(), ints(), unknown_tags(f)).prop_map(|(name, indexes, tags)| {
            OffsetFetchRequestTopics {
                name,
                partition_indexes: indexes,
                unknown_tagged_fields: tags,
            }
        });
        let group = (
            string(),
            when(v >= 9, nullable_string(), None),
            when(v >= 9, any::<i32>(), -1),
            option::of(vec(group_topic, 0..3)),
            unknown_tags(f),
        )
            .prop_map(|(group_id, member_id, epoch, topics, tags)| {
                OffsetFetchRequestGroup {
                    group_id,
                    member_id,
                    member_epoch: epoch,
                    topics,
                    unknown_tagged_fields: tags,
                }
            });
        (
            when(v <= 7, string(), Cow::Borrowed("")),
            match v {
                ..=1 => topics.prop_map(Some).boxed(),
                2..=7 => option::of(topics).boxed(),
                _ => Just(Some(Vec::new())).boxed(),
            },
            when(v >= 8, vec(group, 0..3), Vec::new()),
            when(v >= 7, any::<bool>(), false),
            unknown_tags(f),
        )
            .prop_map(
                |(group_id, topics, groups, require_stable, tags)| OffsetFetchRequest {
                    group_id,
                    topics,
                    groups,
                    require_stable,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn offset_fetch_response(v: i16) -> S<ours_of::OffsetFetchResponse<'static>> {
        use ours_of::*;
        let f = v >= 6;
        let partition = (
            any::<i32>(),
            any::<i64>(),
            when(v >= 5, any::<i32>(), -1),
            nullable_string(),
            any::<i16>(),
            unknown_tags(f),
        )
            .prop_map(|(index, offset, epoch, metadata, error_code, tags)| {
                OffsetFetchResponsePartition {
                    partition_index: index,
                    committed_offset: offset,
                    committed_leader_epoch: epoch,
                    metadata,
                    error_code,
                    unknown_tagged_fields: tags,
                }
            });
        let topic = (string(), vec(partition, 0..3), unknown_tags(f)).prop_map(
            |(name, partitions, tags)| OffsetFetchResponseTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        let group_partition = (
            any::<i32>(),
            any::<i64>(),
            any::<i32>(),
            nullable_string(),
            any::<i16>(),
            unknown_tags(f),
        )
            .prop_map(|(index, offset, epoch, metadata, error_code, tags)| {
                OffsetFetchResponsePartitions {
                    partition_index: index,
                    committed_offset: offset,
                    committed_leader_epoch: epoch,
                    metadata,
                    error_code,
                    unknown_tagged_fields: tags,
                }
            });
        let group_topic = (string(), vec(group_partition, 0..3), unknown_tags(f)).prop_map(
            |(name, partitions, tags)| OffsetFetchResponseTopics {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        let group = (
            string(),
            vec(group_topic, 0..3),
            any::<i16>(),
            unknown_tags(f),
        )
            .prop_map(
                |(group_id, topics, error_code, tags)| OffsetFetchResponseGroup {
                    group_id,
                    topics,
                    error_code,
                    unknown_tagged_fields: tags,
                },
            );
        (
            when(v >= 3, any::<i32>(), 0),
            when(v <= 7, vec(topic, 0..3), Vec::new()),
            when((2..=7).contains(&v), any::<i16>(), 0),
            when(v >= 8, vec(group, 0..3), Vec::new()),
            unknown_tags(f),
        )
            .prop_map(
                |(throttle, topics, error_code, groups, tags)| OffsetFetchResponse {
                    throttle_time_ms: throttle,
                    topics,
                    error_code,
                    groups,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    // ---- FindCoordinator (flexible 3+; v4+ batches keys) ----------------------------------

    pub(crate) fn find_coordinator_request(v: i16) -> S<ours_fc::FindCoordinatorRequest<'static>> {
        (
            when(v <= 3, string(), Cow::Borrowed("")),
            when(v >= 1, any::<i8>(), 0),
            when(v >= 4, strings(), Vec::new()),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(key, key_type, keys, tags)| ours_fc::FindCoordinatorRequest {
                    key,
                    key_type,
                    coordinator_keys: keys,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn find_coordinator_response(
        v: i16,
    ) -> S<ours_fc::FindCoordinatorResponse<'static>> {
        use ours_fc::*;
        let old = v <= 3;
        let coordinator = (
            string(),
            any::<i32>(),
            string(),
            any::<i32>(),
            any::<i16>(),
            nullable_string(),
            unknown_tags(true),
        )
            .prop_map(
                |(key, node_id, host, port, error_code, error_message, tags)| Coordinator {
                    key,
                    node_id,
                    host,
                    port,
                    error_code,
                    error_message,
                    unknown_tagged_fields: tags,
                },
            );
        (
            when(v >= 1, any::<i32>(), 0),
            when(old, any::<i16>(), 0),
            when(
                (1..=3).contains(&v),
                nullable_string(),
                Some(Cow::Borrowed("")),
            ),
            when(old, any::<i32>(), 0),
            when(old, string(), Cow::Borrowed("")),
            when(old, any::<i32>(), 0),
            when(v >= 4, vec(coordinator, 0..3), Vec::new()),
            unknown_tags(v >= 3),
        )
            .prop_map(
                |(throttle, error_code, error_message, node_id, host, port, coordinators, tags)| {
                    FindCoordinatorResponse {
                        throttle_time_ms: throttle,
                        error_code,
                        error_message,
                        node_id,
                        host,
                        port,
                        coordinators,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    // ---- JoinGroup (flexible 6+) ----------------------------------------------------------

    pub(crate) fn join_group_request(v: i16) -> S<ours_jg::JoinGroupRequest<'static>> {
        use ours_jg::*;
        let f = v >= 6;
        let protocol = (string(), bytes(), unknown_tags(f)).prop_map(|(name, metadata, tags)| {
            JoinGroupRequestProtocol {
                name,
                metadata,
                unknown_tagged_fields: tags,
            }
        });
        (
            string(),
            any::<i32>(),
            when(v >= 1, any::<i32>(), -1),
            string(),
            when(v >= 5, nullable_string(), None),
            string(),
            vec(protocol, 0..3),
            when(v >= 8, nullable_string(), None),
            unknown_tags(f),
        )
            .prop_map(
                |(
                    group_id,
                    session,
                    rebalance,
                    member_id,
                    instance,
                    ptype,
                    protocols,
                    reason,
                    tags,
                )| {
                    JoinGroupRequest {
                        group_id,
                        session_timeout_ms: session,
                        rebalance_timeout_ms: rebalance,
                        member_id,
                        group_instance_id: instance,
                        protocol_type: ptype,
                        protocols,
                        reason,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn join_group_response(v: i16) -> S<ours_jg::JoinGroupResponse<'static>> {
        use ours_jg::*;
        let f = v >= 6;
        let member = (
            string(),
            when(v >= 5, nullable_string(), None),
            bytes(),
            unknown_tags(f),
        )
            .prop_map(
                |(member_id, instance, metadata, tags)| JoinGroupResponseMember {
                    member_id,
                    group_instance_id: instance,
                    metadata,
                    unknown_tagged_fields: tags,
                },
            );
        (
            when(v >= 2, any::<i32>(), 0),
            any::<i16>(),
            any::<i32>(),
            when(v >= 7, nullable_string(), None),
            nullable_from(v >= 7),
            string(),
            when(v >= 9, any::<bool>(), false),
            string(),
            vec(member, 0..3),
            unknown_tags(f),
        )
            .prop_map(
                |(
                    throttle,
                    ec,
                    generation,
                    ptype,
                    pname,
                    leader,
                    skip,
                    member_id,
                    members,
                    tags,
                )| {
                    JoinGroupResponse {
                        throttle_time_ms: throttle,
                        error_code: ec,
                        generation_id: generation,
                        protocol_type: ptype,
                        protocol_name: pname,
                        leader,
                        skip_assignment: skip,
                        member_id,
                        members,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    // ---- Heartbeat (flexible 4+) ----------------------------------------------------------

    pub(crate) fn heartbeat_request(v: i16) -> S<ours_hb::HeartbeatRequest<'static>> {
        (
            string(),
            any::<i32>(),
            string(),
            when(v >= 3, nullable_string(), None),
            unknown_tags(v >= 4),
        )
            .prop_map(|(group_id, generation, member_id, instance, tags)| {
                ours_hb::HeartbeatRequest {
                    group_id,
                    generation_id: generation,
                    member_id,
                    group_instance_id: instance,
                    unknown_tagged_fields: tags,
                }
            })
            .boxed()
    }

    pub(crate) fn heartbeat_response(v: i16) -> S<ours_hb::HeartbeatResponse<'static>> {
        (
            when(v >= 1, any::<i32>(), 0),
            any::<i16>(),
            unknown_tags(v >= 4),
        )
            .prop_map(|(throttle, ec, tags)| ours_hb::HeartbeatResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- LeaveGroup (flexible 4+; v3+ batches members) ------------------------------------

    pub(crate) fn leave_group_request(v: i16) -> S<ours_lg::LeaveGroupRequest<'static>> {
        use ours_lg::*;
        let f = v >= 4;
        let member = (
            string(),
            nullable_string(),
            when(v >= 5, nullable_string(), None),
            unknown_tags(f),
        )
            .prop_map(|(member_id, instance, reason, tags)| MemberIdentity {
                member_id,
                group_instance_id: instance,
                reason,
                unknown_tagged_fields: tags,
            });
        (
            string(),
            when(v <= 2, string(), Cow::Borrowed("")),
            when(v >= 3, vec(member, 0..3), Vec::new()),
            unknown_tags(f),
        )
            .prop_map(|(group_id, member_id, members, tags)| LeaveGroupRequest {
                group_id,
                member_id,
                members,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn leave_group_response(v: i16) -> S<ours_lg::LeaveGroupResponse<'static>> {
        use ours_lg::*;
        let f = v >= 4;
        let member = (string(), nullable_string(), any::<i16>(), unknown_tags(f)).prop_map(
            |(member_id, instance, ec, tags)| MemberResponse {
                member_id,
                group_instance_id: instance,
                error_code: ec,
                unknown_tagged_fields: tags,
            },
        );
        (
            when(v >= 1, any::<i32>(), 0),
            any::<i16>(),
            when(v >= 3, vec(member, 0..3), Vec::new()),
            unknown_tags(f),
        )
            .prop_map(|(throttle, ec, members, tags)| LeaveGroupResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                members,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- SyncGroup (flexible 4+) ----------------------------------------------------------

    pub(crate) fn sync_group_request(v: i16) -> S<ours_sg::SyncGroupRequest<'static>> {
        use ours_sg::*;
        let f = v >= 4;
        let assignment =
            (string(), bytes(), unknown_tags(f)).prop_map(|(member_id, assignment, tags)| {
                SyncGroupRequestAssignment {
                    member_id,
                    assignment,
                    unknown_tagged_fields: tags,
                }
            });
        (
            string(),
            any::<i32>(),
            string(),
            when(v >= 3, nullable_string(), None),
            when(v >= 5, nullable_string(), None),
            when(v >= 5, nullable_string(), None),
            vec(assignment, 0..3),
            unknown_tags(f),
        )
            .prop_map(
                |(group_id, generation, member_id, instance, ptype, pname, assignments, tags)| {
                    SyncGroupRequest {
                        group_id,
                        generation_id: generation,
                        member_id,
                        group_instance_id: instance,
                        protocol_type: ptype,
                        protocol_name: pname,
                        assignments,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn sync_group_response(v: i16) -> S<ours_sg::SyncGroupResponse<'static>> {
        (
            when(v >= 1, any::<i32>(), 0),
            any::<i16>(),
            when(v >= 5, nullable_string(), None),
            when(v >= 5, nullable_string(), None),
            bytes(),
            unknown_tags(v >= 4),
        )
            .prop_map(
                |(throttle, ec, ptype, pname, assignment, tags)| ours_sg::SyncGroupResponse {
                    throttle_time_ms: throttle,
                    error_code: ec,
                    protocol_type: ptype,
                    protocol_name: pname,
                    assignment,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    // ---- DescribeGroups (flexible 5+) -----------------------------------------------------

    pub(crate) fn describe_groups_request(v: i16) -> S<ours_dg::DescribeGroupsRequest<'static>> {
        (
            strings(),
            when(v >= 3, any::<bool>(), false),
            unknown_tags(v >= 5),
        )
            .prop_map(|(groups, ops, tags)| ours_dg::DescribeGroupsRequest {
                groups,
                include_authorized_operations: ops,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn describe_groups_response(v: i16) -> S<ours_dg::DescribeGroupsResponse<'static>> {
        use ours_dg::*;
        let f = v >= 5;
        let member = (
            string(),
            when(v >= 4, nullable_string(), None),
            string(),
            string(),
            bytes(),
            bytes(),
            unknown_tags(f),
        )
            .prop_map(
                |(member_id, instance, client_id, client_host, metadata, assignment, tags)| {
                    DescribedGroupMember {
                        member_id,
                        group_instance_id: instance,
                        client_id,
                        client_host,
                        member_metadata: metadata,
                        member_assignment: assignment,
                        unknown_tagged_fields: tags,
                    }
                },
            );
        let group = (
            any::<i16>(),
            when(v >= 6, nullable_string(), None),
            string(),
            string(),
            string(),
            string(),
            vec(member, 0..3),
            when(v >= 3, any::<i32>(), i32::MIN),
            unknown_tags(f),
        )
            .prop_map(
                |(ec, em, group_id, state, ptype, pdata, members, ops, tags)| DescribedGroup {
                    error_code: ec,
                    error_message: em,
                    group_id,
                    group_state: state,
                    protocol_type: ptype,
                    protocol_data: pdata,
                    members,
                    authorized_operations: ops,
                    unknown_tagged_fields: tags,
                },
            );
        (
            when(v >= 1, any::<i32>(), 0),
            vec(group, 0..3),
            unknown_tags(f),
        )
            .prop_map(|(throttle, groups, tags)| DescribeGroupsResponse {
                throttle_time_ms: throttle,
                groups,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- ListGroups (flexible 3+) ---------------------------------------------------------

    pub(crate) fn list_groups_request(v: i16) -> S<ours_lsg::ListGroupsRequest<'static>> {
        (
            when(v >= 4, strings(), Vec::new()),
            when(v >= 5, strings(), Vec::new()),
            unknown_tags(v >= 3),
        )
            .prop_map(|(states, types, tags)| ours_lsg::ListGroupsRequest {
                states_filter: states,
                types_filter: types,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn list_groups_response(v: i16) -> S<ours_lsg::ListGroupsResponse<'static>> {
        use ours_lsg::*;
        let f = v >= 3;
        let group = (
            string(),
            string(),
            when(v >= 4, string(), Cow::Borrowed("")),
            when(v >= 5, string(), Cow::Borrowed("")),
            unknown_tags(f),
        )
            .prop_map(|(group_id, ptype, state, gtype, tags)| ListedGroup {
                group_id,
                protocol_type: ptype,
                group_state: state,
                group_type: gtype,
                unknown_tagged_fields: tags,
            });
        (
            when(v >= 1, any::<i32>(), 0),
            any::<i16>(),
            vec(group, 0..3),
            unknown_tags(f),
        )
            .prop_map(|(throttle, ec, groups, tags)| ListGroupsResponse {
                throttle_time_ms: throttle,
                error_code: ec,
                groups,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- DeleteGroups (flexible 2+) -------------------------------------------------------

    pub(crate) fn delete_groups_request(v: i16) -> S<ours_dlg::DeleteGroupsRequest<'static>> {
        (strings(), unknown_tags(v >= 2))
            .prop_map(|(names, tags)| ours_dlg::DeleteGroupsRequest {
                groups_names: names,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn delete_groups_response(v: i16) -> S<ours_dlg::DeleteGroupsResponse<'static>> {
        use ours_dlg::*;
        let f = v >= 2;
        let result = (string(), any::<i16>(), unknown_tags(f)).prop_map(|(group_id, ec, tags)| {
            DeletableGroupResult {
                group_id,
                error_code: ec,
                unknown_tagged_fields: tags,
            }
        });
        (any::<i32>(), vec(result, 0..3), unknown_tags(f))
            .prop_map(|(throttle, results, tags)| DeleteGroupsResponse {
                throttle_time_ms: throttle,
                results,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- OffsetDelete (never flexible) ----------------------------------------------------

    pub(crate) fn offset_delete_request(_v: i16) -> S<ours_od::OffsetDeleteRequest<'static>> {
        use ours_od::*;
        let partition = any::<i32>().prop_map(|index| OffsetDeleteRequestPartition {
            partition_index: index,
            ..Default::default()
        });
        let topic = (string(), vec(partition, 0..3)).prop_map(|(name, partitions)| {
            OffsetDeleteRequestTopic {
                name,
                partitions,
                ..Default::default()
            }
        });
        (string(), vec(topic, 0..3))
            .prop_map(|(group_id, topics)| OffsetDeleteRequest {
                group_id,
                topics,
                ..Default::default()
            })
            .boxed()
    }

    pub(crate) fn offset_delete_response(_v: i16) -> S<ours_od::OffsetDeleteResponse<'static>> {
        use ours_od::*;
        let partition =
            (any::<i32>(), any::<i16>()).prop_map(|(index, ec)| OffsetDeleteResponsePartition {
                partition_index: index,
                error_code: ec,
                ..Default::default()
            });
        let topic = (string(), vec(partition, 0..3)).prop_map(|(name, partitions)| {
            OffsetDeleteResponseTopic {
                name,
                partitions,
                ..Default::default()
            }
        });
        (any::<i16>(), any::<i32>(), vec(topic, 0..3))
            .prop_map(|(ec, throttle, topics)| OffsetDeleteResponse {
                error_code: ec,
                throttle_time_ms: throttle,
                topics,
                ..Default::default()
            })
            .boxed()
    }

    // ---- ConsumerGroupHeartbeat (always flexible) -----------------------------------------

    fn cgh_topic_partitions() -> S<ours_cgh::TopicPartitions<'static>> {
        (uuid(), ints(), unknown_tags(true))
            .prop_map(|(topic_id, partitions, tags)| ours_cgh::TopicPartitions {
                topic_id,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn consumer_group_heartbeat_request(
        v: i16,
    ) -> S<ours_cgh::ConsumerGroupHeartbeatRequest<'static>> {
        (
            string(),
            string(),
            any::<i32>(),
            nullable_string(),
            nullable_string(),
            any::<i32>(),
            option::of(strings()),
            when(v >= 1, nullable_string(), None),
            nullable_string(),
            option::of(vec(cgh_topic_partitions(), 0..3)),
            unknown_tags(true),
        )
            .prop_map(
                |(
                    group_id,
                    member_id,
                    epoch,
                    instance,
                    rack,
                    rebalance,
                    names,
                    regex,
                    assignor,
                    owned,
                    tags,
                )| ours_cgh::ConsumerGroupHeartbeatRequest {
                    group_id,
                    member_id,
                    member_epoch: epoch,
                    instance_id: instance,
                    rack_id: rack,
                    rebalance_timeout_ms: rebalance,
                    subscribed_topic_names: names,
                    subscribed_topic_regex: regex,
                    server_assignor: assignor,
                    topic_partitions: owned,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn consumer_group_heartbeat_response(
        _v: i16,
    ) -> S<ours_cgh::ConsumerGroupHeartbeatResponse<'static>> {
        let assignment = (vec(cgh_topic_partitions(), 0..3), unknown_tags(true)).prop_map(
            |(topic_partitions, tags)| ours_cgh::Assignment {
                topic_partitions,
                unknown_tagged_fields: tags,
            },
        );
        (
            any::<i32>(),
            any::<i16>(),
            nullable_string(),
            nullable_string(),
            any::<i32>(),
            any::<i32>(),
            option::of(assignment),
            unknown_tags(true),
        )
            .prop_map(
                |(throttle, ec, em, member_id, epoch, interval, assignment, tags)| {
                    ours_cgh::ConsumerGroupHeartbeatResponse {
                        throttle_time_ms: throttle,
                        error_code: ec,
                        error_message: em,
                        member_id,
                        member_epoch: epoch,
                        heartbeat_interval_ms: interval,
                        assignment,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    // ---- ConsumerGroupDescribe (always flexible) ------------------------------------------

    pub(crate) fn consumer_group_describe_request(
        _v: i16,
    ) -> S<ours_cgd::ConsumerGroupDescribeRequest<'static>> {
        (strings(), any::<bool>(), unknown_tags(true))
            .prop_map(
                |(group_ids, ops, tags)| ours_cgd::ConsumerGroupDescribeRequest {
                    group_ids,
                    include_authorized_operations: ops,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn cgd_assignment() -> S<ours_cgd::Assignment<'static>> {
        let topic = (uuid(), string(), ints(), unknown_tags(true)).prop_map(
            |(topic_id, topic_name, partitions, tags)| ours_cgd::TopicPartitions {
                topic_id,
                topic_name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (vec(topic, 0..3), unknown_tags(true))
            .prop_map(|(topic_partitions, tags)| ours_cgd::Assignment {
                topic_partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn consumer_group_describe_response(
        v: i16,
    ) -> S<ours_cgd::ConsumerGroupDescribeResponse<'static>> {
        use ours_cgd::*;
        let member = (
            (string(), nullable_string(), nullable_string(), any::<i32>()),
            (string(), string(), strings(), nullable_string()),
            (
                cgd_assignment(),
                cgd_assignment(),
                when(v >= 1, any::<i8>(), -1),
                unknown_tags(true),
            ),
        )
            .prop_map(
                |(
                    (member_id, instance, rack, epoch),
                    (client_id, client_host, names, regex),
                    (assignment, target, member_type, tags),
                )| Member {
                    member_id,
                    instance_id: instance,
                    rack_id: rack,
                    member_epoch: epoch,
                    client_id,
                    client_host,
                    subscribed_topic_names: names,
                    subscribed_topic_regex: regex,
                    assignment,
                    target_assignment: target,
                    member_type,
                    unknown_tagged_fields: tags,
                },
            );
        let group = (
            any::<i16>(),
            nullable_string(),
            string(),
            string(),
            any::<i32>(),
            any::<i32>(),
            string(),
            vec(member, 0..3),
            any::<i32>(),
            unknown_tags(true),
        )
            .prop_map(
                |(
                    ec,
                    em,
                    group_id,
                    state,
                    group_epoch,
                    assignment_epoch,
                    assignor,
                    members,
                    ops,
                    tags,
                )| {
                    DescribedGroup {
                        error_code: ec,
                        error_message: em,
                        group_id,
                        group_state: state,
                        group_epoch,
                        assignment_epoch,
                        assignor_name: assignor,
                        members,
                        authorized_operations: ops,
                        unknown_tagged_fields: tags,
                    }
                },
            );
        (any::<i32>(), vec(group, 0..3), unknown_tags(true))
            .prop_map(|(throttle, groups, tags)| ConsumerGroupDescribeResponse {
                throttle_time_ms: throttle,
                groups,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }
}

differential! {
    strategies: strategies;
    offset_commit_request: ours_oc::OffsetCommitRequest, kp::OffsetCommitRequest, 2..=9;
    offset_commit_response: ours_oc::OffsetCommitResponse, kp::OffsetCommitResponse, 2..=9;
    offset_fetch_request: ours_of::OffsetFetchRequest, kp::OffsetFetchRequest, 1..=9;
    offset_fetch_response: ours_of::OffsetFetchResponse, kp::OffsetFetchResponse, 1..=9;
    find_coordinator_request: ours_fc::FindCoordinatorRequest,
        kp::FindCoordinatorRequest, 0..=6;
    find_coordinator_response: ours_fc::FindCoordinatorResponse,
        kp::FindCoordinatorResponse, 0..=6;
    join_group_request: ours_jg::JoinGroupRequest, kp::JoinGroupRequest, 0..=9;
    join_group_response: ours_jg::JoinGroupResponse, kp::JoinGroupResponse, 0..=9;
    heartbeat_request: ours_hb::HeartbeatRequest, kp::HeartbeatRequest, 0..=4;
    heartbeat_response: ours_hb::HeartbeatResponse, kp::HeartbeatResponse, 0..=4;
    leave_group_request: ours_lg::LeaveGroupRequest, kp::LeaveGroupRequest, 0..=5;
    leave_group_response: ours_lg::LeaveGroupResponse, kp::LeaveGroupResponse, 0..=5;
    sync_group_request: ours_sg::SyncGroupRequest, kp::SyncGroupRequest, 0..=5;
    sync_group_response: ours_sg::SyncGroupResponse, kp::SyncGroupResponse, 0..=5;
    describe_groups_request: ours_dg::DescribeGroupsRequest, kp::DescribeGroupsRequest, 0..=6;
    describe_groups_response: ours_dg::DescribeGroupsResponse,
        kp::DescribeGroupsResponse, 0..=6;
    list_groups_request: ours_lsg::ListGroupsRequest, kp::ListGroupsRequest, 0..=5;
    list_groups_response: ours_lsg::ListGroupsResponse, kp::ListGroupsResponse, 0..=5;
    delete_groups_request: ours_dlg::DeleteGroupsRequest, kp::DeleteGroupsRequest, 0..=2;
    delete_groups_response: ours_dlg::DeleteGroupsResponse, kp::DeleteGroupsResponse, 0..=2;
    offset_delete_request: ours_od::OffsetDeleteRequest, kp::OffsetDeleteRequest, 0..=0;
    offset_delete_response: ours_od::OffsetDeleteResponse, kp::OffsetDeleteResponse, 0..=0;
    consumer_group_heartbeat_request: ours_cgh::ConsumerGroupHeartbeatRequest,
        kp::ConsumerGroupHeartbeatRequest, 0..=1;
    consumer_group_heartbeat_response: ours_cgh::ConsumerGroupHeartbeatResponse,
        kp::ConsumerGroupHeartbeatResponse, 0..=1;
    consumer_group_describe_request: ours_cgd::ConsumerGroupDescribeRequest,
        kp::ConsumerGroupDescribeRequest, 0..=1;
    consumer_group_describe_response: ours_cgd::ConsumerGroupDescribeResponse,
        kp::ConsumerGroupDescribeResponse, 0..=1;
}

/// The batched shapes, pinned: kafka-protocol's decoder reads our v8 OffsetFetch request (two
/// groups, one asking for all topics) and our v4 FindCoordinator request back to what we meant.
#[test]
fn batched_group_requests_read_back_in_kafka_protocol() {
    use std::borrow::Cow;

    let request = ours_of::OffsetFetchRequest {
        groups: vec![
            ours_of::OffsetFetchRequestGroup {
                group_id: Cow::Borrowed("a"),
                topics: Some(vec![ours_of::OffsetFetchRequestTopics {
                    name: Cow::Borrowed("t"),
                    partition_indexes: vec![0, 2],
                    ..Default::default()
                }]),
                ..Default::default()
            },
            ours_of::OffsetFetchRequestGroup {
                group_id: Cow::Borrowed("b"),
                topics: None,
                ..Default::default()
            },
        ],
        require_stable: true,
        ..Default::default()
    };
    let bytes = request.to_bytes(8).unwrap();
    let theirs = kp::OffsetFetchRequest::decode(&mut &bytes[..], 8).unwrap();
    assert_eq!(theirs.groups.len(), 2);
    assert_eq!(theirs.groups[0].group_id.0.as_str(), "a");
    let topics = theirs.groups[0].topics.as_ref().unwrap();
    assert_eq!(topics[0].partition_indexes, vec![0, 2]);
    assert_eq!(theirs.groups[1].topics, None);
    assert!(theirs.require_stable);
    // A v8 request cannot carry the v1-7 single group.
    let single = ours_of::OffsetFetchRequest {
        group_id: Cow::Borrowed("a"),
        ..Default::default()
    };
    assert!(single.to_bytes(8).is_err());

    let request = ours_fc::FindCoordinatorRequest {
        key_type: 1,
        coordinator_keys: vec![Cow::Borrowed("txn-1"), Cow::Borrowed("txn-2")],
        ..Default::default()
    };
    let bytes = request.to_bytes(4).unwrap();
    let theirs = kp::FindCoordinatorRequest::decode(&mut &bytes[..], 4).unwrap();
    assert_eq!(theirs.key_type, 1);
    let keys: Vec<&str> = theirs.coordinator_keys.iter().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["txn-1", "txn-2"]);
}

/// Every declaration covers exactly the versions the API table serves, with the table's
/// flexible versions (so the header versions it derives match how the bodies are encoded).
#[test]
fn declarations_agree_with_the_api_table() {
    use kacl_protocol::ApiKey;

    fn check<'a, Req: Message<'a>, Resp: Message<'a>>() {
        let api: ApiKey = Req::API_KEY;
        assert_eq!(Resp::API_KEY, api);
        for declared in [
            (Req::VERSIONS, Req::FLEXIBLE),
            (Resp::VERSIONS, Resp::FLEXIBLE),
        ] {
            assert_eq!(declared.0, api.versions(), "{api} versions");
            for version in api.versions().min..=api.versions().max {
                assert_eq!(
                    declared.1.contains(version),
                    api.flexible().contains(version),
                    "{api} v{version} flexibility"
                );
            }
        }
    }
    check::<ours_oc::OffsetCommitRequest, ours_oc::OffsetCommitResponse>();
    check::<ours_of::OffsetFetchRequest, ours_of::OffsetFetchResponse>();
    check::<ours_fc::FindCoordinatorRequest, ours_fc::FindCoordinatorResponse>();
    check::<ours_jg::JoinGroupRequest, ours_jg::JoinGroupResponse>();
    check::<ours_hb::HeartbeatRequest, ours_hb::HeartbeatResponse>();
    check::<ours_lg::LeaveGroupRequest, ours_lg::LeaveGroupResponse>();
    check::<ours_sg::SyncGroupRequest, ours_sg::SyncGroupResponse>();
    check::<ours_dg::DescribeGroupsRequest, ours_dg::DescribeGroupsResponse>();
    check::<ours_lsg::ListGroupsRequest, ours_lsg::ListGroupsResponse>();
    check::<ours_dlg::DeleteGroupsRequest, ours_dlg::DeleteGroupsResponse>();
    check::<ours_od::OffsetDeleteRequest, ours_od::OffsetDeleteResponse>();
    check::<ours_cgh::ConsumerGroupHeartbeatRequest, ours_cgh::ConsumerGroupHeartbeatResponse>();
    check::<ours_cgd::ConsumerGroupDescribeRequest, ours_cgd::ConsumerGroupDescribeResponse>();
}
