//! The APIs kacl speaks: their Kafka API keys, the versions kacl serves and which of those are
//! flexible. This table is what the ApiVersions response advertises and what the server checks
//! every request header against.

use crate::version_range::VersionRange;

/// Who answers an API, by mode: the one table that splits kacl's own APIs from those a gateway
/// node forwards (an API outside it is never forwarded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiRole {
    /// Answered by kacl from its own state in both modes: ApiVersions, SASL, the ACL and SCRAM
    /// APIs.
    Own,
    /// Answered by a standalone node from its own topic and config state; forwarded by a gateway
    /// node (the topics and configs are the upstream's).
    AnsweredOrForwarded,
    /// Forwarded by a gateway node; unknown to a standalone node.
    ForwardedOnly,
}

/// A Kafka API kacl knows. The discriminant is the wire API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i16)]
pub enum ApiKey {
    /// Write record batches to partitions. Forwarded by a gateway node only.
    Produce = 0,
    /// Read record batches from partitions. Forwarded by a gateway node only.
    Fetch = 1,
    /// Offsets by timestamp (earliest, latest, ...). Forwarded by a gateway node only.
    ListOffsets = 2,
    /// Cluster metadata: brokers, topics, partitions.
    Metadata = 3,
    /// Commit a group's consumed offsets. Forwarded by a gateway node only.
    OffsetCommit = 8,
    /// Read a group's committed offsets. Forwarded by a gateway node only.
    OffsetFetch = 9,
    /// Which broker coordinates a group or transactional id.
    FindCoordinator = 10,
    /// Join a classic consumer group. Forwarded by a gateway node only.
    JoinGroup = 11,
    /// Keep a classic group membership alive. Forwarded by a gateway node only.
    Heartbeat = 12,
    /// Leave a classic consumer group. Forwarded by a gateway node only.
    LeaveGroup = 13,
    /// Receive a classic group's assignment. Forwarded by a gateway node only.
    SyncGroup = 14,
    /// Describe consumer groups.
    DescribeGroups = 15,
    /// List consumer groups.
    ListGroups = 16,
    /// SASL mechanism negotiation.
    SaslHandshake = 17,
    /// Which APIs and versions the server supports.
    ApiVersions = 18,
    /// Create topics.
    CreateTopics = 19,
    /// Delete topics.
    DeleteTopics = 20,
    /// Delete records before an offset. Forwarded by a gateway node only.
    DeleteRecords = 21,
    /// The end offset of a leader epoch: how a consumer checks its position after a leader
    /// change (KIP-320). Forwarded by a gateway node only.
    OffsetForLeaderEpoch = 23,
    /// A producer id and epoch for idempotent or transactional producers. Forwarded by a gateway node only.
    InitProducerId = 22,
    /// Add partitions to a transaction. Forwarded by a gateway node only.
    AddPartitionsToTxn = 24,
    /// Add a group's offsets to a transaction. Forwarded by a gateway node only.
    AddOffsetsToTxn = 25,
    /// Commit or abort a transaction. Forwarded by a gateway node only.
    EndTxn = 26,
    /// Commit offsets inside a transaction. Forwarded by a gateway node only.
    TxnOffsetCommit = 28,
    /// List ACLs matching a filter.
    DescribeAcls = 29,
    /// Create ACLs.
    CreateAcls = 30,
    /// Delete ACLs matching filters.
    DeleteAcls = 31,
    /// Describe topic, broker and broker-logger configs.
    DescribeConfigs = 32,
    /// Replace resources' whole configs (legacy).
    AlterConfigs = 33,
    /// Describe the log directories of a broker.
    DescribeLogDirs = 35,
    /// SASL exchange carried in Kafka frames (KIP-152).
    SaslAuthenticate = 36,
    /// Add partitions to topics.
    CreatePartitions = 37,
    /// Delete consumer groups.
    DeleteGroups = 42,
    /// Set, delete, append to or subtract from config keys (KIP-339).
    IncrementalAlterConfigs = 44,
    /// Move partitions to other brokers, or cancel a move (KIP-455).
    AlterPartitionReassignments = 45,
    /// The partition reassignments in progress (KIP-455).
    ListPartitionReassignments = 46,
    /// Delete a group's committed offsets. Forwarded by a gateway node only.
    OffsetDelete = 47,
    /// Describe client quotas (KIP-546). Answered by kacl from its own store in both modes.
    DescribeClientQuotas = 48,
    /// Set or remove client quotas (KIP-546). Answered by kacl in both modes.
    AlterClientQuotas = 49,
    /// List SCRAM credentials.
    DescribeUserScramCredentials = 50,
    /// Upsert or delete SCRAM credentials.
    AlterUserScramCredentials = 51,
    /// Cluster id, controller and brokers (KIP-700).
    DescribeCluster = 60,
    /// Describe the active producers of partitions. Forwarded by a gateway node only.
    DescribeProducers = 61,
    /// Describe transactions.
    DescribeTransactions = 65,
    /// List transactions.
    ListTransactions = 66,
    /// The KIP-848 consumer group protocol's heartbeat. Forwarded by a gateway node only.
    ConsumerGroupHeartbeat = 68,
    /// Describe KIP-848 consumer groups.
    ConsumerGroupDescribe = 69,
    /// Topic partitions, paged by a cursor (KIP-966).
    DescribeTopicPartitions = 75,
}

