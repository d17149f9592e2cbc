//! Differential properties against `kafka-protocol` 0.18.0 (Kafka 4.1's schemas) for the admin
//! APIs of kacl's topic placement: DescribeTopicPartitions (KIP-966, with its cursor),
//! ListPartitionReassignments and AlterPartitionReassignments (KIP-455, KIP-860), at every
//! version both crates support: for random values, both encoders produce the same bytes, and
//! each decoder reads the other's bytes back to the same value.

#[macro_use]
mod differential_support;
mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    alter_partition_reassignments as ours_apr, describe_topic_partitions as ours_dtp,
    list_partition_reassignments as ours_lpr,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{Message, Uuid};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

mod strategies {
    use kacl_protocol::Uuid;
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    use super::{ours_apr, ours_dtp, ours_lpr};
    use crate::common::{nullable_string, string, unknown_tags};

    type S<T> = BoxedStrategy<T>;

    fn uuid() -> S<Uuid> {
        prop_oneof![Just(Uuid::ZERO), any::<[u8; 16]>().prop_map(Uuid)].boxed()
    }

    fn ids() -> S<Vec<i32>> {
        vec(any::<i32>(), 0..4).boxed()
    }

    fn cursor() -> S<Option<ours_dtp::Cursor<'static>>> {
        option::of((string(), any::<i32>(), unknown_tags(true)).prop_map(
            |(topic_name, index, tags)| ours_dtp::Cursor {
                topic_name,
                partition_index: index,
                unknown_tagged_fields: tags,
            },
        ))
        .boxed()
    }

    pub(crate) fn describe_topic_partitions_request(
        _v: i16,
    ) -> S<ours_dtp::DescribeTopicPartitionsRequest<'static>> {
        use ours_dtp::*;
        let topic = (string(), unknown_tags(true)).prop_map(|(name, tags)| TopicRequest {
            name,
            unknown_tagged_fields: tags,
        });
        (vec(topic, 0..4), any::<i32>(), cursor(), unknown_tags(true))
            .prop_map(
                |(topics, limit, cursor, tags)| DescribeTopicPartitionsRequest {
                    topics,
                    response_partition_limit: limit,
                    cursor,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn describe_topic_partitions_response(
        _v: i16,
    ) -> S<ours_dtp::DescribeTopicPartitionsResponse<'static>> {
        use ours_dtp::*;
        let partition = (
            (any::<i16>(), any::<i32>(), any::<i32>(), any::<i32>()),
            (ids(), ids(), option::of(ids()), option::of(ids()), ids()),
            unknown_tags(true),
        )
            .prop_map(
                |((ec, index, leader, epoch), (r, isr, elr, lkelr, off), tags)| {
                    DescribeTopicPartitionsResponsePartition {
                        error_code: ec,
                        partition_index: index,
                        leader_id: leader,
                        leader_epoch: epoch,
                        replica_nodes: r,
                        isr_nodes: isr,
                        eligible_leader_replicas: elr,
                        last_known_elr: lkelr,
                        offline_replicas: off,
                        unknown_tagged_fields: tags,
                    }
                },
            );
        let topic = (
            any::<i16>(),
            nullable_string(),
            uuid(),
            any::<bool>(),
            vec(partition, 0..3),
            any::<i32>(),
            unknown_tags(true),
        )
            .prop_map(|(ec, name, id, internal, partitions, ops, tags)| {
                DescribeTopicPartitionsResponseTopic {
                    error_code: ec,
                    name,
                    topic_id: id,
                    is_internal: internal,
                    partitions,
                    topic_authorized_operations: ops,
                    unknown_tagged_fields: tags,
                }
            });
        (any::<i32>(), vec(topic, 0..3), cursor(), unknown_tags(true))
            .prop_map(
                |(throttle, topics, next, tags)| DescribeTopicPartitionsResponse {
                    throttle_time_ms: throttle,
                    topics,
                    next_cursor: next,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn list_partition_reassignments_request(
        _v: i16,
    ) -> S<ours_lpr::ListPartitionReassignmentsRequest<'static>> {
        use ours_lpr::*;
        let topic = (string(), ids(), unknown_tags(true)).prop_map(|(name, indexes, tags)| {
            ListPartitionReassignmentsTopics {
                name,
                partition_indexes: indexes,
                unknown_tagged_fields: tags,
            }
        });
        (
            any::<i32>(),
            option::of(vec(topic, 0..3)),
            unknown_tags(true),
        )
            .prop_map(
                |(timeout, topics, tags)| ListPartitionReassignmentsRequest {
                    timeout_ms: timeout,
                    topics,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn list_partition_reassignments_response(
        _v: i16,
    ) -> S<ours_lpr::ListPartitionReassignmentsResponse<'static>> {
        use ours_lpr::*;
        let partition = (any::<i32>(), ids(), ids(), ids(), unknown_tags(true)).prop_map(
            |(index, replicas, adding, removing, tags)| OngoingPartitionReassignment {
                partition_index: index,
                replicas,
                adding_replicas: adding,
                removing_replicas: removing,
                unknown_tagged_fields: tags,
            },
        );
        let topic = (string(), vec(partition, 0..3), unknown_tags(true)).prop_map(
            |(name, partitions, tags)| OngoingTopicReassignment {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (
            any::<i32>(),
            any::<i16>(),
            nullable_string(),
            vec(topic, 0..3),
            unknown_tags(true),
        )
            .prop_map(
                |(throttle, ec, message, topics, tags)| ListPartitionReassignmentsResponse {
                    throttle_time_ms: throttle,
                    error_code: ec,
                    error_message: message,
                    topics,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn alter_partition_reassignments_request(
        v: i16,
    ) -> S<ours_apr::AlterPartitionReassignmentsRequest<'static>> {
        use ours_apr::*;
        let partition = (any::<i32>(), option::of(ids()), unknown_tags(true)).prop_map(
            |(index, replicas, tags)| ReassignablePartition {
                partition_index: index,
                replicas,
                unknown_tagged_fields: tags,
            },
        );
        let topic = (string(), vec(partition, 0..3), unknown_tags(true)).prop_map(
            |(name, partitions, tags)| ReassignableTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        let allow = if v >= 1 {
            any::<bool>().boxed()
        } else {
            Just(true).boxed()
        };
        (any::<i32>(), allow, vec(topic, 0..3), unknown_tags(true))
            .prop_map(
                |(timeout, allow, topics, tags)| AlterPartitionReassignmentsRequest {
                    timeout_ms: timeout,
                    allow_replication_factor_change: allow,
                    topics,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn alter_partition_reassignments_response(
        v: i16,
    ) -> S<ours_apr::AlterPartitionReassignmentsResponse<'static>> {
        use ours_apr::*;
        let partition = (
            any::<i32>(),
            any::<i16>(),
            nullable_string(),
            unknown_tags(true),
        )
            .prop_map(|(index, ec, message, tags)| ReassignablePartitionResponse {
                partition_index: index,
                error_code: ec,
                error_message: message,
                unknown_tagged_fields: tags,
            });
        let topic = (string(), vec(partition, 0..3), unknown_tags(true)).prop_map(
            |(name, partitions, tags)| ReassignableTopicResponse {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        let allow = if v >= 1 {
            any::<bool>().boxed()
        } else {
            Just(true).boxed()
        };
        (
            any::<i32>(),
            allow,
            any::<i16>(),
            nullable_string(),
            vec(topic, 0..3),
            unknown_tags(true),
        )
            .prop_map(|(throttle, allow, ec, message, responses, tags)| {
                AlterPartitionReassignmentsResponse {
                    throttle_time_ms: throttle,
                    allow_replication_factor_change: allow,
                    error_code: ec,
                    error_message: message,
                    responses,
                    unknown_tagged_fields: tags,
                }
            })
            .boxed()
    }
}

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

    fn topic(value: &str) -> kp::TopicName {
        kp::TopicName(s(value))
    }

    fn brokers(ids: &[i32]) -> Vec<kp::BrokerId> {
        ids.iter().map(|id| kp::BrokerId(*id)).collect()
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    /// kafka-protocol's topic ids are `uuid::Uuid`, a crate kacl-protocol does not depend on;
    /// a v13 `TopicProduceData` decoded from the 16 bytes carries one.
    fn uuid_holder(id: &Uuid) -> kp::produce_request::TopicProduceData {
        let mut wire = id.0.to_vec();
        wire.push(1); // compact empty partition_data
        wire.push(0); // no tagged fields
        kp::produce_request::TopicProduceData::decode(&mut &wire[..], 13).unwrap()
    }

    fn dtp_cursor<Theirs: Default>(
        cursor: &Option<ours_dtp::Cursor<'_>>,
        build: impl Fn(kp::TopicName, i32, BTreeMap<i32, Bytes>) -> Theirs,
    ) -> Option<Theirs> {
        cursor.as_ref().map(|c| {
            build(
                topic(&c.topic_name),
                c.partition_index,
                tags(&c.unknown_tagged_fields),
            )
        })
    }

    pub(crate) fn describe_topic_partitions_request(
        m: &ours_dtp::DescribeTopicPartitionsRequest<'_>,
    ) -> kp::DescribeTopicPartitionsRequest {
        use kp::describe_topic_partitions_request as k;
        let mut t = kp::DescribeTopicPartitionsRequest::default();
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::TopicRequest::default();
                tt.name = topic(&x.name);
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.response_partition_limit = m.response_partition_limit;
        t.cursor = dtp_cursor(&m.cursor, |name, index, extra| {
            let mut c = k::Cursor::default();
            c.topic_name = name;
            c.partition_index = index;
            c.unknown_tagged_fields = extra;
            c
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_topic_partitions_response(
        m: &ours_dtp::DescribeTopicPartitionsResponse<'_>,
    ) -> kp::DescribeTopicPartitionsResponse {
        use kp::describe_topic_partitions_response as k;
        let mut t = kp::DescribeTopicPartitionsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::DescribeTopicPartitionsResponseTopic::default();
                tt.error_code = x.error_code;
                tt.name = x.name.as_deref().map(topic);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.is_internal = x.is_internal;
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::DescribeTopicPartitionsResponsePartition::default();
                        tp.error_code = p.error_code;
                        tp.partition_index = p.partition_index;
                        tp.leader_id = kp::BrokerId(p.leader_id);
                        tp.leader_epoch = p.leader_epoch;
                        tp.replica_nodes = brokers(&p.replica_nodes);
                        tp.isr_nodes = brokers(&p.isr_nodes);
                        tp.eligible_leader_replicas =
                            p.eligible_leader_replicas.as_deref().map(brokers);
                        tp.last_known_elr = p.last_known_elr.as_deref().map(brokers);
                        tp.offline_replicas = brokers(&p.offline_replicas);
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.topic_authorized_operations = x.topic_authorized_operations;
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.next_cursor = dtp_cursor(&m.next_cursor, |name, index, extra| {
            let mut c = k::Cursor::default();
            c.topic_name = name;
            c.partition_index = index;
            c.unknown_tagged_fields = extra;
            c
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn list_partition_reassignments_request(
        m: &ours_lpr::ListPartitionReassignmentsRequest<'_>,
    ) -> kp::ListPartitionReassignmentsRequest {
        use kp::list_partition_reassignments_request as k;
        let mut t = kp::ListPartitionReassignmentsRequest::default();
        t.timeout_ms = m.timeout_ms;
        t.topics = m.topics.as_ref().map(|topics| {
            topics
                .iter()
                .map(|x| {
                    let mut tt = k::ListPartitionReassignmentsTopics::default();
                    tt.name = topic(&x.name);
                    tt.partition_indexes = x.partition_indexes.clone();
                    tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                    tt
                })
                .collect()
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn list_partition_reassignments_response(
        m: &ours_lpr::ListPartitionReassignmentsResponse<'_>,
    ) -> kp::ListPartitionReassignmentsResponse {
        use kp::list_partition_reassignments_response as k;
        let mut t = kp::ListPartitionReassignmentsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::OngoingTopicReassignment::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::OngoingPartitionReassignment::default();
                        tp.partition_index = p.partition_index;
                        tp.replicas = brokers(&p.replicas);
                        tp.adding_replicas = brokers(&p.adding_replicas);
                        tp.removing_replicas = brokers(&p.removing_replicas);
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

    pub(crate) fn alter_partition_reassignments_request(
        m: &ours_apr::AlterPartitionReassignmentsRequest<'_>,
    ) -> kp::AlterPartitionReassignmentsRequest {
        use kp::alter_partition_reassignments_request as k;
        let mut t = kp::AlterPartitionReassignmentsRequest::default();
        t.timeout_ms = m.timeout_ms;
        t.allow_replication_factor_change = m.allow_replication_factor_change;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = k::ReassignableTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::ReassignablePartition::default();
                        tp.partition_index = p.partition_index;
                        tp.replicas = p.replicas.as_deref().map(brokers);
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

    pub(crate) fn alter_partition_reassignments_response(
        m: &ours_apr::AlterPartitionReassignmentsResponse<'_>,
    ) -> kp::AlterPartitionReassignmentsResponse {
        use kp::alter_partition_reassignments_response as k;
        let mut t = kp::AlterPartitionReassignmentsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.allow_replication_factor_change = m.allow_replication_factor_change;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.responses = m
            .responses
            .iter()
            .map(|x| {
                let mut tt = k::ReassignableTopicResponse::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = k::ReassignablePartitionResponse::default();
                        tp.partition_index = p.partition_index;
                        tp.error_code = p.error_code;
                        tp.error_message = ns(&p.error_message);
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
}

differential! {
    strategies: strategies;
    describe_topic_partitions_request: ours_dtp::DescribeTopicPartitionsRequest,
        kp::DescribeTopicPartitionsRequest, 0..=0;
    describe_topic_partitions_response: ours_dtp::DescribeTopicPartitionsResponse,
        kp::DescribeTopicPartitionsResponse, 0..=0;
    list_partition_reassignments_request: ours_lpr::ListPartitionReassignmentsRequest,
        kp::ListPartitionReassignmentsRequest, 0..=0;
    list_partition_reassignments_response: ours_lpr::ListPartitionReassignmentsResponse,
        kp::ListPartitionReassignmentsResponse, 0..=0;
    alter_partition_reassignments_request: ours_apr::AlterPartitionReassignmentsRequest,
        kp::AlterPartitionReassignmentsRequest, 0..=1;
    alter_partition_reassignments_response: ours_apr::AlterPartitionReassignmentsResponse,
        kp::AlterPartitionReassignmentsResponse, 0..=1;
}

/// The defaults are Kafka's: a request built with only what a client sets reads back in
/// kafka-protocol with a limit of 2000 partitions, no cursor and a 60 s timeout, and a v0
/// AlterPartitionReassignments request cannot say "keep the replication factor".
#[test]
fn defaults_are_kafkas() {
    let request = ours_dtp::DescribeTopicPartitionsRequest::default();
    let bytes = request.to_bytes(0).unwrap();
    let theirs = kp::DescribeTopicPartitionsRequest::decode(&mut &bytes[..], 0).unwrap();
    assert_eq!(theirs.response_partition_limit, 2000);
    assert!(theirs.cursor.is_none());
    assert_eq!(
        ours_dtp::DescribeTopicPartitionsResponsePartition::default().leader_epoch,
        -1
    );
    assert_eq!(
        ours_dtp::DescribeTopicPartitionsResponseTopic::default().topic_authorized_operations,
        i32::MIN
    );
    let bytes = ours_lpr::ListPartitionReassignmentsRequest::default()
        .to_bytes(0)
        .unwrap();
    let theirs = kp::ListPartitionReassignmentsRequest::decode(&mut &bytes[..], 0).unwrap();
    assert_eq!(theirs.timeout_ms, 60000);
    let keep = ours_apr::AlterPartitionReassignmentsRequest {
        allow_replication_factor_change: false,
        ..Default::default()
    };
    assert!(keep.to_bytes(0).is_err());
    assert!(keep.to_bytes(1).is_ok());
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
    check::<ours_dtp::DescribeTopicPartitionsRequest, ours_dtp::DescribeTopicPartitionsResponse>();
    check::<
        ours_lpr::ListPartitionReassignmentsRequest,
        ours_lpr::ListPartitionReassignmentsResponse,
    >();
    check::<
        ours_apr::AlterPartitionReassignmentsRequest,
        ours_apr::AlterPartitionReassignmentsResponse,
    >();
}
