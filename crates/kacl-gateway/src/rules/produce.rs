//! Produce (0), as Kafka's `handleProduceRequest` authorizes it: a request carrying
//! transactional batches needs WRITE on its transactional id (else every partition is
//! TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and each topic needs WRITE (else its partitions are
//! TOPIC_AUTHORIZATION_FAILED). The refused topics are taken out of the forwarded request and
//! answered by the gateway; record batches are never decoded, only their 61-byte headers are
//! peeked for the transactional flag. A refused request with acks=0 closes the connection, as
//! Kafka does, since there is no answer to carry the error.
//!
//! The answer is decoded only to rewrite the KIP-951 `node_endpoints` (v10+) to gateway
//! endpoints and to merge the refused topics; otherwise the upstream's bytes pass as they are.

use std::borrow::Cow;
use std::sync::Arc;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::frame::{decode_broker_response_frame, RequestFrame};
use kacl_protocol::messages::produce::{
    PartitionProduceResponse, ProduceRequest, ProduceRequestHead, ProduceResponse,
    TopicProduceResponse,
};
use kacl_protocol::{ErrorCode, Uuid};
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;
use kacl_service::Outcome;

use crate::plan::{body_of, Asker, Plan, Relay};
use crate::rules::endpoints::rewrite_endpoints;
use crate::Shared;

/// A topic the gateway answers itself, with the code of all its partitions.
struct Refused {
    name: String,
    topic_id: Uuid,
    partitions: Vec<i32>,
    code: ErrorCode,
}

pub(super) fn produce(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: ProduceRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let transactional = request.topic_data.iter().any(|topic| {
        topic.partition_data.iter().any(|p| {
            p.records
                .as_deref()
                .is_some_and(|r| !lacks_a_batch(r) && has_transactional_batch(r))
        })
    });
    let decision = Decision::new(ctx, transactional, request.transactional_id.as_deref());
    let mut refused: Vec<Refused> = Vec::new();
    let topic_count = request.topic_data.len();
    let mut reduced = false;
    request.topic_data.retain_mut(|topic| {
        let name = topic_name(shared, &topic.name, &topic.topic_id, ctx.version >= 13);
        match decision.topic(name.as_deref()) {
            None => {
                // Kafka finds no batch in a record set whose first batch runs past its end,
                // and answers that partition INVALID_RECORD; the gateway answers it so
                // itself and never forwards the partial batch.
                let before = topic.partition_data.len();
                let mut missing: Vec<i32> = Vec::new();
                topic.partition_data.retain(|p| {
                    let bad = p.records.as_deref().is_some_and(lacks_a_batch);
                    if bad {
                        missing.push(p.index);
                    }
                    !bad
                });
                if !missing.is_empty() {
                    reduced = true;
                    refused.push(Refused {
                        name: if ctx.version >= 13 {
                            String::new()
                        } else {
                            name.unwrap_or_default()
                        },
                        topic_id: topic.topic_id,
                        partitions: missing,
                        code: ErrorCode::InvalidRecord,
                    });
                }
                topic.partition_data.len() == before || !topic.partition_data.is_empty()
            }
            Some(code) => {
                refused.push(Refused {
                    name: if ctx.version >= 13 {
                        String::new()
                    } else {
                        name.unwrap_or_default()
                    },
                    topic_id: topic.topic_id,
                    partitions: topic.partition_data.iter().map(|p| p.index).collect(),
                    code,
                });
                false
            }
        }
    });
    drop(decision);
    if request.acks == 0 {
        return unanswered(refused.is_empty());
    }
    if request.topic_data.len() == topic_count && !reduced {
        return answered_as_is(shared, ctx.version);
    }
    merged!(
        ctx,
        frame,
        request,
        ProduceResponse,
        request.topic_data.is_empty(),
        merge_refused(shared.clone(), refused)
    )
}

/// A one-topic, one-partition Produce of which only the first part has arrived, checked to be
/// decidable on that part: one record batch, whose header is there, filling the partition's
/// record data, and nothing after it but the empty tagged fields. [`ProduceHead::plan`] makes
/// the decision [`produce`] would make of the whole request.
///
/// Deliberately unlike Kafka (DIFFERENCES_FROM_KAFKA): Kafka reads a request whole before it
/// authorizes it, so a request malformed past its batch header closes the connection there;
/// refused here, such a request is answered with its refusal, its rest read past unread.
/// Forwarded, its last bytes are checked before they complete it upstream.
pub(crate) struct ProduceHead {
    transactional_id: Option<String>,
    acks: i16,
    topic: Refused,
    transactional: bool,
    /// What the frame must end with after the record data.
    pub(crate) expected_end: &'static [u8],
}

