//! DeleteTopics (API key 20): delete topics by name, or (v6+) by name or topic id.
//!
//! v1 adds the throttle time to the response; v3 may return TOPIC_DELETION_DISABLED; v4 is the
//! first flexible version; v5 adds the per-topic error message (and THROTTLING_QUOTA_EXCEEDED,
//! KIP-599); v6 replaces the list of names with [`DeleteTopicState`]s carrying a nullable name
//! and a topic id. v0 (removed in Kafka 4) is declared because it costs nothing here; kacl
//! serves 1-6 (see [`ApiKey::versions`](crate::ApiKey::versions)).

use std::borrow::Cow;

use crate::codec::Uuid;

kafka_message! {
    /// The topics to delete.
    pub struct DeleteTopicsRequest<'a> {
        api_key: DeleteTopics, versions: 0-6, flexible: 4+;
        /// The topics to delete, by name or id (v6+).
        topics: Vec<DeleteTopicState<'a>> [versions 6+],
        /// The names of the topics to delete (v0-5).
        topic_names: Vec<Cow<'a, str>> [versions 0-5, ignorable],
        /// How long to wait in milliseconds for the deletions to complete.
        timeout_ms: i32 [versions 0+],
    }

    /// One topic to delete: by name, or by id with a null name.
    pub struct DeleteTopicState<'a> {
        /// The topic name, or null to delete by id.
        name: Option<Cow<'a, str>> [versions 6+, nullable 6+],
        /// The topic id, or all zeroes to delete by name.
        topic_id: Uuid [versions 6+],
    }
}

kafka_message! {
    /// One result per requested topic.
    pub struct DeleteTopicsResponse<'a> {
        api_key: DeleteTopics, versions: 0-6, flexible: 4+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 1+, ignorable],
        /// The results for each topic we tried to delete.
        responses: Vec<DeletableTopicResult<'a>> [versions 0+],
    }

    /// The outcome for one topic.
    pub struct DeletableTopicResult<'a> {
        /// The topic name; null (v6+) when the topic was named by an unknown id.
        name: Option<Cow<'a, str>> [versions 0+, nullable 6+, default Some(Cow::Borrowed(""))],
        /// The topic id (v6+).
        topic_id: Uuid [versions 6+, ignorable],
        /// The deletion error, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null (v5+).
        error_message: Option<Cow<'a, str>> [versions 5+, nullable 5+, ignorable],
    }
}
