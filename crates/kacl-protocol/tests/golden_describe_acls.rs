//! Golden tests from seed 000: the smallest legal DescribeAcls request (23 bytes at v3) and
//! response (28 bytes at v3), byte for byte in both directions, and the same instance at v0, v1
//! and v2, derived by hand from the schemas.

use std::borrow::Cow;

use kacl_protocol::frame::{
    decode_response_frame, encode_request_frame, encode_response_frame, split_frame, RequestFrame,
};
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::SmallArray;
use kacl_protocol::{ApiKey, EncodeError, Message, RequestHeader};

/// The seed's request instance: numeric fields zero, strings empty (not null).
fn seed_request(pattern_type_filter: i8) -> DescribeAclsRequest<'static> {
    DescribeAclsRequest {
        resource_type_filter: 0,
        resource_name_filter: Some(Cow::Borrowed("")),
        pattern_type_filter,
        principal_filter: Some(Cow::Borrowed("")),
        host_filter: Some(Cow::Borrowed("")),
        operation: 0,
        permission_type: 0,
        unknown_tagged_fields: Default::default(),
    }
}

/// The seed's response instance: one resource with one ACL, everything zero or empty.
fn seed_response(pattern_type: i8) -> DescribeAclsResponse<'static> {
    DescribeAclsResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: Some(Cow::Borrowed("")),
        resources: vec![DescribeAclsResource {
            resource_type: 0,
            resource_name: Cow::Borrowed(""),
            pattern_type,
            acls: SmallArray::one(AclDescription {
                principal: Cow::Borrowed(""),
                host: Cow::Borrowed(""),
                operation: 0,
                permission_type: 0,
                unknown_tagged_fields: Default::default(),
            }),
            unknown_tagged_fields: Default::default(),
        }],
        unknown_tagged_fields: Default::default(),
    }
}

const REQUEST_V3: [u8; 23] = [
    0, 0, 0, 19, // size
    0, 29, 0, 3, 0, 0, 0, 0, // api key 29, version 3, correlation id 0
    0, 0, // client_id "" (int16 length, even in header v2)
    0, // header tagged fields
    0, 1, 0, 1, 1, 0, 0, // type, name "", pattern 0, principal "", host "", op, permission
    0, // body tagged fields
];

const REQUEST_V2: [u8; 23] = [
    0, 0, 0, 19, 0, 29, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0,
];

const REQUEST_V1: [u8; 24] = [
    0, 0, 0, 20, // size
    0, 29, 0, 1, 0, 0, 0, 0, 0, 0, // header v1: no tagged fields
    0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, // type, name "" (int16), pattern 0, principal, host, op, perm
];

const REQUEST_V0: [u8; 23] = [
    0, 0, 0, 19, // size
    0, 29, 0, 0, 0, 0, 0, 0, 0, 0, // header v1
    0, 0, 0, 0, 0, 0, 0, 0, 0, // type, name, principal, host, op, perm: no pattern type in v0
];

const RESPONSE_V3: [u8; 28] = [
    0, 0, 0, 24, // size
    0, 0, 0, 0, 0, // header v1: correlation id, tagged fields
    0, 0, 0, 0, 0, 0, 1, // throttle, error code, error message ""
    2, // one resource (n+1)
    0, 1, 0, // resource type, name "", pattern type
    2, // one acl
    1, 1, 0, 0, 0, // principal "", host "", op, permission, tagged fields
    0, // resource tagged fields
    0, // body tagged fields
];

const RESPONSE_V2: [u8; 28] = [
    0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 1, 0, 2, 1, 1, 0, 0, 0, 0, 0,
];

const RESPONSE_V1: [u8; 34] = [
    0, 0, 0, 30, // size
    0, 0, 0, 0, // header v0
    0, 0, 0, 0, 0, 0, 0, 0, // throttle, error code, error message "" (int16)
    0, 0, 0, 1, // one resource (int32)
    0, 0, 0, 0, // resource type, name "", pattern type
    0, 0, 0, 1, // one acl
    0, 0, 0, 0, 0, 0, // principal "", host "", op, permission
];