impl ApiKey {
    /// Every API a standalone node serves, in API key order (the order of its ApiVersions
    /// response).
    pub const ALL: [ApiKey; 29] = [
        ApiKey::Metadata,
        ApiKey::FindCoordinator,
        ApiKey::DescribeGroups,
        ApiKey::ListGroups,
        ApiKey::SaslHandshake,
        ApiKey::ApiVersions,
        ApiKey::CreateTopics,
        ApiKey::DeleteTopics,
        ApiKey::DescribeAcls,
        ApiKey::CreateAcls,
        ApiKey::DeleteAcls,
        ApiKey::DescribeConfigs,
        ApiKey::AlterConfigs,
        ApiKey::DescribeLogDirs,
        ApiKey::SaslAuthenticate,
        ApiKey::CreatePartitions,
        ApiKey::DeleteGroups,
        ApiKey::IncrementalAlterConfigs,
        ApiKey::AlterPartitionReassignments,
        ApiKey::ListPartitionReassignments,
        ApiKey::DescribeClientQuotas,
        ApiKey::AlterClientQuotas,
        ApiKey::DescribeUserScramCredentials,
        ApiKey::AlterUserScramCredentials,
        ApiKey::DescribeCluster,
        ApiKey::DescribeTransactions,
        ApiKey::ListTransactions,
        ApiKey::ConsumerGroupDescribe,
        ApiKey::DescribeTopicPartitions,
    ];

    /// The APIs only a gateway node serves, by forwarding them to the upstream cluster once
    /// authorized (the data path: produce, fetch, groups, transactions). A standalone node
    /// does not know them and closes a connection that sends one, as before.
    pub const FORWARDED_ONLY: [ApiKey; 19] = [
        ApiKey::Produce,
        ApiKey::Fetch,
        ApiKey::ListOffsets,
        ApiKey::OffsetCommit,
        ApiKey::OffsetFetch,
        ApiKey::JoinGroup,
        ApiKey::Heartbeat,
        ApiKey::LeaveGroup,
        ApiKey::SyncGroup,
        ApiKey::DeleteRecords,
        ApiKey::InitProducerId,
        ApiKey::OffsetForLeaderEpoch,
        ApiKey::AddPartitionsToTxn,
        ApiKey::AddOffsetsToTxn,
        ApiKey::EndTxn,
        ApiKey::TxnOffsetCommit,
        ApiKey::OffsetDelete,
        ApiKey::DescribeProducers,
        ApiKey::ConsumerGroupHeartbeat,
    ];

