//! DescribeLogDirs (API key 35): the log directories of the responding broker and the size and
//! lag of the partitions in each. A gateway node authorizes it and forwards it.
//!
//! v1 changes no fields (a throttled response is sent before throttling); v2 is the first
//! flexible version; v3 adds a top-level error code; v4 returns each directory's total and
//! usable bytes (KIP-827). Version 0 was removed in Kafka 4 (KIP-896).

use std::borrow::Cow;

kafka_message! {
    /// The partitions to describe.
    pub struct DescribeLogDirsRequest<'a> {
        api_key: DescribeLogDirs, versions: 1-4, flexible: 2+;
        /// Each topic to describe, or null for all topics.
        topics: Option<Vec<DescribableLogDirTopic<'a>>> [versions 0+, nullable 0+,
            default Some(Vec::new())],
    }

    /// One topic to describe.
    pub struct DescribableLogDirTopic<'a> {
        /// The topic name.
        topic: Cow<'a, str> [versions 0+],
        /// The partition indexes.
        partitions: Vec<i32> [versions 0+],
    }
}

kafka_message! {
    /// The broker's log directories.
    pub struct DescribeLogDirsResponse<'a> {
        api_key: DescribeLogDirs, versions: 1-4, flexible: 2+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The top-level error code, or 0 (v3+).
        error_code: i16 [versions 3+, ignorable],
        /// The log directories.
        results: Vec<DescribeLogDirsResult<'a>> [versions 0+],
    }

    /// One log directory.
    pub struct DescribeLogDirsResult<'a> {
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The absolute path of the log directory.
        log_dir: Cow<'a, str> [versions 0+],
        /// The topics with partitions in the directory.
        topics: Vec<DescribeLogDirsTopic<'a>> [versions 0+],
        /// The total size in bytes of the directory's volume, or -1 (v4+).
        total_bytes: i64 [versions 4+, ignorable, default -1],
        /// The usable size in bytes of the directory's volume, or -1 (v4+).
        usable_bytes: i64 [versions 4+, ignorable, default -1],
    }

    /// One topic in a log directory.
    pub struct DescribeLogDirsTopic<'a> {
        /// The topic name.
        name: Cow<'a, str> [versions 0+],
        /// The topic's partitions in the directory.
        partitions: Vec<DescribeLogDirsPartition<'a>> [versions 0+],
    }

    /// One partition in a log directory.
    pub struct DescribeLogDirsPartition<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The size of the partition's log segments, in bytes.
        partition_size: i64 [versions 0+],
        /// The lag of the log end offset behind the high watermark (current log) or behind the
        /// current replica's log end offset (future log).
        offset_lag: i64 [versions 0+],
        /// Whether this is a future log (being moved here by AlterReplicaLogDirs).
        is_future_key: bool [versions 0+],
    }
}
