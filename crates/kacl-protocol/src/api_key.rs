//! The APIs kacl speaks: their Kafka API keys, the versions kacl serves and which of those are
//! flexible. This table is what the ApiVersions response advertises and what the server checks
//! every request header against.

use crate::version_range::VersionRange;

/// A Kafka API kacl knows. The discriminant is the wire API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i16)]
pub enum ApiKey {
    /// Cluster metadata: brokers, topics, partitions.
    Metadata = 3,
    /// SASL mechanism negotiation.
    SaslHandshake = 17,
    /// Which APIs and versions the server supports.
    ApiVersions = 18,
    /// Create topics.
    CreateTopics = 19,
    /// Delete topics.
    DeleteTopics = 20,
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
    /// SASL exchange carried in Kafka frames (KIP-152).
    SaslAuthenticate = 36,
    /// Add partitions to topics.
    CreatePartitions = 37,
    /// Set, delete, append to or subtract from config keys (KIP-339).
    IncrementalAlterConfigs = 44,
    /// List SCRAM credentials.
    DescribeUserScramCredentials = 50,
    /// Upsert or delete SCRAM credentials.
    AlterUserScramCredentials = 51,
    /// Cluster id, controller and brokers (KIP-700).
    DescribeCluster = 60,
}

impl ApiKey {
    /// Every API kacl serves, in API key order (the order of the ApiVersions response).
    pub const ALL: [ApiKey; 16] = [
        ApiKey::Metadata,
        ApiKey::SaslHandshake,
        ApiKey::ApiVersions,
        ApiKey::CreateTopics,
        ApiKey::DeleteTopics,
        ApiKey::DescribeAcls,
        ApiKey::CreateAcls,
        ApiKey::DeleteAcls,
        ApiKey::DescribeConfigs,
        ApiKey::AlterConfigs,
        ApiKey::SaslAuthenticate,
        ApiKey::CreatePartitions,
        ApiKey::IncrementalAlterConfigs,
        ApiKey::DescribeUserScramCredentials,
        ApiKey::AlterUserScramCredentials,
        ApiKey::DescribeCluster,
    ];

    /// The API for a wire key, or `None` for an API kacl does not serve.
    pub const fn from_i16(key: i16) -> Option<ApiKey> {
        Some(match key {
            3 => ApiKey::Metadata,
            17 => ApiKey::SaslHandshake,
            18 => ApiKey::ApiVersions,
            19 => ApiKey::CreateTopics,
            20 => ApiKey::DeleteTopics,
            29 => ApiKey::DescribeAcls,
            30 => ApiKey::CreateAcls,
            31 => ApiKey::DeleteAcls,
            32 => ApiKey::DescribeConfigs,
            33 => ApiKey::AlterConfigs,
            36 => ApiKey::SaslAuthenticate,
            37 => ApiKey::CreatePartitions,
            44 => ApiKey::IncrementalAlterConfigs,
            50 => ApiKey::DescribeUserScramCredentials,
            51 => ApiKey::AlterUserScramCredentials,
            60 => ApiKey::DescribeCluster,
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
            ApiKey::DescribeCluster => "DescribeCluster",
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
            ApiKey::IncrementalAlterConfigs => VersionRange::starting_at(1),
            ApiKey::DescribeUserScramCredentials
            | ApiKey::AlterUserScramCredentials
            | ApiKey::DescribeCluster => VersionRange::starting_at(0),
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
        for api in ApiKey::ALL {
            assert_eq!(ApiKey::from_i16(api.key()), Some(api));
        }
        assert_eq!(ApiKey::from_i16(0), None);
        assert_eq!(ApiKey::from_i16(-1), None);
    }

    #[test]
    fn all_is_sorted_by_key() {
        assert!(ApiKey::ALL.windows(2).all(|w| w[0].key() < w[1].key()));
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
