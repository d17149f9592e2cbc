//! DescribeTopicPartitions (75), v0 (KIP-966): the partitions of topics from kacl's topic
//! registry, paged by a cursor, as Kafka's `DescribeTopicPartitionsRequestHandler` and
//! `KRaftMetadataCache.getTopicMetadataForDescribeTopicResponse` answer it.
//!
//! Kafka's rules kept:
//! - an empty topic list means every topic; named topics are described once each; either way
//!   only names at or after the cursor's topic are considered, in name order;
//! - with named topics, a cursor naming a topic outside the list is INVALID_REQUEST on every
//!   requested topic;
//! - DESCRIBE on each topic, audited both ways (Kafka's handler logs the denials even of the
//!   all-topics listing): refused named topics are answered TOPIC_AUTHORIZATION_FAILED with a
//!   zero id after every other topic, refused topics of the listing are left out;
//! - the page holds at most `min(2000, response_partition_limit)` partitions (Kafka's
//!   `max.request.partition.size.limit` default): the cursor's topic starts at the cursor's
//!   partition, every other at 0; a topic cut short ends the page with a cursor at its first
//!   partition left out; a topic reached with the budget spent ends it with a cursor at its
//!   partition 0; a missing named topic is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION
//!   for an illegal name) and costs nothing;
//! - each described (or missing) topic carries the caller's authorized operations on it.
//!
//! Partitions are what Metadata says of them ([`super::metadata::replica_states`]): replicas
//! on live brokers are in sync and the first leads; with none live the leader is -1 and, as
//! in Kafka's answer to this API, the partition carries no error code. kacl keeps no
//! eligible-leader sets, so both ELR lists are empty, as Kafka's are with ELR off.

use std::borrow::Cow;
use std::collections::BTreeSet;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::describe_topic_partitions::{
    Cursor, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse,
    DescribeTopicPartitionsResponsePartition, DescribeTopicPartitionsResponseTopic,
};
use kacl_protocol::ErrorCode;
use kacl_store::TopicRecord;
use kacl_topics::{is_internal, validate_topic_name};

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::topic_registry::TopicTable;

/// Kafka's `max.request.partition.size.limit` default: the most partitions one answer holds
/// whatever the request asks.
pub const MAX_PARTITIONS_PER_RESPONSE: i32 = 2000;

/// DescribeTopicPartitions: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeTopicPartitions;

impl Handler for DescribeTopicPartitions {
    type Request<'r> = DescribeTopicPartitionsRequest<'r>;
    type Response<'r> = DescribeTopicPartitionsResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeTopicPartitionsRequest<'r>,
    ) -> Result<DescribeTopicPartitionsResponse<'r>, Outcome> {
        Ok(answer(ctx, &request, &ctx.state.topics.read()))
    }
}

/// Answers one DescribeTopicPartitions request from `table`, the topics as the caller holds
/// them locked (the answer copies their names: it outlives the lock).
fn answer<'t>(
    ctx: &RequestContext<'_>,
    request: &'t DescribeTopicPartitionsRequest<'t>,
    table: &'t TopicTable,
) -> DescribeTopicPartitionsResponse<'static> {
    let all = request.topics.is_empty();
    let cursor_topic: &str = request.cursor.as_ref().map_or("", |c| &c.topic_name);
    // Names at or after the cursor's, once each, in name order.
    let names: BTreeSet<&'t str> = if all {
        table
            .iter()
            .map(|t| t.name.as_str())
            .filter(|name| *name >= cursor_topic)
            .collect()
    } else {
        request
            .topics
            .iter()
            .map(|t| &*t.name)
            .filter(|name| *name >= cursor_topic)
            .collect()
    };
    if !all && request.cursor.is_some() && !names.contains(cursor_topic) {
        return invalid_request(request);
    }
    let session = ctx.authorizer();
    let mut refused = Vec::new();
    let allowed = names.into_iter().filter(|name| {
        let ok = session.allows(
            AclOperation::Describe,
            ResourceType::Topic,
            name,
            AuditPolicy::ENFORCED,
        );
        if !ok && !all {
            refused.push(DescribeTopicPartitionsResponseTopic {
                error_code: ErrorCode::TopicAuthorizationFailed.code(),
                name: Some(Cow::Owned((*name).to_owned())),
                ..Default::default()
            });
        }
        ok
    });
    let live = super::brokers::live_brokers(ctx.state);
    let limit = MAX_PARTITIONS_PER_RESPONSE.min(request.response_partition_limit);
    let start_of = |name: &str| match &request.cursor {
        Some(cursor) if cursor.topic_name == name => cursor.partition_index,
        _ => 0,
    };
    let mut page = paginate(allowed, |name| table.get(name), start_of, limit, all, &live);
    for topic in &mut page.topics {
        let name = topic.name.as_deref().unwrap_or_default();
        topic.topic_authorized_operations =
            session.authorized_operations(ResourceType::Topic, name);
    }
    // `filter` is lazy: the refusals are all known once the page is built.
    page.topics.extend(refused);
    page
}

