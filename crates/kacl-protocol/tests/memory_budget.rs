//! `Reader::with_memory_budget`: decoding charges every array element and every kept unknown
//! tagged field against the budget, in the body, in known tagged fields (read through a
//! sub-reader) and in request headers, and fails with `MemoryBudgetExceeded` exactly when the
//! budget is too small — never before.

use std::borrow::Cow;
use std::mem::size_of;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::api_versions::{ApiVersionsResponse, SupportedFeatureKey};
use kacl_protocol::messages::describe_acls::DescribeAclsRequest;
use kacl_protocol::messages::metadata::{MetadataRequest, MetadataRequestTopic};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::{DecodeError, Message, Reader};

fn decode_within<'a, M: Message<'a>>(
    bytes: &'a [u8],
    version: i16,
    budget: usize,
) -> Result<M, DecodeError> {
    let mut r = Reader::new(bytes).with_memory_budget(budget);
    M::decode(&mut r, version)
}

fn is_over_budget<T>(result: &Result<T, DecodeError>) -> bool {
    matches!(result, Err(DecodeError::MemoryBudgetExceeded { .. }))
}

/// Metadata v0 of `names` empty topic names: 2 bytes each on the wire.
fn metadata_of_empty_names(names: usize) -> Vec<u8> {
    let mut body = (names as i32).to_be_bytes().to_vec();
    body.resize(4 + 2 * names, 0);
    body
}

/// A DescribeAcls v2 (flexible) body with an empty tagged section.
fn describe_acls_v2_body() -> Vec<u8> {
    DescribeAclsRequest {
        resource_type_filter: 1,
        pattern_type_filter: 1,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    }
    .to_bytes(2)
    .unwrap()
}

#[test]
fn array_elements_are_charged_exactly() {
    let names = 1_000;
    let body = metadata_of_empty_names(names);
    let needed = names * size_of::<MetadataRequestTopic<'static>>();
    let unbounded = MetadataRequest::decode_exact(&body, 0).unwrap();
    assert_eq!(unbounded.topics.as_ref().map(Vec::len), Some(names));
    let within = decode_within::<MetadataRequest>(&body, 0, needed).unwrap();
    assert_eq!(within, unbounded);
    let short = decode_within::<MetadataRequest>(&body, 0, needed - 1);
    assert!(is_over_budget(&short), "{short:?}");
    let message = short.unwrap_err().to_string();
    assert!(
        message.contains("MetadataRequest.topics") && message.contains("decoding budget"),
        "{message}"
    );
}

#[test]
fn a_wire_frame_of_tiny_elements_cannot_decode_to_gigabytes() {
    // 8 MB of empty names would be ~190 MB decoded; a 16 MiB budget stops it after the first
    // runs, with nothing near that allocated.
    let body = metadata_of_empty_names(4 << 20);
    let result = decode_within::<MetadataRequest>(&body, 0, 16 << 20);
    assert!(is_over_budget(&result), "{result:?}");
}

#[test]
fn unknown_tagged_fields_are_charged() {
    // DescribeAcls v2 (flexible) with three unknown tags in its tagged section.
    let mut body = describe_acls_v2_body();
    assert_eq!(body.pop(), Some(0), "an empty tagged section ends the body");
    body.extend_from_slice(&[3, 10, 1, 0xaa, 11, 0, 12, 2, 0xbb, 0xcc]);
    let needed = 3 * size_of::<RawTaggedField<'static>>();
    let within = decode_within::<DescribeAclsRequest>(&body, 2, needed).unwrap();
    assert_eq!(within.unknown_tagged_fields.len(), 3);
    let short = decode_within::<DescribeAclsRequest>(&body, 2, needed - 1);
    assert!(is_over_budget(&short), "{short:?}");
}

#[test]
fn known_tagged_fields_draw_on_the_same_budget() {
    let features = 20;
    let response = ApiVersionsResponse {
        supported_features: (0..features)
            .map(|i| SupportedFeatureKey {
                name: Cow::Owned(format!("feature-{i}")),
                min_version: 0,
                max_version: 1,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let body = response.to_bytes(3).unwrap();
    let needed = features * size_of::<SupportedFeatureKey<'static>>();
    let within = decode_within::<ApiVersionsResponse>(&body, 3, needed).unwrap();
    assert_eq!(within, response);
    let short = decode_within::<ApiVersionsResponse>(&body, 3, needed - 1);
    assert!(is_over_budget(&short), "{short:?}");
    // What the tagged field used is gone from the reader that read it.
    let mut r = Reader::new(&body).with_memory_budget(needed + 100);
    ApiVersionsResponse::decode(&mut r, 3).unwrap();
    assert_eq!(r.memory_budget(), 100);
}

#[test]
fn request_headers_share_the_budget_with_their_body() {
    // A DescribeAcls v2 request (header v2) whose header carries two unknown tagged fields.
    let body = describe_acls_v2_body();
    let mut payload = Vec::new();
    payload.extend_from_slice(&29i16.to_be_bytes());
    payload.extend_from_slice(&2i16.to_be_bytes());
    payload.extend_from_slice(&7i32.to_be_bytes());
    payload.extend_from_slice(&(-1i16).to_be_bytes());
    payload.extend_from_slice(&[2, 0, 0, 1, 0]);
    payload.extend_from_slice(&body);
    let per_tag = size_of::<RawTaggedField<'static>>();

    let frame = RequestFrame::parse_within(&payload, 2 * per_tag + 5).unwrap();
    assert_eq!(frame.header.unknown_tagged_fields.len(), 2);
    assert_eq!(frame.memory_budget, 5);
    assert_eq!(frame.body_reader().memory_budget(), 5);
    frame.decode_body::<DescribeAclsRequest>().unwrap();
    let short = RequestFrame::parse_within(&payload, 2 * per_tag - 1);
    assert!(is_over_budget(&short), "{short:?}");
    // Without a budget, nothing is refused.
    assert!(RequestFrame::parse(&payload).is_ok());
}
