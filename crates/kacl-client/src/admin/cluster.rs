//! Cluster discovery: Metadata for brokers and the controller, and `describe_cluster`
//! (DescribeCluster, KIP-700, with a Metadata fallback for brokers that lack it, as Kafka's
//! AdminClient does).

use std::time::Duration;

use kacl_acl::AclOperation;
use kacl_protocol::messages::describe_cluster::{DescribeClusterRequest, DescribeClusterResponse};
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataResponse};
use kacl_protocol::{ApiKey, Message};

use super::{Admin, KnownBroker, Target};
use crate::error::AdminError;
use crate::net::BrokerConnection;

/// One broker as the cluster describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerNode {
    /// The node id.
    pub id: i32,
    /// The advertised host.
    pub host: String,
    /// The advertised port.
    pub port: i32,
    /// The rack, if any.
    pub rack: Option<String>,
}

/// What [`Admin::describe_cluster`] returns (Kafka's `DescribeClusterResult`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDescription {
    /// The cluster id.
    pub cluster_id: Option<String>,
    /// The controller, if the cluster names one among its brokers.
    pub controller: Option<BrokerNode>,
    /// Every broker.
    pub nodes: Vec<BrokerNode>,
    /// The operations the caller may perform on the cluster, when requested and reported.
    pub authorized_operations: Option<Vec<AclOperation>>,
}

/// Options of [`Admin::describe_cluster`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DescribeClusterOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
    /// Ask for the caller's authorized operations on the cluster.
    pub include_authorized_operations: bool,
}

/// `host:port`, with IPv6 hosts bracketed.
pub(crate) fn broker_addr(host: &str, port: i32) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The operations in Kafka's authorized-operations bitfield (`i32::MIN` = not reported).
pub(crate) fn operations_from_bits(bits: i32) -> Option<Vec<AclOperation>> {
    if bits == i32::MIN {
        return None;
    }
    Some(
        AclOperation::ALL
            .iter()
            .copied()
            .filter(|op| {
                let code = u32::try_from(op.code()).unwrap_or(u32::MAX);
                code < 32 && bits & (1 << code) != 0
            })
            .collect(),
    )
}

/// The brokers and controller id from a Metadata request for no topics.
pub(crate) async fn fetch_brokers(
    broker: &BrokerConnection,
) -> Result<(Vec<KnownBroker>, Option<i32>), AdminError> {
    let version = broker
        .versions
        .pick(ApiKey::Metadata, MetadataRequest::VERSIONS)?;
    let request = MetadataRequest {
        // v1+: an empty list asks for no topics (v0 would mean all; harmless).
        topics: Some(Vec::new()),
        // v0-3 have no such field (true is implied there, and the encoder wants the default).
        allow_auto_topic_creation: version < 4,
        ..Default::default()
    };
    let response = broker.conn.send(version, &request).await?;
    let body: MetadataResponse = response.decode()?;
    AdminError::check(body.error_code, None)?;
    let brokers = body
        .brokers
        .iter()
        .map(|b| KnownBroker {
            id: b.node_id,
            addr: broker_addr(&b.host, b.port),
        })
        .collect();
    let controller = (body.controller_id >= 0).then_some(body.controller_id);
    Ok((brokers, controller))
}

impl Admin {
    /// Describes the cluster: id, controller, brokers and optionally the caller's authorized
    /// operations. Uses DescribeCluster where the broker offers it, else Metadata.
    pub async fn describe_cluster(
        &self,
        options: DescribeClusterOptions,
    ) -> Result<ClusterDescription, AdminError> {
        self.call(
            "describeCluster",
            options.timeout,
            Target::AnyBroker,
            |broker| async move {
                match broker
                    .versions
                    .pick(ApiKey::DescribeCluster, DescribeClusterRequest::VERSIONS)
                {
                    Ok(version) => describe_with_describe_cluster(&broker, version, options).await,
                    Err(_) => describe_with_metadata(&broker, options).await,
                }
            },
        )
        .await
    }
}

async fn describe_with_describe_cluster(
    broker: &BrokerConnection,
    version: i16,
    options: DescribeClusterOptions,
) -> Result<ClusterDescription, AdminError> {
    let request = DescribeClusterRequest {
        include_cluster_authorized_operations: options.include_authorized_operations,
        ..Default::default()
    };
    let response = broker.conn.send(version, &request).await?;
    let body: DescribeClusterResponse = response.decode()?;
    AdminError::check(body.error_code, body.error_message.as_deref())?;
    let nodes: Vec<BrokerNode> = body
        .brokers
        .iter()
        .map(|b| BrokerNode {
            id: b.broker_id,
            host: b.host.to_string(),
            port: b.port,
            rack: b.rack.as_deref().map(str::to_owned),
        })
        .collect();
    Ok(ClusterDescription {
        cluster_id: Some(body.cluster_id.to_string()),
        controller: nodes.iter().find(|n| n.id == body.controller_id).cloned(),
        authorized_operations: operations_from_bits(body.cluster_authorized_operations),
        nodes,
    })
}

async fn describe_with_metadata(
    broker: &BrokerConnection,
    options: DescribeClusterOptions,
) -> Result<ClusterDescription, AdminError> {
    let version = broker
        .versions
        .pick(ApiKey::Metadata, MetadataRequest::VERSIONS)?;
    let request = MetadataRequest {
        topics: Some(Vec::new()),
        // v0-3 have no such field (true is implied there, and the encoder wants the default).
        allow_auto_topic_creation: version < 4,
        include_cluster_authorized_operations: options.include_authorized_operations
            && (8..=10).contains(&version),
        ..Default::default()
    };
    let response = broker.conn.send(version, &request).await?;
    let body: MetadataResponse = response.decode()?;
    AdminError::check(body.error_code, None)?;
    let nodes: Vec<BrokerNode> = body
        .brokers
        .iter()
        .map(|b| BrokerNode {
            id: b.node_id,
            host: b.host.to_string(),
            port: b.port,
            rack: b.rack.as_deref().map(str::to_owned),
        })
        .collect();
    Ok(ClusterDescription {
        cluster_id: body.cluster_id.as_deref().map(str::to_owned),
        controller: nodes.iter().find(|n| n.id == body.controller_id).cloned(),
        authorized_operations: operations_from_bits(body.cluster_authorized_operations),
        nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_operation_bits() {
        assert_eq!(broker_addr("localhost", 9092), "localhost:9092");
        assert_eq!(broker_addr("::1", 9092), "[::1]:9092");
        assert_eq!(operations_from_bits(i32::MIN), None);
        let ops = operations_from_bits((1 << 3) | (1 << 8) | (1 << 12)).unwrap();
        assert_eq!(
            ops,
            [
                AclOperation::Read,
                AclOperation::Describe,
                AclOperation::IdempotentWrite
            ]
        );
    }
}
