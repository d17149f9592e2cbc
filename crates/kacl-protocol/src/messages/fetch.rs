//! Fetch (API key 1): read record batches from partitions, for consumers and follower replicas.
//! A gateway node authorizes each topic and forwards the request; the record batches of the
//! response stay borrowed bytes, never decoded.
//!
//! v4 adds the isolation level and the last stable offset and aborted transactions in the
//! response (KIP-98); v5 the log start offset; v6 changes no fields; v7 adds incremental fetch
//! sessions and forgotten topics (KIP-227); v8 changes no fields; v9 adds the current leader
//! epoch (KIP-320); v10 allows ZStd (KIP-110); v11 adds the rack id and the preferred read
//! replica (KIP-392); v12 is the first flexible version and adds the last fetched epoch, the
//! cluster id and the diverging epoch, current leader and snapshot id tagged fields (KIP-595);
//! v13 names topics by id instead of name (KIP-516); v14 may return
//! OFFSET_MOVED_TO_TIERED_STORAGE (KIP-405); v15 replaces the replica id with the tagged
//! replica state (KIP-903); v16 returns the leaders' endpoints (KIP-951); v17 adds the
//! follower's directory id (KIP-853); v18 the follower's high watermark (KIP-1166). Versions 0-3
//! were removed in Kafka 4 (KIP-896). v18 is declared, but kacl serves 4-17 for now (see
//! [`ApiKey::versions`](crate::ApiKey::versions)).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// The partitions to fetch from, and the fetch session to update.
    pub struct FetchRequest<'a> {
        api_key: Fetch, versions: 4-18, flexible: 12+;
        /// The cluster id if known, or null (tagged, v12+).
        cluster_id: Option<Cow<'a, str>> [versions 12+, nullable 12+, tag 0, ignorable],
        /// The broker id of the follower, or -1 for a consumer (v0-14).
        replica_id: i32 [versions 0-14, default -1],
        /// The follower's replica state (tagged, v15+).
        replica_state: ReplicaState<'a> [versions 15+, tag 1, ignorable],
        /// The longest time to wait for `min_bytes`, in milliseconds.
        max_wait_ms: i32 [versions 0+],
        /// The minimum bytes to accumulate in the response.
        min_bytes: i32 [versions 0+],
        /// The maximum bytes to fetch (KIP-74: not a hard limit).
        max_bytes: i32 [versions 3+, ignorable, default i32::MAX],
        /// 0 = READ_UNCOMMITTED, 1 = READ_COMMITTED (records up to the last stable offset).
        isolation_level: i8 [versions 4+],
        /// The fetch session id, or 0.
        session_id: i32 [versions 7+, ignorable],
        /// The fetch session epoch, or -1.
        session_epoch: i32 [versions 7+, ignorable, default -1],
        /// The topics to fetch.
        topics: Vec<FetchTopic<'a>> [versions 0+],
        /// In an incremental fetch, the partitions to remove from the session (v7+).
        forgotten_topics_data: Vec<ForgottenTopic<'a>> [versions 7+],
        /// The rack id of the consumer (v11+).
        rack_id: Cow<'a, str> [versions 11+, ignorable],
    }

    /// A follower's identity and epoch.
    pub struct ReplicaState<'a> {
        /// The follower's replica id, or -1 for a consumer.
        replica_id: i32 [versions 15+, default -1],
        /// The follower's broker epoch, or -1.
        replica_epoch: i64 [versions 15+, default -1],
    }

    /// One topic to fetch.
    pub struct FetchTopic<'a> {
        /// The topic name (v0-12).
        topic: Cow<'a, str> [versions 0-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// The partitions to fetch.
        partitions: Vec<FetchPartition<'a>> [versions 0+],
    }

    /// One partition to fetch.
    pub struct FetchPartition<'a> {
        /// The partition index.
        partition: i32 [versions 0+],
        /// The current leader epoch, or -1 (v9+).
        current_leader_epoch: i32 [versions 9+, ignorable, default -1],
        /// The offset to fetch from.
        fetch_offset: i64 [versions 0+],
        /// The epoch of the last fetched record, or -1 (v12+).
        last_fetched_epoch: i32 [versions 12+, default -1],
        /// The follower's log start offset, or -1 (v5+).
        log_start_offset: i64 [versions 5+, ignorable, default -1],
        /// The maximum bytes to fetch from this partition (KIP-74: not a hard limit).
        partition_max_bytes: i32 [versions 0+],
        /// The directory id of the fetching follower (tagged, v17+).
        replica_directory_id: Uuid [versions 17+, tag 0, ignorable],
        /// The follower's high watermark: -1 if unknown, `i64::MAX` if not supported (tagged,
        /// v18+).
        high_watermark: i64 [versions 18+, tag 1, ignorable, default i64::MAX],
    }

    /// Partitions to remove from an incremental fetch session.
    pub struct ForgottenTopic<'a> {
        /// The topic name (v7-12).
        topic: Cow<'a, str> [versions 7-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// The partition indexes to forget.
        partitions: Vec<i32> [versions 7+],
    }
}

