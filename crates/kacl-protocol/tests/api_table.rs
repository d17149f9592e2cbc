//! The `ApiKey` table and the message declarations agree: every API kacl serves has a request
//! and a response declaration covering at least the served versions, with the same flexible
//! versions, so the header versions the table derives match how the bodies are encoded.

use kacl_protocol::messages::alter_client_quotas::{
    AlterClientQuotasRequest, AlterClientQuotasResponse,
};
use kacl_protocol::messages::alter_configs::*;
use kacl_protocol::messages::alter_partition_reassignments::*;
use kacl_protocol::messages::alter_user_scram_credentials::*;
use kacl_protocol::messages::api_versions::*;
use kacl_protocol::messages::consumer_group_describe::*;
use kacl_protocol::messages::create_acls::*;
use kacl_protocol::messages::create_partitions::*;
use kacl_protocol::messages::create_topics::*;
use kacl_protocol::messages::delete_acls::*;
use kacl_protocol::messages::delete_groups::*;
use kacl_protocol::messages::delete_topics::*;
use kacl_protocol::messages::describe_acls::*;
use kacl_protocol::messages::describe_client_quotas::{
    DescribeClientQuotasRequest, DescribeClientQuotasResponse,
};
use kacl_protocol::messages::describe_cluster::*;
use kacl_protocol::messages::describe_configs::*;
use kacl_protocol::messages::describe_groups::*;
use kacl_protocol::messages::describe_log_dirs::*;
use kacl_protocol::messages::describe_topic_partitions::*;
use kacl_protocol::messages::describe_transactions::*;
use kacl_protocol::messages::describe_user_scram_credentials::*;
use kacl_protocol::messages::find_coordinator::*;
use kacl_protocol::messages::incremental_alter_configs::*;
use kacl_protocol::messages::list_groups::*;
use kacl_protocol::messages::list_partition_reassignments::*;
use kacl_protocol::messages::list_transactions::*;
use kacl_protocol::messages::metadata::*;
use kacl_protocol::messages::sasl_authenticate::*;
use kacl_protocol::messages::sasl_handshake::*;
use kacl_protocol::{ApiKey, Message};

/// `(api, declared versions, declared flexible versions)` of one declaration.
type Declared = (ApiKey, (i16, i16), (i16, i16));

fn declared<'a, M: Message<'a>>() -> Declared {
    (
        M::API_KEY,
        (M::VERSIONS.min, M::VERSIONS.max),
        (M::FLEXIBLE.min, M::FLEXIBLE.max),
    )
}

fn requests() -> Vec<Declared> {
    vec![
        declared::<MetadataRequest>(),
        declared::<FindCoordinatorRequest>(),
        declared::<DescribeGroupsRequest>(),
        declared::<ListGroupsRequest>(),
        declared::<SaslHandshakeRequest>(),
        declared::<ApiVersionsRequest>(),
        declared::<CreateTopicsRequest>(),
        declared::<DeleteTopicsRequest>(),
        declared::<DescribeAclsRequest>(),
        declared::<CreateAclsRequest>(),
        declared::<DeleteAclsRequest>(),
        declared::<DescribeConfigsRequest>(),
        declared::<AlterConfigsRequest>(),
        declared::<DescribeLogDirsRequest>(),
        declared::<SaslAuthenticateRequest>(),
        declared::<CreatePartitionsRequest>(),
        declared::<DeleteGroupsRequest>(),
        declared::<IncrementalAlterConfigsRequest>(),
        declared::<AlterPartitionReassignmentsRequest>(),
        declared::<ListPartitionReassignmentsRequest>(),
        declared::<DescribeClientQuotasRequest>(),
        declared::<AlterClientQuotasRequest>(),
        declared::<DescribeUserScramCredentialsRequest>(),
        declared::<AlterUserScramCredentialsRequest>(),
        declared::<DescribeClusterRequest>(),
        declared::<DescribeTransactionsRequest>(),
        declared::<ListTransactionsRequest>(),
        declared::<ConsumerGroupDescribeRequest>(),
        declared::<DescribeTopicPartitionsRequest>(),
    ]
}

fn responses() -> Vec<Declared> {
    vec![
        declared::<MetadataResponse>(),
        declared::<FindCoordinatorResponse>(),
        declared::<DescribeGroupsResponse>(),
        declared::<ListGroupsResponse>(),
        declared::<SaslHandshakeResponse>(),
        declared::<ApiVersionsResponse>(),
        declared::<CreateTopicsResponse>(),
        declared::<DeleteTopicsResponse>(),
        declared::<DescribeAclsResponse>(),
        declared::<CreateAclsResponse>(),
        declared::<DeleteAclsResponse>(),
        declared::<DescribeConfigsResponse>(),
        declared::<AlterConfigsResponse>(),
        declared::<DescribeLogDirsResponse>(),
        declared::<SaslAuthenticateResponse>(),
        declared::<CreatePartitionsResponse>(),
        declared::<DeleteGroupsResponse>(),
        declared::<IncrementalAlterConfigsResponse>(),
        declared::<AlterPartitionReassignmentsResponse>(),
        declared::<ListPartitionReassignmentsResponse>(),
        declared::<DescribeClientQuotasResponse>(),
        declared::<AlterClientQuotasResponse>(),
        declared::<DescribeUserScramCredentialsResponse>(),
        declared::<AlterUserScramCredentialsResponse>(),
        declared::<DescribeClusterResponse>(),
        declared::<DescribeTransactionsResponse>(),
        declared::<ListTransactionsResponse>(),
        declared::<ConsumerGroupDescribeResponse>(),
        declared::<DescribeTopicPartitionsResponse>(),
    ]
}

#[test]
fn every_served_api_is_declared_in_api_key_order() {
    for list in [requests(), responses()] {
        let apis: Vec<ApiKey> = list.iter().map(|(api, _, _)| *api).collect();
        assert_eq!(apis, ApiKey::ALL);
    }
}

#[test]
fn declarations_cover_the_served_versions_with_the_same_flexibility() {
    for (api, (min, max), flexible) in requests().into_iter().chain(responses()) {
        let served = api.versions();
        assert!(
            min <= served.min && served.max <= max,
            "{api}: declared {min}-{max}, served {}-{}",
            served.min,
            served.max
        );
        let table = api.flexible();
        for version in min..=max {
            let declared_flexible = flexible.0 <= version && version <= flexible.1;
            assert_eq!(
                declared_flexible,
                table.contains(version),
                "{api} v{version}: flexibility differs between declaration and table"
            );
        }
    }
}

/// Where a declaration reaches beyond the served range (versions Kafka 4 removed or kacl does
/// not serve yet), it is on purpose; this pins which ones, so a change is deliberate.
#[test]
fn declarations_wider_than_served_are_the_known_ones() {
    let wider: Vec<(ApiKey, (i16, i16))> = requests()
        .into_iter()
        .filter(|(api, (min, max), _)| (*min, *max) != (api.versions().min, api.versions().max))
        .map(|(api, range, _)| (api, range))
        .collect();
    assert_eq!(
        wider,
        [
            (ApiKey::CreateTopics, (0, 7)),
            (ApiKey::DeleteTopics, (0, 6)),
            (ApiKey::DescribeCluster, (0, 2)),
        ]
    );
}
