//! Hostile input: truncation at every offset, random bytes, huge counts, trailing bytes,
//! invalid UTF-8, bad lengths and nulls. Every case must come back as a typed error, never a
//! panic, and must not allocate from a wire count the input cannot back.

mod common;

use kacl_protocol::codec::{prealloc_capacity, MAX_PREALLOC_BYTES};
use kacl_protocol::messages::api_versions::*;
use kacl_protocol::messages::create_acls::*;
use kacl_protocol::messages::delete_acls::*;
use kacl_protocol::messages::describe_acls::*;
use kacl_protocol::messages::sasl_authenticate::*;
use kacl_protocol::messages::sasl_handshake::*;
use kacl_protocol::wire::{Cx, MAX_DEPTH};
use kacl_protocol::{DecodeError, Message};
use proptest::prelude::*;

macro_rules! hostile {
    ($($test:ident: $ty:ident, $lo:literal..=$hi:literal;)*) => {$(
        mod $test {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(32))]
                /// Every strict prefix of a valid encoding is reported as truncated (or as an array
                /// count the remaining bytes cannot hold).
                #[test]
                fn every_prefix_is_truncated((version, value) in ($lo..=$hi as i16)
                    .prop_flat_map(|v| (Just(v), common::$test(v))))
                {
                    let bytes = value.to_bytes(version).unwrap();
                    for cut in 0..bytes.len() {
                        match $ty::decode_exact(&bytes[..cut], version) {
                            Err(DecodeError::Truncated { .. } | DecodeError::TooManyElements { .. }) => {}
                            other => prop_assert!(false, "prefix {} of {}: {:?}", cut, bytes.len(), other),
                        }
                    }
                }

                /// One extra byte is rejected and named.
                #[test]
                fn trailing_bytes_are_rejected((version, value) in ($lo..=$hi as i16)
                    .prop_flat_map(|v| (Just(v), common::$test(v))))
                {
                    let mut bytes = value.to_bytes(version).unwrap();
                    bytes.push(0);
                    prop_assert_eq!(
                        $ty::decode_exact(&bytes, version),
                        Err(DecodeError::TrailingBytes { message: stringify!($ty), remaining: 1 })
                    );
                }

                /// Arbitrary bytes decode or fail, never panic; what decodes re-encodes to
                /// something that decodes to the same value.
                #[test]
                fn random_bytes_never_panic(version in $lo..=$hi as i16,
                    bytes in proptest::collection::vec(any::<u8>(), 0..96))
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

hostile! {
    describe_acls_request: DescribeAclsRequest, 0..=3;
    describe_acls_response: DescribeAclsResponse, 0..=3;
    create_acls_request: CreateAclsRequest, 0..=3;
    create_acls_response: CreateAclsResponse, 0..=3;
    delete_acls_request: DeleteAclsRequest, 0..=3;
    delete_acls_response: DeleteAclsResponse, 0..=3;
    api_versions_request: ApiVersionsRequest, 0..=4;
    api_versions_response: ApiVersionsResponse, 0..=4;
    sasl_handshake_request: SaslHandshakeRequest, 0..=1;
    sasl_handshake_response: SaslHandshakeResponse, 0..=1;
    sasl_authenticate_request: SaslAuthenticateRequest, 0..=2;
    sasl_authenticate_response: SaslAuthenticateResponse, 0..=2;
}

#[test]
fn huge_array_counts_are_rejected_before_allocating() {
    // DeleteAclsRequest v1: filters count i32::MAX, then 3 bytes.
    let body = [0x7f, 0xff, 0xff, 0xff, 0, 0, 0];
    assert_eq!(
        DeleteAclsRequest::decode_exact(&body, 1),
        Err(DecodeError::TooManyElements {
            what: "DeleteAclsRequest.filters",
            count: i32::MAX as usize,
            remaining: 3
        })
    );
    // v3 compact: uvarint 0xffff_ffff (count + 1) then nothing.
    let body = [0xff, 0xff, 0xff, 0xff, 0x0f];
    assert!(matches!(
        DeleteAclsRequest::decode_exact(&body, 3),
        Err(DecodeError::TooManyElements {
            count: 0xffff_fffe,
            remaining: 0,
            ..
        })
    ));
    // Nested: a resource claiming i32::MAX ACLs inside a well-formed outer array.
    let body = [
        0, 0, 0, 0, 0, 0, 0, 0, // throttle, error code, null message... (error_message = "")
        0, 0, 0, 1, // one resource
        2, 0, 1, b'x', 3, // type, name "x", pattern
        0x7f, 0xff, 0xff, 0xff, // acls count
    ];
    assert!(matches!(
        DescribeAclsResponse::decode_exact(&body, 1),
        Err(DecodeError::TooManyElements {
            what: "DescribeAclsResource.acls",
            ..
        })
    ));
}

#[test]
fn preallocation_is_capped_by_bytes_not_count() {
    assert_eq!(prealloc_capacity::<u8>(10), 10);
    let elem = std::mem::size_of::<DescribeAclsResource<'static>>();
    assert_eq!(
        prealloc_capacity::<DescribeAclsResource<'static>>(usize::MAX),
        MAX_PREALLOC_BYTES / elem
    );
    assert!(
        prealloc_capacity::<DescribeAclsResource<'static>>(usize::MAX) * elem <= MAX_PREALLOC_BYTES
    );
}

#[test]
fn invalid_utf8_is_named() {
    let body = [0, 1, 0xff];
    assert_eq!(
        SaslHandshakeRequest::decode_exact(&body, 1),
        Err(DecodeError::InvalidUtf8 {
            what: "SaslHandshakeRequest.mechanism"
        })
    );
}

#[test]
fn null_where_not_nullable_is_named() {
    let body = [0xff, 0xff];
    assert_eq!(
        SaslHandshakeRequest::decode_exact(&body, 0),
        Err(DecodeError::NullNotAllowed {
            what: "SaslHandshakeRequest.mechanism",
            version: 0
        })
    );
    // Compact null (0) for a non-nullable string at v3.
    let body = [0, 1, 0];
    assert_eq!(
        ApiVersionsRequest::decode_exact(&body, 3),
        Err(DecodeError::NullNotAllowed {
            what: "ApiVersionsRequest.client_software_name",
            version: 3
        })
    );
}

#[test]
fn negative_lengths_other_than_minus_one_are_rejected() {
    let body = [0xff, 0xfe];
    assert_eq!(
        SaslHandshakeRequest::decode_exact(&body, 0),
        Err(DecodeError::NegativeLength {
            what: "SaslHandshakeRequest.mechanism",
            length: -2
        })
    );
    let body = [0, 0, 0xff, 0xff, 0xff, 0xf0];
    assert!(matches!(
        CreateAclsResponse::decode_exact(&body[..], 0),
        Err(DecodeError::Truncated { .. }) | Err(DecodeError::NegativeLength { .. })
    ));
}

#[test]
fn overlong_strings_and_varints_are_rejected() {
    // int16 length 0x7fff is allowed in principle; a compact length of 40000 is not.
    let mut body = vec![0xc1, 0xb8, 0x02]; // uvarint 40001 = length 40000
    body.extend(std::iter::repeat_n(b'a', 40000));
    body.extend([1, 0]);
    assert_eq!(
        ApiVersionsRequest::decode_exact(&body, 3),
        Err(DecodeError::LengthTooLong {
            what: "ApiVersionsRequest.client_software_name",
            length: 40000,
            max: 32767
        })
    );
    let body = [0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert_eq!(
        ApiVersionsRequest::decode_exact(&body, 3),
        Err(DecodeError::VarintOverflow {
            what: "ApiVersionsRequest.client_software_name"
        })
    );
}

#[test]
fn unsupported_versions_are_errors_both_ways() {
    assert_eq!(
        DescribeAclsRequest::decode_exact(&[], 4),
        Err(DecodeError::UnsupportedVersion {
            message: "DescribeAclsRequest",
            version: 4
        })
    );
    assert!(DescribeAclsRequest::default().to_bytes(-1).is_err());
}

#[test]
fn known_tagged_field_with_garbage_inside_its_size_is_rejected() {
    // ApiVersionsResponse v3: error 0, no api keys, throttle 0, one tagged field:
    // tag 3 (zk_migration_ready, a bool) with size 2.
    let body = [0, 0, 1, 0, 0, 0, 0, 1, 3, 2, 1, 0];
    assert_eq!(
        ApiVersionsResponse::decode_exact(&body, 3),
        Err(DecodeError::TrailingBytes {
            message: "ApiVersionsResponse.zk_migration_ready",
            remaining: 1
        })
    );
}

#[test]
fn nesting_depth_is_bounded() {
    let mut cx = Cx::top(0, false);
    for _ in 0..MAX_DEPTH {
        cx = cx.nested("x").unwrap();
    }
    assert_eq!(
        cx.nested("x"),
        Err(DecodeError::NestingTooDeep {
            what: "x",
            max: MAX_DEPTH
        })
    );
}
