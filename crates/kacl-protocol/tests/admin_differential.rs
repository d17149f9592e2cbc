//! Differential properties against `kafka-protocol` 0.18.0 for the topic, cluster and SCRAM
//! messages at every version both crates support (kafka-protocol has CreateTopics from v2 and
//! DeleteTopics from v1, as Kafka 4 does): for random values, both encoders produce the same
//! bytes, and each decoder reads the other's bytes back to the same value.

#[macro_use]
mod differential_support;
mod admin_common;
mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    alter_user_scram_credentials as ours_aus, create_partitions as ours_cp,
    create_topics as ours_ct, delete_topics as ours_dt, describe_cluster as ours_dc,
    describe_user_scram_credentials as ours_dus, metadata as ours_md,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{Message, Uuid};
use kafka_protocol::messages::{
    alter_user_scram_credentials_request as kp_ausr,
    alter_user_scram_credentials_response as kp_aust, create_partitions_request as kp_cpr,
    create_partitions_response as kp_cpt, create_topics_request as kp_ctr,
    create_topics_response as kp_ctt, delete_topics_request as kp_dtr,
    delete_topics_response as kp_dtt, describe_cluster_response as kp_dct,
    describe_user_scram_credentials_request as kp_dusr,
    describe_user_scram_credentials_response as kp_dust, metadata_request as kp_mdr,
    metadata_response as kp_mdt, BrokerId, TopicName,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

/// Our values as kafka-protocol values, field by field.
mod convert {
    use std::borrow::Cow;

    use super::*;

    fn s(value: &str) -> StrBytes {
        StrBytes::from_string(value.to_string())
    }

    fn ns(value: &Option<Cow<'_, str>>) -> Option<StrBytes> {
        value.as_deref().map(s)
    }

    fn topic(value: &str) -> TopicName {
        TopicName(s(value))
    }

    fn ntopic(value: &Option<Cow<'_, str>>) -> Option<TopicName> {
        value.as_deref().map(topic)
    }

    fn brokers(ids: &[i32]) -> Vec<BrokerId> {
        ids.iter().copied().map(BrokerId).collect()
    }

    fn bytes(value: &[u8]) -> Bytes {
        Bytes::copy_from_slice(value)
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    /// kafka-protocol's topic ids are `uuid::Uuid`, a crate kacl-protocol does not depend on;
    /// a v6 `DeleteTopicState` decoded from the 16 bytes carries one.
    fn uuid_holder(id: &Uuid) -> kp_dtr::DeleteTopicState {
        let mut wire = vec![0u8]; // compact null name
        wire.extend_from_slice(&id.0);
        wire.push(0); // no tagged fields
        kp_dtr::DeleteTopicState::decode(&mut &wire[..], 6).unwrap()
    }

    pub(crate) fn metadata_request(
        m: &ours_md::MetadataRequest<'_>,
    ) -> kafka_protocol::messages::MetadataRequest {
        let mut t = kafka_protocol::messages::MetadataRequest::default();
        t.topics = m.topics.as_ref().map(|topics| {
            topics
                .iter()
                .map(|x| {
                    let mut tt = kp_mdr::MetadataRequestTopic::default();
                    tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                    tt.name = ntopic(&x.name);
                    tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                    tt
                })
                .collect()
        });
        t.allow_auto_topic_creation = m.allow_auto_topic_creation;
        t.include_cluster_authorized_operations = m.include_cluster_authorized_operations;
        t.include_topic_authorized_operations = m.include_topic_authorized_operations;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn metadata_response(
        m: &ours_md::MetadataResponse<'_>,
    ) -> kafka_protocol::messages::MetadataResponse {
        let mut t = kafka_protocol::messages::MetadataResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.brokers = m
            .brokers
            .iter()
            .map(|b| {
                let mut tb = kp_mdt::MetadataResponseBroker::default();
                tb.node_id = BrokerId(b.node_id);
                tb.host = s(&b.host);
                tb.port = b.port;
                tb.rack = ns(&b.rack);
                tb.unknown_tagged_fields = tags(&b.unknown_tagged_fields);
                tb
            })
            .collect();
        t.cluster_id = ns(&m.cluster_id);
        t.controller_id = BrokerId(m.controller_id);
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_mdt::MetadataResponseTopic::default();
                tt.error_code = x.error_code;
                tt.name = ntopic(&x.name);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.is_internal = x.is_internal;
                tt.partitions = x
                    .partitions
                    .iter()
                    .map(|p| {
                        let mut tp = kp_mdt::MetadataResponsePartition::default();
                        tp.error_code = p.error_code;
                        tp.partition_index = p.partition_index;
                        tp.leader_id = BrokerId(p.leader_id);
                        tp.leader_epoch = p.leader_epoch;
                        tp.replica_nodes = brokers(&p.replica_nodes);
                        tp.isr_nodes = brokers(&p.isr_nodes);
                        tp.offline_replicas = brokers(&p.offline_replicas);
                        tp.unknown_tagged_fields = tags(&p.unknown_tagged_fields);
                        tp
                    })
                    .collect();
                tt.topic_authorized_operations = x.topic_authorized_operations;
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.cluster_authorized_operations = m.cluster_authorized_operations;
        t.error_code = m.error_code;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn create_topics_request(
        m: &ours_ct::CreateTopicsRequest<'_>,
    ) -> kafka_protocol::messages::CreateTopicsRequest {
        let mut t = kafka_protocol::messages::CreateTopicsRequest::default();
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_ctr::CreatableTopic::default();
                tt.name = topic(&x.name);
                tt.num_partitions = x.num_partitions;
                tt.replication_factor = x.replication_factor;
                tt.assignments = x
                    .assignments
                    .iter()
                    .map(|a| {
                        let mut ta = kp_ctr::CreatableReplicaAssignment::default();
                        ta.partition_index = a.partition_index;
                        ta.broker_ids = brokers(&a.broker_ids);
                        ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                        ta
                    })
                    .collect();
                tt.configs = x
                    .configs
                    .iter()
                    .map(|c| {
                        let mut tc = kp_ctr::CreatableTopicConfig::default();
                        tc.name = s(&c.name);
                        tc.value = ns(&c.value);
                        tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                        tc
                    })
                    .collect();
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.timeout_ms = m.timeout_ms;
        t.validate_only = m.validate_only;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn create_topics_response(
        m: &ours_ct::CreateTopicsResponse<'_>,
    ) -> kafka_protocol::messages::CreateTopicsResponse {
        let mut t = kafka_protocol::messages::CreateTopicsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_ctt::CreatableTopicResult::default();
                tt.name = topic(&x.name);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.error_code = x.error_code;
                tt.error_message = ns(&x.error_message);
                tt.topic_config_error_code = x.topic_config_error_code;
                tt.num_partitions = x.num_partitions;
                tt.replication_factor = x.replication_factor;
                tt.configs = x.configs.as_ref().map(|configs| {
                    configs
                        .iter()
                        .map(|c| {
                            let mut tc = kp_ctt::CreatableTopicConfigs::default();
                            tc.name = s(&c.name);
                            tc.value = ns(&c.value);
                            tc.read_only = c.read_only;
                            tc.config_source = c.config_source;
                            tc.is_sensitive = c.is_sensitive;
                            tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                            tc
                        })
                        .collect()
                });
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn delete_topics_request(
        m: &ours_dt::DeleteTopicsRequest<'_>,
    ) -> kafka_protocol::messages::DeleteTopicsRequest {
        let mut t = kafka_protocol::messages::DeleteTopicsRequest::default();
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = uuid_holder(&x.topic_id);
                tt.name = ntopic(&x.name);
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.topic_names = m.topic_names.iter().map(|n| topic(n)).collect();
        t.timeout_ms = m.timeout_ms;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn delete_topics_response(
        m: &ours_dt::DeleteTopicsResponse<'_>,
    ) -> kafka_protocol::messages::DeleteTopicsResponse {
        let mut t = kafka_protocol::messages::DeleteTopicsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.responses = m
            .responses
            .iter()
            .map(|x| {
                let mut tt = kp_dtt::DeletableTopicResult::default();
                tt.name = ntopic(&x.name);
                tt.topic_id = uuid_holder(&x.topic_id).topic_id;
                tt.error_code = x.error_code;
                tt.error_message = ns(&x.error_message);
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn create_partitions_request(
        m: &ours_cp::CreatePartitionsRequest<'_>,
    ) -> kafka_protocol::messages::CreatePartitionsRequest {
        let mut t = kafka_protocol::messages::CreatePartitionsRequest::default();
        t.topics = m
            .topics
            .iter()
            .map(|x| {
                let mut tt = kp_cpr::CreatePartitionsTopic::default();
                tt.name = topic(&x.name);
                tt.count = x.count;
                tt.assignments = x.assignments.as_ref().map(|assignments| {
                    assignments
                        .iter()
                        .map(|a| {
                            let mut ta = kp_cpr::CreatePartitionsAssignment::default();
                            ta.broker_ids = brokers(&a.broker_ids);
                            ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                            ta
                        })
                        .collect()
                });
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.timeout_ms = m.timeout_ms;
        t.validate_only = m.validate_only;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn create_partitions_response(
        m: &ours_cp::CreatePartitionsResponse<'_>,
    ) -> kafka_protocol::messages::CreatePartitionsResponse {
        let mut t = kafka_protocol::messages::CreatePartitionsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.results = m
            .results
            .iter()
            .map(|x| {
                let mut tt = kp_cpt::CreatePartitionsTopicResult::default();
                tt.name = topic(&x.name);
                tt.error_code = x.error_code;
                tt.error_message = ns(&x.error_message);
                tt.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                tt
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_cluster_request(
        m: &ours_dc::DescribeClusterRequest<'_>,
    ) -> kafka_protocol::messages::DescribeClusterRequest {
        let mut t = kafka_protocol::messages::DescribeClusterRequest::default();
        t.include_cluster_authorized_operations = m.include_cluster_authorized_operations;
        t.endpoint_type = m.endpoint_type;
        t.include_fenced_brokers = m.include_fenced_brokers;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_cluster_response(
        m: &ours_dc::DescribeClusterResponse<'_>,
    ) -> kafka_protocol::messages::DescribeClusterResponse {
        let mut t = kafka_protocol::messages::DescribeClusterResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.endpoint_type = m.endpoint_type;
        t.cluster_id = s(&m.cluster_id);
        t.controller_id = BrokerId(m.controller_id);
        t.brokers = m
            .brokers
            .iter()
            .map(|b| {
                let mut tb = kp_dct::DescribeClusterBroker::default();
                tb.broker_id = BrokerId(b.broker_id);
                tb.host = s(&b.host);
                tb.port = b.port;
                tb.rack = ns(&b.rack);
                tb.is_fenced = b.is_fenced;
                tb.unknown_tagged_fields = tags(&b.unknown_tagged_fields);
                tb
            })
            .collect();
        t.cluster_authorized_operations = m.cluster_authorized_operations;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_user_scram_credentials_request(
        m: &ours_dus::DescribeUserScramCredentialsRequest<'_>,
    ) -> kafka_protocol::messages::DescribeUserScramCredentialsRequest {
        let mut t = kafka_protocol::messages::DescribeUserScramCredentialsRequest::default();
        t.users = m.users.as_ref().map(|users| {
            users
                .iter()
                .map(|u| {
                    let mut tu = kp_dusr::UserName::default();
                    tu.name = s(&u.name);
                    tu.unknown_tagged_fields = tags(&u.unknown_tagged_fields);
                    tu
                })
                .collect()
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_user_scram_credentials_response(
        m: &ours_dus::DescribeUserScramCredentialsResponse<'_>,
    ) -> kafka_protocol::messages::DescribeUserScramCredentialsResponse {
        let mut t = kafka_protocol::messages::DescribeUserScramCredentialsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.results = m
            .results
            .iter()
            .map(|r| {
                let mut tr = kp_dust::DescribeUserScramCredentialsResult::default();
                tr.user = s(&r.user);
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.credential_infos = r
                    .credential_infos
                    .iter()
                    .map(|c| {
                        let mut tc = kp_dust::CredentialInfo::default();
                        tc.mechanism = c.mechanism;
                        tc.iterations = c.iterations;
                        tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                        tc
                    })
                    .collect();
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn alter_user_scram_credentials_request(
        m: &ours_aus::AlterUserScramCredentialsRequest<'_>,
    ) -> kafka_protocol::messages::AlterUserScramCredentialsRequest {
        let mut t = kafka_protocol::messages::AlterUserScramCredentialsRequest::default();
        t.deletions = m
            .deletions
            .iter()
            .map(|d| {
                let mut td = kp_ausr::ScramCredentialDeletion::default();
                td.name = s(&d.name);
                td.mechanism = d.mechanism;
                td.unknown_tagged_fields = tags(&d.unknown_tagged_fields);
                td
            })
            .collect();
        t.upsertions = m
            .upsertions
            .iter()
            .map(|u| {
                let mut tu = kp_ausr::ScramCredentialUpsertion::default();
                tu.name = s(&u.name);
                tu.mechanism = u.mechanism;
                tu.iterations = u.iterations;
                tu.salt = bytes(&u.salt);
                tu.salted_password = bytes(&u.salted_password);
                tu.unknown_tagged_fields = tags(&u.unknown_tagged_fields);
                tu
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn alter_user_scram_credentials_response(
        m: &ours_aus::AlterUserScramCredentialsResponse<'_>,
    ) -> kafka_protocol::messages::AlterUserScramCredentialsResponse {
        let mut t = kafka_protocol::messages::AlterUserScramCredentialsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.results = m
            .results
            .iter()
            .map(|r| {
                let mut tr = kp_aust::AlterUserScramCredentialsResult::default();
                tr.user = s(&r.user);
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }
}

differential! {
    strategies: admin_common;
    metadata_request: ours_md::MetadataRequest,
        kafka_protocol::messages::MetadataRequest, 0..=13;
    metadata_response: ours_md::MetadataResponse,
        kafka_protocol::messages::MetadataResponse, 0..=13;
    create_topics_request: ours_ct::CreateTopicsRequest,
        kafka_protocol::messages::CreateTopicsRequest, 2..=7;
    create_topics_response: ours_ct::CreateTopicsResponse,
        kafka_protocol::messages::CreateTopicsResponse, 2..=7;
    delete_topics_request: ours_dt::DeleteTopicsRequest,
        kafka_protocol::messages::DeleteTopicsRequest, 1..=6;
    delete_topics_response: ours_dt::DeleteTopicsResponse,
        kafka_protocol::messages::DeleteTopicsResponse, 1..=6;
    create_partitions_request: ours_cp::CreatePartitionsRequest,
        kafka_protocol::messages::CreatePartitionsRequest, 0..=3;
    create_partitions_response: ours_cp::CreatePartitionsResponse,
        kafka_protocol::messages::CreatePartitionsResponse, 0..=3;
    describe_cluster_request: ours_dc::DescribeClusterRequest,
        kafka_protocol::messages::DescribeClusterRequest, 0..=2;
    describe_cluster_response: ours_dc::DescribeClusterResponse,
        kafka_protocol::messages::DescribeClusterResponse, 0..=2;
    describe_user_scram_credentials_request: ours_dus::DescribeUserScramCredentialsRequest,
        kafka_protocol::messages::DescribeUserScramCredentialsRequest, 0..=0;
    describe_user_scram_credentials_response: ours_dus::DescribeUserScramCredentialsResponse,
        kafka_protocol::messages::DescribeUserScramCredentialsResponse, 0..=0;
    alter_user_scram_credentials_request: ours_aus::AlterUserScramCredentialsRequest,
        kafka_protocol::messages::AlterUserScramCredentialsRequest, 0..=0;
    alter_user_scram_credentials_response: ours_aus::AlterUserScramCredentialsResponse,
        kafka_protocol::messages::AlterUserScramCredentialsResponse, 0..=0;
}
