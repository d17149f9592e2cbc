//! `describe_topics` through DescribeTopicPartitions (API 75, KIP-966) when the broker offers
//! it, as the Java AdminClient of Kafka 3.8+ does: all names in one request, then the
//! `next_cursor` of each answer into the next request until none is left, each answer holding
//! at most `partition_size_limit_per_response` partitions (2000 by default). A broker without
//! the API (before 3.8, or a kacl gateway) is described with Metadata instead.

use std::borrow::Cow;

use kacl_protocol::messages::describe_topic_partitions::{
    Cursor, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, TopicRequest,
};
use kacl_protocol::{ApiKey, Message};

use super::{topic_id_text, PartitionInfo, TopicMetadata};
use crate::admin::{Admin, Target};
use crate::error::AdminError;

/// The default partition limit per answer, Kafka's.
pub(super) const DEFAULT_PARTITION_LIMIT: i32 = 2000;

/// Most answers one describe follows: a broker whose cursor never ends is an error, not a
/// loop (each answer must hold at least one partition to go on, so this is far above any real
/// topic set at the default limit).
const MAX_PAGES: usize = 100_000;

impl Admin {
    /// The named topics through DescribeTopicPartitions, or `None` when the broker does not
    /// offer it (the caller falls back to Metadata).
    pub(super) async fn describe_paged(
        &self,
        names: &[String],
        limit: i32,
        timeout: Option<std::time::Duration>,
    ) -> Result<Option<Vec<TopicMetadata>>, AdminError> {
        self.call(
            "describeTopicPartitions",
            timeout,
            Target::AnyBroker,
            |broker| async move {
                let version = match broker.versions.pick(
                    ApiKey::DescribeTopicPartitions,
                    DescribeTopicPartitionsRequest::VERSIONS,
                ) {
                    Ok(version) => version,
                    Err(AdminError::UnsupportedVersion { .. }) => return Ok(None),
                    Err(other) => return Err(other),
                };
                let mut topics: Vec<TopicMetadata> = Vec::new();
                let mut cursor: Option<(String, i32)> = None;
                for _ in 0..MAX_PAGES {
                    let request = DescribeTopicPartitionsRequest {
                        topics: names
                            .iter()
                            .map(|n| TopicRequest {
                                name: Cow::Borrowed(n.as_str()),
                                ..Default::default()
                            })
                            .collect(),
                        response_partition_limit: limit,
                        cursor: cursor.as_ref().map(|(topic, index)| Cursor {
                            topic_name: Cow::Borrowed(topic.as_str()),
                            partition_index: *index,
                            ..Default::default()
                        }),
                        ..Default::default()
                    };
                    let response = broker.conn.send(version, &request).await?;
                    let body: DescribeTopicPartitionsResponse = response.decode()?;
                    let next = body
                        .next_cursor
                        .as_ref()
                        .map(|c| (c.topic_name.to_string(), c.partition_index));
                    merge_page(&mut topics, &body);
                    match next {
                        None => return Ok(Some(topics)),
                        Some(next) if Some(&next) == cursor.as_ref() => {
                            return Err(AdminError::Decode(format!(
                                "DescribeTopicPartitions did not advance past {}:{}",
                                next.0, next.1
                            )))
                        }
                        Some(next) => cursor = Some(next),
                    }
                }
                Err(AdminError::Decode(format!(
                    "DescribeTopicPartitions did not finish within {MAX_PAGES} answers"
                )))
            },
        )
        .await
    }
}

/// Adds one answer to what earlier answers gave: a topic cut by the previous page's limit
/// continues with more partitions.
fn merge_page(topics: &mut Vec<TopicMetadata>, page: &DescribeTopicPartitionsResponse<'_>) {
    for topic in &page.topics {
        let name = topic.name.as_deref().unwrap_or_default();
        let partitions = topic.partitions.iter().map(|p| PartitionInfo {
            partition: p.partition_index,
            leader: (p.leader_id >= 0).then_some(p.leader_id),
            replicas: p.replica_nodes.clone(),
            isr: p.isr_nodes.clone(),
        });
        match topics.iter_mut().find(|t| t.name == name) {
            Some(known) => known.partitions.extend(partitions),
            None => topics.push(TopicMetadata {
                name: name.to_owned(),
                topic_id: topic_id_text(topic.topic_id),
                is_internal: topic.is_internal,
                partitions: partitions.collect(),
                error: AdminError::check(topic.error_code, None),
            }),
        }
    }
    for topic in topics.iter_mut() {
        topic.partitions.sort_by_key(|p| p.partition);
        topic.partitions.dedup_by_key(|p| p.partition);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::describe_topic_partitions::{
        DescribeTopicPartitionsResponsePartition, DescribeTopicPartitionsResponseTopic,
    };

    fn page(topics: &[(&'static str, &[i32])]) -> DescribeTopicPartitionsResponse<'static> {
        DescribeTopicPartitionsResponse {
            topics: topics
                .iter()
                .map(|(name, partitions)| DescribeTopicPartitionsResponseTopic {
                    name: Some(Cow::Borrowed(*name)),
                    partitions: partitions
                        .iter()
                        .map(|i| DescribeTopicPartitionsResponsePartition {
                            partition_index: *i,
                            leader_id: 1,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_topic_split_over_pages_is_one_topic() {
        let mut topics = Vec::new();
        merge_page(&mut topics, &page(&[("a", &[0, 1])]));
        merge_page(&mut topics, &page(&[("a", &[2]), ("b", &[0])]));
        let shape: Vec<(String, Vec<i32>)> = topics
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.partitions.iter().map(|p| p.partition).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [("a".to_owned(), vec![0, 1, 2]), ("b".to_owned(), vec![0])]
        );
    }
}