/// The page over `names` (allowed, in order), Kafka's `getTopicMetadataForDescribeTopicResponse`:
/// at most `limit` partitions, `start_of(name)` the first partition of each topic, missing
/// topics answered unless `listing`.
fn paginate<'t>(
    names: impl Iterator<Item = &'t str>,
    lookup: impl Fn(&str) -> Option<&'t TopicRecord>,
    start_of: impl Fn(&str) -> i32,
    limit: i32,
    listing: bool,
    live: &[i32],
) -> DescribeTopicPartitionsResponse<'static> {
    let mut response = DescribeTopicPartitionsResponse::default();
    let mut remaining = i64::from(limit);
    for name in names {
        if remaining == 0 {
            // The budget is spent: the next page starts at this topic, whether it exists or
            // not (Kafka points there without looking).
            response.next_cursor = Some(cursor(name, 0));
            break;
        }
        if remaining < 0 {
            // A negative limit: Kafka describes nothing and gives no cursor.
            continue;
        }
        let Some(record) = lookup(name) else {
            if !listing {
                let code = if validate_topic_name(name).is_ok() {
                    ErrorCode::UnknownTopicOrPartition
                } else {
                    ErrorCode::InvalidTopicException
                };
                response.topics.push(DescribeTopicPartitionsResponseTopic {
                    error_code: code.code(),
                    name: Some(Cow::Owned(name.to_owned())),
                    is_internal: is_internal(name),
                    ..Default::default()
                });
            }
            continue;
        };
        let count = record.partitions.len() as i64;
        let start = i64::from(start_of(name));
        let upper = count.min(start + remaining);
        let partitions: Vec<_> = record
            .partitions
            .iter()
            .filter(|p| (start..upper).contains(&i64::from(p.partition_index)))
            .map(|p| partition(p.partition_index, &p.replicas, live))
            .collect();
        remaining -= partitions.len() as i64;
        response.topics.push(DescribeTopicPartitionsResponseTopic {
            error_code: 0,
            name: Some(Cow::Owned(record.name.clone())),
            topic_id: Uuid(record.topic_id),
            is_internal: is_internal(&record.name),
            partitions,
            ..Default::default()
        });
        if upper < count {
            // `upper` < `count` ≤ i32::MAX partitions.
            response.next_cursor = Some(cursor(name, upper as i32));
            break;
        }
    }
    response
}

fn cursor(name: &str, partition_index: i32) -> Cursor<'static> {
    Cursor {
        topic_name: Cow::Owned(name.to_owned()),
        partition_index,
        unknown_tagged_fields: Default::default(),
    }
}

fn partition(
    partition_index: i32,
    replicas: &[i32],
    live: &[i32],
) -> DescribeTopicPartitionsResponsePartition<'static> {
    let (leader_id, isr, offline) = super::metadata::replica_states(replicas, live);
    DescribeTopicPartitionsResponsePartition {
        error_code: 0,
        partition_index,
        leader_id,
        leader_epoch: 0,
        replica_nodes: replicas.to_vec(),
        isr_nodes: isr,
        eligible_leader_replicas: Some(Vec::new()),
        last_known_elr: Some(Vec::new()),
        offline_replicas: offline,
        unknown_tagged_fields: Default::default(),
    }
}

