//! ApiVersions (API key 18): which APIs and versions the server speaks. A client sends it
//! first, before it knows anything about the server, which is why the response always uses
//! response header v0 and why a server answers an unsupported request version with a v0 body.
//!
//! v1 adds the throttle time, v3 is the first flexible version (client software name/version,
//! feature tags), v4 lets `SupportedFeatures.min_version` be 0 (KAFKA-17011).

use std::borrow::Cow;

kafka_message! {
    /// The client introduces itself (v3+).
    pub struct ApiVersionsRequest<'a> {
        api_key: ApiVersions, versions: 0-4, flexible: 3+;
        /// The name of the client software.
        client_software_name: Cow<'a, str> [versions 3+, ignorable],
        /// The version of the client software.
        client_software_version: Cow<'a, str> [versions 3+, ignorable],
    }
}

kafka_message! {
    /// The APIs and versions the server supports, and its features.
    pub struct ApiVersionsResponse<'a> {
        api_key: ApiVersions, versions: 0-4, flexible: 3+;
        /// The top-level error code.
        error_code: i16 [versions 0+],
        /// The APIs supported by the server.
        api_keys: Vec<ApiVersion<'a>> [versions 0+],
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// Features supported by the server.
        supported_features: Vec<SupportedFeatureKey<'a>> [versions 3+, tag 0, ignorable],
        /// Epoch of the finalized features, or -1 when unknown.
        finalized_features_epoch: i64 [versions 3+, tag 1, ignorable, default -1],
        /// Cluster-wide finalized features (valid only when the epoch is >= 0).
        finalized_features: Vec<FinalizedFeatureKey<'a>> [versions 3+, tag 2, ignorable],
        /// Set by a KRaft controller ready for ZooKeeper migration.
        zk_migration_ready: bool [versions 3+, tag 3, ignorable, default false],
    }

    /// One API and its version range.
    pub struct ApiVersion<'a> {
        /// The API key.
        api_key: i16 [versions 0+],
        /// The lowest supported version, inclusive.
        min_version: i16 [versions 0+],
        /// The highest supported version, inclusive.
        max_version: i16 [versions 0+],
    }

    /// One feature the server supports.
    pub struct SupportedFeatureKey<'a> {
        /// The feature name.
        name: Cow<'a, str> [versions 3+],
        /// The lowest supported version of the feature.
        min_version: i16 [versions 3+],
        /// The highest supported version of the feature.
        max_version: i16 [versions 3+],
    }

    /// One cluster-wide finalized feature.
    pub struct FinalizedFeatureKey<'a> {
        /// The feature name.
        name: Cow<'a, str> [versions 3+],
        /// The finalized max version level.
        max_version_level: i16 [versions 3+],
        /// The finalized min version level.
        min_version_level: i16 [versions 3+],
    }
}
