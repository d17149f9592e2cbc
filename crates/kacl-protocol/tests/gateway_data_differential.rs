//! Differential properties against `kafka-protocol` 0.18.0 for the data-path messages a gateway
//! node forwards (Produce, Fetch, ListOffsets, DeleteRecords, DescribeLogDirs,
//! DescribeProducers) at every version both crates support: for random values, both encoders
//! produce the same bytes, and each decoder reads the other's bytes back to the same value.
//! Also: record batches are borrowed from the frame after decoding, never copied.

#[macro_use]
mod differential_support;
mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    delete_records as ours_dr, describe_log_dirs as ours_dld, describe_producers as ours_dp,
    fetch as ours_f, list_offsets as ours_lo, produce as ours_p,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{Message, Uuid};
use kafka_protocol::messages::{
    delete_records_request as kp_drr, delete_records_response as kp_drt,
    describe_log_dirs_request as kp_dldr, describe_log_dirs_response as kp_dldt,
    describe_producers_request as kp_dpr, describe_producers_response as kp_dpt,
    fetch_request as kp_fr, fetch_response as kp_ft, list_offsets_request as kp_lor,
    list_offsets_response as kp_lot, produce_request as kp_pr, produce_response as kp_pt, BrokerId,
    ProducerId, TopicName, TransactionalId,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

/// Random values per version: fields a version lacks hold their schema default and unknown
/// tagged fields appear only in flexible versions, so every value is encodable at its version.
mod strategies {
    use std::borrow::Cow;

    use kacl_protocol::messages::delete_records::*;
    use kacl_protocol::messages::describe_log_dirs::*;
    use kacl_protocol::messages::describe_producers::*;
    use kacl_protocol::messages::fetch::*;
    use kacl_protocol::messages::list_offsets::*;
    use kacl_protocol::messages::produce::{
        self, BatchIndexAndErrorMessage, PartitionProduceData, PartitionProduceResponse,
        ProduceRequest, ProduceResponse, TopicProduceData, TopicProduceResponse,
    };
    use kacl_protocol::Uuid;
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    use crate::common::{bytes, nullable_string, string, unknown_tags, when};

    fn uuid() -> BoxedStrategy<Uuid> {
        prop_oneof![Just(Uuid::ZERO), any::<[u8; 16]>().prop_map(Uuid)].boxed()
    }

    fn records() -> BoxedStrategy<Option<Cow<'static, [u8]>>> {
        option::of(bytes()).boxed()
    }

    fn empty() -> Cow<'static, str> {
        Cow::Borrowed("")
    }

    // ---- Produce ----------------------------------------------------------------------------

    fn partition_produce_data(v: i16) -> BoxedStrategy<PartitionProduceData<'static>> {
        (any::<i32>(), records(), unknown_tags(v >= 9))
            .prop_map(|(index, records, tags)| PartitionProduceData {
                index,
                records,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn topic_produce_data(v: i16) -> BoxedStrategy<TopicProduceData<'static>> {
        (
            when(v <= 12, string(), empty()),
            when(v >= 13, uuid(), Uuid::ZERO),
            vec(partition_produce_data(v), 0..3),
            unknown_tags(v >= 9),
        )
            .prop_map(|(name, topic_id, partition_data, tags)| TopicProduceData {
                name,
                topic_id,
                partition_data,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn produce_request(v: i16) -> BoxedStrategy<ProduceRequest<'static>> {
        (
            nullable_string(),
            any::<i16>(),
            any::<i32>(),
            vec(topic_produce_data(v), 0..3),
            unknown_tags(v >= 9),
        )
            .prop_map(
                |(transactional_id, acks, timeout_ms, topic_data, tags)| ProduceRequest {
                    transactional_id,
                    acks,
                    timeout_ms,
                    topic_data,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn batch_index_and_error_message(v: i16) -> BoxedStrategy<BatchIndexAndErrorMessage<'static>> {
        (any::<i32>(), nullable_string(), unknown_tags(v >= 9))
            .prop_map(|(batch_index, message, tags)| BatchIndexAndErrorMessage {
                batch_index,
                batch_index_error_message: message,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn produce_leader(v: i16) -> BoxedStrategy<produce::LeaderIdAndEpoch<'static>> {
        (any::<i32>(), any::<i32>(), unknown_tags(v >= 9))
            .prop_map(
                |(leader_id, leader_epoch, tags)| produce::LeaderIdAndEpoch {
                    leader_id,
                    leader_epoch,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn produce_node_endpoint(v: i16) -> BoxedStrategy<produce::NodeEndpoint<'static>> {
        (
            any::<i32>(),
            string(),
            any::<i32>(),
            nullable_string(),
            unknown_tags(v >= 9),
        )
            .prop_map(|(node_id, host, port, rack, tags)| produce::NodeEndpoint {
                node_id,
                host,
                port,
                rack,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn partition_produce_response(v: i16) -> BoxedStrategy<PartitionProduceResponse<'static>> {
        (
            (any::<i32>(), any::<i16>(), any::<i64>(), any::<i64>()),
            when(v >= 5, any::<i64>(), -1),
            when(
                v >= 8,
                vec(batch_index_and_error_message(v), 0..3),
                Vec::new(),
            ),
            when(v >= 8, nullable_string(), None),
            when(v >= 10, produce_leader(v), Default::default()),
            unknown_tags(v >= 9),
        )
            .prop_map(
                |(
                    (index, error_code, base_offset, log_append_time_ms),
                    log_start_offset,
                    record_errors,
                    error_message,
                    current_leader,
                    tags,
                )| PartitionProduceResponse {
                    index,
                    error_code,
                    base_offset,
                    log_append_time_ms,
                    log_start_offset,
                    record_errors,
                    error_message,
                    current_leader,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn topic_produce_response(v: i16) -> BoxedStrategy<TopicProduceResponse<'static>> {
        (
            when(v <= 12, string(), empty()),
            when(v >= 13, uuid(), Uuid::ZERO),
            vec(partition_produce_response(v), 0..3),
            unknown_tags(v >= 9),
        )
            .prop_map(
                |(name, topic_id, partition_responses, tags)| TopicProduceResponse {
                    name,
                    topic_id,
                    partition_responses,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn produce_response(v: i16) -> BoxedStrategy<ProduceResponse<'static>> {
        (
            vec(topic_produce_response(v), 0..3),
            any::<i32>(),
            when(v >= 10, vec(produce_node_endpoint(v), 0..3), Vec::new()),
            unknown_tags(v >= 9),
        )
            .prop_map(
                |(responses, throttle_time_ms, node_endpoints, tags)| ProduceResponse {
                    responses,
                    throttle_time_ms,
                    node_endpoints,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    // ---- Fetch ------------------------------------------------------------------------------

    fn fetch_partition(v: i16) -> BoxedStrategy<FetchPartition<'static>> {
        (
            (any::<i32>(), when(v >= 9, any::<i32>(), -1), any::<i64>()),
            when(v >= 12, any::<i32>(), -1),
            when(v >= 5, any::<i64>(), -1),
            any::<i32>(),
            when(v >= 17, uuid(), Uuid::ZERO),
            when(
                v >= 18,
                prop_oneof![Just(i64::MAX), Just(-1), any::<i64>()],
                i64::MAX,
            ),
            unknown_tags(v >= 12),
        )
            .prop_map(
                |(
                    (partition, current_leader_epoch, fetch_offset),
                    last_fetched_epoch,
                    log_start_offset,
                    partition_max_bytes,
                    replica_directory_id,
                    high_watermark,
                    tags,
                )| FetchPartition {
                    partition,
                    current_leader_epoch,
                    fetch_offset,
                    last_fetched_epoch,
                    log_start_offset,
                    partition_max_bytes,
                    replica_directory_id,
                    high_watermark,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn fetch_topic(v: i16) -> BoxedStrategy<FetchTopic<'static>> {
        (
            when(v <= 12, string(), empty()),
            when(v >= 13, uuid(), Uuid::ZERO),
            vec(fetch_partition(v), 0..3),
            unknown_tags(v >= 12),
        )
            .prop_map(|(topic, topic_id, partitions, tags)| FetchTopic {
                topic,
                topic_id,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn forgotten_topic(v: i16) -> BoxedStrategy<ForgottenTopic<'static>> {
        (
            when(v <= 12, string(), empty()),
            when(v >= 13, uuid(), Uuid::ZERO),
            vec(any::<i32>(), 0..4),
            unknown_tags(v >= 12),
        )
            .prop_map(|(topic, topic_id, partitions, tags)| ForgottenTopic {
                topic,
                topic_id,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn replica_state(v: i16) -> BoxedStrategy<ReplicaState<'static>> {
        (any::<i32>(), any::<i64>(), unknown_tags(v >= 12))
            .prop_map(|(replica_id, replica_epoch, tags)| ReplicaState {
                replica_id,
                replica_epoch,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn fetch_request(v: i16) -> BoxedStrategy<FetchRequest<'static>> {
        (
            (
                when(v >= 12, nullable_string(), None),
                when(v <= 14, any::<i32>(), -1),
                when(v >= 15, replica_state(v), Default::default()),
            ),
            (any::<i32>(), any::<i32>(), any::<i32>(), any::<i8>()),
            (
                when(v >= 7, any::<i32>(), 0),
                when(v >= 7, any::<i32>(), -1),
            ),
            vec(fetch_topic(v), 0..3),
            when(v >= 7, vec(forgotten_topic(v), 0..3), Vec::new()),
            when(v >= 11, string(), empty()),
            unknown_tags(v >= 12),
        )
            .prop_map(
                |(
                    (cluster_id, replica_id, replica_state),
                    (max_wait_ms, min_bytes, max_bytes, isolation_level),
                    (session_id, session_epoch),
                    topics,
                    forgotten_topics_data,
                    rack_id,
                    tags,
                )| FetchRequest {
                    cluster_id,
                    replica_id,
                    replica_state,
                    max_wait_ms,
                    min_bytes,
                    max_bytes,
                    isolation_level,
                    session_id,
                    session_epoch,
                    topics,
                    forgotten_topics_data,
                    rack_id,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn aborted_transaction(v: i16) -> BoxedStrategy<AbortedTransaction<'static>> {
        (any::<i64>(), any::<i64>(), unknown_tags(v >= 12))
            .prop_map(|(producer_id, first_offset, tags)| AbortedTransaction {
                producer_id,
                first_offset,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn epoch_end_offset(v: i16) -> BoxedStrategy<EpochEndOffset<'static>> {
        (any::<i32>(), any::<i64>(), unknown_tags(v >= 12))
            .prop_map(|(epoch, end_offset, tags)| EpochEndOffset {
                epoch,
                end_offset,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn fetch_leader(v: i16) -> BoxedStrategy<LeaderIdAndEpoch<'static>> {
        (any::<i32>(), any::<i32>(), unknown_tags(v >= 12))
            .prop_map(|(leader_id, leader_epoch, tags)| LeaderIdAndEpoch {
                leader_id,
                leader_epoch,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn snapshot_id(v: i16) -> BoxedStrategy<SnapshotId<'static>> {
        (any::<i64>(), any::<i32>(), unknown_tags(v >= 12))
            .prop_map(|(end_offset, epoch, tags)| SnapshotId {
                end_offset,
                epoch,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn fetch_node_endpoint(v: i16) -> BoxedStrategy<NodeEndpoint<'static>> {
        (
            any::<i32>(),
            string(),
            any::<i32>(),
            nullable_string(),
            unknown_tags(v >= 12),
        )
            .prop_map(|(node_id, host, port, rack, tags)| NodeEndpoint {
                node_id,
                host,
                port,
                rack,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn partition_data(v: i16) -> BoxedStrategy<PartitionData<'static>> {
        (
            (any::<i32>(), any::<i16>(), any::<i64>(), any::<i64>()),
            when(v >= 5, any::<i64>(), -1),
            (
                when(v >= 12, epoch_end_offset(v), Default::default()),
                when(v >= 12, fetch_leader(v), Default::default()),
                when(v >= 12, snapshot_id(v), Default::default()),
            ),
            option::of(vec(aborted_transaction(v), 0..3)),
            when(v >= 11, any::<i32>(), -1),
            records(),
            unknown_tags(v >= 12),
        )
            .prop_map(
                |(
                    (partition_index, error_code, high_watermark, last_stable_offset),
                    log_start_offset,
                    (diverging_epoch, current_leader, snapshot_id),
                    aborted_transactions,
                    preferred_read_replica,
                    records,
                    tags,
                )| PartitionData {
                    partition_index,
                    error_code,
                    high_watermark,
                    last_stable_offset,
                    log_start_offset,
                    diverging_epoch,
                    current_leader,
                    snapshot_id,
                    aborted_transactions,
                    preferred_read_replica,
                    records,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    fn fetchable_topic_response(v: i16) -> BoxedStrategy<FetchableTopicResponse<'static>> {
        (
            when(v <= 12, string(), empty()),
            when(v >= 13, uuid(), Uuid::ZERO),
            vec(partition_data(v), 0..3),
            unknown_tags(v >= 12),
        )
            .prop_map(
                |(topic, topic_id, partitions, tags)| FetchableTopicResponse {
                    topic,
                    topic_id,
                    partitions,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    pub(crate) fn fetch_response(v: i16) -> BoxedStrategy<FetchResponse<'static>> {
        (
            any::<i32>(),
            when(v >= 7, any::<i16>(), 0),
            when(v >= 7, any::<i32>(), 0),
            vec(fetchable_topic_response(v), 0..3),
            when(v >= 16, vec(fetch_node_endpoint(v), 0..3), Vec::new()),
            unknown_tags(v >= 12),
        )
            .prop_map(
                |(throttle_time_ms, error_code, session_id, responses, node_endpoints, tags)| {
                    FetchResponse {
                        throttle_time_ms,
                        error_code,
                        session_id,
                        responses,
                        node_endpoints,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    // ---- ListOffsets ------------------------------------------------------------------------

    fn list_offsets_partition(v: i16) -> BoxedStrategy<ListOffsetsPartition<'static>> {
        (
            any::<i32>(),
            when(v >= 4, any::<i32>(), -1),
            any::<i64>(),
            unknown_tags(v >= 6),
        )
            .prop_map(|(partition_index, current_leader_epoch, timestamp, tags)| {
                ListOffsetsPartition {
                    partition_index,
                    current_leader_epoch,
                    timestamp,
                    unknown_tagged_fields: tags,
                }
            })
            .boxed()
    }

    fn list_offsets_topic(v: i16) -> BoxedStrategy<ListOffsetsTopic<'static>> {
        (
            string(),
            vec(list_offsets_partition(v), 0..3),
            unknown_tags(v >= 6),
        )
            .prop_map(|(name, partitions, tags)| ListOffsetsTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn list_offsets_request(v: i16) -> BoxedStrategy<ListOffsetsRequest<'static>> {
        (
            any::<i32>(),
            when(v >= 2, any::<i8>(), 0),
            vec(list_offsets_topic(v), 0..3),
            when(v >= 10, any::<i32>(), 0),
            unknown_tags(v >= 6),
        )
            .prop_map(|(replica_id, isolation_level, topics, timeout_ms, tags)| {
                ListOffsetsRequest {
                    replica_id,
                    isolation_level,
                    topics,
                    timeout_ms,
                    unknown_tagged_fields: tags,
                }
            })
            .boxed()
    }

    fn list_offsets_partition_response(
        v: i16,
    ) -> BoxedStrategy<ListOffsetsPartitionResponse<'static>> {
        (
            any::<i32>(),
            any::<i16>(),
            any::<i64>(),
            any::<i64>(),
            when(v >= 4, any::<i32>(), -1),
            unknown_tags(v >= 6),
        )
            .prop_map(
                |(partition_index, error_code, timestamp, offset, leader_epoch, tags)| {
                    ListOffsetsPartitionResponse {
                        partition_index,
                        error_code,
                        timestamp,
                        offset,
                        leader_epoch,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    fn list_offsets_topic_response(v: i16) -> BoxedStrategy<ListOffsetsTopicResponse<'static>> {
        (
            string(),
            vec(list_offsets_partition_response(v), 0..3),
            unknown_tags(v >= 6),
        )
            .prop_map(|(name, partitions, tags)| ListOffsetsTopicResponse {
                name,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn list_offsets_response(v: i16) -> BoxedStrategy<ListOffsetsResponse<'static>> {
        (
            when(v >= 2, any::<i32>(), 0),
            vec(list_offsets_topic_response(v), 0..3),
            unknown_tags(v >= 6),
        )
            .prop_map(|(throttle_time_ms, topics, tags)| ListOffsetsResponse {
                throttle_time_ms,
                topics,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- DeleteRecords ----------------------------------------------------------------------

    fn delete_records_topic(v: i16) -> BoxedStrategy<DeleteRecordsTopic<'static>> {
        let partition = (any::<i32>(), any::<i64>(), unknown_tags(v >= 2)).prop_map(
            |(partition_index, offset, tags)| DeleteRecordsPartition {
                partition_index,
                offset,
                unknown_tagged_fields: tags,
            },
        );
        (string(), vec(partition, 0..3), unknown_tags(v >= 2))
            .prop_map(|(name, partitions, tags)| DeleteRecordsTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn delete_records_request(v: i16) -> BoxedStrategy<DeleteRecordsRequest<'static>> {
        (
            vec(delete_records_topic(v), 0..3),
            any::<i32>(),
            unknown_tags(v >= 2),
        )
            .prop_map(|(topics, timeout_ms, tags)| DeleteRecordsRequest {
                topics,
                timeout_ms,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn delete_records_topic_result(v: i16) -> BoxedStrategy<DeleteRecordsTopicResult<'static>> {
        let partition = (
            any::<i32>(),
            any::<i64>(),
            any::<i16>(),
            unknown_tags(v >= 2),
        )
            .prop_map(|(partition_index, low_watermark, error_code, tags)| {
                DeleteRecordsPartitionResult {
                    partition_index,
                    low_watermark,
                    error_code,
                    unknown_tagged_fields: tags,
                }
            });
        (string(), vec(partition, 0..3), unknown_tags(v >= 2))
            .prop_map(|(name, partitions, tags)| DeleteRecordsTopicResult {
                name,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn delete_records_response(v: i16) -> BoxedStrategy<DeleteRecordsResponse<'static>> {
        (
            any::<i32>(),
            vec(delete_records_topic_result(v), 0..3),
            unknown_tags(v >= 2),
        )
            .prop_map(|(throttle_time_ms, topics, tags)| DeleteRecordsResponse {
                throttle_time_ms,
                topics,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    // ---- DescribeLogDirs --------------------------------------------------------------------

    pub(crate) fn describe_log_dirs_request(
        v: i16,
    ) -> BoxedStrategy<DescribeLogDirsRequest<'static>> {
        let topic = (string(), vec(any::<i32>(), 0..4), unknown_tags(v >= 2)).prop_map(
            |(topic, partitions, tags)| DescribableLogDirTopic {
                topic,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (option::of(vec(topic, 0..3)), unknown_tags(v >= 2))
            .prop_map(|(topics, tags)| DescribeLogDirsRequest {
                topics,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn describe_log_dirs_topic(v: i16) -> BoxedStrategy<DescribeLogDirsTopic<'static>> {
        let partition = (
            any::<i32>(),
            any::<i64>(),
            any::<i64>(),
            any::<bool>(),
            unknown_tags(v >= 2),
        )
            .prop_map(
                |(partition_index, partition_size, offset_lag, is_future_key, tags)| {
                    DescribeLogDirsPartition {
                        partition_index,
                        partition_size,
                        offset_lag,
                        is_future_key,
                        unknown_tagged_fields: tags,
                    }
                },
            );
        (string(), vec(partition, 0..3), unknown_tags(v >= 2))
            .prop_map(|(name, partitions, tags)| DescribeLogDirsTopic {
                name,
                partitions,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn describe_log_dirs_result(v: i16) -> BoxedStrategy<DescribeLogDirsResult<'static>> {
        (
            any::<i16>(),
            string(),
            vec(describe_log_dirs_topic(v), 0..3),
            when(v >= 4, any::<i64>(), -1),
            when(v >= 4, any::<i64>(), -1),
            unknown_tags(v >= 2),
        )
            .prop_map(
                |(error_code, log_dir, topics, total_bytes, usable_bytes, tags)| {
                    DescribeLogDirsResult {
                        error_code,
                        log_dir,
                        topics,
                        total_bytes,
                        usable_bytes,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn describe_log_dirs_response(
        v: i16,
    ) -> BoxedStrategy<DescribeLogDirsResponse<'static>> {
        (
            any::<i32>(),
            when(v >= 3, any::<i16>(), 0),
            vec(describe_log_dirs_result(v), 0..3),
            unknown_tags(v >= 2),
        )
            .prop_map(
                |(throttle_time_ms, error_code, results, tags)| DescribeLogDirsResponse {
                    throttle_time_ms,
                    error_code,
                    results,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }

    // ---- DescribeProducers ------------------------------------------------------------------

    pub(crate) fn describe_producers_request(
        _v: i16,
    ) -> BoxedStrategy<DescribeProducersRequest<'static>> {
        let topic = (string(), vec(any::<i32>(), 0..4), unknown_tags(true)).prop_map(
            |(name, partition_indexes, tags)| TopicRequest {
                name,
                partition_indexes,
                unknown_tagged_fields: tags,
            },
        );
        (vec(topic, 0..3), unknown_tags(true))
            .prop_map(|(topics, tags)| DescribeProducersRequest {
                topics,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    fn producer_state() -> BoxedStrategy<ProducerState<'static>> {
        (
            any::<i64>(),
            any::<i32>(),
            any::<i32>(),
            any::<i64>(),
            any::<i32>(),
            any::<i64>(),
            unknown_tags(true),
        )
            .prop_map(
                |(
                    producer_id,
                    producer_epoch,
                    last_sequence,
                    last_timestamp,
                    coordinator_epoch,
                    start,
                    tags,
                )| {
                    ProducerState {
                        producer_id,
                        producer_epoch,
                        last_sequence,
                        last_timestamp,
                        coordinator_epoch,
                        current_txn_start_offset: start,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn describe_producers_response(
        _v: i16,
    ) -> BoxedStrategy<DescribeProducersResponse<'static>> {
        let partition = (
            any::<i32>(),
            any::<i16>(),
            nullable_string(),
            vec(producer_state(), 0..3),
            unknown_tags(true),
        )
            .prop_map(
                |(partition_index, error_code, error_message, active_producers, tags)| {
                    PartitionResponse {
                        partition_index,
                        error_code,
                        error_message,
                        active_producers,
                        unknown_tagged_fields: tags,
                    }
                },
            );
        let topic = (string(), vec(partition, 0..3), unknown_tags(true)).prop_map(
            |(name, partitions, tags)| TopicResponse {
                name,
                partitions,
                unknown_tagged_fields: tags,
            },
        );
        (any::<i32>(), vec(topic, 0..3), unknown_tags(true))
            .prop_map(
                |(throttle_time_ms, topics, tags)| DescribeProducersResponse {
                    throttle_time_ms,
                    topics,
                    unknown_tagged_fields: tags,
                },
            )
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

    fn topic(value: &str) -> TopicName {
        TopicName(s(value))
    }

    fn records(value: &Option<Cow<'_, [u8]>>) -> Option<Bytes> {
        value.as_deref().map(Bytes::copy_from_slice)
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    /// kafka-protocol's topic ids are `uuid::Uuid`, a crate kacl-protocol does not depend on;
    /// a v13 `TopicProduceData` decoded from the 16 bytes carries one.
    fn uuid_holder(id: &Uuid) -> kp_pr::TopicProduceData {
        let mut wire = id.0.to_vec();
        wire.push(1); // compact empty partition_data
        wire.push(0); // no tagged fields
        kp_pr::TopicProduceData::decode(&mut &wire[..], 13).unwrap()
    }

    // ---- Produce ----------------------------------------------------------------------------

    pub(crate) fn produce_request(
        m: &ours_p::ProduceRequest<'_>,
    ) -> kafka_protocol::messages::ProduceRequest {
        let mut t = kafka_protocol::messages::ProduceRequest::default();
        t.transactional_id = m
            .transactional_id
            .as_deref()
            .map(|id| TransactionalId(s(id)));
        t.acks = m.acks;
        t.timeout_ms = m.timeout_ms;
        t.topic_data = m
            .topic_data
            .iter()
            .map(|x| {
                let mut tt = uuid_holder(&x.topic_id);
                tt.name = topic(&x.name);
                tt.partition_data = x
                    .partition_data
                    .iter()
                    .map(|p| {
                        let mut tp = kp_pr::PartitionProduceData::default();
                        tp.index = p.index;
                        tp.records = records(&p.records);
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

    pub(crate) fn produce_response(
        m: &ours_p::ProduceResponse<'_>,
    ) -> kafka_protocol::messages::ProduceResponse {
        let mut t = kafka_protocol::messages::ProduceResponse::default();
        t.responses = m
            .responses
            .iter()
            .map(|x| {
                let mut tt = kp_pt::TopicProduceResponse::default();
                tt.name = topic(&x.name);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.partition_responses = x
                    .partition_responses
                    .iter()
                    .map(|p| {
                        let mut tp = kp_pt::PartitionProduceResponse::default();
                        tp.index = p.index;
                        tp.error_code = p.error_code;
                        tp.base_offset = p.base_offset;
                        tp.log_append_time_ms = p.log_append_time_ms;
                        tp.log_start_offset = p.log_start_offset;
                        tp.record_errors = p
                            .record_errors
                            .iter()
                            .map(|e| {
                                let mut te = kp_pt::BatchIndexAndErrorMessage::default();
                                te.batch_index = e.batch_index;
                                te.batch_index_error_message = ns(&e.batch_index_error_message);
                                te.unknown_tagged_fields = tags(&e.unknown_tagged_fields);
                                te
                            })
                            .collect();
                        tp.error_message = ns(&p.error_message);
                        let mut leader = kp_pt::LeaderIdAndEpoch::default();
                        leader.leader_id = BrokerId(p.current_leader.leader_id);
                        leader.leader_epoch = p.current_leader.leader_epoch;
                        leader.unknown_tagged_fields =
                            tags(&p.current_leader.unknown_tagged_fields);
                        tp.current_leader = leader;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.throttle_time_ms = m.throttle_time_ms;
        t.node_endpoints = m
            .node_endpoints
            .iter()
            .map(|n| {
                let mut tn = kp_pt::NodeEndpoint::default();
                tn.node_id = BrokerId(n.node_id);
                tn.host = s(&n.host);
                tn.port = n.port;
                tn.rack = ns(&n.rack);
                tn.unknown_tagged_fields = tags(&n.unknown_tagged_fields);
                tn
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- Fetch ------------------------------------------------------------------------------

    pub(crate) fn fetch_request(
        m: &ours_f::FetchRequest<'_>,
    ) -> kafka_protocol::messages::FetchRequest {
        let mut t = kafka_protocol::messages::FetchRequest::default();
        t.cluster_id = ns(&m.cluster_id);
        t.replica_id = BrokerId(m.replica_id);
        let mut state = kp_fr::ReplicaState::default();
        state.replica_id = BrokerId(m.replica_state.replica_id);
        state.replica_epoch = m.replica_state.replica_epoch;
        state.unknown_tagged_fields = tags(&m.replica_state.unknown_tagged_fields);
        t.replica_state = state;
        t.max_wait_ms = m.max_wait_ms;
        t.min_bytes = m.min_bytes;
        t.max_bytes = m.max_bytes;
        t.isolation_level = m.isolation_level;
        t.session_id = m.session_id;
        t.session_epoch = m.session_epoch;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_fr::FetchTopic::default();
                tt.topic = topic(&x.topic);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_fr::FetchPartition::default();
                        tp.partition = p.partition;
                        tp.current_leader_epoch = p.current_leader_epoch;
                        tp.fetch_offset = p.fetch_offset;
                        tp.last_fetched_epoch = p.last_fetched_epoch;
                        tp.log_start_offset = p.log_start_offset;
                        tp.partition_max_bytes = p.partition_max_bytes;
                        tp.replica_directory_id = uuid_holder(&p.replica_directory_id).topic_id;
                        tp.high_watermark = p.high_watermark;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.forgotten_topics_data = m
            .forgotten_topics_data
            .iter()
            .map(|x| {
                let mut tt = kp_fr::ForgottenTopic::default();
                tt.topic = topic(&x.topic);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.partitions = x.partitions.clone();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.rack_id = s(&m.rack_id);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn fetch_response(
        m: &ours_f::FetchResponse<'_>,
    ) -> kafka_protocol::messages::FetchResponse {
        let mut t = kafka_protocol::messages::FetchResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.session_id = m.session_id;
        t.responses = m
            .responses
            .iter()
            .map(|x| {
                let mut tt = kp_ft::FetchableTopicResponse::default();
                tt.topic = topic(&x.topic);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.partitions = x.partitions.iter().map(partition_data).collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.node_endpoints = m
            .node_endpoints
            .iter()
            .map(|n| {
                let mut tn = kp_ft::NodeEndpoint::default();
                tn.node_id = BrokerId(n.node_id);
                tn.host = s(&n.host);
                tn.port = n.port;
                tn.rack = ns(&n.rack);
                tn.unknown_tagged_fields = tags(&n.unknown_tagged_fields);
                tn
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    fn partition_data(p: &ours_f::PartitionData<'_>) -> kp_ft::PartitionData {
        let mut tp = kp_ft::PartitionData::default();
        tp.partition_index = p.partition_index;
        tp.error_code = p.error_code;
        tp.high_watermark = p.high_watermark;
        tp.last_stable_offset = p.last_stable_offset;
        tp.log_start_offset = p.log_start_offset;
        let mut diverging = kp_ft::EpochEndOffset::default();
        diverging.epoch = p.diverging_epoch.epoch;
        diverging.end_offset = p.diverging_epoch.end_offset;
        diverging.unknown_tagged_fields = tags(&p.diverging_epoch.unknown_tagged_fields);
        tp.diverging_epoch = diverging;
        let mut leader = kp_ft::LeaderIdAndEpoch::default();
        leader.leader_id = BrokerId(p.current_leader.leader_id);
        leader.leader_epoch = p.current_leader.leader_epoch;
        leader.unknown_tagged_fields = tags(&p.current_leader.unknown_tagged_fields);
        tp.current_leader = leader;
        let mut snapshot = kp_ft::SnapshotId::default();
        snapshot.end_offset = p.snapshot_id.end_offset;
        snapshot.epoch = p.snapshot_id.epoch;
        snapshot.unknown_tagged_fields = tags(&p.snapshot_id.unknown_tagged_fields);
        tp.snapshot_id = snapshot;
        tp.aborted_transactions = p.aborted_transactions.as_ref().map(|aborted| {
            aborted
                .iter()
                .map(|a| {
                    let mut ta = kp_ft::AbortedTransaction::default();
                    ta.producer_id = ProducerId(a.producer_id);
                    ta.first_offset = a.first_offset;
                    ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                    ta
                })
                .collect()
        });
        tp.preferred_read_replica = BrokerId(p.preferred_read_replica);
        tp.records = records(&p.records);
        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
        tp
    }

    // ---- ListOffsets ------------------------------------------------------------------------

    pub(crate) fn list_offsets_request(
        m: &ours_lo::ListOffsetsRequest<'_>,
    ) -> kafka_protocol::messages::ListOffsetsRequest {
        let mut t = kafka_protocol::messages::ListOffsetsRequest::default();
        t.replica_id = BrokerId(m.replica_id);
        t.isolation_level = m.isolation_level;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_lor::ListOffsetsTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_lor::ListOffsetsPartition::default();
                        tp.partition_index = p.partition_index;
                        tp.current_leader_epoch = p.current_leader_epoch;
                        tp.timestamp = p.timestamp;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.timeout_ms = m.timeout_ms;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn list_offsets_response(
        m: &ours_lo::ListOffsetsResponse<'_>,
    ) -> kafka_protocol::messages::ListOffsetsResponse {
        let mut t = kafka_protocol::messages::ListOffsetsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_lot::ListOffsetsTopicResponse::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_lot::ListOffsetsPartitionResponse::default();
                        tp.partition_index = p.partition_index;
                        tp.error_code = p.error_code;
                        tp.timestamp = p.timestamp;
                        tp.offset = p.offset;
                        tp.leader_epoch = p.leader_epoch;
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

    // ---- DeleteRecords ----------------------------------------------------------------------

    pub(crate) fn delete_records_request(
        m: &ours_dr::DeleteRecordsRequest<'_>,
    ) -> kafka_protocol::messages::DeleteRecordsRequest {
        let mut t = kafka_protocol::messages::DeleteRecordsRequest::default();
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_drr::DeleteRecordsTopic::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_drr::DeleteRecordsPartition::default();
                        tp.partition_index = p.partition_index;
                        tp.offset = p.offset;
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.timeout_ms = m.timeout_ms;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn delete_records_response(
        m: &ours_dr::DeleteRecordsResponse<'_>,
    ) -> kafka_protocol::messages::DeleteRecordsResponse {
        let mut t = kafka_protocol::messages::DeleteRecordsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_drt::DeleteRecordsTopicResult::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_drt::DeleteRecordsPartitionResult::default();
                        tp.partition_index = p.partition_index;
                        tp.low_watermark = p.low_watermark;
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

    // ---- DescribeLogDirs --------------------------------------------------------------------

    pub(crate) fn describe_log_dirs_request(
        m: &ours_dld::DescribeLogDirsRequest<'_>,
    ) -> kafka_protocol::messages::DescribeLogDirsRequest {
        let mut t = kafka_protocol::messages::DescribeLogDirsRequest::default();
        t.topics = m.topics.as_ref().map(|topics| {
            topics
                .iter()
                .map(|x| {
                    let mut tt = kp_dldr::DescribableLogDirTopic::default();
                    tt.topic = topic(&x.topic);
                    tt.partitions = x.partitions.clone();
                    tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                    tt
                })
                .collect()
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_log_dirs_response(
        m: &ours_dld::DescribeLogDirsResponse<'_>,
    ) -> kafka_protocol::messages::DescribeLogDirsResponse {
        let mut t = kafka_protocol::messages::DescribeLogDirsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.results = m
            .results
            .iter()
            .map(|r| {
                let mut tr = kp_dldt::DescribeLogDirsResult::default();
                tr.error_code = r.error_code;
                tr.log_dir = s(&r.log_dir);
                tr.topics = r
                    .topics
                    .iter()
                    .map(|x| {
                        let mut tt = kp_dldt::DescribeLogDirsTopic::default();
                        tt.name = topic(&x.name);
                        tt.partitions = x
                            .partitions
                            .iter()
                            .map(|p| {
                                let mut tp = kp_dldt::DescribeLogDirsPartition::default();
                                tp.partition_index = p.partition_index;
                                tp.partition_size = p.partition_size;
                                tp.offset_lag = p.offset_lag;
                                tp.is_future_key = p.is_future_key;
                                tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                                tp
                            })
                            .collect();
                        tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tt
                    })
                    .collect();
                tr.total_bytes = r.total_bytes;
                tr.usable_bytes = r.usable_bytes;
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    // ---- DescribeProducers ------------------------------------------------------------------

    pub(crate) fn describe_producers_request(
        m: &ours_dp::DescribeProducersRequest<'_>,
    ) -> kafka_protocol::messages::DescribeProducersRequest {
        let mut t = kafka_protocol::messages::DescribeProducersRequest::default();
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_dpr::TopicRequest::default();
                tt.name = topic(&x.name);
                tt.partition_indexes = x.partition_indexes.clone();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_producers_response(
        m: &ours_dp::DescribeProducersResponse<'_>,
    ) -> kafka_protocol::messages::DescribeProducersResponse {
        let mut t = kafka_protocol::messages::DescribeProducersResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_dpt::TopicResponse::default();
                tt.name = topic(&x.name);
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_dpt::PartitionResponse::default();
                        tp.partition_index = p.partition_index;
                        tp.error_code = p.error_code;
                        tp.error_message = ns(&p.error_message);
                        tp.active_producers = p
                            .active_producers
                            .iter()
                            .map(|a| {
                                let mut ta = kp_dpt::ProducerState::default();
                                ta.producer_id = ProducerId(a.producer_id);
                                ta.producer_epoch = a.producer_epoch;
                                ta.last_sequence = a.last_sequence;
                                ta.last_timestamp = a.last_timestamp;
                                ta.coordinator_epoch = a.coordinator_epoch;
                                ta.current_txn_start_offset = a.current_txn_start_offset;
                                ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                                ta
                            })
                            .collect();
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
    produce_request: ours_p::ProduceRequest,
        kafka_protocol::messages::ProduceRequest, 3..=13;
    produce_response: ours_p::ProduceResponse,
        kafka_protocol::messages::ProduceResponse, 3..=13;
    fetch_request: ours_f::FetchRequest,
        kafka_protocol::messages::FetchRequest, 4..=18;
    fetch_response: ours_f::FetchResponse,
        kafka_protocol::messages::FetchResponse, 4..=18;
    list_offsets_request: ours_lo::ListOffsetsRequest,
        kafka_protocol::messages::ListOffsetsRequest, 1..=10;
    list_offsets_response: ours_lo::ListOffsetsResponse,
        kafka_protocol::messages::ListOffsetsResponse, 1..=10;
    delete_records_request: ours_dr::DeleteRecordsRequest,
        kafka_protocol::messages::DeleteRecordsRequest, 0..=2;
    delete_records_response: ours_dr::DeleteRecordsResponse,
        kafka_protocol::messages::DeleteRecordsResponse, 0..=2;
    describe_log_dirs_request: ours_dld::DescribeLogDirsRequest,
        kafka_protocol::messages::DescribeLogDirsRequest, 1..=4;
    describe_log_dirs_response: ours_dld::DescribeLogDirsResponse,
        kafka_protocol::messages::DescribeLogDirsResponse, 1..=4;
    describe_producers_request: ours_dp::DescribeProducersRequest,
        kafka_protocol::messages::DescribeProducersRequest, 0..=0;
    describe_producers_response: ours_dp::DescribeProducersResponse,
        kafka_protocol::messages::DescribeProducersResponse, 0..=0;
}

/// Whether `inner` lies inside `outer` (the same memory, not a copy).
fn points_into(inner: &[u8], outer: &[u8]) -> bool {
    let outer = outer.as_ptr_range();
    let inner = inner.as_ptr_range();
    outer.start <= inner.start && inner.end <= outer.end
}

#[test]
fn produce_records_are_borrowed_from_the_frame() {
    use std::borrow::Cow;

    let batch: Vec<u8> = (0u8..=200).collect();
    let request = ours_p::ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: vec![ours_p::TopicProduceData {
            name: Cow::Borrowed("payments"),
            topic_id: Uuid([7; 16]),
            partition_data: vec![
                ours_p::PartitionProduceData {
                    index: 0,
                    records: Some(Cow::Owned(batch.clone())),
                    ..Default::default()
                },
                ours_p::PartitionProduceData {
                    index: 1,
                    records: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    for version in [3, 8, 9, 12, 13] {
        let wire = request.to_bytes(version).unwrap();
        let decoded = ours_p::ProduceRequest::decode_exact(&wire, version).unwrap();
        let partitions = &decoded.topic_data[0].partition_data;
        match &partitions[0].records {
            Some(Cow::Borrowed(records)) => {
                assert_eq!(*records, &batch[..], "v{version}");
                assert!(
                    points_into(records, &wire),
                    "v{version}: not the frame's bytes"
                );
            }
            other => panic!("v{version}: records not borrowed: {other:?}"),
        }
        assert_eq!(partitions[1].records, None, "v{version}");
    }
}

#[test]
fn fetch_records_are_borrowed_from_the_frame() {
    use std::borrow::Cow;

    let batch: Vec<u8> = (0u8..=200).rev().collect();
    let response = ours_f::FetchResponse {
        responses: vec![ours_f::FetchableTopicResponse {
            topic: Cow::Borrowed("payments"),
            topic_id: Uuid([7; 16]),
            partitions: vec![ours_f::PartitionData {
                records: Some(Cow::Owned(batch.clone())),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for version in [4, 11, 12, 13, 17, 18] {
        let wire = response.to_bytes(version).unwrap();
        let decoded = ours_f::FetchResponse::decode_exact(&wire, version).unwrap();
        match &decoded.responses[0].partitions[0].records {
            Some(Cow::Borrowed(records)) => {
                assert_eq!(*records, &batch[..], "v{version}");
                assert!(
                    points_into(records, &wire),
                    "v{version}: not the frame's bytes"
                );
            }
            other => panic!("v{version}: records not borrowed: {other:?}"),
        }
    }
}

/// The tagged fields Kafka added for the data path land in their tags, each written only when
/// it differs from its default, as kafka-protocol writes them.
#[test]
fn tagged_fields_are_written_only_when_set() {
    let mut request = ours_f::FetchRequest::default();
    let empty = request.to_bytes(15).unwrap();
    // replica_id is gone at v15; with no tagged field set the section is one zero byte.
    assert_eq!(empty.last(), Some(&0));
    request.replica_state.replica_id = 3;
    request.cluster_id = Some("cluster".into());
    let wire = request.to_bytes(15).unwrap();
    let decoded = ours_f::FetchRequest::decode_exact(&wire, 15).unwrap();
    assert_eq!(decoded, request);
    assert!(decoded.unknown_tagged_fields.is_empty());
    // At v12-14 the replica state does not exist: dropped (ignorable), cluster id kept.
    let wire = request.to_bytes(14).unwrap();
    let decoded = ours_f::FetchRequest::decode_exact(&wire, 14).unwrap();
    assert_eq!(decoded.replica_state, Default::default());
    assert_eq!(decoded.cluster_id.as_deref(), Some("cluster"));
}
