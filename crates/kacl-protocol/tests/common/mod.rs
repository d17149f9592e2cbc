//! Proptest strategies for every phase-A message, per version: fields a version lacks hold
//! their schema default and unknown tagged fields appear only in flexible versions, so every
//! generated value is encodable at the version it was generated for.
#![allow(dead_code)]

use std::borrow::Cow;

use kacl_protocol::messages::api_versions::*;
use kacl_protocol::messages::create_acls::*;
use kacl_protocol::messages::delete_acls::*;
use kacl_protocol::messages::describe_acls::*;
use kacl_protocol::messages::sasl_authenticate::*;
use kacl_protocol::messages::sasl_handshake::*;
use kacl_protocol::wire::{RawTaggedField, TaggedFields};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;

/// Any string, including non-ASCII, kept short.
pub(crate) fn string() -> BoxedStrategy<Cow<'static, str>> {
    ".{0,12}".prop_map(Cow::Owned).boxed()
}

pub(crate) fn nullable_string() -> BoxedStrategy<Option<Cow<'static, str>>> {
    proptest::option::of(string()).boxed()
}

pub(crate) fn bytes() -> BoxedStrategy<Cow<'static, [u8]>> {
    vec(any::<u8>(), 0..24).prop_map(Cow::Owned).boxed()
}

/// `strategy` when the field exists at this version, else its default.
pub(crate) fn when<T: Clone + std::fmt::Debug + 'static>(
    present: bool,
    strategy: impl Strategy<Value = T> + 'static,
    default: T,
) -> BoxedStrategy<T> {
    if present {
        strategy.boxed()
    } else {
        Just(default).boxed()
    }
}

/// Unknown tagged fields with unique ascending tags, only in flexible versions. Tags start at
/// 10 so they never collide with a known tag.
pub(crate) fn unknown_tags(flexible: bool) -> BoxedStrategy<TaggedFields<'static>> {
    if !flexible {
        return Just(TaggedFields::new()).boxed();
    }
    btree_map(10u32..300, vec(any::<u8>(), 0..6), 0..3)
        .prop_map(|tags| {
            tags.into_iter()
                .map(|(tag, data)| RawTaggedField {
                    tag,
                    data: Cow::Owned(data),
                })
                .collect()
        })
        .boxed()
}

fn acl_flexible(version: i16) -> bool {
    version >= 2
}

