use std::borrow::Cow;

use kacl_protocol::frame::{decode_response_frame, encode_response_frame};
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsResource, DescribeAclsResponse,
};
use proptest::prelude::*;

use super::*;

/// What a visitor sees of one resource: its pattern and its entries, owned.
type Seen = (i8, String, i8, Vec<(String, String, i8, i8)>);

fn seen(group: AclGroupRef<'_>) -> Seen {
    (
        group.resource_type.code(),
        group.name.to_owned(),
        group.pattern_type.code(),
        group
            .entries()
            .map(|e| {
                (
                    e.principal.to_owned(),
                    e.host.to_owned(),
                    e.operation.code(),
                    e.permission_type.code(),
                )
            })
            .collect(),
    )
}

/// The whole-frame decode, as `Response::decode` does it: the resources seen, or the error.
fn whole(payload: &[u8], version: i16) -> Result<(DescribeAclsHead, Vec<Seen>), DecodeError> {
    let (_, body) = decode_response_frame::<DescribeAclsResponse>(payload, version)?;
    let head = DescribeAclsHead {
        throttle_time_ms: body.throttle_time_ms,
        error_code: body.error_code,
        error_message: body.error_message.as_deref().map(str::to_owned),
        resources: body.resources.len(),
    };
    Ok((head, AclGroupRef::of(&body).map(seen).collect()))
}

/// The streamed decode of `payload` split at `cuts`: what was visited, and the outcome.
fn chunked(
    payload: &[u8],
    version: i16,
    cuts: &[usize],
) -> (Vec<Seen>, Result<DescribeAclsHead, DecodeError>) {
    let mut decoder = DescribeAclsDecoder::new(version, payload.len());
    let mut visited = Vec::new();
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (payload.len() + 1)).collect();
    bounds.push(payload.len());
    bounds.sort_unstable();
    let mut from = 0;
    for to in bounds {
        decoder.push(&payload[from..to]);
        from = to;
        if let Err(err) = decoder.advance(false, &mut |g| visited.push(seen(g))) {
            return (visited, Err(err));
        }
    }
    if payload.is_empty() {
        if let Err(err) = decoder.advance(false, &mut |g| visited.push(seen(g))) {
            return (visited, Err(err));
        }
    }
    assert!(decoder.is_done(), "a complete frame decodes to the end");
    (visited, Ok(decoder.head().cloned().expect("head decoded")))
}

fn frame(response: &DescribeAclsResponse<'_>, version: i16) -> Vec<u8> {
    let mut response = response.clone();
    if version == 0 {
        // v0 has no pattern type: only LITERAL (the default) can be encoded.
        response
            .resources
            .iter_mut()
            .for_each(|r| r.pattern_type = 3);
    }
    let mut out = Vec::new();
    encode_response_frame(&mut out, 7, version, &response).unwrap();
    out.split_off(4)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z*]{0,12}",
        "User:[a-zé-]{1,8}",
        Just(String::new()),
        "\\PC{0,6}",
    ]
}

fn response() -> impl Strategy<Value = DescribeAclsResponse<'static>> {
    let acl = (text(), text(), 0i8..14, 0i8..4).prop_map(|(p, h, op, perm)| AclDescription {
        principal: Cow::Owned(p),
        host: Cow::Owned(h),
        operation: op,
        permission_type: perm,
        ..Default::default()
    });
    let resource = (
        0i8..8,
        text(),
        prop_oneof![Just(3i8), 0i8..5],
        prop::collection::vec(acl, 0..6),
    )
        .prop_map(|(t, name, pt, acls)| DescribeAclsResource {
            resource_type: t,
            resource_name: Cow::Owned(name),
            pattern_type: pt,
            acls: acls.into(),
            ..Default::default()
        });
    (
        any::<i32>(),
        prop_oneof![Just(0i16), any::<i16>()],
        prop::option::of(text()),
        prop::collection::vec(resource, 0..12),
    )
        .prop_map(
            |(throttle, code, message, resources)| DescribeAclsResponse {
                throttle_time_ms: throttle,
                error_code: code,
                error_message: message.map(Cow::Owned),
                resources,
                ..Default::default()
            },
        )
}

