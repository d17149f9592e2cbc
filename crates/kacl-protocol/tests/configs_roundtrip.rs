//! DescribeConfigs, AlterConfigs and IncrementalAlterConfigs at every declared version:
//! round-trip and hostile-input properties (encode then decode gives the value back,
//! `encoded_len` is exact, every strict prefix fails as truncated, a trailing byte is rejected,
//! random bytes never panic), golden bytes derived by hand from Kafka's schemas (DescribeConfigs
//! v0 with `is_default`, which `kafka-protocol` no longer has; v1 and the flexible v4), the
//! non-ignorable fields Kafka refuses to drop, and hostile counts, nulls and UTF-8.

mod common;
mod configs_common;

use std::borrow::Cow;
use std::mem::size_of;

use kacl_protocol::messages::alter_configs::*;
use kacl_protocol::messages::describe_configs::*;
use kacl_protocol::messages::incremental_alter_configs::{
    self as iac, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
};
use kacl_protocol::{DecodeError, EncodeError, IntoStatic, Message, Reader};
use proptest::prelude::*;

macro_rules! properties {
    ($($test:ident: $ty:ident, $lo:literal..=$hi:literal;)*) => {$(
        mod $test {
            use super::*;

            fn value() -> impl Strategy<Value = (i16, $ty<'static>)> {
                ($lo..=$hi as i16).prop_flat_map(|v| (Just(v), configs_common::$test(v)))
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]

                #[test]
                fn round_trips((version, value) in value()) {
                    let bytes = value
                        .to_bytes(version)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(bytes.len(), value.encoded_len(version));
                    let mut appended = vec![0xee];
                    value.encode(&mut appended, version).unwrap();
                    prop_assert_eq!(&appended[1..], &bytes[..]);
                    let decoded = $ty::decode_exact(&bytes, version)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(&decoded, &value);
                    prop_assert_eq!(decoded.to_bytes(version).unwrap(), bytes.clone());
                    prop_assert_eq!(&decoded.into_static(), &value);
                }

                #[test]
                fn every_prefix_is_truncated((version, value) in value()) {
                    let bytes = value.to_bytes(version).unwrap();
                    for cut in 0..bytes.len() {
                        match $ty::decode_exact(&bytes[..cut], version) {
                            Err(DecodeError::Truncated { .. }
                                | DecodeError::TooManyElements { .. }) => {}
                            other => prop_assert!(
                                false, "prefix {} of {}: {:?}", cut, bytes.len(), other
                            ),
                        }
                    }
                }

                #[test]
                fn trailing_bytes_are_rejected((version, value) in value()) {
                    let mut bytes = value.to_bytes(version).unwrap();
                    bytes.push(0);
                    prop_assert_eq!(
                        $ty::decode_exact(&bytes, version),
                        Err(DecodeError::TrailingBytes { message: stringify!($ty), remaining: 1 })
                    );
                }

                #[test]
                fn random_bytes_never_panic(version in $lo..=$hi as i16,
                    bytes in proptest::collection::vec(any::<u8>(), 0..128))
                {
                    if let Ok(value) = $ty::decode_exact(&bytes, version) {
                        let again = value.to_bytes(version).unwrap();
                        prop_assert_eq!($ty::decode_exact(&again, version).unwrap(), value);
                    }
                }
            }
        }
    )*};
}

properties! {
    describe_configs_request: DescribeConfigsRequest, 0..=4;
    describe_configs_response: DescribeConfigsResponse, 0..=4;
    alter_configs_request: AlterConfigsRequest, 0..=2;
    alter_configs_response: AlterConfigsResponse, 0..=2;
    incremental_alter_configs_request: IncrementalAlterConfigsRequest, 0..=1;
    incremental_alter_configs_response: IncrementalAlterConfigsResponse, 0..=1;
}