pub(crate) fn describe_acls_request(v: i16) -> BoxedStrategy<DescribeAclsRequest<'static>> {
    (
        any::<i8>(),
        nullable_string(),
        when(v >= 1, any::<i8>(), 3),
        nullable_string(),
        nullable_string(),
        any::<i8>(),
        any::<i8>(),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(|(rt, rn, pt, p, h, op, perm, tags)| DescribeAclsRequest {
            resource_type_filter: rt,
            resource_name_filter: rn,
            pattern_type_filter: pt,
            principal_filter: p,
            host_filter: h,
            operation: op,
            permission_type: perm,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn acl_description(v: i16) -> BoxedStrategy<AclDescription<'static>> {
    (
        string(),
        string(),
        any::<i8>(),
        any::<i8>(),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(principal, host, operation, permission_type, tags)| AclDescription {
                principal,
                host,
                operation,
                permission_type,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn describe_acls_resource(v: i16) -> BoxedStrategy<DescribeAclsResource<'static>> {
    (
        any::<i8>(),
        string(),
        when(v >= 1, any::<i8>(), 3),
        vec(acl_description(v), 0..4),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(resource_type, resource_name, pattern_type, acls, tags)| DescribeAclsResource {
                resource_type,
                resource_name,
                pattern_type,
                acls: acls.into(),
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn describe_acls_response(v: i16) -> BoxedStrategy<DescribeAclsResponse<'static>> {
    (
        any::<i32>(),
        any::<i16>(),
        nullable_string(),
        vec(describe_acls_resource(v), 0..4),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(throttle_time_ms, error_code, error_message, resources, tags)| DescribeAclsResponse {
                throttle_time_ms,
                error_code,
                error_message,
                resources,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn acl_creation(v: i16) -> BoxedStrategy<AclCreation<'static>> {
    (
        any::<i8>(),
        string(),
        when(v >= 1, any::<i8>(), 3),
        string(),
        string(),
        any::<i8>(),
        any::<i8>(),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(rt, rn, pt, principal, host, operation, permission_type, tags)| AclCreation {
                resource_type: rt,
                resource_name: rn,
                resource_pattern_type: pt,
                principal,
                host,
                operation,
                permission_type,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn create_acls_request(v: i16) -> BoxedStrategy<CreateAclsRequest<'static>> {
    (vec(acl_creation(v), 0..4), unknown_tags(acl_flexible(v)))
        .prop_map(|(creations, tags)| CreateAclsRequest {
            creations,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn acl_creation_result(v: i16) -> BoxedStrategy<AclCreationResult<'static>> {
    (
        any::<i16>(),
        nullable_string(),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(|(error_code, error_message, tags)| AclCreationResult {
            error_code,
            error_message,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn create_acls_response(v: i16) -> BoxedStrategy<CreateAclsResponse<'static>> {
    (
        any::<i32>(),
        vec(acl_creation_result(v), 0..4),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(|(throttle_time_ms, results, tags)| CreateAclsResponse {
            throttle_time_ms,
            results,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn delete_acls_filter(v: i16) -> BoxedStrategy<DeleteAclsFilter<'static>> {
    (
        any::<i8>(),
        nullable_string(),
        when(v >= 1, any::<i8>(), 3),
        nullable_string(),
        nullable_string(),
        any::<i8>(),
        any::<i8>(),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(|(rt, rn, pt, p, h, op, perm, tags)| DeleteAclsFilter {
            resource_type_filter: rt,
            resource_name_filter: rn,
            pattern_type_filter: pt,
            principal_filter: p,
            host_filter: h,
            operation: op,
            permission_type: perm,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn delete_acls_request(v: i16) -> BoxedStrategy<DeleteAclsRequest<'static>> {
    (
        vec(delete_acls_filter(v), 0..4),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(|(filters, tags)| DeleteAclsRequest {
            filters,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn delete_acls_matching_acl(v: i16) -> BoxedStrategy<DeleteAclsMatchingAcl<'static>> {
    (
        any::<i16>(),
        nullable_string(),
        any::<i8>(),
        string(),
        when(v >= 1, any::<i8>(), 3),
        string(),
        string(),
        any::<i8>(),
        any::<i8>(),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(ec, em, rt, rn, pt, principal, host, operation, permission_type, tags)| {
                DeleteAclsMatchingAcl {
                    error_code: ec,
                    error_message: em,
                    resource_type: rt,
                    resource_name: rn,
                    pattern_type: pt,
                    principal,
                    host,
                    operation,
                    permission_type,
                    unknown_tagged_fields: tags,
                }
            },
        )
        .boxed()
}

fn delete_acls_filter_result(v: i16) -> BoxedStrategy<DeleteAclsFilterResult<'static>> {
    (
        any::<i16>(),
        nullable_string(),
        vec(delete_acls_matching_acl(v), 0..4),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(error_code, error_message, matching_acls, tags)| DeleteAclsFilterResult {
                error_code,
                error_message,
                matching_acls: matching_acls.into(),
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn delete_acls_response(v: i16) -> BoxedStrategy<DeleteAclsResponse<'static>> {
    (
        any::<i32>(),
        vec(delete_acls_filter_result(v), 0..4),
        unknown_tags(acl_flexible(v)),
    )
        .prop_map(
            |(throttle_time_ms, filter_results, tags)| DeleteAclsResponse {
                throttle_time_ms,
                filter_results,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn api_versions_request(v: i16) -> BoxedStrategy<ApiVersionsRequest<'static>> {
    (
        when(v >= 3, string(), Cow::Borrowed("")),
        when(v >= 3, string(), Cow::Borrowed("")),
        unknown_tags(v >= 3),
    )
        .prop_map(|(name, version, tags)| ApiVersionsRequest {
            client_software_name: name,
            client_software_version: version,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn api_version(v: i16) -> BoxedStrategy<ApiVersion<'static>> {
    (
        any::<i16>(),
        any::<i16>(),
        any::<i16>(),
        unknown_tags(v >= 3),
    )
        .prop_map(|(api_key, min_version, max_version, tags)| ApiVersion {
            api_key,
            min_version,
            max_version,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn supported_feature_key(v: i16) -> BoxedStrategy<SupportedFeatureKey<'static>> {
    (string(), any::<i16>(), any::<i16>(), unknown_tags(v >= 3))
        .prop_map(
            |(name, min_version, max_version, tags)| SupportedFeatureKey {
                name,
                min_version,
                max_version,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

fn finalized_feature_key(v: i16) -> BoxedStrategy<FinalizedFeatureKey<'static>> {
    (string(), any::<i16>(), any::<i16>(), unknown_tags(v >= 3))
        .prop_map(
            |(name, max_version_level, min_version_level, tags)| FinalizedFeatureKey {
                name,
                max_version_level,
                min_version_level,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn api_versions_response(v: i16) -> BoxedStrategy<ApiVersionsResponse<'static>> {
    let flexible = v >= 3;
    (
        any::<i16>(),
        vec(api_version(v), 0..5),
        when(v >= 1, any::<i32>(), 0),
        when(flexible, vec(supported_feature_key(v), 0..3), Vec::new()),
        when(flexible, prop_oneof![Just(-1i64), any::<i64>()], -1),
        when(flexible, vec(finalized_feature_key(v), 0..3), Vec::new()),
        when(flexible, any::<bool>(), false),
        unknown_tags(flexible),
    )
        .prop_map(
            |(error_code, api_keys, throttle, supported, epoch, finalized, zk, tags)| {
                ApiVersionsResponse {
                    error_code,
                    api_keys,
                    throttle_time_ms: throttle,
                    supported_features: supported,
                    finalized_features_epoch: epoch,
                    finalized_features: finalized,
                    zk_migration_ready: zk,
                    unknown_tagged_fields: tags,
                }
            },
        )
        .boxed()
}

pub(crate) fn sasl_handshake_request(_v: i16) -> BoxedStrategy<SaslHandshakeRequest<'static>> {
    string()
        .prop_map(|mechanism| SaslHandshakeRequest {
            mechanism,
            unknown_tagged_fields: Default::default(),
        })
        .boxed()
}

pub(crate) fn sasl_handshake_response(_v: i16) -> BoxedStrategy<SaslHandshakeResponse<'static>> {
    (any::<i16>(), vec(string(), 0..4))
        .prop_map(|(error_code, mechanisms)| SaslHandshakeResponse {
            error_code,
            mechanisms,
            unknown_tagged_fields: Default::default(),
        })
        .boxed()
}

pub(crate) fn sasl_authenticate_request(v: i16) -> BoxedStrategy<SaslAuthenticateRequest<'static>> {
    (bytes(), unknown_tags(v >= 2))
        .prop_map(|(auth_bytes, tags)| SaslAuthenticateRequest {
            auth_bytes,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn sasl_authenticate_response(
    v: i16,
) -> BoxedStrategy<SaslAuthenticateResponse<'static>> {
    (
        any::<i16>(),
        nullable_string(),
        bytes(),
        when(v >= 1, any::<i64>(), 0),
        unknown_tags(v >= 2),
    )
        .prop_map(|(error_code, error_message, auth_bytes, lifetime, tags)| {
            SaslAuthenticateResponse {
                error_code,
                error_message,
                auth_bytes,
                session_lifetime_ms: lifetime,
                unknown_tagged_fields: tags,
            }
        })
        .boxed()
}
