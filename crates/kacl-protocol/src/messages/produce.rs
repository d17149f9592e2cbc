//! Produce (API key 0): write record batches to partitions. A gateway node authorizes each
//! topic and forwards the request; the record batches stay borrowed bytes, never decoded.
//!
//! v3 adds the transactional id (KIP-98) and requires record batch format v2; v4 may return
//! KAFKA_STORAGE_ERROR; v5 returns the log start offset; v6 and v7 (ZStd, KIP-110) change no
//! fields; v8 returns per-record errors and an error message (KIP-467); v9 is the first flexible
//! version; v10 returns the current leader and the leaders' endpoints in tagged fields (KIP-951);
//! v11 may return TRANSACTION_ABORTABLE (KIP-890); v12 lets a transactional producer skip
//! AddPartitionsToTxn (KIP-890 part 2); v13 names topics by id instead of name (KIP-516).
//! Versions 0-2 were removed in Kafka 4 (KIP-896).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// Record batches to append, per topic and partition.
    pub struct ProduceRequest<'a> {
        api_key: Produce, versions: 3-13, flexible: 9+;
        /// The transactional id, or null if the producer is not transactional.
        transactional_id: Option<Cow<'a, str>> [versions 3+, nullable 3+],
        /// The acknowledgments required: 0 none, 1 the leader, -1 the full ISR.
        acks: i16 [versions 0+],
        /// How long to wait for the acknowledgments, in milliseconds.
        timeout_ms: i32 [versions 0+],
        /// Each topic to produce to.
        topic_data: Vec<TopicProduceData<'a>> [versions 0+],
    }

    /// The data for one topic.
    pub struct TopicProduceData<'a> {
        /// The topic name (v0-12).
        name: Cow<'a, str> [versions 0-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// Each partition to produce to.
        partition_data: Vec<PartitionProduceData<'a>> [versions 0+],
    }

    /// The data for one partition.
    pub struct PartitionProduceData<'a> {
        /// The partition index.
        index: i32 [versions 0+],
        /// The record batches, borrowed from the frame and never decoded.
        records: Option<Cow<'a, [u8]>> [versions 0+, nullable 0+,
            default Some(Cow::Borrowed(&[]))],
    }
}

kafka_message! {
    /// The outcome per topic and partition.
    pub struct ProduceResponse<'a> {
        api_key: Produce, versions: 3-13, flexible: 9+;
        /// Each topic produced to.
        responses: Vec<TopicProduceResponse<'a>> [versions 0+],
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The endpoints of the current leaders named in partitions that failed with
        /// NOT_LEADER_OR_FOLLOWER (tagged, v10+).
        node_endpoints: Vec<NodeEndpoint<'a>> [versions 10+, tag 0, ignorable],
    }

    /// The outcome for one topic.
    pub struct TopicProduceResponse<'a> {
        /// The topic name (v0-12).
        name: Cow<'a, str> [versions 0-12, ignorable],
        /// The topic id (v13+).
        topic_id: Uuid [versions 13+, ignorable],
        /// Each partition produced to.
        partition_responses: Vec<PartitionProduceResponse<'a>> [versions 0+],
    }

    /// The outcome for one partition.
    pub struct PartitionProduceResponse<'a> {
        /// The partition index.
        index: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The offset of the first appended record.
        base_offset: i64 [versions 0+],
        /// The broker's append time with LogAppendTime, or -1 with CreateTime.
        log_append_time_ms: i64 [versions 2+, default -1],
        /// The log start offset, or -1.
        log_start_offset: i64 [versions 5+, ignorable, default -1],
        /// The batch indices of the records that caused the batch to be dropped (v8+).
        record_errors: Vec<BatchIndexAndErrorMessage<'a>> [versions 8+, ignorable],
        /// The error message common to the dropped records, or null (v8+).
        error_message: Option<Cow<'a, str>> [versions 8+, nullable 8+, ignorable],
        /// The leader the producer should use from now on (tagged, v10+).
        current_leader: LeaderIdAndEpoch<'a> [versions 10+, tag 0, ignorable],
    }

    /// One record that caused its batch to be dropped.
    pub struct BatchIndexAndErrorMessage<'a> {
        /// The index of the record in its batch.
        batch_index: i32 [versions 8+],
        /// The record's error message, or null.
        batch_index_error_message: Option<Cow<'a, str>> [versions 8+, nullable 8+],
    }

    /// A partition's current leader.
    pub struct LeaderIdAndEpoch<'a> {
        /// The id of the leader broker, or -1 if unknown.
        leader_id: i32 [versions 10+, default -1],
        /// The leader epoch, or -1.
        leader_epoch: i32 [versions 10+, default -1],
    }

    /// The endpoint of one broker.
    pub struct NodeEndpoint<'a> {
        /// The broker id.
        node_id: i32 [versions 10+],
        /// The broker hostname.
        host: Cow<'a, str> [versions 10+],
        /// The broker port.
        port: i32 [versions 10+],
        /// The rack of the broker, or null if it has none.
        rack: Option<Cow<'a, str>> [versions 10+, nullable 10+],
    }
}

