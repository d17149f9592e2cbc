//! `encode_response_frame_with_array` (a response whose last array is written element by
//! element) and `StreamedArrayFrame` (the same frame written in pieces, sent while it is
//! encoded) must produce exactly the frame `encode_response_frame` produces for the same message.

mod common;

use kacl_protocol::frame::{
    encode_response_frame, encode_response_frame_with_array, StreamedArrayFrame,
};
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

/// The frame as `StreamedArrayFrame` writes it, the elements spread over pieces of
/// `elements_per_piece` (the head alone in the first), concatenated.
fn in_pieces(
    response: &DescribeAclsResponse<'_>,
    version: i16,
    elements_per_piece: usize,
) -> Result<Vec<u8>, EncodeError> {
    let shell = DescribeAclsResponse {
        resources: Vec::new(),
        ..response.clone()
    };
    let elements_len = response
        .resources
        .iter()
        .map(|resource| resource.field_len(cx_of(version)))
        .sum();
    let mut pieces = vec![Vec::new()];
    let mut frame = StreamedArrayFrame::start(
        &mut pieces[0],
        7,
        version,
        &shell,
        response.resources.len(),
        elements_len,
    )?;
    for chunk in response.resources.chunks(elements_per_piece.max(1)) {
        let mut piece = Vec::new();
        for resource in chunk {
            frame.append(&mut piece, resource)?;
        }
        pieces.push(piece);
    }
    let mut last = Vec::new();
    frame.finish(&mut last)?;
    pieces.push(last);
    Ok(pieces.concat())
}

proptest! {
    #[test]
    fn frames_written_in_pieces_equal_whole_ones(
        (version, response) in (0..=3i16).prop_flat_map(|v| (Just(v), common::describe_acls_response(v))),
        per_piece in 1..4usize,
    ) {
        let mut whole = Vec::new();
        encode_response_frame(&mut whole, 7, version, &response).unwrap();
        if response.unknown_tagged_fields.is_empty() {
            prop_assert_eq!(in_pieces(&response, version, per_piece).unwrap(), whole);
        } else {
            prop_assert_eq!(
                in_pieces(&response, version, per_piece),
                Err(EncodeError::NotStreamable { message: "DescribeAclsResponse", version })
            );
        }
    }

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

/// Pieces that do not add up to what the head announced fail at the element that overflows
/// or at the end, never as a frame whose size prefix lies.
#[test]
fn a_wrongly_sized_frame_in_pieces_is_an_error() {
    use kacl_protocol::messages::describe_acls::DescribeAclsResource;
    let resource = DescribeAclsResource {
        resource_name: "orders".into(),
        ..Default::default()
    };
    for version in 0..=3 {
        let real = resource.field_len(cx_of(version));
        let shell = DescribeAclsResponse::default();
        // Announced too small: the element that does not fit fails.
        let mut out = Vec::new();
        let mut frame =
            StreamedArrayFrame::start(&mut out, 7, version, &shell, 1, real - 1).unwrap();
        let err = frame.append(&mut out, &resource).unwrap_err();
        assert!(
            matches!(
                err,
                EncodeError::SizeMismatch {
                    overflowed: true,
                    ..
                }
            ),
            "{err}"
        );
        // Announced too large, or more elements than written: the end fails.
        let mut frame =
            StreamedArrayFrame::start(&mut out, 7, version, &shell, 1, real + 1).unwrap();
        frame.append(&mut out, &resource).unwrap();
        let err = frame.finish(&mut out).unwrap_err();
        assert!(
            matches!(
                err,
                EncodeError::SizeMismatch {
                    overflowed: false,
                    ..
                }
            ),
            "{err}"
        );
        let frame = StreamedArrayFrame::start(&mut out, 7, version, &shell, 2, real).unwrap();
        let err = frame.finish(&mut out).unwrap_err();
        assert!(
            matches!(
                err,
                EncodeError::ArrayCountMismatch {
                    declared: 2,
                    written: 0,
                    ..
                }
            ),
            "{err}"
        );
        // More elements than the count announced.
        let mut frame =
            StreamedArrayFrame::start(&mut out, 7, version, &shell, 1, 2 * real).unwrap();
        frame.append(&mut out, &resource).unwrap();
        assert!(frame.append(&mut out, &resource).is_err());
    }
}