    /// Every API kacl knows in either mode, in API key order.
    pub const KNOWN: [ApiKey; 48] = [
        ApiKey::Produce,
        ApiKey::Fetch,
        ApiKey::ListOffsets,
        ApiKey::Metadata,
        ApiKey::OffsetCommit,
        ApiKey::OffsetFetch,
        ApiKey::FindCoordinator,
        ApiKey::JoinGroup,
        ApiKey::Heartbeat,
        ApiKey::LeaveGroup,
        ApiKey::SyncGroup,
        ApiKey::DescribeGroups,
        ApiKey::ListGroups,
        ApiKey::SaslHandshake,
        ApiKey::ApiVersions,
        ApiKey::CreateTopics,
        ApiKey::DeleteTopics,
        ApiKey::DeleteRecords,
        ApiKey::InitProducerId,
        ApiKey::OffsetForLeaderEpoch,
        ApiKey::AddPartitionsToTxn,
        ApiKey::AddOffsetsToTxn,
        ApiKey::EndTxn,
        ApiKey::TxnOffsetCommit,
        ApiKey::DescribeAcls,
        ApiKey::CreateAcls,
        ApiKey::DeleteAcls,
        ApiKey::DescribeConfigs,
        ApiKey::AlterConfigs,
        ApiKey::DescribeLogDirs,
        ApiKey::SaslAuthenticate,
        ApiKey::CreatePartitions,
        ApiKey::DeleteGroups,
        ApiKey::IncrementalAlterConfigs,
        ApiKey::AlterPartitionReassignments,
        ApiKey::ListPartitionReassignments,
        ApiKey::OffsetDelete,
        ApiKey::DescribeClientQuotas,
        ApiKey::AlterClientQuotas,
        ApiKey::DescribeUserScramCredentials,
        ApiKey::AlterUserScramCredentials,
        ApiKey::DescribeCluster,
        ApiKey::DescribeProducers,
        ApiKey::DescribeTransactions,
        ApiKey::ListTransactions,
        ApiKey::ConsumerGroupHeartbeat,
        ApiKey::ConsumerGroupDescribe,
        ApiKey::DescribeTopicPartitions,
    ];

    /// What a node does with this API: see [`ApiRole`].
    pub const fn role(self) -> ApiRole {
        match self {
            ApiKey::ApiVersions
            | ApiKey::SaslHandshake
            | ApiKey::SaslAuthenticate
            | ApiKey::DescribeAcls
            | ApiKey::CreateAcls
            | ApiKey::DeleteAcls
            | ApiKey::DescribeUserScramCredentials
            | ApiKey::AlterUserScramCredentials
            | ApiKey::DescribeClientQuotas
            | ApiKey::AlterClientQuotas => ApiRole::Own,
            ApiKey::Metadata
            | ApiKey::CreateTopics
            | ApiKey::DeleteTopics
            | ApiKey::CreatePartitions
            | ApiKey::DescribeConfigs
            | ApiKey::AlterConfigs
            | ApiKey::IncrementalAlterConfigs
            | ApiKey::DescribeCluster
            | ApiKey::AlterPartitionReassignments
            | ApiKey::ListPartitionReassignments
            | ApiKey::DescribeTopicPartitions
            // A standalone node has no groups, transactions or partition logs: it answers
            // their admin listings empty (and says it coordinates the keys it is asked
            // about); a gateway node forwards them to the upstream that has them.
            | ApiKey::FindCoordinator
            | ApiKey::DescribeGroups
            | ApiKey::ListGroups
            | ApiKey::DeleteGroups
            | ApiKey::ConsumerGroupDescribe
            | ApiKey::DescribeTransactions
            | ApiKey::ListTransactions
            | ApiKey::DescribeLogDirs => ApiRole::AnsweredOrForwarded,
            _ => ApiRole::ForwardedOnly,
        }
    }

