//! `encode_response_frame_with_array` (a response whose last array is written element by
//! element) must produce exactly the frame `encode_response_frame` produces for the same message.

mod common;

use kacl_protocol::frame::{encode_response_frame, encode_response_frame_with_array};
use kacl_protocol::messages::describe_acls::DescribeAclsResponse;
use kacl_protocol::wire::{Cx, Field, Message, TaggedFields};
use kacl_protocol::EncodeError;
use proptest::prelude::*;

/// The context the response's elements are sized in.
fn cx_of(version: i16) -> Cx {
    Cx::top(version, DescribeAclsResponse::FLEXIBLE.contains(version))
}

fn streamed(response: &DescribeAclsResponse<'_>, version: i16) -> Result<Vec<u8>, EncodeError> {
    let shell = DescribeAclsResponse {
        resources: Vec::new(),
        ..response.clone()
    };
    let mut out = Vec::new();
    encode_response_frame_with_array(
        &mut out,
        7,
        version,
        &shell,
        response.resources.len(),
        response
            .resources
            .iter()
            .map(|resource| resource.field_len(cx_of(version)))
            .sum(),
        |out, cx| {
            response
                .resources
                .iter()
                .try_for_each(|resource| resource.encode_field(out, cx, "resource"))
        },
    )?;
    Ok(out)
}

proptest! {
    #[test]
    fn streamed_describe_acls_frames_equal_whole_ones(
        (version, response) in (0..=3i16).prop_flat_map(|v| (Just(v), common::describe_acls_response(v)))
    ) {
        let mut whole = Vec::new();
        encode_response_frame(&mut whole, 7, version, &response).unwrap();
        if response.unknown_tagged_fields.is_empty() {
            prop_assert_eq!(streamed(&response, version).unwrap(), whole);
        } else {
            // Top-level tagged fields follow the array; the streaming encoder refuses them.
            prop_assert_eq!(
                streamed(&response, version),
                Err(EncodeError::NotStreamable { message: "DescribeAclsResponse", version })
            );
        }
    }
}

#[test]
fn an_empty_answer_streams_like_a_whole_one() {
    for version in 0..=3 {
        let response = DescribeAclsResponse {
            unknown_tagged_fields: TaggedFields::new(),
            ..Default::default()
        };
        let mut whole = Vec::new();
        encode_response_frame(&mut whole, 7, version, &response).unwrap();
        assert_eq!(streamed(&response, version).unwrap(), whole);
    }
}

/// Elements that do not fill the size they were announced with fail the frame, whichever way
/// the size is wrong.
#[test]
fn a_wrongly_sized_stream_is_an_error() {
    use kacl_protocol::messages::describe_acls::DescribeAclsResource;
    let resource = DescribeAclsResource {
        resource_name: "orders".into(),
        ..Default::default()
    };
    for version in 0..=3 {
        let real = resource.field_len(cx_of(version));
        for announced in [real - 1, real + 1, 0] {
            let mut out = Vec::new();
            let err = encode_response_frame_with_array(
                &mut out,
                7,
                version,
                &DescribeAclsResponse::default(),
                1,
                announced,
                |out, cx| resource.encode_field(out, cx, "resource"),
            )
            .unwrap_err();
            assert!(
                matches!(err, EncodeError::SizeMismatch { expected, .. } if expected == announced),
                "v{version}, {announced} of {real}: {err}"
            );
        }
    }
}
