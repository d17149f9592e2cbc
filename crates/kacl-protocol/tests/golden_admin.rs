//! Golden bytes for the topic and cluster messages, derived by hand from Kafka's schemas: the
//! nullable-topics quirk of Metadata v0/v1, the first flexible Metadata versions, a v13
//! response, and a CreateTopics v5 result with its tagged `topic_config_error_code`. Both
//! directions: encoding gives the bytes, decoding gives the value.

use std::borrow::Cow;

use kacl_protocol::messages::create_topics::*;
use kacl_protocol::messages::metadata::*;
use kacl_protocol::Message;

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

#[test]
fn metadata_request_all_topics_per_version() {
    // v0 cannot say null: "all topics" is the empty array there.
    let all_v0 = MetadataRequest {
        topics: Some(Vec::new()),
        ..Default::default()
    };
    both_ways(&all_v0, 0, &[0, 0, 0, 0]);
    assert!(MetadataRequest {
        topics: None,
        ..Default::default()
    }
    .to_bytes(0)
    .is_err());

    let all = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    // v1: null array.
    both_ways(&all, 1, &[0xff, 0xff, 0xff, 0xff]);
    // v4: + allow_auto_topic_creation.
    both_ways(&all, 4, &[0xff, 0xff, 0xff, 0xff, 1]);
    // v9 (first flexible): compact null, auto-create, cluster ops, topic ops, no tags.
    both_ways(&all, 9, &[0, 1, 0, 0, 0]);
    // v11: the cluster-operations flag is gone.
    both_ways(&all, 11, &[0, 1, 0, 0]);
}

#[test]
fn metadata_request_by_id_at_v10() {
    let request = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic {
            topic_id: kacl_protocol::Uuid([0xab; 16]),
            name: None,
            ..Default::default()
        }]),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let mut wire = vec![2]; // one topic
    wire.extend([0xab; 16]); // topic id
    wire.extend([0, 0]); // null name, topic tags
    wire.extend([0, 0, 0, 0]); // auto-create false, cluster ops, topic ops, tags
    both_ways(&request, 10, &wire);
    // A null name is not expressible before v10.
    assert!(request.to_bytes(9).is_err());
}

#[test]
fn metadata_response_v13() {
    let response = MetadataResponse {
        brokers: vec![MetadataResponseBroker {
            node_id: 1,
            host: Cow::Borrowed("h"),
            port: 9092,
            rack: None,
            ..Default::default()
        }],
        cluster_id: Some(Cow::Borrowed("c")),
        controller_id: 1,
        error_code: 0,
        ..Default::default()
    };
    let wire = [
        0, 0, 0, 0, // throttle
        2, // one broker
        0, 0, 0, 1, // node id
        2, b'h', // host
        0, 0, 0x23, 0x84, // port 9092
        0,    // rack null
        0,    // broker tags
        2, b'c', // cluster id
        0, 0, 0, 1, // controller id
        1, // no topics
        0, 0, // error code (v13)
        0, // tags
    ];
    both_ways(&response, 13, &wire);
}

#[test]
fn create_topics_response_v5_with_tagged_config_error() {
    let response = CreateTopicsResponse {
        topics: vec![CreatableTopicResult {
            name: Cow::Borrowed("t"),
            error_code: 0,
            error_message: None,
            topic_config_error_code: 42,
            num_partitions: 1,
            replication_factor: 1,
            configs: None,
            ..Default::default()
        }],
        ..Default::default()
    };
    let wire = [
        0, 0, 0, 0, // throttle
        2, // one topic
        2, b't', // name
        0, 0, // error code
        0, // error message null
        0, 0, 0, 1, // num partitions
        0, 1, // replication factor
        0, // configs null
        1, 0, 2, 0, 42, // one tagged field: tag 0, size 2, int16 42
        0,  // response tags
    ];
    both_ways(&response, 5, &wire);
    // Before v5 the tagged field has nowhere to go; it is ignorable, so it is dropped.
    let v4 = response.to_bytes(4).unwrap();
    assert_eq!(v4, [0, 0, 0, 0, 0, 0, 0, 1, 0, 1, b't', 0, 0, 0xff, 0xff]);
}
