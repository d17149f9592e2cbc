//! The gateway's request path without an upstream: the real connection loop, router and
//! authorization rules (`kacl_server::fuzzing`) in front of an offline gateway, whose every
//! forward fails and closes the connection. So an *answer* proves that the gateway decided
//! without the upstream: every wholly refused request must be answered with Kafka's code, and
//! arbitrary bytes for any forwarded API must never panic the server or leave half a frame.

use std::borrow::Cow;
use std::sync::Arc;

use kacl_gateway::Gateway;
use kacl_protocol::frame::{decode_response_frame, encode_request_frame};
use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::fetch::{FetchPartition, FetchRequest, FetchResponse, FetchTopic};
use kacl_protocol::messages::find_coordinator::{FindCoordinatorRequest, FindCoordinatorResponse};
use kacl_protocol::messages::init_producer_id::{InitProducerIdRequest, InitProducerIdResponse};
use kacl_protocol::messages::join_group::{JoinGroupRequest, JoinGroupResponse};
use kacl_protocol::messages::offset_for_leader_epoch::{
    OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, OffsetForLeaderPartition,
    OffsetForLeaderTopic,
};
use kacl_protocol::messages::produce::{
    PartitionProduceData, ProduceRequest, ProduceResponse, TopicProduceData,
};
use kacl_protocol::{ApiKey, ErrorCode, Message, RequestHeader};
use kacl_server::fuzzing;
use kacl_server_config::ServerConfig;
use kacl_service::ServerState;
use kacl_store::MemoryStore;
use proptest::prelude::*;

/// A PLAINTEXT gateway node whose clients (`User:ANONYMOUS`) hold no ACLs.
fn state() -> Arc<ServerState> {
    let pairs =
        [("listeners", "PLAINTEXT://127.0.0.1:9092")].map(|(k, v)| (k.to_owned(), v.to_owned()));
    let config = ServerConfig::from_properties("", &pairs).expect("config");
    fuzzing::gateway_state_for(
        config,
        Arc::new(MemoryStore::new()),
        Arc::new(Gateway::offline(&[1, 2])),
    )
    .expect("state")
}

fn frame<'a, M: Message<'a>>(version: i16, correlation_id: i32, body: &M) -> Vec<u8> {
    let header = RequestHeader {
        request_api_key: M::API_KEY.key(),
        request_api_version: version,
        correlation_id,
        client_id: Some(Cow::Borrowed("planning-test")),
        unknown_tagged_fields: Default::default(),
    };
    let mut out = Vec::new();
    encode_request_frame(&mut out, &header, version, body).expect("encodes");
    out
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The server's output as whole frames (panics on a partial one).
fn frames(mut out: &[u8]) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    while !out.is_empty() {
        let size = i32::from_be_bytes(out[..4].try_into().expect("a size prefix"));
        let size = usize::try_from(size).expect("a non-negative size");
        assert!(out.len() >= 4 + size, "a whole frame");
        frames.push(out[4..4 + size].to_vec());
        out = &out[4 + size..];
    }
    frames
}

fn serve(state: &Arc<ServerState>, input: &[u8]) -> Vec<Vec<u8>> {
    let out = runtime()
        .block_on(fuzzing::serve_bytes(state, "PLAINTEXT", input))
        .expect("listener");
    frames(&out)
}