impl ProduceHead {
    /// Checks the first part (`body`: the request body as far as it has arrived, `rest` bytes
    /// of the frame still to come); `None` when the whole request is needed to decide.
    pub(crate) fn check(
        shared: &Shared,
        version: i16,
        body: &[u8],
        rest: usize,
    ) -> Option<ProduceHead> {
        const BATCH_HEADER: usize = 61;
        let head = ProduceRequestHead::read(body, version)?;
        let records = body.get(head.records_at..)?;
        let header = records.get(..BATCH_HEADER)?;
        let batch_length =
            usize::try_from(i32::from_be_bytes(header[8..12].try_into().ok()?)).ok()?;
        let expected_end = ProduceRequestHead::plain_end(version);
        let frame_end = head.records_at + head.records_len + expected_end.len();
        let one_batch = batch_length.checked_add(12) == Some(head.records_len);
        if header[16] != 2 || !one_batch || frame_end != body.len() + rest {
            return None;
        }
        let attributes = i16::from_be_bytes([header[21], header[22]]);
        let name = topic_name(shared, head.topic_name, &head.topic_id, version >= 13);
        Some(ProduceHead {
            transactional_id: head.transactional_id.map(str::to_owned),
            acks: head.acks,
            topic: Refused {
                name: name.unwrap_or_default(),
                topic_id: head.topic_id,
                partitions: vec![head.partition],
                code: ErrorCode::None,
            },
            transactional: attributes & 0x10 != 0,
            expected_end,
        })
    }

    /// Authorizes the request as [`produce`] does the whole of it: forwarded as the client
    /// sent it, or answered (its record data never read).
    pub(crate) fn plan(self, shared: &Arc<Shared>, ctx: &RequestContext<'_>) -> Plan {
        let ProduceHead {
            transactional_id,
            acks,
            mut topic,
            transactional,
            ..
        } = self;
        let decision = Decision::new(ctx, transactional, transactional_id.as_deref());
        let known = ctx.version < 13 || !topic.name.is_empty();
        let refusal = decision.topic(known.then_some(topic.name.as_str()));
        drop(decision);
        if acks == 0 {
            return unanswered(refusal.is_none());
        }
        let Some(code) = refusal else {
            return answered_as_is(shared, ctx.version);
        };
        if ctx.version >= 13 {
            topic.name.clear();
        }
        topic.code = code;
        let mut body = ProduceResponse::default();
        merge_refused(shared.clone(), vec![topic])(&Asker::of(ctx), &mut body);
        Plan::answer(ctx, &body)
    }
}

/// Kafka's order of checks for one Produce: WRITE on the transactional id when a batch is
/// transactional (refused, every topic is TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then WRITE
/// on each topic.
struct Decision<'c> {
    session: kacl_service::state::AuditedSession<'c>,
    whole_request_refused: bool,
}

impl<'c> Decision<'c> {
    fn new(
        ctx: &'c RequestContext<'_>,
        transactional: bool,
        transactional_id: Option<&str>,
    ) -> Decision<'c> {
        let session = ctx.authorizer();
        let whole_request_refused = transactional
            && !transactional_id.is_some_and(|id| {
                session.allows(
                    AclOperation::Write,
                    ResourceType::TransactionalId,
                    id,
                    AuditPolicy::ENFORCED,
                )
            });
        Decision {
            session,
            whole_request_refused,
        }
    }

    /// The code of a topic refused (`None`: allowed); `name` is `None` for a topic id the
    /// gateway does not know.
    fn topic(&self, name: Option<&str>) -> Option<ErrorCode> {
        match name {
            _ if self.whole_request_refused => Some(ErrorCode::TransactionalIdAuthorizationFailed),
            None => Some(ErrorCode::UnknownTopicId),
            Some(name) => (!self.session.allows(
                AclOperation::Write,
                ResourceType::Topic,
                name,
                AuditPolicy::ENFORCED,
            ))
            .then_some(ErrorCode::TopicAuthorizationFailed),
        }
    }
}

/// A Produce with acks=0, which the upstream never answers: forwarded when nothing was
/// refused; a refusal closes the connection, as Kafka does, since no answer can carry it.
fn unanswered(nothing_refused: bool) -> Plan {
    if !nothing_refused {
        return Plan::Answer(Outcome::close(
            "a Produce with acks=0 was refused (Kafka closes the connection)",
        ));
    }
    Plan::Forward {
        request: None,
        expects_response: false,
        finish: None,
        relay: Relay::default(),
    }
}

/// Nothing refused: the request goes as it came, and its answer is decoded only where it may
/// name brokers (v10+ `node_endpoints`).
fn answered_as_is(shared: &Arc<Shared>, version: i16) -> Plan {
    if version < 10 {
        return Plan::pass();
    }
    let merge = merge_refused(shared.clone(), Vec::new());
    Plan::rewrite(Box::new(move |asker: &Asker, payload: Vec<u8>| {
        let names_brokers =
            decode_broker_response_frame::<ProduceResponse<'_>>(body_of(&payload), asker.version)
                .map_or(true, |(_, body)| !body.node_endpoints.is_empty());
        if !names_brokers {
            return asker.pass_through(payload);
        }
        asker.rewrite::<ProduceResponse<'_>>(&payload, merge)
    }))
}

