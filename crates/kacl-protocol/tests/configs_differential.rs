//! Differential properties against `kafka-protocol` 0.18.0 for DescribeConfigs (v1-4; that
//! crate follows Kafka 4, which removed v0), AlterConfigs (v0-2) and IncrementalAlterConfigs
//! (v0-1): for random values, both encoders produce the same bytes, and each decoder reads the
//! other's bytes back to the same value. DescribeConfigs v0 is pinned by golden bytes in
//! `configs_roundtrip.rs`.

#[macro_use]
mod differential_support;
mod common;
mod configs_common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    alter_configs as ours_ac, describe_configs as ours_dc, incremental_alter_configs as ours_iac,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::Message;
use kafka_protocol::messages::{
    alter_configs_request as kp_acr, alter_configs_response as kp_act,
    describe_configs_request as kp_dcr, describe_configs_response as kp_dct,
    incremental_alter_configs_request as kp_iacr, incremental_alter_configs_response as kp_iact,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

/// Our values as kafka-protocol values, field by field.
mod convert {
    use super::*;

    fn s(value: &str) -> StrBytes {
        StrBytes::from_string(value.to_string())
    }

    fn ns(value: &Option<Cow<'_, str>>) -> Option<StrBytes> {
        value.as_deref().map(s)
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    pub(crate) fn describe_configs_request(
        m: &ours_dc::DescribeConfigsRequest<'_>,
    ) -> kafka_protocol::messages::DescribeConfigsRequest {
        let mut t = kafka_protocol::messages::DescribeConfigsRequest::default();
        t.resources = m
            .resources
            .iter()
            .map(|r| {
                let mut tr = kp_dcr::DescribeConfigsResource::default();
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.configuration_keys = r
                    .configuration_keys
                    .as_ref()
                    .map(|keys| keys.iter().map(|k| s(k)).collect());
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.include_synonyms = m.include_synonyms;
        t.include_documentation = m.include_documentation;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_configs_response(
        m: &ours_dc::DescribeConfigsResponse<'_>,
    ) -> kafka_protocol::messages::DescribeConfigsResponse {
        let mut t = kafka_protocol::messages::DescribeConfigsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.results = m
            .results
            .iter()
            .map(|r| {
                let mut tr = kp_dct::DescribeConfigsResult::default();
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.configs = r
                    .configs
                    .iter()
                    .map(|c| {
                        let mut tc = kp_dct::DescribeConfigsResourceResult::default();
                        tc.name = s(&c.name);
                        tc.value = ns(&c.value);
                        tc.read_only = c.read_only;
                        tc.config_source = c.config_source;
                        tc.is_sensitive = c.is_sensitive;
                        tc.synonyms = c
                            .synonyms
                            .iter()
                            .map(|y| {
                                let mut ty = kp_dct::DescribeConfigsSynonym::default();
                                ty.name = s(&y.name);
                                ty.value = ns(&y.value);
                                ty.source = y.source;
                                ty.unknown_tagged_fields = tags(&y.unknown_tagged_fields);
                                ty
                            })
                            .collect();
                        tc.config_type = c.config_type;
                        tc.documentation = ns(&c.documentation);
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

    pub(crate) fn alter_configs_request(
        m: &ours_ac::AlterConfigsRequest<'_>,
    ) -> kafka_protocol::messages::AlterConfigsRequest {
        let mut t = kafka_protocol::messages::AlterConfigsRequest::default();
        t.resources = m
            .resources
            .iter()
            .map(|r| {
                let mut tr = kp_acr::AlterConfigsResource::default();
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.configs = r
                    .configs
                    .iter()
                    .map(|c| {
                        let mut tc = kp_acr::AlterableConfig::default();
                        tc.name = s(&c.name);
                        tc.value = ns(&c.value);
                        tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                        tc
                    })
                    .collect();
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.validate_only = m.validate_only;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn alter_configs_response(
        m: &ours_ac::AlterConfigsResponse<'_>,
    ) -> kafka_protocol::messages::AlterConfigsResponse {
        let mut t = kafka_protocol::messages::AlterConfigsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.responses = m
            .responses
            .iter()
            .map(|r| {
                let mut tr = kp_act::AlterConfigsResourceResponse::default();
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn incremental_alter_configs_request(
        m: &ours_iac::IncrementalAlterConfigsRequest<'_>,
    ) -> kafka_protocol::messages::IncrementalAlterConfigsRequest {
        let mut t = kafka_protocol::messages::IncrementalAlterConfigsRequest::default();
        t.resources = m
            .resources
            .iter()
            .map(|r| {
                let mut tr = kp_iacr::AlterConfigsResource::default();
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.configs = r
                    .configs
                    .iter()
                    .map(|c| {
                        let mut tc = kp_iacr::AlterableConfig::default();
                        tc.name = s(&c.name);
                        tc.config_operation = c.config_operation;
                        tc.value = ns(&c.value);
                        tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                        tc
                    })
                    .collect();
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.validate_only = m.validate_only;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn incremental_alter_configs_response(
        m: &ours_iac::IncrementalAlterConfigsResponse<'_>,
    ) -> kafka_protocol::messages::IncrementalAlterConfigsResponse {
        let mut t = kafka_protocol::messages::IncrementalAlterConfigsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.responses = m
            .responses
            .iter()
            .map(|r| {
                let mut tr = kp_iact::AlterConfigsResourceResponse::default();
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }
}

differential! {
    strategies: configs_common;
    describe_configs_request: ours_dc::DescribeConfigsRequest,
        kafka_protocol::messages::DescribeConfigsRequest, 1..=4;
    describe_configs_response: ours_dc::DescribeConfigsResponse,
        kafka_protocol::messages::DescribeConfigsResponse, 1..=4;
    alter_configs_request: ours_ac::AlterConfigsRequest,
        kafka_protocol::messages::AlterConfigsRequest, 0..=2;
    alter_configs_response: ours_ac::AlterConfigsResponse,
        kafka_protocol::messages::AlterConfigsResponse, 0..=2;
    incremental_alter_configs_request: ours_iac::IncrementalAlterConfigsRequest,
        kafka_protocol::messages::IncrementalAlterConfigsRequest, 0..=1;
    incremental_alter_configs_response: ours_iac::IncrementalAlterConfigsResponse,
        kafka_protocol::messages::IncrementalAlterConfigsResponse, 0..=1;
}