    /// The API for a wire key, or `None` for an API kacl does not serve.
    pub const fn from_i16(key: i16) -> Option<ApiKey> {
        Some(match key {
            0 => ApiKey::Produce,
            1 => ApiKey::Fetch,
            2 => ApiKey::ListOffsets,
            3 => ApiKey::Metadata,
            8 => ApiKey::OffsetCommit,
            9 => ApiKey::OffsetFetch,
            10 => ApiKey::FindCoordinator,
            11 => ApiKey::JoinGroup,
            12 => ApiKey::Heartbeat,
            13 => ApiKey::LeaveGroup,
            14 => ApiKey::SyncGroup,
            15 => ApiKey::DescribeGroups,
            16 => ApiKey::ListGroups,
            17 => ApiKey::SaslHandshake,
            18 => ApiKey::ApiVersions,
            19 => ApiKey::CreateTopics,
            20 => ApiKey::DeleteTopics,
            21 => ApiKey::DeleteRecords,
            23 => ApiKey::OffsetForLeaderEpoch,
            22 => ApiKey::InitProducerId,
            24 => ApiKey::AddPartitionsToTxn,
            25 => ApiKey::AddOffsetsToTxn,
            26 => ApiKey::EndTxn,
            28 => ApiKey::TxnOffsetCommit,
            29 => ApiKey::DescribeAcls,
            30 => ApiKey::CreateAcls,
            31 => ApiKey::DeleteAcls,
            32 => ApiKey::DescribeConfigs,
            33 => ApiKey::AlterConfigs,
            35 => ApiKey::DescribeLogDirs,
            36 => ApiKey::SaslAuthenticate,
            37 => ApiKey::CreatePartitions,
            42 => ApiKey::DeleteGroups,
            44 => ApiKey::IncrementalAlterConfigs,
            45 => ApiKey::AlterPartitionReassignments,
            46 => ApiKey::ListPartitionReassignments,
            47 => ApiKey::OffsetDelete,
            48 => ApiKey::DescribeClientQuotas,
            49 => ApiKey::AlterClientQuotas,
            50 => ApiKey::DescribeUserScramCredentials,
            51 => ApiKey::AlterUserScramCredentials,
            60 => ApiKey::DescribeCluster,
            61 => ApiKey::DescribeProducers,
            65 => ApiKey::DescribeTransactions,
            66 => ApiKey::ListTransactions,
            68 => ApiKey::ConsumerGroupHeartbeat,
            69 => ApiKey::ConsumerGroupDescribe,
            75 => ApiKey::DescribeTopicPartitions,
            _ => return None,
        })
    }

    /// The wire API key.
    pub const fn key(self) -> i16 {
        self as i16
    }