#[test]
fn defaults_encode_at_every_version() {
    macro_rules! check {
        ($($ty:ident),*) => {$(
            let value = $ty::default();
            for version in $ty::VERSIONS.min..=$ty::VERSIONS.max {
                let bytes = value
                    .to_bytes(version)
                    .unwrap_or_else(|e| panic!("{} v{version}: {e}", stringify!($ty)));
                assert_eq!($ty::decode_exact(&bytes, version).unwrap(), value);
            }
        )*};
    }
    check!(
        DescribeConfigsRequest,
        DescribeConfigsResponse,
        AlterConfigsRequest,
        AlterConfigsResponse,
        IncrementalAlterConfigsRequest,
        IncrementalAlterConfigsResponse
    );
    // An entry built from `Default` encodes at every version too (its v0-only flag is false).
    let response = DescribeConfigsResponse {
        results: vec![DescribeConfigsResult {
            configs: vec![DescribeConfigsResourceResult::default()],
            ..Default::default()
        }],
        ..Default::default()
    };
    for version in 0..=4 {
        response.to_bytes(version).unwrap();
    }
}

fn both_ways<'a, M: Message<'a> + PartialEq + std::fmt::Debug>(
    value: &M,
    version: i16,
    wire: &'a [u8],
) {
    assert_eq!(value.to_bytes(version).unwrap(), wire, "encode v{version}");
    assert_eq!(
        &M::decode_exact(wire, version).unwrap(),
        value,
        "decode v{version}"
    );
}

fn s(value: &'static str) -> Cow<'static, str> {
    Cow::Borrowed(value)
}

#[test]
fn describe_configs_request_golden() {
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: 2,
            resource_name: s("t"),
            configuration_keys: None,
            ..Default::default()
        }],
        include_synonyms: true,
        include_documentation: true,
        ..Default::default()
    };
    // v3: int32 count, int8 type, int16-length name, null int32 keys array, two bools.
    both_ways(
        &request,
        3,
        &[0, 0, 0, 1, 2, 0, 1, b't', 0xff, 0xff, 0xff, 0xff, 1, 1],
    );
    // v4: compact count 1+1, compact name 1+1, compact null keys, resource tags, bools, tags.
    both_ways(&request, 4, &[2, 2, 2, b't', 0, 0, 1, 1, 0]);
    // v0 with explicit keys: no flags at all.
    let v0 = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: 4,
            resource_name: s("1"),
            configuration_keys: Some(vec![s("a")]),
            ..Default::default()
        }],
        ..Default::default()
    };
    both_ways(&v0, 0, &[0, 0, 0, 1, 4, 0, 1, b'1', 0, 0, 0, 1, 0, 1, b'a']);
}

fn one_entry() -> DescribeConfigsResourceResult<'static> {
    DescribeConfigsResourceResult {
        name: s("k"),
        value: Some(s("v")),
        read_only: false,
        is_default: false,
        config_source: 5,
        is_sensitive: false,
        synonyms: vec![DescribeConfigsSynonym {
            name: s("k"),
            value: Some(s("v")),
            source: 5,
            ..Default::default()
        }],
        config_type: 2,
        documentation: None,
        ..Default::default()
    }
}

