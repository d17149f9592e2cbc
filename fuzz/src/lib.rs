//! Shared checks for the kacl-protocol fuzz targets.
//!
//! Every target feeds hostile bytes to a decoder. A decoder may reject them with a typed error;
//! it must never panic, and whatever it accepts must re-encode to exactly `encoded_len` bytes
//! (the same through both sinks, an `ExactWriter` and a growing `Vec`) that decode to the same
//! value. The assertions here are the fuzzer's oracle, which is why
//! this crate (unlike the library) panics on purpose.
//!
//! [`gateway_path`] holds the oracle of the `gateway_path` target, the same for a gateway node.
//! [`request_path`] holds the oracle of the `request_path` target, which runs whole client
//! connections through the server rather than a single decoder.
#![forbid(unsafe_code)]

pub mod gateway_path;
pub mod request_path;

pub use kacl_protocol;

use kacl_protocol::frame::{split_frame, RequestFrame};
use kacl_protocol::messages as m;
use kacl_protocol::messages::{
    alter_configs::AlterConfigsRequest,
    alter_user_scram_credentials::AlterUserScramCredentialsRequest,
    api_versions::ApiVersionsRequest, create_acls::CreateAclsRequest,
    create_partitions::CreatePartitionsRequest, create_topics::CreateTopicsRequest,
    delete_acls::DeleteAclsRequest, delete_topics::DeleteTopicsRequest,
    describe_acls::DescribeAclsRequest, describe_cluster::DescribeClusterRequest,
    describe_configs::DescribeConfigsRequest,
    describe_user_scram_credentials::DescribeUserScramCredentialsRequest,
    incremental_alter_configs::IncrementalAlterConfigsRequest, metadata::MetadataRequest,
    sasl_authenticate::SaslAuthenticateRequest, sasl_handshake::SaslHandshakeRequest,
};
use kacl_protocol::ApiKey;
use m::add_offsets_to_txn::AddOffsetsToTxnRequest;
use m::add_partitions_to_txn::AddPartitionsToTxnRequest;
use m::alter_client_quotas::AlterClientQuotasRequest;
use m::alter_partition_reassignments::AlterPartitionReassignmentsRequest;
use m::consumer_group_describe::ConsumerGroupDescribeRequest;
use m::consumer_group_heartbeat::ConsumerGroupHeartbeatRequest;
use m::delete_groups::DeleteGroupsRequest;
use m::delete_records::DeleteRecordsRequest;
use m::describe_client_quotas::DescribeClientQuotasRequest;
use m::describe_groups::DescribeGroupsRequest;
use m::describe_log_dirs::DescribeLogDirsRequest;
use m::describe_producers::DescribeProducersRequest;
use m::describe_topic_partitions::DescribeTopicPartitionsRequest;
use m::describe_transactions::DescribeTransactionsRequest;
use m::end_txn::EndTxnRequest;
use m::fetch::FetchRequest;
use m::find_coordinator::FindCoordinatorRequest;
use m::heartbeat::HeartbeatRequest;
use m::init_producer_id::InitProducerIdRequest;
use m::join_group::JoinGroupRequest;
use m::leave_group::LeaveGroupRequest;
use m::list_groups::ListGroupsRequest;
use m::list_offsets::ListOffsetsRequest;
use m::list_partition_reassignments::ListPartitionReassignmentsRequest;
use m::list_transactions::ListTransactionsRequest;
use m::offset_commit::OffsetCommitRequest;
use m::offset_delete::OffsetDeleteRequest;
use m::offset_fetch::OffsetFetchRequest;
use m::offset_for_leader_epoch::OffsetForLeaderEpochRequest;
use m::produce::ProduceRequest;
use m::sync_group::SyncGroupRequest;
use m::txn_offset_commit::TxnOffsetCommitRequest;

/// Largest frame the frame target accepts, as a server's `socket.request.max.bytes` would.
pub const MAX_FRAME: usize = 1 << 20;