kafka_message! {
    /// The fetched record batches, per topic and partition.
    pub struct FetchResponse<'a> {
        api_key: Fetch, versions: 4-18, flexible: 12+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The top-level error code, or 0 (v7+).
        error_code: i16 [versions 7+, ignorable],
        /// The fetch session id, or 0 outside a fetch session (v7+).
        session_id: i32 [versions 7+],
        /// The topics fetched.
        responses: Vec<FetchableTopicResponse<'a>> [versions 0+],
        /// The endpoints of the current leaders named in partitions that failed with
        /// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH (tagged, v16+).
        node_endpoints: Vec<NodeEndpoint<'a>> [versions 16+, tag 0, ignorable],
    }

    /// One topic fetched.
    pub struct FetchableTopicResponse<'a> {
        /// The topic name (v0-12).
        topic: Cow<'a, str> [versions 0-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// The partitions fetched.
        partitions: Vec<PartitionData<'a>> [versions 0+],
    }

    /// One partition fetched.
    pub struct PartitionData<'a> {
        /// The partition index.
        partition_index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The high watermark.
        high_watermark: i64 [versions 0+],
        /// The last stable offset (all transactions before it are decided), or -1.
        last_stable_offset: i64 [versions 4+, ignorable, default -1],
        /// The log start offset, or -1 (v5+).
        log_start_offset: i64 [versions 5+, ignorable, default -1],
        /// Where the follower's log diverges from the leader's (tagged, v12+).
        diverging_epoch: EpochEndOffset<'a> [versions 12+, tag 0, ignorable],
        /// The current leader (tagged, v12+).
        current_leader: LeaderIdAndEpoch<'a> [versions 12+, tag 1, ignorable],
        /// The snapshot to fetch when the fetch offset is below the log start offset (tagged,
        /// v12+).
        snapshot_id: SnapshotId<'a> [versions 12+, tag 2, ignorable],
        /// The aborted transactions in the fetched range (READ_COMMITTED), or null.
        aborted_transactions: Option<Vec<AbortedTransaction<'a>>> [versions 4+, nullable 4+,
            default Some(Vec::new())],
        /// The replica the consumer should fetch from next, or -1 (v11+, KIP-392).
        preferred_read_replica: i32 [versions 11+, default -1],
        /// The record batches, borrowed from the frame and never decoded.
        records: Option<Cow<'a, [u8]>> [versions 0+, nullable 0+,
            default Some(Cow::Borrowed(&[]))],
    }

    /// An epoch and its end offset.
    pub struct EpochEndOffset<'a> {
        /// The epoch, or -1.
        epoch: i32 [versions 12+, default -1],
        /// The end offset of the epoch, or -1.
        end_offset: i64 [versions 12+, default -1],
    }

    /// A partition's current leader.
    pub struct LeaderIdAndEpoch<'a> {
        /// The id of the leader broker, or -1 if unknown.
        leader_id: i32 [versions 12+, default -1],
        /// The leader epoch, or -1.
        leader_epoch: i32 [versions 12+, default -1],
    }

    /// A snapshot id: an end offset and an epoch.
    pub struct SnapshotId<'a> {
        /// The end offset, or -1.
        end_offset: i64 [versions 0+, default -1],
        /// The epoch, or -1.
        epoch: i32 [versions 0+, default -1],
    }

    /// One aborted transaction.
    pub struct AbortedTransaction<'a> {
        /// The producer id of the aborted transaction.
        producer_id: i64 [versions 4+],
        /// The first offset of the aborted transaction.
        first_offset: i64 [versions 4+],
    }

    /// The endpoint of one broker.
    pub struct NodeEndpoint<'a> {
        /// The broker id.
        node_id: i32 [versions 16+],
        /// The broker hostname.
        host: Cow<'a, str> [versions 16+],
        /// The broker port.
        port: i32 [versions 16+],
        /// The rack of the broker, or null if it has none.
        rack: Option<Cow<'a, str>> [versions 16+, nullable 16+],
    }
}
