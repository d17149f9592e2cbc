//! DeleteRecords (API key 21): delete the records of partitions before an offset (advance their
//! log start offset). A gateway node authorizes each topic and forwards it.
//!
//! v1 changes no fields; v2 is the first flexible version.

use std::borrow::Cow;

kafka_message! {
    /// The partitions to truncate and the offsets to truncate them to.
    pub struct DeleteRecordsRequest<'a> {
        api_key: DeleteRecords, versions: 0-2, flexible: 2+;
        /// Each topic to delete records from.
        topics: Vec<DeleteRecordsTopic<'a>> [versions 0+],
        /// How long to wait for the deletion to complete, in milliseconds.
        timeout_ms: i32 [versions 0+],
    }

    /// One topic to delete records from.
    pub struct DeleteRecordsTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Each partition to delete records from.
        partitions: Vec<DeleteRecordsPartition<'a>> [versions 0+],
    }

    /// One partition to delete records from.
    pub struct DeleteRecordsPartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// Records before this offset are deleted; -1 means the high watermark.
        offset: i64 [versions 0+],
    }
}

kafka_message! {
    /// The outcome per topic and partition.
    pub struct DeleteRecordsResponse<'a> {
        api_key: DeleteRecords, versions: 0-2, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// Each topic records were deleted from.
        topics: Vec<DeleteRecordsTopicResult<'a>> [versions 0+],
    }

    /// The outcome for one topic.
    pub struct DeleteRecordsTopicResult<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// Each partition records were deleted from.
        partitions: Vec<DeleteRecordsPartitionResult<'a>> [versions 0+],
    }

    /// The outcome for one partition.
    pub struct DeleteRecordsPartitionResult<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The partition's new log start offset.
        low_watermark: i64 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
    }
}