/// Kafka's answer to a request it refuses outright (`DescribeTopicPartitionsRequest
/// .getErrorResponse`): every requested topic with the error and no partitions.
fn invalid_request(
    request: &DescribeTopicPartitionsRequest<'_>,
) -> DescribeTopicPartitionsResponse<'static> {
    DescribeTopicPartitionsResponse {
        topics: request
            .topics
            .iter()
            .map(|t| DescribeTopicPartitionsResponseTopic {
                error_code: ErrorCode::InvalidRequest.code(),
                name: Some(Cow::Owned(t.name.to_string())),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_store::PartitionRecord;

    fn record(name: &str, partitions: i32) -> TopicRecord {
        TopicRecord {
            name: name.to_owned(),
            topic_id: [name.len() as u8; 16],
            partitions: (0..partitions)
                .map(|i| PartitionRecord {
                    partition_index: i,
                    replicas: vec![1, 2],
                })
                .collect(),
            configs: Default::default(),
            created_seq: 0,
        }
    }

    fn page<'t>(
        table: &'t [TopicRecord],
        names: &[&'t str],
        cursor: Option<(&str, i32)>,
        limit: i32,
        listing: bool,
    ) -> DescribeTopicPartitionsResponse<'t> {
        let start_of = |name: &str| match cursor {
            Some((topic, index)) if topic == name => index,
            _ => 0,
        };
        paginate(
            names.iter().copied(),
            |name| table.iter().find(|t| t.name == name),
            start_of,
            limit,
            listing,
            &[1],
        )
    }

    fn shape(response: &DescribeTopicPartitionsResponse<'_>) -> Vec<(String, i16, Vec<i32>)> {
        response
            .topics
            .iter()
            .map(|t| {
                (
                    t.name.clone().unwrap_or_default().into_owned(),
                    t.error_code,
                    t.partitions.iter().map(|p| p.partition_index).collect(),
                )
            })
            .collect()
    }

    fn next(response: &DescribeTopicPartitionsResponse<'_>) -> Option<(String, i32)> {
        response
            .next_cursor
            .as_ref()
            .map(|c| (c.topic_name.to_string(), c.partition_index))
    }

    #[test]
    fn a_topic_cut_short_ends_the_page_at_its_first_partition_left_out() {
        let table = [record("a", 3), record("b", 2)];
        let first = page(&table, &["a", "b"], None, 2, false);
        assert_eq!(shape(&first), [("a".into(), 0, vec![0, 1])]);
        assert_eq!(next(&first), Some(("a".into(), 2)));
        let second = page(&table, &["a", "b"], Some(("a", 2)), 2, false);
        assert_eq!(
            shape(&second),
            [("a".into(), 0, vec![2]), ("b".into(), 0, vec![0])]
        );
        assert_eq!(next(&second), Some(("b".into(), 1)));
    }

    #[test]
    fn a_spent_budget_points_at_the_next_topic_whether_it_exists_or_not() {
        let table = [record("a", 2)];
        let response = page(&table, &["a", "missing"], None, 2, false);
        assert_eq!(shape(&response), [("a".into(), 0, vec![0, 1])]);
        assert_eq!(next(&response), Some(("missing".into(), 0)));
    }

    #[test]
    fn missing_topics_cost_nothing_and_are_left_out_of_a_listing() {
        let table = [record("b", 1)];
        let named = page(&table, &["a", "b", "bad/name"], None, 1, false);
        assert_eq!(
            shape(&named),
            [
                (
                    "a".into(),
                    ErrorCode::UnknownTopicOrPartition.code(),
                    vec![]
                ),
                ("b".into(), 0, vec![0]),
            ]
        );
        assert_eq!(next(&named), Some(("bad/name".into(), 0)));
        let listing = page(&table, &["a", "b"], None, 10, true);
        assert_eq!(shape(&listing), [("b".into(), 0, vec![0])]);
        assert_eq!(next(&listing), None);
    }

    #[test]
    fn a_negative_limit_describes_nothing_and_a_cursor_past_the_end_nothing_of_that_topic() {
        let table = [record("a", 2)];
        let negative = page(&table, &["a"], None, -1, false);
        assert!(negative.topics.is_empty() && negative.next_cursor.is_none());
        let past = page(&table, &["a"], Some(("a", 7)), 10, false);
        assert_eq!(shape(&past), [("a".into(), 0, vec![])]);
        assert_eq!(next(&past), None);
    }

    #[test]
    fn partitions_say_what_metadata_says() {
        let p = partition(3, &[2, 1], &[1]);
        assert_eq!(
            (p.leader_id, p.isr_nodes, p.offline_replicas),
            (1, vec![1], vec![2])
        );
        assert_eq!(p.error_code, 0);
        let dead = partition(0, &[2], &[1]);
        assert_eq!((dead.leader_id, dead.error_code), (-1, 0));
    }
}
