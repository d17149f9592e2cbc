//! Hand-derived ApiVersions and SASL encodings: the tagged-field section of the ApiVersions
//! response (tags in ascending order, defaults omitted, unknown tags preserved), the classic v0
//! layout, and SaslAuthenticate's v1 session lifetime.

use std::borrow::Cow;

use kacl_protocol::frame::encode_response_frame;
use kacl_protocol::messages::api_versions::*;
use kacl_protocol::messages::sasl_authenticate::*;
use kacl_protocol::messages::sasl_handshake::*;
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{EncodeError, Message};

fn one_api() -> Vec<ApiVersion<'static>> {
    vec![ApiVersion {
        api_key: 29,
        min_version: 0,
        max_version: 3,
        ..Default::default()
    }]
}

#[test]
fn api_versions_response_v0_is_classic() {
    let response = ApiVersionsResponse {
        api_keys: one_api(),
        ..Default::default()
    };
    assert_eq!(
        response.to_bytes(0).unwrap(),
        [0, 0, 0, 0, 0, 1, 0, 29, 0, 0, 0, 3]
    );
    // Throttle time is ignorable: dropped silently at v0.
    let throttled = ApiVersionsResponse {
        throttle_time_ms: 5,
        ..response.clone()
    };
    assert_eq!(
        throttled.to_bytes(0).unwrap(),
        response.to_bytes(0).unwrap()
    );
    assert_eq!(
        throttled.to_bytes(1).unwrap(),
        [0, 0, 0, 0, 0, 1, 0, 29, 0, 0, 0, 3, 0, 0, 0, 5]
    );
}

#[test]
fn api_versions_response_v3_writes_non_default_tags_in_order() {
    let response = ApiVersionsResponse {
        api_keys: one_api(),
        throttle_time_ms: 0,
        supported_features: Vec::new(),
        finalized_features_epoch: 7,
        finalized_features: Vec::new(),
        zk_migration_ready: true,
        unknown_tagged_fields: vec![RawTaggedField {
            tag: 9,
            data: Cow::Borrowed(&[0xaa]),
        }]
        .into(),
        ..Default::default()
    };
    let expected = [
        0, 0, // error code
        2, // one api key (compact)
        0, 29, 0, 0, 0, 3, 0, // key, min, max, tagged fields
        0, 0, 0, 0, // throttle
        3, // three tagged fields
        1, 8, 0, 0, 0, 0, 0, 0, 0, 7, // tag 1 finalized_features_epoch
        3, 1, 1, // tag 3 zk_migration_ready
        9, 1, 0xaa, // unknown tag 9, preserved
    ];
    let bytes = response.to_bytes(3).unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(
        ApiVersionsResponse::decode_exact(&bytes, 3).unwrap(),
        response
    );
}

#[test]
fn api_versions_response_frame_always_uses_header_v0() {
    let response = ApiVersionsResponse {
        api_keys: one_api(),
        ..Default::default()
    };
    let mut out = Vec::new();
    encode_response_frame(&mut out, 42, 3, &response).unwrap();
    // size, correlation id (no header tagged-field byte), then the body.
    assert_eq!(&out[..8], [0, 0, 0, 19, 0, 0, 0, 42]);
    assert_eq!(out[8..], response.to_bytes(3).unwrap()[..]);
}

#[test]
fn api_versions_request_v3_carries_client_software() {
    let request = ApiVersionsRequest {
        client_software_name: Cow::Borrowed("kacl"),
        client_software_version: Cow::Borrowed("1"),
        ..Default::default()
    };
    assert_eq!(
        request.to_bytes(3).unwrap(),
        [5, b'k', b'a', b'c', b'l', 2, b'1', 0]
    );
    // Ignorable at v0-2: the body is empty.
    assert_eq!(request.to_bytes(2).unwrap(), [] as [u8; 0]);
}

#[test]
fn sasl_messages_match_their_schemas() {
    let handshake = SaslHandshakeResponse {
        error_code: 0,
        mechanisms: vec![Cow::Borrowed("PLAIN")],
        ..Default::default()
    };
    assert_eq!(
        handshake.to_bytes(1).unwrap(),
        [0, 0, 0, 0, 0, 1, 0, 5, b'P', b'L', b'A', b'I', b'N']
    );
    let auth = SaslAuthenticateResponse {
        error_code: 0,
        error_message: None,
        auth_bytes: Cow::Borrowed(b"ok"),
        session_lifetime_ms: 1000,
        ..Default::default()
    };
    assert_eq!(
        auth.to_bytes(1).unwrap(),
        [0, 0, 0xff, 0xff, 0, 0, 0, 2, b'o', b'k', 0, 0, 0, 0, 0, 0, 0x03, 0xe8]
    );
    assert_eq!(
        auth.to_bytes(2).unwrap(),
        [0, 0, 0, 3, b'o', b'k', 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0]
    );
    // The lifetime is not ignorable: Kafka refuses to drop it at v0.
    assert_eq!(
        auth.to_bytes(0),
        Err(EncodeError::NonDefaultField {
            what: "SaslAuthenticateResponse.session_lifetime_ms",
            version: 0
        })
    );
}