fn same_outcome(payload: &[u8], version: i16, cuts: &[usize]) -> Result<(), TestCaseError> {
    let expected = whole(payload, version);
    let (visited, outcome) = chunked(payload, version, cuts);
    match (expected, outcome) {
        (Ok((head, resources)), Ok(streamed_head)) => {
            prop_assert_eq!(head, streamed_head);
            prop_assert_eq!(resources, visited);
        }
        (Err(expected), Err(err)) => prop_assert_eq!(expected, err),
        (expected, outcome) => {
            prop_assert!(false, "whole {:?} but chunked {:?}", expected, outcome)
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any answer, split anywhere: the same head and the same resources in the same order.
    #[test]
    fn chunked_decode_is_the_whole_frame_decode(
        response in response(),
        version in 0i16..=3,
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let payload = frame(&response, version);
        same_outcome(&payload, version, &cuts)?;
    }

    /// Damaged answers (bytes changed, the frame cut short or extended): the same error as the
    /// whole-frame decode, or, where the damage still decodes, the same resources.
    #[test]
    fn damaged_input_fails_as_the_whole_frame_decode_does(
        response in response(),
        version in 0i16..=3,
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in any::<usize>(),
        extra in prop::collection::vec(any::<u8>(), 0..3),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut payload = frame(&response, version);
        for (at, byte) in flips {
            if !payload.is_empty() {
                let at = at % payload.len();
                payload[at] = byte;
            }
        }
        if cut % 3 == 0 {
            payload.truncate(cut % (payload.len() + 1));
        }
        payload.extend(extra);
        same_outcome(&payload, version, &cuts)?;
    }
}

#[test]
fn a_huge_resources_count_is_refused_against_the_frame_not_the_buffer() {
    let response = DescribeAclsResponse {
        resources: vec![DescribeAclsResource {
            resource_name: "t".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut payload = frame(&response, 1);
    // v1: correlation id 4, throttle 4, error 2, null message 2, then the i32 count.
    payload[12..16].copy_from_slice(&1000i32.to_be_bytes());
    let mut decoder = DescribeAclsDecoder::new(1, payload.len());
    decoder.push(&payload[..16]);
    let err = decoder.advance(false, &mut |_| {}).unwrap_err();
    assert_eq!(err, whole(&payload, 1).unwrap_err());
    assert!(err.to_string().contains("declares 1000 elements"), "{err}");
}

#[test]
fn resources_are_visited_before_the_frame_is_complete() {
    let acl = AclDescription {
        principal: "User:a".into(),
        host: "*".into(),
        operation: 3,
        permission_type: 3,
        ..Default::default()
    };
    let response = DescribeAclsResponse {
        resources: (0..100)
            .map(|i| DescribeAclsResource {
                resource_type: 2,
                resource_name: format!("topic-{i}").into(),
                pattern_type: 3,
                acls: vec![acl.clone(); 3].into(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let payload = frame(&response, 3);
    let mut decoder = DescribeAclsDecoder::new(3, payload.len());
    decoder.push(&payload[..payload.len() / 2]);
    decoder.advance(true, &mut |_| panic!("head only")).unwrap();
    assert_eq!(decoder.head().map(|h| h.resources), Some(100));
    let mut seen = 0;
    decoder.advance(false, &mut |_| seen += 1).unwrap();
    assert!(seen > 40 && seen < 100, "{seen}");
    assert!(!decoder.is_done());
    decoder.push(&payload[payload.len() / 2..]);
    decoder.advance(false, &mut |_| seen += 1).unwrap();
    assert_eq!(seen, 100);
    assert!(decoder.is_done());
}