fn response_of(entry: DescribeConfigsResourceResult<'static>) -> DescribeConfigsResponse<'static> {
    DescribeConfigsResponse {
        throttle_time_ms: 0,
        results: vec![DescribeConfigsResult {
            error_code: 0,
            error_message: None,
            resource_type: 2,
            resource_name: s("t"),
            configs: vec![entry],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn describe_configs_response_v0_carries_is_default_and_nothing_newer() {
    let entry = DescribeConfigsResourceResult {
        is_default: true,
        ..one_entry()
    };
    // v0 drops the ignorable source, synonyms, type and documentation silently.
    let wire = [
        0, 0, 0, 0, // throttle
        0, 0, 0, 1, // one result
        0, 0, 0xff, 0xff, // no error, null message
        2, 0, 1, b't', // TOPIC "t"
        0, 0, 0, 1, // one config
        0, 1, b'k', 0, 1, b'v', // name, value
        0, 1, 0, // read_only, is_default, is_sensitive
    ];
    assert_eq!(response_of(entry).to_bytes(0).unwrap(), wire);
    let decoded = DescribeConfigsResponse::decode_exact(&wire, 0).unwrap();
    let got = &decoded.results[0].configs[0];
    assert!(got.is_default);
    assert_eq!(got.config_source, -1);
    assert_eq!(got.documentation.as_deref(), Some(""));
    // is_default is not ignorable (Kafka's schema): it cannot be sent at v1+.
    let entry = DescribeConfigsResourceResult {
        is_default: true,
        ..one_entry()
    };
    assert_eq!(
        response_of(entry).to_bytes(1),
        Err(EncodeError::NonDefaultField {
            what: "DescribeConfigsResourceResult.is_default",
            version: 1
        })
    );
}

#[test]
fn describe_configs_response_v1_and_v4_golden() {
    let v1 = [
        0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0xff, 0xff, 2, 0, 1, b't', 0, 0, 0, 1, // as v0
        0, 1, b'k', 0, 1, b'v', 0, // name, value, read_only
        5, 0, // config_source, is_sensitive
        0, 0, 0, 1, 0, 1, b'k', 0, 1, b'v', 5, // one synonym
    ];
    both_ways(
        &response_of(DescribeConfigsResourceResult {
            config_type: 0,
            documentation: Some(s("")),
            ..one_entry()
        }),
        1,
        &v1,
    );
    let v4 = [
        0, 0, 0, 0, 2, // throttle, compact count
        0, 0, 0, 2, 2, b't', 2, // no error, compact null message, TOPIC, "t", one config
        2, b'k', 2, b'v', 0, 5, 0, // name, value, read_only, source, sensitive
        2, 2, b'k', 2, b'v', 5, 0, // one synonym and its tags
        2, 0, // config_type STRING, null documentation
        0, 0, 0, // entry, result and message tags
    ];
    both_ways(&response_of(one_entry()), 4, &v4);
}

#[test]
fn request_flags_kafka_will_not_drop_fail_to_encode_at_old_versions() {
    let synonyms = DescribeConfigsRequest {
        include_synonyms: true,
        ..Default::default()
    };
    assert_eq!(
        synonyms.to_bytes(0),
        Err(EncodeError::NonDefaultField {
            what: "DescribeConfigsRequest.include_synonyms",
            version: 0
        })
    );
    let docs = DescribeConfigsRequest {
        include_documentation: true,
        ..Default::default()
    };
    assert_eq!(
        docs.to_bytes(2),
        Err(EncodeError::NonDefaultField {
            what: "DescribeConfigsRequest.include_documentation",
            version: 2
        })
    );
    assert!(DescribeConfigsRequest::default().to_bytes(5).is_err());
    assert!(AlterConfigsRequest::default().to_bytes(3).is_err());
    assert!(IncrementalAlterConfigsRequest::default()
        .to_bytes(2)
        .is_err());
}

#[test]
fn incremental_alter_configs_golden() {
    let request = IncrementalAlterConfigsRequest {
        resources: vec![iac::AlterConfigsResource {
            resource_type: 2,
            resource_name: s("t"),
            configs: vec![iac::AlterableConfig {
                name: s("cleanup.policy"),
                config_operation: 2,
                value: Some(s("compact")),
                ..Default::default()
            }],
            ..Default::default()
        }],
        validate_only: true,
        ..Default::default()
    };
    let mut v0 = vec![0, 0, 0, 1, 2, 0, 1, b't', 0, 0, 0, 1, 0, 14];
    v0.extend_from_slice(b"cleanup.policy");
    v0.extend_from_slice(&[2, 0, 7]);
    v0.extend_from_slice(b"compact");
    v0.push(1);
    both_ways(&request, 0, &v0);
    let mut v1 = vec![2, 2, 2, b't', 2, 15];
    v1.extend_from_slice(b"cleanup.policy");
    v1.extend_from_slice(&[2, 8]);
    v1.extend_from_slice(b"compact");
    v1.extend_from_slice(&[0, 0, 1, 0]);
    both_ways(&request, 1, &v1);
}

#[test]
fn alter_configs_null_value_golden() {
    let request = AlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: 2,
            resource_name: s("t"),
            configs: vec![AlterableConfig {
                name: s("k"),
                value: None,
                ..Default::default()
            }],
            ..Default::default()
        }],
        validate_only: false,
        ..Default::default()
    };
    both_ways(
        &request,
        1,
        &[
            0, 0, 0, 1, 2, 0, 1, b't', 0, 0, 0, 1, 0, 1, b'k', 0xff, 0xff, 0,
        ],
    );
    both_ways(&request, 2, &[2, 2, 2, b't', 2, 2, b'k', 0, 0, 0, 0, 0]);
}

#[test]
fn huge_counts_are_rejected_before_allocating() {
    // DescribeConfigs v0: resources count i32::MAX, then 3 bytes.
    assert_eq!(
        DescribeConfigsRequest::decode_exact(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0], 0),
        Err(DecodeError::TooManyElements {
            what: "DescribeConfigsRequest.resources",
            count: i32::MAX as usize,
            remaining: 3
        })
    );
    // Nested: one resource whose configuration_keys claims i32::MAX strings.
    let body = [0, 0, 0, 1, 2, 0, 1, b't', 0x7f, 0xff, 0xff, 0xff, 0];
    assert!(matches!(
        DescribeConfigsRequest::decode_exact(&body, 1),
        Err(DecodeError::TooManyElements {
            what: "DescribeConfigsResource.configuration_keys",
            ..
        })
    ));
    // v4 compact: uvarint 0xffff_ffff for the keys array.
    let body = [2, 2, 2, b't', 0xff, 0xff, 0xff, 0xff, 0x0f];
    assert!(matches!(
        DescribeConfigsRequest::decode_exact(&body, 4),
        Err(DecodeError::TooManyElements { .. })
    ));
    // IncrementalAlterConfigs v1: configs count far beyond the bytes left.
    let body = [2, 2, 2, b't', 0xff, 0xff, 0x03, 0];
    assert!(matches!(
        IncrementalAlterConfigsRequest::decode_exact(&body, 1),
        Err(DecodeError::TooManyElements {
            what: "AlterConfigsResource.configs",
            ..
        })
    ));
}

#[test]
fn configuration_keys_are_charged_to_the_memory_budget() {
    // 1,000 empty keys: 2 bytes each on the wire, a Cow<str> each in memory.
    let keys = 1_000usize;
    let mut body = vec![0, 0, 0, 1, 2, 0, 1, b't'];
    body.extend_from_slice(&(keys as i32).to_be_bytes());
    body.resize(body.len() + 2 * keys, 0);
    body.push(0); // include_synonyms
    let needed = size_of::<DescribeConfigsResource<'static>>() + keys * size_of::<Cow<str>>();
    let within =
        DescribeConfigsRequest::decode(&mut Reader::new(&body).with_memory_budget(needed), 1)
            .unwrap();
    assert_eq!(
        within.resources[0]
            .configuration_keys
            .as_ref()
            .map(Vec::len),
        Some(keys)
    );
    let short =
        DescribeConfigsRequest::decode(&mut Reader::new(&body).with_memory_budget(needed - 1), 1);
    assert!(
        matches!(short, Err(DecodeError::MemoryBudgetExceeded { .. })),
        "{short:?}"
    );
}

#[test]
fn nulls_and_bad_utf8_are_named() {
    // A null resource name (not nullable).
    assert_eq!(
        AlterConfigsRequest::decode_exact(&[0, 0, 0, 1, 2, 0xff, 0xff, 0, 0, 0, 0, 0], 0),
        Err(DecodeError::NullNotAllowed {
            what: "AlterConfigsResource.resource_name",
            version: 0
        })
    );
    // A null config name in the flexible IncrementalAlterConfigs v1.
    assert_eq!(
        IncrementalAlterConfigsRequest::decode_exact(&[2, 2, 2, b't', 2, 0, 0, 0, 0, 0, 0, 0], 1),
        Err(DecodeError::NullNotAllowed {
            what: "AlterableConfig.name",
            version: 1
        })
    );
    // A configuration key that is not UTF-8.
    assert_eq!(
        DescribeConfigsRequest::decode_exact(
            &[0, 0, 0, 1, 2, 0, 1, b't', 0, 0, 0, 1, 0, 1, 0xc3],
            0
        ),
        Err(DecodeError::InvalidUtf8 {
            what: "DescribeConfigsResource.configuration_keys"
        })
    );
    // A null inside the keys array.
    assert!(matches!(
        DescribeConfigsRequest::decode_exact(
            &[0, 0, 0, 1, 2, 0, 1, b't', 0, 0, 0, 1, 0xff, 0xff],
            0
        ),
        Err(DecodeError::NullNotAllowed { .. })
    ));
}