/// The version a selector byte picks within `min..=max`: seeds store `version - min`.
pub fn pick_version(selector: u8, min: i16, max: i16) -> i16 {
    let span = i32::from(max) - i32::from(min) + 1;
    let offset = i32::from(selector) % span.max(1);
    // `offset < span <= i16 range`, so this cannot overflow.
    (i32::from(min) + offset) as i16
}

/// Decodes `body` as `$ty` at `version`; if that succeeds, checks the re-encoding oracle.
#[macro_export]
macro_rules! check_body_at {
    ($ty:ident, $body:expr, $version:expr) => {{
        use $crate::kacl_protocol::Message as _;
        let (body, version): (&[u8], i16) = ($body, $version);
        if let Ok(message) = $ty::decode_exact(body, version) {
            let bytes = message
                .to_bytes(version)
                .expect("a decoded message re-encodes at its version");
            assert_eq!(
                bytes.len(),
                message.encoded_len(version),
                "encoded_len is exact"
            );
            let mut appended = ::std::vec::Vec::new();
            message
                .encode(&mut appended, version)
                .expect("a decoded message encodes into a Vec");
            assert_eq!(appended, bytes, "both sinks write the same bytes");
            let again = $ty::decode_exact(&bytes, version).expect("a re-encoding decodes");
            assert_eq!(again, message, "decode(encode(m)) == m");
        }
    }};
}

/// One request body decoder: the first byte of `data` picks a version in the declared range,
/// the rest is the body.
#[macro_export]
macro_rules! check_request_body {
    ($ty:ident, $data:expr) => {{
        use $crate::kacl_protocol::Message as _;
        let data: &[u8] = $data;
        if let Some((&selector, body)) = data.split_first() {
            let versions = $ty::VERSIONS;
            let version = $crate::pick_version(selector, versions.min, versions.max);
            $crate::check_body_at!($ty, body, version);
        }
    }};
}