fn produce(acks: i16, transactional_id: Option<&'static str>) -> ProduceRequest<'static> {
    ProduceRequest {
        transactional_id: transactional_id.map(Cow::Borrowed),
        acks,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: Cow::Borrowed("orders"),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(Cow::Borrowed(&[])),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn refused_requests_are_answered_without_the_upstream() {
    let state = state();
    for version in [3, 7, 9, 12] {
        let out = serve(&state, &frame(version, 7, &produce(-1, None)));
        assert_eq!(out.len(), 1, "Produce v{version} answered");
        let (header, body) = decode_response_frame::<ProduceResponse>(&out[0], version).unwrap();
        assert_eq!(header.correlation_id, 7);
        let partition = &body.responses[0].partition_responses[0];
        assert_eq!(
            (body.responses[0].name.as_ref(), partition.error_code),
            ("orders", ErrorCode::TopicAuthorizationFailed.code()),
            "v{version}"
        );
    }

    let fetch = FetchRequest {
        max_wait_ms: 500,
        topics: vec![FetchTopic {
            topic: Cow::Borrowed("orders"),
            partitions: vec![FetchPartition {
                partition: 3,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for version in [4, 11, 12] {
        let out = serve(&state, &frame(version, 8, &fetch));
        let (_, body) = decode_response_frame::<FetchResponse>(&out[0], version).unwrap();
        let partition = &body.responses[0].partitions[0];
        assert_eq!(
            (partition.partition_index, partition.error_code),
            (3, ErrorCode::TopicAuthorizationFailed.code()),
            "Fetch v{version}"
        );
    }

    let join = JoinGroupRequest {
        group_id: Cow::Borrowed("payments"),
        protocol_type: Cow::Borrowed("consumer"),
        ..Default::default()
    };
    let out = serve(&state, &frame(5, 9, &join));
    let (_, body) = decode_response_frame::<JoinGroupResponse>(&out[0], 5).unwrap();
    assert_eq!(body.error_code, ErrorCode::GroupAuthorizationFailed.code());

    let transactional = InitProducerIdRequest {
        transactional_id: Some(Cow::Borrowed("tx-1")),
        transaction_timeout_ms: 60_000,
        ..Default::default()
    };
    let out = serve(&state, &frame(4, 10, &transactional));
    let (_, body) = decode_response_frame::<InitProducerIdResponse>(&out[0], 4).unwrap();
    assert_eq!(
        body.error_code,
        ErrorCode::TransactionalIdAuthorizationFailed.code()
    );
    let idempotent = InitProducerIdRequest {
        transactional_id: None,
        ..transactional
    };
    let out = serve(&state, &frame(4, 11, &idempotent));
    let (_, body) = decode_response_frame::<InitProducerIdResponse>(&out[0], 4).unwrap();
    assert_eq!(
        body.error_code,
        ErrorCode::ClusterAuthorizationFailed.code()
    );

    let find = FindCoordinatorRequest {
        key: Cow::Borrowed("payments"),
        key_type: 0,
        ..Default::default()
    };
    let out = serve(&state, &frame(3, 12, &find));
    let (_, body) = decode_response_frame::<FindCoordinatorResponse>(&out[0], 3).unwrap();
    assert_eq!(body.error_code, ErrorCode::GroupAuthorizationFailed.code());
    assert_eq!(
        (body.node_id, body.port),
        (-1, -1),
        "no address for a refusal"
    );

    // OffsetForLeaderEpoch: DESCRIBE on each topic (no CLUSTER_ACTION), refused per partition
    // with Kafka's defaults for the epoch and the offset.
    let epochs = OffsetForLeaderEpochRequest {
        replica_id: -1,
        topics: vec![OffsetForLeaderTopic {
            topic: Cow::Borrowed("orders"),
            partitions: vec![OffsetForLeaderPartition {
                partition: 2,
                current_leader_epoch: 5,
                leader_epoch: 4,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for version in [2, 3, 4] {
        let out = serve(&state, &frame(version, 13, &epochs));
        let (_, body) =
            decode_response_frame::<OffsetForLeaderEpochResponse>(&out[0], version).unwrap();
        let partition = &body.topics[0].partitions[0];
        assert_eq!(body.topics[0].topic, "orders");
        assert_eq!(
            (
                partition.partition,
                partition.error_code,
                partition.leader_epoch,
                partition.end_offset
            ),
            (2, ErrorCode::TopicAuthorizationFailed.code(), -1, -1),
            "OffsetForLeaderEpoch v{version}"
        );
    }
}

#[test]
fn a_refused_produce_with_acks_0_closes_the_connection() {
    let state = state();
    let mut input = frame(9, 1, &produce(0, None));
    // A second request after it is never answered: the connection is gone.
    input.extend(frame(2, 2, &ApiVersionsRequest::default()));
    assert!(serve(&state, &input).is_empty(), "nothing is answered");
}

#[test]
fn a_transactional_batch_without_its_transactional_id_write_is_refused() {
    let state = state();
    // One v2 batch header with the transactional attribute (bit 4).
    let mut batch = vec![0u8; 61];
    batch[8..12].copy_from_slice(&49i32.to_be_bytes());
    batch[16] = 2;
    batch[21..23].copy_from_slice(&0x10i16.to_be_bytes());
    let mut request = produce(-1, Some("tx-1"));
    request.topic_data[0].partition_data[0].records = Some(Cow::Owned(batch));
    let out = serve(&state, &frame(9, 1, &request));
    let (_, body) = decode_response_frame::<ProduceResponse>(&out[0], 9).unwrap();
    assert_eq!(
        body.responses[0].partition_responses[0].error_code,
        ErrorCode::TransactionalIdAuthorizationFailed.code()
    );
}

/// A one-partition Produce of one record batch of `records` bytes (its header's length field
/// and magic set, `attributes` as given), large enough to be planned on its first part.
fn large_produce(
    acks: i16,
    transactional_id: Option<&'static str>,
    attributes: i16,
    records: usize,
) -> ProduceRequest<'static> {
    let mut batch = vec![0x5Au8; records];
    batch[..61].fill(0);
    batch[8..12].copy_from_slice(&((records - 12) as i32).to_be_bytes());
    batch[16] = 2;
    batch[21..23].copy_from_slice(&attributes.to_be_bytes());
    let mut request = produce(acks, transactional_id);
    request.topic_data[0].partition_data[0].records = Some(Cow::Owned(batch));
    request
}

fn serve_tcp(state: &Arc<ServerState>, input: &[u8]) -> Vec<Vec<u8>> {
    let out = runtime()
        .block_on(fuzzing::serve_bytes_tcp(state, "PLAINTEXT", input))
        .expect("listener");
    frames(&out)
}

/// The cut-through path (a plain TCP client, a 300 KB one-partition Produce): refused on its
/// first part with Kafka's code, its record data read past unread, and the next request on the
/// connection answered, at every version.
#[test]
fn a_large_refused_produce_is_answered_on_its_first_part_and_the_next_request_follows() {
    let state = state();
    for version in [3, 8, 9, 12, 13] {
        let mut input = frame(version, 7, &large_produce(-1, None, 0, 300_000));
        input.extend(frame(2, 8, &ApiVersionsRequest::default()));
        let out = serve_tcp(&state, &input);
        assert_eq!(out.len(), 2, "Produce v{version} and ApiVersions answered");
        let (header, body) = decode_response_frame::<ProduceResponse>(&out[0], version).unwrap();
        assert_eq!(header.correlation_id, 7);
        // v13 names topics by id: an id the gateway never saw is UNKNOWN_TOPIC_ID.
        let expected = if version >= 13 {
            ErrorCode::UnknownTopicId
        } else {
            ErrorCode::TopicAuthorizationFailed
        };
        assert_eq!(
            body.responses[0].partition_responses[0].error_code,
            expected.code(),
            "v{version}"
        );
        let (header, _) = decode_response_frame::<ApiVersionsResponse>(&out[1], 2).unwrap();
        assert_eq!(header.correlation_id, 8, "the connection is still in step");
    }

    // Decided on the first part, so the rest is never read: a request whose last byte is
    // malformed (a tagged-field count with no fields after it) is still answered with its
    // refusal, where a request read whole closes the connection (DIFFERENCES_FROM_KAFKA). This
    // is how the test knows the first-part path was taken.
    let mut input = frame(9, 5, &large_produce(-1, None, 0, 300_000));
    *input.last_mut().unwrap() = 9;
    let out = serve_tcp(&state, &input);
    assert_eq!(out.len(), 1, "answered on the first part");
    let mut whole = frame(9, 5, &produce(-1, None));
    *whole.last_mut().unwrap() = 9;
    assert!(
        serve_tcp(&state, &whole).is_empty(),
        "a small one is read whole: closed"
    );

    // A transactional batch without WRITE on its transactional id: every partition refused.
    let request = large_produce(-1, Some("tx-1"), 0x10, 300_000);
    let out = serve_tcp(&state, &frame(9, 1, &request));
    let (_, body) = decode_response_frame::<ProduceResponse>(&out[0], 9).unwrap();
    assert_eq!(
        body.responses[0].partition_responses[0].error_code,
        ErrorCode::TransactionalIdAuthorizationFailed.code()
    );

    // acks=0: refused means closed, nothing answered.
    let mut input = frame(9, 1, &large_produce(0, None, 0, 300_000));
    input.extend(frame(2, 2, &ApiVersionsRequest::default()));
    assert!(serve_tcp(&state, &input).is_empty(), "nothing is answered");
}

/// What cannot be decided on a first part (several batches, a record length that does not
/// match the frame, two partitions) is read whole and planned as before: still refused with
/// Kafka's code, never a half-read connection.
#[test]
fn a_large_produce_that_needs_the_whole_request_is_read_whole() {
    let state = state();
    let mut two_batches = large_produce(-1, None, 0, 300_000);
    if let Some(Cow::Owned(batch)) = &mut two_batches.topic_data[0].partition_data[0].records {
        batch[8..12].copy_from_slice(&(150_000i32 - 12).to_be_bytes());
        batch[150_000..150_000 + 61].fill(0);
        batch[150_000 + 8..150_000 + 12].copy_from_slice(&(150_000i32 - 12).to_be_bytes());
        batch[150_000 + 16] = 2;
    }
    let mut two_partitions = large_produce(-1, None, 0, 200_000);
    let second = two_partitions.topic_data[0].partition_data[0].clone();
    two_partitions.topic_data[0]
        .partition_data
        .push(PartitionProduceData { index: 1, ..second });
    for (what, request) in [
        ("two batches", two_batches),
        ("two partitions", two_partitions),
    ] {
        let mut input = frame(9, 3, &request);
        input.extend(frame(2, 4, &ApiVersionsRequest::default()));
        let out = serve_tcp(&state, &input);
        assert_eq!(out.len(), 2, "{what}: Produce and ApiVersions answered");
        let (_, body) = decode_response_frame::<ProduceResponse>(&out[0], 9).unwrap();
        let codes: Vec<i16> = body.responses[0]
            .partition_responses
            .iter()
            .map(|p| p.error_code)
            .collect();
        assert!(
            codes
                .iter()
                .all(|c| *c == ErrorCode::TopicAuthorizationFailed.code())
                && !codes.is_empty(),
            "{what}: {codes:?}"
        );
    }
}

#[test]
fn api_versions_list_what_the_gateway_can_authorize() {
    let state = state();
    let out = serve(&state, &frame(2, 1, &ApiVersionsRequest::default()));
    let (_, body) = decode_response_frame::<ApiVersionsResponse>(&out[0], 2).unwrap();
    let range = |api: ApiKey| {
        body.api_keys
            .iter()
            .find(|a| a.api_key == api.key())
            .map(|a| (a.min_version, a.max_version))
    };
    assert_eq!(
        range(ApiKey::Produce),
        Some((3, ApiKey::Produce.versions().max))
    );
    assert_eq!(
        range(ApiKey::AddPartitionsToTxn),
        Some((0, 3)),
        "v4+ is broker-to-broker"
    );
    assert_eq!(range(ApiKey::Metadata), Some((4, 13)));
    assert_eq!(range(ApiKey::DescribeAcls), Some((0, 3)), "kacl's own");
    let known: Vec<i16> = ApiKey::KNOWN.iter().map(|a| a.key()).collect();
    assert!(
        body.api_keys.iter().all(|a| known.contains(&a.api_key)),
        "nothing but known APIs"
    );
}

/// Every API the gateway forwards, with its offered versions.
fn forwarded() -> Vec<(ApiKey, i16, i16)> {
    let state = state();
    let forwarder = state.forwarder.clone().expect("gateway");
    ApiKey::KNOWN
        .iter()
        .filter_map(|api| {
            let range = forwarder.offered_versions(*api)?;
            Some((*api, range.min, range.max))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary bodies for every forwarded API at every offered version: answered or closed,
    /// never a panic, never half a frame.
    #[test]
    fn arbitrary_bodies_never_break_the_gateway(
        pick in 0usize..1000,
        version_pick in 0i16..20,
        body in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let apis = forwarded();
        let (api, min, max) = apis[pick % apis.len()];
        let version = min + version_pick % (max - min + 1);
        let header = RequestHeader {
            request_api_key: api.key(),
            request_api_version: version,
            correlation_id: 5,
            client_id: Some(Cow::Borrowed("fuzz")),
            unknown_tagged_fields: Default::default(),
        };
        let mut payload = Vec::new();
        header.encode(&mut payload, api.request_header_version(version)).unwrap();
        payload.extend_from_slice(&body);
        let mut input = (payload.len() as u32).to_be_bytes().to_vec();
        input.extend(payload);
        let state = state();
        let out = serve(&state, &input);
        prop_assert!(out.len() <= 1);
    }

    /// Large one-partition Produce requests over TCP (the cut-through path) with arbitrary bytes
    /// written over their first part's fields and batch header, at every version: answered or
    /// closed, never a panic, never half a frame, and the request after it answered whenever the
    /// connection stays open.
    #[test]
    fn mangled_first_parts_never_break_the_cut_through_path(
        version in 3i16..=13,
        at in 0usize..160,
        noise in proptest::collection::vec(any::<u8>(), 1..24),
    ) {
        let mut input = frame(version, 7, &large_produce(-1, None, 0, 200_000));
        // Past the size prefix and the request header's fixed fields.
        let start = (12 + at).min(input.len() - noise.len());
        input[start..start + noise.len()].copy_from_slice(&noise);
        input.extend(frame(2, 8, &ApiVersionsRequest::default()));
        let state = state();
        let out = serve_tcp(&state, &input);
        prop_assert!(out.len() <= 2);
    }
}
