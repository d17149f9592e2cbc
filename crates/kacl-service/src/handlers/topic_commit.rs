//! A topic write's commit and its failures: the store call on a blocking thread, and every
//! store error of a topic write classified into the Kafka code the topic handlers answer
//! (CreateTopics, DeleteTopics, CreatePartitions, AlterConfigs and IncrementalAlterConfigs of
//! topic configs).

use std::sync::Arc;

use crate::state::ServerState;
use crate::topic_registry::{TopicChange, TopicCommit, TopicWriteGuard};

/// Why a topic commit failed, with the code to answer.
#[derive(Debug)]
pub(crate) enum CommitFailure {
    /// The store refused one topic of the commit (nothing was stored).
    Topic {
        name: String,
        code: i16,
        message: String,
    },
    /// The commit failed as a whole.
    Whole { code: i16, message: String },
}

impl CommitFailure {
    /// The code and the message to send: none with UNKNOWN_SERVER_ERROR, whose text Kafka never
    /// sends (the cause is in the log).
    pub(crate) fn answer(&self) -> (i16, Option<String>) {
        let (code, message) = match self {
            CommitFailure::Topic { code, message, .. } | CommitFailure::Whole { code, message } => {
                (*code, message)
            }
        };
        let hidden = code == kacl_protocol::ErrorCode::UnknownServerError.code();
        (code, (!hidden).then(|| message.clone()))
    }
}

/// A store error of a topic write, classified: a topic another node created meanwhile
/// (TOPIC_ALREADY_EXISTS, or INVALID_TOPIC_EXCEPTION for a `.`/`_` collision), a store that
/// did not answer in time (REQUEST_TIMED_OUT, retriable, the message naming etcd), anything
/// else UNKNOWN_SERVER_ERROR.
pub(crate) fn topic_store_failure(err: kacl_store::StoreError) -> CommitFailure {
    use kacl_protocol::ErrorCode;
    use kacl_store::StoreError;
    match err {
        StoreError::TopicAlreadyExists { name } => CommitFailure::Topic {
            message: format!("Topic '{name}' already exists."),
            name,
            code: ErrorCode::TopicAlreadyExists.code(),
        },
        StoreError::TopicCollision { name, existing } => CommitFailure::Topic {
            message: format!("Topic '{name}' collides with existing topic: {existing}"),
            name,
            code: ErrorCode::InvalidTopicException.code(),
        },
        StoreError::Unavailable { detail } => CommitFailure::Whole {
            code: ErrorCode::RequestTimedOut.code(),
            message: detail,
        },
        other => CommitFailure::Whole {
            code: ErrorCode::UnknownServerError.code(),
            message: other.to_string(),
        },
    }
}

/// [`TopicRegistry::commit`](crate::topic_registry::TopicRegistry::commit) on a blocking thread
/// (the store fsyncs), for the topic handlers: the outcome, or the failure classified by
/// [`topic_store_failure`].
pub(crate) async fn commit_topics_coded(
    state: &Arc<ServerState>,
    guard: TopicWriteGuard,
    change: TopicChange,
) -> Result<TopicCommit, CommitFailure> {
    use kacl_protocol::ErrorCode;
    let shared = Arc::clone(state);
    let result = tokio::task::spawn_blocking(move || {
        shared.topics.commit(guard, shared.store.as_ref(), change)
    })
    .await
    .map_err(|err| CommitFailure::Whole {
        code: ErrorCode::UnknownServerError.code(),
        message: err.to_string(),
    })?;
    result.map_err(topic_store_failure)
}
