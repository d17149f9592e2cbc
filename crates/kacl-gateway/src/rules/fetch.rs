//! Fetch (1), as Kafka's `handleFetchRequest` authorizes a consumer's fetch: READ on each
//! topic, TOPIC_AUTHORIZATION_FAILED for the partitions of the others (UNKNOWN_TOPIC_ID for an
//! id no Metadata answer has shown). A follower's fetch (a replica id) is never forwarded:
//! every partition is refused, as Kafka refuses a follower without CLUSTER_ACTION.
//!
//! Fetch sessions (KIP-227) are not passed on: every forwarded fetch is a full, sessionless
//! one (session id 0, epoch -1), and the answer says session 0, so clients keep sending full
//! fetches. Each request therefore names every partition the consumer reads, and each is
//! authorized on every request: a revoked READ stops the flow on the very next fetch, which
//! authorizing only an incremental fetch's changes would not do. (The cost is the partition
//! list in every request, which is what a broker without fetch-session slots asks too.)
//!
//! Record data passes as bytes; the answer is re-encoded only to merge refused partitions or
//! to rewrite KIP-951 `node_endpoints` (v16+).

use std::borrow::Cow;
use std::sync::Arc;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::frame::{decode_broker_response_frame, RequestFrame};
use kacl_protocol::messages::fetch::{
    FetchRequest, FetchResponse, FetchTopic, FetchableTopicResponse, PartitionData,
};
use kacl_protocol::{ErrorCode, Uuid};
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use crate::plan::{body_of, Asker, Plan};
use crate::rules::endpoints::rewrite_endpoints;
use crate::Shared;

struct Refused {
    topic: String,
    topic_id: Uuid,
    partitions: Vec<i32>,
    code: ErrorCode,
}

pub(super) fn fetch(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: FetchRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let follower = request.replica_id >= 0 || request.replica_state.replica_id >= 0;
    let session = ctx.authorizer();
    let mut refused: Vec<Refused> = Vec::new();
    let by_id = ctx.version >= 13;
    request.topics.retain(|topic| {
        let name = topic_name(shared, topic, by_id);
        let code = match &name {
            _ if follower => Some(ErrorCode::TopicAuthorizationFailed),
            None => Some(ErrorCode::UnknownTopicId),
            Some(name) => (!session.allows(
                AclOperation::Read,
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
                    topic: if by_id {
                        String::new()
                    } else {
                        name.unwrap_or_default()
                    },
                    topic_id: topic.topic_id,
                    partitions: topic.partitions.iter().map(|p| p.partition).collect(),
                    code,
                });
                false
            }
        }
    });
    drop(session);
    let sessionless = ctx.version < 7
        || (request.session_id == 0
            && request.session_epoch == -1
            && request.forgotten_topics_data.is_empty());
    if !sessionless {
        request.session_id = 0;
        request.session_epoch = -1;
        request.forgotten_topics_data.clear();
    }
    let nothing_refused = refused.is_empty();
    let upstream_takes_v15 = shared.fetch_as_v15;
    let shared = shared.clone();
    let merge = move |_: &Asker, body: &mut FetchResponse<'_>| {
        body.session_id = 0;
        rewrite_endpoints(&shared, &mut body.node_endpoints);
        for topic in refused {
            body.responses.push(FetchableTopicResponse {
                topic: Cow::Owned(topic.topic),
                topic_id: topic.topic_id,
                partitions: topic
                    .partitions
                    .into_iter()
                    .map(|partition_index| PartitionData {
                        partition_index,
                        error_code: topic.code.code(),
                        high_watermark: -1,
                        records: Some(Cow::Borrowed(&[])),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    };
    if request.topics.is_empty() && !nothing_refused {
        let mut body = FetchResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if sessionless && !follower && nothing_refused {
        // The fast path: the client's bytes up, the answer's bytes back unread (spliced when
        // large). From v16 an answer may name brokers (KIP-951 `node_endpoints`, the answer's
        // last field, which the gateway must rewrite, changing the size it announces first):
        // the upstream is asked for v15 instead, whose request bytes are the same and whose
        // answer is a v16/v17 answer without them. Deliberate difference from Kafka: such a
        // client learns a moved leader from `current_leader` (v12+) and Metadata, not from
        // `node_endpoints`. (The upstream is trusted to answer v15 as v15: the answer is not
        // read, so a top-level tagged field 0 it should not send would reach the client.)
        if ctx.version < 16 {
            return Plan::pass_bulk(None);
        }
        if upstream_takes_v15 {
            return Plan::pass_bulk(Some(15));
        }
        return Plan::rewrite(Box::new(move |asker: &Asker, payload: Vec<u8>| {
            let names_brokers =
                decode_broker_response_frame::<FetchResponse<'_>>(body_of(&payload), asker.version)
                    .map_or(true, |(_, body)| !body.node_endpoints.is_empty());
            if !names_brokers {
                return asker.pass_through(payload);
            }
            asker.rewrite::<FetchResponse<'_>>(&payload, merge)
        }));
    }
    Plan::reduced(
        ctx,
        frame,
        &request,
        Box::new(move |asker: &Asker, payload: Vec<u8>| {
            asker.rewrite::<FetchResponse<'_>>(&payload, merge)
        }),
    )
}

/// The topic's name: given (v0-12) or looked up by id (v13+).
fn topic_name(shared: &Shared, topic: &FetchTopic<'_>, by_id: bool) -> Option<String> {
    if by_id {
        shared.topic_ids.name(&topic.topic_id)
    } else {
        Some(topic.topic.to_string())
    }
}
