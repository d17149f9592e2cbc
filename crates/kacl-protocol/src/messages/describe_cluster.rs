//! DescribeCluster (API key 60, KIP-700): cluster id, controller, brokers and the operations
//! the caller may perform on the cluster; what `kafka-cluster.sh` and admin clients use instead
//! of Metadata.
//!
//! Flexible from v0. v1 adds the endpoint type (KIP-919: brokers = 1, controllers = 2); v2 adds
//! fenced brokers (KIP-1073). v2 is declared because it costs nothing here; kacl serves 0-1
//! (see [`ApiKey::versions`](crate::ApiKey::versions)).

use std::borrow::Cow;

kafka_message! {
    /// What the client wants described.
    pub struct DescribeClusterRequest<'a> {
        api_key: DescribeCluster, versions: 0-2, flexible: 0+;
        /// Whether to include the cluster authorized operations.
        include_cluster_authorized_operations: bool [versions 0+],
        /// The endpoint type to describe: 1 = brokers, 2 = controllers (v1+).
        endpoint_type: i8 [versions 1+, default 1],
        /// Whether to include fenced brokers (v2+).
        include_fenced_brokers: bool [versions 2+],
    }
}

kafka_message! {
    /// The cluster as seen by the responding broker.
    pub struct DescribeClusterResponse<'a> {
        api_key: DescribeCluster, versions: 0-2, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The top-level error code, or 0.
        error_code: i16 [versions 0+],
        /// The top-level error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The endpoint type that was described: 1 = brokers, 2 = controllers (v1+).
        endpoint_type: i8 [versions 1+, default 1],
        /// The cluster id the responding broker belongs to.
        cluster_id: Cow<'a, str> [versions 0+],
        /// The id of the controller broker, or -1.
        controller_id: i32 [versions 0+, default -1],
        /// Each broker in the response.
        brokers: Vec<DescribeClusterBroker<'a>> [versions 0+],
        /// 32-bit bitfield of the operations authorized on the cluster, or `i32::MIN` when not
        /// requested.
        cluster_authorized_operations: i32 [versions 0+, default i32::MIN],
    }

    /// One broker.
    pub struct DescribeClusterBroker<'a> {
        /// The broker id.
        broker_id: i32 [versions 0+],
        /// The broker hostname.
        host: Cow<'a, str> [versions 0+],
        /// The broker port.
        port: i32 [versions 0+],
        /// The rack of the broker, or null if it has none.
        rack: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// Whether the broker is fenced (v2+).
        is_fenced: bool [versions 2+],
    }
}
