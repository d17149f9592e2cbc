//! `encode_response_frame_with_array` (a response whose last array is written element by
//! element) must produce exactly the frame `encode_response_frame` produces for the same message.

mod common;

use kacl_protocol::frame::{encode_response_frame, encode_response_frame_with_array};
use kacl_protocol::messages::describe_acls::DescribeAclsResponse;
use kacl_protocol::wire::{Field, TaggedFields};
use kacl_protocol::EncodeError;
use proptest::prelude::*;

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
