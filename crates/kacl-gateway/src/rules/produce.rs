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
    PartitionProduceResponse, ProduceRequest, ProduceResponse, TopicProduceData,
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
    let session = ctx.authorizer();
    let transactional = request.topic_data.iter().any(|topic| {
        topic
            .partition_data
            .iter()
            .any(|p| p.records.as_deref().is_some_and(has_transactional_batch))
    });
    let mut refused: Vec<Refused> = Vec::new();
    let whole_request_refused = transactional
        && !request.transactional_id.as_deref().is_some_and(|id| {
            session.allows(
                AclOperation::Write,
                ResourceType::TransactionalId,
                id,
                AuditPolicy::ENFORCED,
            )
        });
    let topic_count = request.topic_data.len();
    request.topic_data.retain(|topic| {
        let name = topic_name(shared, topic, ctx.version >= 13);
        let code = match &name {
            _ if whole_request_refused => Some(ErrorCode::TransactionalIdAuthorizationFailed),
            None => Some(ErrorCode::UnknownTopicId),
            Some(name) => (!session.allows(
                AclOperation::Write,
                ResourceType::Topic,
                name,
                AuditPolicy::ENFORCED,
            ))
            .then_some(ErrorCode::TopicAuthorizationFailed),
        };
        match code {
            None => true,
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
    drop(session);
    if request.acks == 0 {
        if !refused.is_empty() {
            return Plan::Answer(Outcome::close(
                "a Produce with acks=0 was refused (Kafka closes the connection)",
            ));
        }
        return Plan::Forward {
            request: None,
            expects_response: false,
            finish: None,
            relay: Relay::default(),
        };
    }
    let shared = shared.clone();
    let merge = move |_: &Asker, body: &mut ProduceResponse<'_>| {
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
    };
    if request.topic_data.len() == topic_count {
        // Nothing refused: the answer is decoded only where it may name brokers.
        if ctx.version < 10 {
            return Plan::pass();
        }
        return Plan::rewrite(Box::new(move |asker: &Asker, payload: Vec<u8>| {
            let names_brokers = decode_broker_response_frame::<ProduceResponse<'_>>(
                body_of(&payload),
                asker.version,
            )
            .map_or(true, |(_, body)| !body.node_endpoints.is_empty());
            if !names_brokers {
                return asker.pass_through(payload);
            }
            asker.rewrite::<ProduceResponse<'_>>(&payload, merge)
        }));
    }
    merged!(
        ctx,
        frame,
        request,
        ProduceResponse,
        request.topic_data.is_empty(),
        merge
    )
}

/// The topic's name: given (v0-12) or looked up by id (v13+); `None` for an id the gateway has
/// not seen in a Metadata answer.
fn topic_name(shared: &Shared, topic: &TopicProduceData<'_>, by_id: bool) -> Option<String> {
    if by_id {
        shared.topic_ids.name(&topic.topic_id)
    } else {
        Some(topic.name.to_string())
    }
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