/// The fields of a one-topic, one-partition [`ProduceRequest`] that come before its record
/// data, read from the request's first bytes alone: a gateway authorizes a megabyte Produce on
/// these and relays the records as they arrive, never holding the whole request. They are the
/// fields [`ProduceRequest`] declares, read in its order at its versions; a request of several
/// topics or partitions has no head (the gateway decodes it whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProduceRequestHead<'a> {
    /// The transactional id, or null.
    pub transactional_id: Option<&'a str>,
    /// The acknowledgments required.
    pub acks: i16,
    /// The topic's name (v3-12; empty at v13+).
    pub topic_name: &'a str,
    /// The topic's id (v13+; zero before).
    pub topic_id: Uuid,
    /// The partition index.
    pub partition: i32,
    /// Where the partition's record data starts in the body.
    pub records_at: usize,
    /// The record data's length.
    pub records_len: usize,
}

impl<'a> ProduceRequestHead<'a> {
    /// Reads the head from the start of a request body at `version`; `None` when the bytes end
    /// before the record data starts, or the request is not for exactly one topic and one
    /// partition with record data.
    pub fn read(body: &'a [u8], version: i16) -> Option<ProduceRequestHead<'a>> {
        let flexible = version >= 9;
        let mut r = crate::Reader::new(body);
        let count = |r: &mut crate::Reader<'a>, what| -> Option<i64> {
            if flexible {
                r.read_uvarint(what).ok().map(|n| i64::from(n) - 1)
            } else {
                r.read_i32(what).ok().map(i64::from)
            }
        };
        let transactional_id = r.read_nullable_str("transactional_id", flexible).ok()?;
        let acks = r.read_i16("acks").ok()?;
        r.read_i32("timeout_ms").ok()?;
        if count(&mut r, "topic_data")? != 1 {
            return None;
        }
        let (topic_name, topic_id) = if version >= 13 {
            ("", r.read_uuid("topic_id").ok()?)
        } else {
            (r.read_nullable_str("name", flexible).ok()??, Uuid::ZERO)
        };
        if count(&mut r, "partition_data")? != 1 {
            return None;
        }
        let partition = r.read_i32("index").ok()?;
        let records_len = usize::try_from(count(&mut r, "records")?).ok()?;
        Some(ProduceRequestHead {
            transactional_id,
            acks,
            topic_name,
            topic_id,
            partition,
            records_at: r.position(),
            records_len,
        })
    }

    /// The bytes that end a one-topic, one-partition request at `version` after its record
    /// data when it carries no tagged fields: the partition's, the topic's and the request's
    /// empty tagged fields (v9+), nothing before.
    pub fn plain_end(version: i16) -> &'static [u8] {
        if version >= 9 {
            &[0, 0, 0]
        } else {
            &[]
        }
    }
}

