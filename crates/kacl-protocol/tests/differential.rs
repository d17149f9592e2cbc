//! Differential properties against `kafka-protocol` 0.18.0 for every phase-A message and
//! version both crates support (its ACL messages start at v1): for random values, both
//! encoders produce the same bytes, and each decoder reads the other's bytes back to the same
//! value.

#[macro_use]
mod differential_support;
mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{
    api_versions as ours_av, create_acls as ours_ca, delete_acls as ours_da,
    describe_acls as ours_dd, sasl_authenticate as ours_sa, sasl_handshake as ours_sh,
};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::Message;
use kafka_protocol::messages::{
    api_versions_response as kp_avr, create_acls_request as kp_car,
    create_acls_response as kp_cares, delete_acls_request as kp_dar,
    delete_acls_response as kp_dares, describe_acls_response as kp_ddr,
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

    pub(crate) fn describe_acls_request(
        m: &ours_dd::DescribeAclsRequest<'_>,
    ) -> kafka_protocol::messages::DescribeAclsRequest {
        let mut t = kafka_protocol::messages::DescribeAclsRequest::default();
        t.resource_type_filter = m.resource_type_filter;
        t.resource_name_filter = ns(&m.resource_name_filter);
        t.pattern_type_filter = m.pattern_type_filter;
        t.principal_filter = ns(&m.principal_filter);
        t.host_filter = ns(&m.host_filter);
        t.operation = m.operation;
        t.permission_type = m.permission_type;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_acls_response(
        m: &ours_dd::DescribeAclsResponse<'_>,
    ) -> kafka_protocol::messages::DescribeAclsResponse {
        let mut t = kafka_protocol::messages::DescribeAclsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.resources = m
            .resources
            .iter()
            .map(|r| {
                let mut tr = kp_ddr::DescribeAclsResource::default();
                tr.resource_type = r.resource_type;
                tr.resource_name = s(&r.resource_name);
                tr.pattern_type = r.pattern_type;
                tr.acls = r
                    .acls
                    .iter()
                    .map(|a| {
                        let mut ta = kp_ddr::AclDescription::default();
                        ta.principal = s(&a.principal);
                        ta.host = s(&a.host);
                        ta.operation = a.operation;
                        ta.permission_type = a.permission_type;
                        ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                        ta
                    })
                    .collect();
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn create_acls_request(
        m: &ours_ca::CreateAclsRequest<'_>,
    ) -> kafka_protocol::messages::CreateAclsRequest {
        let mut t = kafka_protocol::messages::CreateAclsRequest::default();
        t.creations = m
            .creations
            .iter()
            .map(|c| {
                let mut tc = kp_car::AclCreation::default();
                tc.resource_type = c.resource_type;
                tc.resource_name = s(&c.resource_name);
                tc.resource_pattern_type = c.resource_pattern_type;
                tc.principal = s(&c.principal);
                tc.host = s(&c.host);
                tc.operation = c.operation;
                tc.permission_type = c.permission_type;
                tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                tc
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn create_acls_response(
        m: &ours_ca::CreateAclsResponse<'_>,
    ) -> kafka_protocol::messages::CreateAclsResponse {
        let mut t = kafka_protocol::messages::CreateAclsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.results = m
            .results
            .iter()
            .map(|r| {
                let mut tr = kp_cares::AclCreationResult::default();
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn delete_acls_request(
        m: &ours_da::DeleteAclsRequest<'_>,
    ) -> kafka_protocol::messages::DeleteAclsRequest {
        let mut t = kafka_protocol::messages::DeleteAclsRequest::default();
        t.filters = m
            .filters
            .iter()
            .map(|f| {
                let mut tf = kp_dar::DeleteAclsFilter::default();
                tf.resource_type_filter = f.resource_type_filter;
                tf.resource_name_filter = ns(&f.resource_name_filter);
                tf.pattern_type_filter = f.pattern_type_filter;
                tf.principal_filter = ns(&f.principal_filter);
                tf.host_filter = ns(&f.host_filter);
                tf.operation = f.operation;
                tf.permission_type = f.permission_type;
                tf.unknown_tagged_fields = tags(&f.unknown_tagged_fields);
                tf
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn delete_acls_response(
        m: &ours_da::DeleteAclsResponse<'_>,
    ) -> kafka_protocol::messages::DeleteAclsResponse {
        let mut t = kafka_protocol::messages::DeleteAclsResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.filter_results = m
            .filter_results
            .iter()
            .map(|r| {
                let mut tr = kp_dares::DeleteAclsFilterResult::default();
                tr.error_code = r.error_code;
                tr.error_message = ns(&r.error_message);
                tr.matching_acls = r
                    .matching_acls
                    .iter()
                    .map(|a| {
                        let mut ta = kp_dares::DeleteAclsMatchingAcl::default();
                        ta.error_code = a.error_code;
                        ta.error_message = ns(&a.error_message);
                        ta.resource_type = a.resource_type;
                        ta.resource_name = s(&a.resource_name);
                        ta.pattern_type = a.pattern_type;
                        ta.principal = s(&a.principal);
                        ta.host = s(&a.host);
                        ta.operation = a.operation;
                        ta.permission_type = a.permission_type;
                        ta.unknown_tagged_fields = tags(&a.unknown_tagged_fields);
                        ta
                    })
                    .collect();
                tr.unknown_tagged_fields = tags(&r.unknown_tagged_fields);
                tr
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn api_versions_request(
        m: &ours_av::ApiVersionsRequest<'_>,
    ) -> kafka_protocol::messages::ApiVersionsRequest {
        let mut t = kafka_protocol::messages::ApiVersionsRequest::default();
        t.client_software_name = s(&m.client_software_name);
        t.client_software_version = s(&m.client_software_version);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn api_versions_response(
        m: &ours_av::ApiVersionsResponse<'_>,
    ) -> kafka_protocol::messages::ApiVersionsResponse {
        let mut t = kafka_protocol::messages::ApiVersionsResponse::default();
        t.error_code = m.error_code;
        t.api_keys = m
            .api_keys
            .iter()
            .map(|k| {
                let mut tk = kp_avr::ApiVersion::default();
                tk.api_key = k.api_key;
                tk.min_version = k.min_version;
                tk.max_version = k.max_version;
                tk.unknown_tagged_fields = tags(&k.unknown_tagged_fields);
                tk
            })
            .collect();
        t.throttle_time_ms = m.throttle_time_ms;
        t.supported_features = m
            .supported_features
            .iter()
            .map(|f| {
                let mut tf = kp_avr::SupportedFeatureKey::default();
                tf.name = s(&f.name);
                tf.min_version = f.min_version;
                tf.max_version = f.max_version;
                tf.unknown_tagged_fields = tags(&f.unknown_tagged_fields);
                tf
            })
            .collect();
        t.finalized_features_epoch = m.finalized_features_epoch;
        t.finalized_features = m
            .finalized_features
            .iter()
            .map(|f| {
                let mut tf = kp_avr::FinalizedFeatureKey::default();
                tf.name = s(&f.name);
                tf.max_version_level = f.max_version_level;
                tf.min_version_level = f.min_version_level;
                tf.unknown_tagged_fields = tags(&f.unknown_tagged_fields);
                tf
            })
            .collect();
        t.zk_migration_ready = m.zk_migration_ready;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn sasl_handshake_request(
        m: &ours_sh::SaslHandshakeRequest<'_>,
    ) -> kafka_protocol::messages::SaslHandshakeRequest {
        let mut t = kafka_protocol::messages::SaslHandshakeRequest::default();
        t.mechanism = s(&m.mechanism);
        t
    }

    pub(crate) fn sasl_handshake_response(
        m: &ours_sh::SaslHandshakeResponse<'_>,
    ) -> kafka_protocol::messages::SaslHandshakeResponse {
        let mut t = kafka_protocol::messages::SaslHandshakeResponse::default();
        t.error_code = m.error_code;
        t.mechanisms = m.mechanisms.iter().map(|m| s(m)).collect();
        t
    }

    pub(crate) fn sasl_authenticate_request(
        m: &ours_sa::SaslAuthenticateRequest<'_>,
    ) -> kafka_protocol::messages::SaslAuthenticateRequest {
        let mut t = kafka_protocol::messages::SaslAuthenticateRequest::default();
        t.auth_bytes = Bytes::copy_from_slice(&m.auth_bytes);
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn sasl_authenticate_response(
        m: &ours_sa::SaslAuthenticateResponse<'_>,
    ) -> kafka_protocol::messages::SaslAuthenticateResponse {
        let mut t = kafka_protocol::messages::SaslAuthenticateResponse::default();
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.auth_bytes = Bytes::copy_from_slice(&m.auth_bytes);
        t.session_lifetime_ms = m.session_lifetime_ms;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }
}

differential! {
    strategies: common;
    describe_acls_request: ours_dd::DescribeAclsRequest,
        kafka_protocol::messages::DescribeAclsRequest, 1..=3;
    describe_acls_response: ours_dd::DescribeAclsResponse,
        kafka_protocol::messages::DescribeAclsResponse, 1..=3;
    create_acls_request: ours_ca::CreateAclsRequest,
        kafka_protocol::messages::CreateAclsRequest, 1..=3;
    create_acls_response: ours_ca::CreateAclsResponse,
        kafka_protocol::messages::CreateAclsResponse, 1..=3;
    delete_acls_request: ours_da::DeleteAclsRequest,
        kafka_protocol::messages::DeleteAclsRequest, 1..=3;
    delete_acls_response: ours_da::DeleteAclsResponse,
        kafka_protocol::messages::DeleteAclsResponse, 1..=3;
    api_versions_request: ours_av::ApiVersionsRequest,
        kafka_protocol::messages::ApiVersionsRequest, 0..=4;
    api_versions_response: ours_av::ApiVersionsResponse,
        kafka_protocol::messages::ApiVersionsResponse, 0..=4;
    sasl_handshake_request: ours_sh::SaslHandshakeRequest,
        kafka_protocol::messages::SaslHandshakeRequest, 0..=1;
    sasl_handshake_response: ours_sh::SaslHandshakeResponse,
        kafka_protocol::messages::SaslHandshakeResponse, 0..=1;
    sasl_authenticate_request: ours_sa::SaslAuthenticateRequest,
        kafka_protocol::messages::SaslAuthenticateRequest, 0..=2;
    sasl_authenticate_response: ours_sa::SaslAuthenticateResponse,
        kafka_protocol::messages::SaslAuthenticateResponse, 0..=2;
}