const RESPONSE_V0: [u8; 33] = [
    0, 0, 0, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
    0, 0,
];

fn request_frame(version: i16, body: &DescribeAclsRequest<'_>) -> Vec<u8> {
    let header = RequestHeader {
        client_id: Some(Cow::Borrowed("")),
        ..Default::default()
    };
    let mut out = Vec::new();
    encode_request_frame(&mut out, &header, version, body).unwrap();
    out
}

fn response_frame(version: i16, body: &DescribeAclsResponse<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    encode_response_frame(&mut out, 0, version, body).unwrap();
    out
}

fn check_request(version: i16, wire: &[u8], instance: DescribeAclsRequest<'_>) {
    assert_eq!(request_frame(version, &instance), wire, "encode v{version}");
    let (payload, consumed) = split_frame(wire, 1 << 20).unwrap().unwrap();
    assert_eq!(consumed, wire.len());
    let frame = RequestFrame::parse(payload).unwrap();
    assert_eq!(frame.api_key, ApiKey::DescribeAcls);
    assert_eq!(frame.version(), version);
    assert_eq!(frame.header.correlation_id, 0);
    assert_eq!(frame.header.client_id.as_deref(), Some(""));
    let decoded: DescribeAclsRequest<'_> = frame.decode_body().unwrap();
    assert_eq!(decoded, instance, "decode v{version}");
    assert_eq!(instance.encoded_len(version), frame.body.len());
}

fn check_response(version: i16, wire: &[u8], instance: DescribeAclsResponse<'_>) {
    assert_eq!(
        response_frame(version, &instance),
        wire,
        "encode v{version}"
    );
    let (payload, _) = split_frame(wire, 1 << 20).unwrap().unwrap();
    let (header, decoded) =
        decode_response_frame::<DescribeAclsResponse<'_>>(payload, version).unwrap();
    assert_eq!(header.correlation_id, 0);
    assert_eq!(decoded, instance, "decode v{version}");
}

#[test]
fn seed_request_v3_is_23_bytes_both_ways() {
    check_request(3, &REQUEST_V3, seed_request(0));
}

#[test]
fn seed_response_v3_is_28_bytes_both_ways() {
    check_response(3, &RESPONSE_V3, seed_response(0));
}

#[test]
fn same_instance_at_v2_matches_v3_layout() {
    check_request(2, &REQUEST_V2, seed_request(0));
    check_response(2, &RESPONSE_V2, seed_response(0));
}

#[test]
fn same_instance_at_v1_uses_classic_encoding() {
    check_request(1, &REQUEST_V1, seed_request(0));
    check_response(1, &RESPONSE_V1, seed_response(0));
}

/// v0 has no pattern type: it decodes as LITERAL (3), the schema default, and only that value
/// can be encoded at v0.
#[test]
fn same_instance_at_v0_has_no_pattern_type() {
    check_request(0, &REQUEST_V0, seed_request(3));
    check_response(0, &RESPONSE_V0, seed_response(3));
    let mut out = Vec::new();
    let err = seed_request(0).encode(&mut out, 0).unwrap_err();
    assert_eq!(
        err,
        EncodeError::NonDefaultField {
            what: "DescribeAclsRequest.pattern_type_filter",
            version: 0
        }
    );
    let err = seed_response(0).encode(&mut out, 0).unwrap_err();
    assert_eq!(
        err,
        EncodeError::NonDefaultField {
            what: "DescribeAclsResource.pattern_type",
            version: 0
        }
    );
}

#[test]
fn default_pattern_type_is_literal() {
    assert_eq!(DescribeAclsRequest::default().pattern_type_filter, 3);
    assert_eq!(DescribeAclsResource::default().pattern_type, 3);
    assert_eq!(DescribeAclsRequest::default().resource_name_filter, None);
}