/// Checks [`ProduceRequestHead::read`] against the whole request's decoder on `body` at
/// `version` (panics on a disagreement): where the head reads, it names the one topic and
/// partition the whole request holds, and the records it points at are that partition's. For
/// the fuzzer and the tests.
#[doc(hidden)]
pub fn check_head_agrees(body: &[u8], version: i16) {
    use crate::Message as _;
    let Some(head) = ProduceRequestHead::read(body, version) else {
        return;
    };
    let records = body.get(head.records_at..head.records_at + head.records_len);
    let Ok(whole) = ProduceRequest::decode_exact(body, version) else {
        return;
    };
    let [topic] = &whole.topic_data[..] else {
        panic!("a head for a request of {} topics", whole.topic_data.len());
    };
    let [partition] = &topic.partition_data[..] else {
        panic!("a head for {} partitions", topic.partition_data.len());
    };
    assert_eq!(head.transactional_id, whole.transactional_id.as_deref());
    assert_eq!(head.acks, whole.acks);
    if version >= 13 {
        assert_eq!(head.topic_id, topic.topic_id);
    } else {
        assert_eq!(head.topic_name, topic.name);
    }
    assert_eq!(head.partition, partition.index);
    assert_eq!(records, partition.records.as_deref());
    assert_eq!(
        body.get(head.records_at + head.records_len..),
        Some(ProduceRequestHead::plain_end(version)),
        "a one-partition request without tagged fields ends with the plain end"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{encode_request_frame, RequestFrame};
    use crate::RequestHeader;

    fn request(
        topics: usize,
        partitions: usize,
        transactional: Option<&str>,
    ) -> ProduceRequest<'_> {
        ProduceRequest {
            transactional_id: transactional.map(Cow::Borrowed),
            acks: -1,
            timeout_ms: 30_000,
            topic_data: (0..topics)
                .map(|t| TopicProduceData {
                    name: Cow::Owned(format!("topic-{t}")),
                    topic_id: Uuid([t as u8 + 1; 16]),
                    partition_data: (0..partitions)
                        .map(|p| PartitionProduceData {
                            index: p as i32 + 7,
                            records: Some(Cow::Owned(vec![0xAB; 300])),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// The request's frame body at `version`.
    fn body(request: &ProduceRequest<'_>, version: i16) -> Vec<u8> {
        let header = RequestHeader {
            request_api_key: 0,
            request_api_version: version,
            correlation_id: 5,
            client_id: Some("c".into()),
            unknown_tagged_fields: Default::default(),
        };
        let mut out = Vec::new();
        encode_request_frame(&mut out, &header, version, request).unwrap();
        RequestFrame::parse(&out[4..]).unwrap().body.to_vec()
    }

    #[test]
    fn the_head_is_read_from_the_bytes_before_the_records_at_every_version() {
        for version in 3..=13 {
            let bytes = body(&request(1, 1, Some("tx")), version);
            let head = ProduceRequestHead::read(&bytes, version).expect("a head");
            assert_eq!(head.transactional_id, Some("tx"));
            assert_eq!(head.acks, -1);
            assert_eq!(head.partition, 7);
            if version >= 13 {
                assert_eq!((head.topic_name, head.topic_id), ("", Uuid([1; 16])));
            } else {
                assert_eq!((head.topic_name, head.topic_id), ("topic-0", Uuid::ZERO));
            }
            assert_eq!(head.records_len, 300, "v{version}");
            let records = &bytes[head.records_at..head.records_at + head.records_len];
            assert!(records.iter().all(|b| *b == 0xAB));
            // What follows the records is exactly the plain end.
            assert_eq!(
                &bytes[head.records_at + 300..],
                ProduceRequestHead::plain_end(version),
                "v{version}"
            );
            // Only the bytes up to the records are needed.
            assert_eq!(
                ProduceRequestHead::read(&bytes[..head.records_at], version),
                Some(head.clone())
            );
            assert_eq!(
                ProduceRequestHead::read(&bytes[..head.records_at - 1], version),
                None
            );
        }
    }

    #[test]
    fn several_topics_or_partitions_have_no_head() {
        for version in [3, 9, 13] {
            assert!(
                ProduceRequestHead::read(&body(&request(2, 1, None), version), version).is_none()
            );
            assert!(
                ProduceRequestHead::read(&body(&request(1, 2, None), version), version).is_none()
            );
            assert!(
                ProduceRequestHead::read(&body(&request(0, 0, None), version), version).is_none()
            );
            let plain = body(&request(1, 1, None), version);
            let head = ProduceRequestHead::read(&plain, version);
            assert_eq!(head.map(|h| h.transactional_id), Some(None));
        }
    }

    proptest::proptest! {
        /// The head agrees with the whole request for any one-topic request, and reading any
        /// bytes, or any prefix of a request, never panics.
        #[test]
        fn the_head_agrees_with_the_whole_request(
            version in 3i16..=13,
            transactional in proptest::option::of("[a-z]{0,12}"),
            topic in "[a-zA-Z0-9._-]{1,40}",
            partition in proptest::prelude::any::<i32>(),
            records in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            cut in 0usize..600,
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
        ) {
            let request = ProduceRequest {
                transactional_id: transactional.as_deref().map(Cow::Borrowed),
                acks: 1,
                timeout_ms: 5,
                topic_data: vec![TopicProduceData {
                    name: Cow::Borrowed(&topic),
                    topic_id: Uuid([3; 16]),
                    partition_data: vec![PartitionProduceData {
                        index: partition,
                        records: Some(Cow::Borrowed(&records)),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            };
            let bytes = body(&request, version);
            check_head_agrees(&bytes, version);
            proptest::prop_assert!(ProduceRequestHead::read(&bytes, version).is_some());
            let prefix = &bytes[..cut.min(bytes.len())];
            if let Some(head) = ProduceRequestHead::read(prefix, version) {
                proptest::prop_assert_eq!(Some(head), ProduceRequestHead::read(&bytes, version));
            }
            let _ = ProduceRequestHead::read(&noise, version);
            check_head_agrees(&noise, version);
        }
    }
}