/// A whole size-prefixed request frame, as the server reads it: frame split, header, then the
/// body decoder the API key selects (at whatever version the header names, supported or not).
pub fn check_request_frame(data: &[u8]) {
    let Ok(Some((payload, _consumed))) = split_frame(data, MAX_FRAME) else {
        return;
    };
    let Ok(frame) = RequestFrame::parse(payload) else {
        return;
    };
    let (body, version) = (frame.body, frame.version());
    match frame.api_key {
        ApiKey::Metadata => check_body_at!(MetadataRequest, body, version),
        ApiKey::SaslHandshake => check_body_at!(SaslHandshakeRequest, body, version),
        ApiKey::ApiVersions => check_body_at!(ApiVersionsRequest, body, version),
        ApiKey::CreateTopics => check_body_at!(CreateTopicsRequest, body, version),
        ApiKey::DeleteTopics => check_body_at!(DeleteTopicsRequest, body, version),
        ApiKey::DescribeAcls => check_body_at!(DescribeAclsRequest, body, version),
        ApiKey::CreateAcls => check_body_at!(CreateAclsRequest, body, version),
        ApiKey::DeleteAcls => check_body_at!(DeleteAclsRequest, body, version),
        ApiKey::DescribeConfigs => check_body_at!(DescribeConfigsRequest, body, version),
        ApiKey::AlterConfigs => check_body_at!(AlterConfigsRequest, body, version),
        ApiKey::SaslAuthenticate => check_body_at!(SaslAuthenticateRequest, body, version),
        ApiKey::CreatePartitions => check_body_at!(CreatePartitionsRequest, body, version),
        ApiKey::IncrementalAlterConfigs => {
            check_body_at!(IncrementalAlterConfigsRequest, body, version)
        }
        ApiKey::DescribeUserScramCredentials => {
            check_body_at!(DescribeUserScramCredentialsRequest, body, version)
        }
        ApiKey::AlterUserScramCredentials => {
            check_body_at!(AlterUserScramCredentialsRequest, body, version)
        }
        ApiKey::DescribeCluster => check_body_at!(DescribeClusterRequest, body, version),
        ApiKey::Produce => check_body_at!(ProduceRequest, body, version),
        ApiKey::Fetch => check_body_at!(FetchRequest, body, version),
        ApiKey::ListOffsets => check_body_at!(ListOffsetsRequest, body, version),
        ApiKey::OffsetCommit => check_body_at!(OffsetCommitRequest, body, version),
        ApiKey::OffsetFetch => check_body_at!(OffsetFetchRequest, body, version),
        ApiKey::FindCoordinator => check_body_at!(FindCoordinatorRequest, body, version),
        ApiKey::JoinGroup => check_body_at!(JoinGroupRequest, body, version),
        ApiKey::Heartbeat => check_body_at!(HeartbeatRequest, body, version),
        ApiKey::LeaveGroup => check_body_at!(LeaveGroupRequest, body, version),
        ApiKey::SyncGroup => check_body_at!(SyncGroupRequest, body, version),
        ApiKey::DescribeGroups => check_body_at!(DescribeGroupsRequest, body, version),
        ApiKey::ListGroups => check_body_at!(ListGroupsRequest, body, version),
        ApiKey::DeleteRecords => check_body_at!(DeleteRecordsRequest, body, version),
        ApiKey::OffsetForLeaderEpoch => {
            check_body_at!(OffsetForLeaderEpochRequest, body, version)
        }
        ApiKey::InitProducerId => check_body_at!(InitProducerIdRequest, body, version),
        ApiKey::AddPartitionsToTxn => check_body_at!(AddPartitionsToTxnRequest, body, version),
        ApiKey::AddOffsetsToTxn => check_body_at!(AddOffsetsToTxnRequest, body, version),
        ApiKey::EndTxn => check_body_at!(EndTxnRequest, body, version),
        ApiKey::TxnOffsetCommit => check_body_at!(TxnOffsetCommitRequest, body, version),
        ApiKey::DescribeLogDirs => check_body_at!(DescribeLogDirsRequest, body, version),
        ApiKey::DeleteGroups => check_body_at!(DeleteGroupsRequest, body, version),
        ApiKey::OffsetDelete => check_body_at!(OffsetDeleteRequest, body, version),
        ApiKey::DescribeProducers => check_body_at!(DescribeProducersRequest, body, version),
        ApiKey::DescribeTransactions => check_body_at!(DescribeTransactionsRequest, body, version),
        ApiKey::ListTransactions => check_body_at!(ListTransactionsRequest, body, version),
        ApiKey::ConsumerGroupHeartbeat => {
            check_body_at!(ConsumerGroupHeartbeatRequest, body, version)
        }
        ApiKey::ConsumerGroupDescribe => {
            check_body_at!(ConsumerGroupDescribeRequest, body, version)
        }
        ApiKey::DescribeTopicPartitions => {
            check_body_at!(DescribeTopicPartitionsRequest, body, version)
        }
        ApiKey::ListPartitionReassignments => {
            check_body_at!(ListPartitionReassignmentsRequest, body, version)
        }
        ApiKey::AlterPartitionReassignments => {
            check_body_at!(AlterPartitionReassignmentsRequest, body, version)
        }
        ApiKey::DescribeClientQuotas => {
            check_body_at!(DescribeClientQuotasRequest, body, version)
        }
        ApiKey::AlterClientQuotas => check_body_at!(AlterClientQuotasRequest, body, version),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_version_covers_the_range() {
        assert_eq!(pick_version(0, 0, 13), 0);
        assert_eq!(pick_version(13, 0, 13), 13);
        assert_eq!(pick_version(14, 0, 13), 0);
        assert_eq!(pick_version(0, 2, 7), 2);
        assert_eq!(pick_version(255, 0, 0), 0);
    }
}
