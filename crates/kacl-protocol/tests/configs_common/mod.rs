//! Proptest strategies for the config messages (DescribeConfigs, AlterConfigs,
//! IncrementalAlterConfigs), per version: fields a version lacks hold their schema default and
//! unknown tagged fields appear only in flexible versions, so every generated value is
//! encodable at the version it was generated for. Builds on the primitive strategies of
//! `common`.
#![allow(dead_code)]

use std::borrow::Cow;

use kacl_protocol::messages::alter_configs as ac;
use kacl_protocol::messages::describe_configs::*;
use kacl_protocol::messages::incremental_alter_configs as iac;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use crate::common::{nullable_string, string, unknown_tags, when};

// ---- DescribeConfigs ------------------------------------------------------------------------

fn describe_configs_resource(v: i16) -> BoxedStrategy<DescribeConfigsResource<'static>> {
    (
        any::<i8>(),
        string(),
        option::of(vec(string(), 0..4)),
        unknown_tags(v >= 4),
    )
        .prop_map(
            |(resource_type, resource_name, keys, tags)| DescribeConfigsResource {
                resource_type,
                resource_name,
                configuration_keys: keys,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn describe_configs_request(v: i16) -> BoxedStrategy<DescribeConfigsRequest<'static>> {
    (
        vec(describe_configs_resource(v), 0..4),
        when(v >= 1, any::<bool>(), false),
        when(v >= 3, any::<bool>(), false),
        unknown_tags(v >= 4),
    )
        .prop_map(|(resources, synonyms, docs, tags)| DescribeConfigsRequest {
            resources,
            include_synonyms: synonyms,
            include_documentation: docs,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn describe_configs_synonym(v: i16) -> BoxedStrategy<DescribeConfigsSynonym<'static>> {
    (
        string(),
        nullable_string(),
        any::<i8>(),
        unknown_tags(v >= 4),
    )
        .prop_map(|(name, value, source, tags)| DescribeConfigsSynonym {
            name,
            value,
            source,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

fn describe_configs_resource_result(
    v: i16,
) -> BoxedStrategy<DescribeConfigsResourceResult<'static>> {
    (
        (string(), nullable_string(), any::<bool>()),
        when(v == 0, any::<bool>(), false),
        when(v >= 1, any::<i8>(), -1),
        any::<bool>(),
        when(v >= 1, vec(describe_configs_synonym(v), 0..3), Vec::new()),
        when(v >= 3, any::<i8>(), 0),
        when(v >= 3, nullable_string(), Some(Cow::Borrowed(""))),
        unknown_tags(v >= 4),
    )
        .prop_map(
            |((name, value, read_only), is_default, source, sensitive, synonyms, ty, doc, tags)| {
                DescribeConfigsResourceResult {
                    name,
                    value,
                    read_only,
                    is_default,
                    config_source: source,
                    is_sensitive: sensitive,
                    synonyms,
                    config_type: ty,
                    documentation: doc,
                    unknown_tagged_fields: tags,
                }
            },
        )
        .boxed()
}

fn describe_configs_result(v: i16) -> BoxedStrategy<DescribeConfigsResult<'static>> {
    (
        any::<i16>(),
        nullable_string(),
        any::<i8>(),
        string(),
        vec(describe_configs_resource_result(v), 0..4),
        unknown_tags(v >= 4),
    )
        .prop_map(|(ec, msg, rt, rn, configs, tags)| DescribeConfigsResult {
            error_code: ec,
            error_message: msg,
            resource_type: rt,
            resource_name: rn,
            configs,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn describe_configs_response(v: i16) -> BoxedStrategy<DescribeConfigsResponse<'static>> {
    (
        any::<i32>(),
        vec(describe_configs_result(v), 0..3),
        unknown_tags(v >= 4),
    )
        .prop_map(|(throttle, results, tags)| DescribeConfigsResponse {
            throttle_time_ms: throttle,
            results,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

// ---- AlterConfigs ---------------------------------------------------------------------------

fn alter_configs_resource(v: i16) -> BoxedStrategy<ac::AlterConfigsResource<'static>> {
    let config =
        (string(), nullable_string(), unknown_tags(v >= 2)).prop_map(|(name, value, tags)| {
            ac::AlterableConfig {
                name,
                value,
                unknown_tagged_fields: tags,
            }
        });
    (
        any::<i8>(),
        string(),
        vec(config, 0..4),
        unknown_tags(v >= 2),
    )
        .prop_map(|(rt, rn, configs, tags)| ac::AlterConfigsResource {
            resource_type: rt,
            resource_name: rn,
            configs,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn alter_configs_request(v: i16) -> BoxedStrategy<ac::AlterConfigsRequest<'static>> {
    (
        vec(alter_configs_resource(v), 0..4),
        any::<bool>(),
        unknown_tags(v >= 2),
    )
        .prop_map(|(resources, validate_only, tags)| ac::AlterConfigsRequest {
            resources,
            validate_only,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn alter_configs_response(v: i16) -> BoxedStrategy<ac::AlterConfigsResponse<'static>> {
    let response = (
        any::<i16>(),
        nullable_string(),
        any::<i8>(),
        string(),
        unknown_tags(v >= 2),
    )
        .prop_map(|(ec, msg, rt, rn, tags)| ac::AlterConfigsResourceResponse {
            error_code: ec,
            error_message: msg,
            resource_type: rt,
            resource_name: rn,
            unknown_tagged_fields: tags,
        });
    (any::<i32>(), vec(response, 0..4), unknown_tags(v >= 2))
        .prop_map(|(throttle, responses, tags)| ac::AlterConfigsResponse {
            throttle_time_ms: throttle,
            responses,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

// ---- IncrementalAlterConfigs ----------------------------------------------------------------

fn incremental_alter_configs_resource(v: i16) -> BoxedStrategy<iac::AlterConfigsResource<'static>> {
    let config = (
        string(),
        any::<i8>(),
        nullable_string(),
        unknown_tags(v >= 1),
    )
        .prop_map(|(name, op, value, tags)| iac::AlterableConfig {
            name,
            config_operation: op,
            value,
            unknown_tagged_fields: tags,
        });
    (
        any::<i8>(),
        string(),
        vec(config, 0..4),
        unknown_tags(v >= 1),
    )
        .prop_map(|(rt, rn, configs, tags)| iac::AlterConfigsResource {
            resource_type: rt,
            resource_name: rn,
            configs,
            unknown_tagged_fields: tags,
        })
        .boxed()
}

pub(crate) fn incremental_alter_configs_request(
    v: i16,
) -> BoxedStrategy<iac::IncrementalAlterConfigsRequest<'static>> {
    (
        vec(incremental_alter_configs_resource(v), 0..4),
        any::<bool>(),
        unknown_tags(v >= 1),
    )
        .prop_map(
            |(resources, validate_only, tags)| iac::IncrementalAlterConfigsRequest {
                resources,
                validate_only,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}

pub(crate) fn incremental_alter_configs_response(
    v: i16,
) -> BoxedStrategy<iac::IncrementalAlterConfigsResponse<'static>> {
    let response = (
        any::<i16>(),
        nullable_string(),
        any::<i8>(),
        string(),
        unknown_tags(v >= 1),
    )
        .prop_map(
            |(ec, msg, rt, rn, tags)| iac::AlterConfigsResourceResponse {
                error_code: ec,
                error_message: msg,
                resource_type: rt,
                resource_name: rn,
                unknown_tagged_fields: tags,
            },
        );
    (any::<i32>(), vec(response, 0..4), unknown_tags(v >= 1))
        .prop_map(
            |(throttle, responses, tags)| iac::IncrementalAlterConfigsResponse {
                throttle_time_ms: throttle,
                responses,
                unknown_tagged_fields: tags,
            },
        )
        .boxed()
}