    /// The API's name as in Kafka's message schemas, e.g. `"DescribeAcls"`.
    pub const fn name(self) -> &'static str {
        match self {
            ApiKey::Metadata => "Metadata",
            ApiKey::SaslHandshake => "SaslHandshake",
            ApiKey::ApiVersions => "ApiVersions",
            ApiKey::CreateTopics => "CreateTopics",
            ApiKey::DeleteTopics => "DeleteTopics",
            ApiKey::DescribeAcls => "DescribeAcls",
            ApiKey::CreateAcls => "CreateAcls",
            ApiKey::DeleteAcls => "DeleteAcls",
            ApiKey::DescribeConfigs => "DescribeConfigs",
            ApiKey::AlterConfigs => "AlterConfigs",
            ApiKey::SaslAuthenticate => "SaslAuthenticate",
            ApiKey::CreatePartitions => "CreatePartitions",
            ApiKey::IncrementalAlterConfigs => "IncrementalAlterConfigs",
            ApiKey::DescribeUserScramCredentials => "DescribeUserScramCredentials",
            ApiKey::AlterUserScramCredentials => "AlterUserScramCredentials",
            ApiKey::DescribeClientQuotas => "DescribeClientQuotas",
            ApiKey::AlterClientQuotas => "AlterClientQuotas",
            ApiKey::DescribeCluster => "DescribeCluster",
            ApiKey::Produce => "Produce",
            ApiKey::Fetch => "Fetch",
            ApiKey::ListOffsets => "ListOffsets",
            ApiKey::OffsetCommit => "OffsetCommit",
            ApiKey::OffsetFetch => "OffsetFetch",
            ApiKey::FindCoordinator => "FindCoordinator",
            ApiKey::JoinGroup => "JoinGroup",
            ApiKey::Heartbeat => "Heartbeat",
            ApiKey::LeaveGroup => "LeaveGroup",
            ApiKey::SyncGroup => "SyncGroup",
            ApiKey::DescribeGroups => "DescribeGroups",
            ApiKey::ListGroups => "ListGroups",
            ApiKey::DeleteRecords => "DeleteRecords",
            ApiKey::OffsetForLeaderEpoch => "OffsetForLeaderEpoch",
            ApiKey::InitProducerId => "InitProducerId",
            ApiKey::AddPartitionsToTxn => "AddPartitionsToTxn",
            ApiKey::AddOffsetsToTxn => "AddOffsetsToTxn",
            ApiKey::EndTxn => "EndTxn",
            ApiKey::TxnOffsetCommit => "TxnOffsetCommit",
            ApiKey::DescribeLogDirs => "DescribeLogDirs",
            ApiKey::DeleteGroups => "DeleteGroups",
            ApiKey::OffsetDelete => "OffsetDelete",
            ApiKey::DescribeProducers => "DescribeProducers",
            ApiKey::DescribeTransactions => "DescribeTransactions",
            ApiKey::ListTransactions => "ListTransactions",
            ApiKey::ConsumerGroupHeartbeat => "ConsumerGroupHeartbeat",
            ApiKey::ConsumerGroupDescribe => "ConsumerGroupDescribe",
            ApiKey::AlterPartitionReassignments => "AlterPartitionReassignments",
            ApiKey::ListPartitionReassignments => "ListPartitionReassignments",
            ApiKey::DescribeTopicPartitions => "DescribeTopicPartitions",
        }
    }

    /// The versions kacl serves. ACL APIs and DescribeConfigs keep v0 (removed in Kafka 4) for
    /// old clients.
    pub const fn versions(self) -> VersionRange {
        let (min, max) = match self {
            ApiKey::Metadata => (0, 13),
            ApiKey::SaslHandshake => (0, 1),
            ApiKey::ApiVersions => (0, 4),
            ApiKey::CreateTopics => (2, 7),
            ApiKey::DeleteTopics => (1, 6),
            ApiKey::DescribeAcls | ApiKey::CreateAcls | ApiKey::DeleteAcls => (0, 3),
            ApiKey::SaslAuthenticate => (0, 2),
            ApiKey::CreatePartitions => (0, 3),
            ApiKey::DescribeConfigs => (0, 4),
            ApiKey::AlterConfigs => (0, 2),
            ApiKey::IncrementalAlterConfigs => (0, 1),
            ApiKey::DescribeUserScramCredentials | ApiKey::AlterUserScramCredentials => (0, 0),
            ApiKey::DescribeCluster => (0, 1),
            ApiKey::DescribeClientQuotas | ApiKey::AlterClientQuotas => (0, 1),
            ApiKey::Produce => (3, 13),
            ApiKey::Fetch => (4, 18),
            ApiKey::ListOffsets => (1, 10),
            ApiKey::OffsetCommit => (2, 9),
            ApiKey::OffsetFetch => (1, 9),
            ApiKey::FindCoordinator => (0, 6),
            ApiKey::JoinGroup => (0, 9),
            ApiKey::Heartbeat => (0, 4),
            ApiKey::LeaveGroup => (0, 5),
            ApiKey::SyncGroup => (0, 5),
            ApiKey::DescribeGroups => (0, 6),
            ApiKey::ListGroups => (0, 5),
            ApiKey::DeleteRecords => (0, 2),
            ApiKey::OffsetForLeaderEpoch => (2, 4),
            ApiKey::InitProducerId => (0, 5),
            ApiKey::AddPartitionsToTxn => (0, 5),
            ApiKey::AddOffsetsToTxn => (0, 4),
            ApiKey::EndTxn => (0, 5),
            ApiKey::TxnOffsetCommit => (0, 5),
            ApiKey::DescribeLogDirs => (1, 4),
            ApiKey::DeleteGroups => (0, 2),
            ApiKey::OffsetDelete => (0, 0),
            ApiKey::DescribeProducers => (0, 0),
            ApiKey::DescribeTransactions => (0, 0),
            ApiKey::ListTransactions => (0, 2),
            ApiKey::ConsumerGroupHeartbeat => (0, 1),
            ApiKey::ConsumerGroupDescribe => (0, 1),
            ApiKey::AlterPartitionReassignments => (0, 1),
            ApiKey::ListPartitionReassignments => (0, 0),
            ApiKey::DescribeTopicPartitions => (0, 0),
        };
        VersionRange::between(min, max)
    }

    /// The versions of this API that are flexible in Kafka's schema (open-ended, so that a
    /// header of a version newer than kacl serves is still parsed correctly).
    pub const fn flexible(self) -> VersionRange {
        match self {
            ApiKey::Metadata => VersionRange::starting_at(9),
            ApiKey::SaslHandshake => VersionRange::NONE,
            ApiKey::ApiVersions => VersionRange::starting_at(3),
            ApiKey::CreateTopics => VersionRange::starting_at(5),
            ApiKey::DeleteTopics => VersionRange::starting_at(4),
            ApiKey::DescribeAcls | ApiKey::CreateAcls | ApiKey::DeleteAcls => {
                VersionRange::starting_at(2)
            }
            ApiKey::SaslAuthenticate | ApiKey::CreatePartitions | ApiKey::AlterConfigs => {
                VersionRange::starting_at(2)
            }
            ApiKey::DescribeConfigs => VersionRange::starting_at(4),
            ApiKey::IncrementalAlterConfigs
            | ApiKey::DescribeClientQuotas
            | ApiKey::AlterClientQuotas => VersionRange::starting_at(1),
            ApiKey::DescribeUserScramCredentials
            | ApiKey::AlterUserScramCredentials
            | ApiKey::DescribeCluster => VersionRange::starting_at(0),
            ApiKey::Produce => VersionRange::starting_at(9),
            ApiKey::Fetch => VersionRange::starting_at(12),
            ApiKey::ListOffsets => VersionRange::starting_at(6),
            ApiKey::OffsetCommit => VersionRange::starting_at(8),
            ApiKey::OffsetFetch => VersionRange::starting_at(6),
            ApiKey::FindCoordinator => VersionRange::starting_at(3),
            ApiKey::JoinGroup => VersionRange::starting_at(6),
            ApiKey::Heartbeat => VersionRange::starting_at(4),
            ApiKey::LeaveGroup => VersionRange::starting_at(4),
            ApiKey::SyncGroup => VersionRange::starting_at(4),
            ApiKey::DescribeGroups => VersionRange::starting_at(5),
            ApiKey::ListGroups => VersionRange::starting_at(3),
            ApiKey::DeleteRecords => VersionRange::starting_at(2),
            ApiKey::OffsetForLeaderEpoch => VersionRange::starting_at(4),
            ApiKey::InitProducerId => VersionRange::starting_at(2),
            ApiKey::AddPartitionsToTxn => VersionRange::starting_at(3),
            ApiKey::AddOffsetsToTxn => VersionRange::starting_at(3),
            ApiKey::EndTxn => VersionRange::starting_at(3),
            ApiKey::TxnOffsetCommit => VersionRange::starting_at(3),
            ApiKey::DescribeLogDirs => VersionRange::starting_at(2),
            ApiKey::DeleteGroups => VersionRange::starting_at(2),
            ApiKey::OffsetDelete => VersionRange::NONE,
            ApiKey::DescribeProducers => VersionRange::starting_at(0),
            ApiKey::DescribeTransactions => VersionRange::starting_at(0),
            ApiKey::ListTransactions => VersionRange::starting_at(0),
            ApiKey::ConsumerGroupHeartbeat => VersionRange::starting_at(0),
            ApiKey::ConsumerGroupDescribe => VersionRange::starting_at(0),
            ApiKey::AlterPartitionReassignments
            | ApiKey::ListPartitionReassignments
            | ApiKey::DescribeTopicPartitions => VersionRange::starting_at(0),
        }
    }

    /// Whether `version` of this API is served by kacl.
    pub const fn supports(self, version: i16) -> bool {
        self.versions().contains(version)
    }

    /// The request header version for `version` of this API: 2 when flexible, else 1.
    /// (Header v0 is used only by ControlledShutdown v0, which kacl does not serve.)
    pub const fn request_header_version(self, version: i16) -> i16 {
        if self.flexible().contains(version) {
            2
        } else {
            1
        }
    }

    /// The response header version for `version` of this API: 1 when flexible, else 0 —
    /// except ApiVersions, whose response always uses header v0 so that a client can parse it
    /// before knowing which versions the server speaks.
    pub const fn response_header_version(self, version: i16) -> i16 {
        match self {
            ApiKey::ApiVersions => 0,
            _ if self.flexible().contains(version) => 1,
            _ => 0,
        }
    }
}