/// Rewrites an answer's broker endpoints to the gateway's and adds the refused topics.
fn merge_refused(
    shared: Arc<Shared>,
    refused: Vec<Refused>,
) -> impl FnOnce(&Asker, &mut ProduceResponse<'_>) + Send + 'static {
    move |_: &Asker, body: &mut ProduceResponse<'_>| {
        rewrite_endpoints(&shared, &mut body.node_endpoints);
        for topic in refused {
            body.responses.push(TopicProduceResponse {
                name: Cow::Owned(topic.name),
                topic_id: topic.topic_id,
                partition_responses: topic
                    .partitions
                    .into_iter()
                    .map(|index| PartitionProduceResponse {
                        index,
                        error_code: topic.code.code(),
                        base_offset: -1,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    }
}

/// The topic's name: given (v0-12) or looked up by id (v13+); `None` for an id the gateway has
/// not seen in a Metadata answer.
fn topic_name(shared: &Shared, name: &str, id: &Uuid, by_id: bool) -> Option<String> {
    if by_id {
        shared.topic_ids.name(id)
    } else {
        Some(name.to_owned())
    }
}

/// Whether Kafka's batch iterator finds no batch in a non-empty record set: fewer bytes than a
/// batch's length prefix, or a first batch (of a plausible length) that runs past the end.
/// Kafka then answers the partition INVALID_RECORD ("must have at least one record batch").
pub(crate) fn lacks_a_batch(records: &[u8]) -> bool {
    /// Offset and length fields.
    const LOG_OVERHEAD: usize = 12;
    /// Kafka's smallest legal record size (`LegacyRecord.RECORD_OVERHEAD_V0`); below it the
    /// set is corrupt, not short.
    const MIN_RECORD_SIZE: i32 = 14;
    if records.is_empty() {
        return false;
    }
    if records.len() < LOG_OVERHEAD {
        return true;
    }
    let batch_length = i32::from_be_bytes([records[8], records[9], records[10], records[11]]);
    batch_length >= MIN_RECORD_SIZE
        && usize::try_from(batch_length)
            .is_ok_and(|l| l.saturating_add(LOG_OVERHEAD) > records.len())
}

/// Whether a record set holds a transactional batch: the attributes (bytes 21-22 of each v2
/// batch header) have bit 4 set. The batches are walked by their length fields only; a
/// malformed set is left to the upstream to refuse (CORRUPT_MESSAGE), and counts as
/// transactional so that it cannot slip past the transactional id check.
pub(crate) fn has_transactional_batch(records: &[u8]) -> bool {
    const HEADER: usize = 61;
    let mut rest = records;
    while !rest.is_empty() {
        if rest.len() < HEADER {
            return true;
        }
        let magic = rest[16];
        if magic < 2 {
            // Old message formats have no transactions (Kafka 4 refuses them anyway).
            return false;
        }
        let attributes = i16::from_be_bytes([rest[21], rest[22]]);
        if attributes & 0x10 != 0 {
            return true;
        }
        let batch_length = i32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]);
        let Some(total) = usize::try_from(batch_length)
            .ok()
            .and_then(|l| l.checked_add(12))
        else {
            return true;
        };
        if total > rest.len() || total < HEADER {
            return true;
        }
        rest = &rest[total..];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(attributes: i16, records_len: usize) -> Vec<u8> {
        let mut b = vec![0u8; 61 + records_len];
        let length = (b.len() - 12) as i32;
        b[8..12].copy_from_slice(&length.to_be_bytes());
        b[16] = 2;
        b[21..23].copy_from_slice(&attributes.to_be_bytes());
        b
    }

    #[test]
    fn finds_the_transactional_flag_in_any_batch() {
        assert!(!has_transactional_batch(&[]));
        assert!(!has_transactional_batch(&batch(0, 10)));
        assert!(has_transactional_batch(&batch(0x10, 0)));
        let mut two = batch(0, 5);
        two.extend(batch(0x10 | 0x20, 3));
        assert!(has_transactional_batch(&two));
        let mut plain = batch(0, 5);
        plain.extend(batch(0x20, 3));
        assert!(!has_transactional_batch(&plain));
    }

    #[test]
    fn a_first_batch_running_past_the_end_is_no_batch() {
        let whole = batch(0x10, 10);
        assert!(!lacks_a_batch(&whole));
        assert!(!lacks_a_batch(&[]));
        assert!(lacks_a_batch(&whole[..whole.len() - 1]));
        assert!(lacks_a_batch(&whole[..11]));
        let mut tiny = whole.clone();
        tiny[8..12].copy_from_slice(&13i32.to_be_bytes());
        assert!(
            !lacks_a_batch(&tiny),
            "a length below 14 is corrupt, not short"
        );
    }

    #[test]
    fn a_malformed_record_set_counts_as_transactional() {
        let mut short = batch(0, 10);
        short.truncate(40);
        assert!(has_transactional_batch(&short));
        let mut lying = batch(0, 10);
        lying[8..12].copy_from_slice(&1_000_000i32.to_be_bytes());
        assert!(has_transactional_batch(&lying));
        let mut negative = batch(0, 10);
        negative[8..12].copy_from_slice(&(-5i32).to_be_bytes());
        assert!(has_transactional_batch(&negative));
    }
}