impl core::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_i16_inverts_key_for_every_api() {
        for api in ApiKey::KNOWN {
            assert_eq!(ApiKey::from_i16(api.key()), Some(api));
        }
        assert_eq!(ApiKey::from_i16(4), None, "LeaderAndIsr is broker-internal");
        assert_eq!(ApiKey::from_i16(-1), None);
    }

    #[test]
    fn all_is_sorted_by_key() {
        assert!(ApiKey::ALL.windows(2).all(|w| w[0].key() < w[1].key()));
        assert!(ApiKey::KNOWN.windows(2).all(|w| w[0].key() < w[1].key()));
        let standalone = ApiKey::KNOWN
            .iter()
            .filter(|api| api.role() != ApiRole::ForwardedOnly);
        assert!(standalone.eq(ApiKey::ALL.iter()));
        let forwarded = ApiKey::KNOWN
            .iter()
            .filter(|api| api.role() == ApiRole::ForwardedOnly);
        assert!(forwarded.eq(ApiKey::FORWARDED_ONLY.iter()));
    }

    #[test]
    fn header_versions_follow_flexibility() {
        assert_eq!(ApiKey::DescribeAcls.request_header_version(1), 1);
        assert_eq!(ApiKey::DescribeAcls.request_header_version(3), 2);
        assert_eq!(ApiKey::DescribeAcls.response_header_version(3), 1);
        assert_eq!(ApiKey::DescribeAcls.response_header_version(1), 0);
        assert_eq!(ApiKey::ApiVersions.request_header_version(3), 2);
        assert_eq!(ApiKey::ApiVersions.request_header_version(2), 1);
        assert_eq!(ApiKey::ApiVersions.response_header_version(3), 0);
        assert_eq!(ApiKey::SaslHandshake.request_header_version(1), 1);
        assert_eq!(ApiKey::DescribeCluster.request_header_version(0), 2);
        assert_eq!(ApiKey::DescribeConfigs.request_header_version(3), 1);
        assert_eq!(ApiKey::DescribeConfigs.request_header_version(4), 2);
        assert_eq!(ApiKey::AlterConfigs.response_header_version(1), 0);
        assert_eq!(ApiKey::AlterConfigs.response_header_version(2), 1);
        assert_eq!(ApiKey::IncrementalAlterConfigs.request_header_version(0), 1);
        assert_eq!(ApiKey::IncrementalAlterConfigs.request_header_version(1), 2);
        // A version newer than kacl serves still gets the right header.
        assert_eq!(ApiKey::ApiVersions.request_header_version(5), 2);
    }
}
