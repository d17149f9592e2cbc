//! One module per API, each answering itself in one shape: a unit type implementing
//! [`Handler`] (or, for the APIs that run before and during authentication, [`SessionHandler`])
//! that takes the typed request its module decodes to and returns the typed response, as the
//! commands of tokio's mini-redis each parse and apply themselves. The [router](crate::router)
//! decodes the body into the handler's `Request` and encodes its `Response`; handlers never
//! see bytes. A handler's decisions that need no store or socket (what the request asks, what
//! is refused and why) are a pure plan step in its module, unit-tested on its own; the
//! `handle` body then authorizes, commits and builds the response from it.
//!
//! Shared by the handlers: [`topic_commit`] (a topic write's commit and the classes of its
//! failures), [`brokers`] (the brokers a request sees and the ones partitions are placed on),
//! and the ACL filter and DescribeAcls encoding modules.
//!
//! Deliberate differences from Kafka are marked `Deliberate difference from Kafka` where they
//! are made, and listed together in `kacl_server::DIFFERENCES_FROM_KAFKA`.

pub mod acl_filter;
mod acl_resources;
pub mod alter_client_quotas;
pub mod alter_configs;
pub mod alter_partition_reassignments;
pub mod alter_user_scram_credentials;
pub mod api_versions;
mod brokers;
pub mod consumer_group_describe;
pub mod create_acls;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_acls;
pub mod delete_groups;
pub mod delete_topics;
pub mod describe_acls;
pub mod describe_client_quotas;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_groups;
pub mod describe_log_dirs;
pub mod describe_topic_partitions;
pub mod describe_transactions;
pub mod describe_user_scram_credentials;
pub mod find_coordinator;
pub mod incremental_alter_configs;
pub mod list_groups;
pub mod list_partition_reassignments;
pub mod list_transactions;
pub mod metadata;
pub mod sasl_authenticate;
pub mod sasl_handshake;
mod topic_commit;

pub use alter_client_quotas::AlterClientQuotas;
pub use alter_configs::AlterConfigs;
pub use alter_partition_reassignments::AlterPartitionReassignments;
pub use alter_user_scram_credentials::AlterUserScramCredentials;
pub use api_versions::ApiVersions;
pub use consumer_group_describe::ConsumerGroupDescribe;
pub use create_acls::CreateAcls;
pub use create_partitions::CreatePartitions;
pub use create_topics::CreateTopics;
pub use delete_acls::DeleteAcls;
pub use delete_groups::DeleteGroups;
pub use delete_topics::DeleteTopics;
pub use describe_acls::DescribeAcls;
pub use describe_client_quotas::DescribeClientQuotas;
pub use describe_cluster::DescribeCluster;
pub use describe_configs::DescribeConfigs;
pub use describe_groups::DescribeGroups;
pub use describe_log_dirs::DescribeLogDirs;
pub use describe_topic_partitions::DescribeTopicPartitions;
pub use describe_transactions::DescribeTransactions;
pub use describe_user_scram_credentials::DescribeUserScramCredentials;
pub use find_coordinator::FindCoordinator;
pub use incremental_alter_configs::IncrementalAlterConfigs;
pub use list_groups::ListGroups;
pub use list_partition_reassignments::ListPartitionReassignments;
pub use list_transactions::ListTransactions;
pub use metadata::Metadata;
pub use sasl_authenticate::SaslAuthenticate;
pub use sasl_handshake::SaslHandshake;

use std::future::Future;

use kacl_protocol::frame::RequestFrame;
use kacl_protocol::{DecodeError, Message};

use crate::context::{RequestContext, SessionContext};
use crate::metrics::ResponseErrors;
use crate::outcome::Outcome;

/// The handler of one API for an authenticated principal: the typed request in, the typed
/// response out, which the router encodes with the request's correlation id and version (and
/// counts the error codes of, see [`ResponseErrors`]).
///
/// `Err` is any other outcome: closing the connection (a request Kafka refuses that way), or,
/// for DescribeAcls and DeleteAcls, an answer the handler encoded itself: DescribeAcls's is
/// written straight from the ACL index under its read lock (and streamed when large),
/// DeleteAcls's one filter result at a time from a single copy of each deleted ACL.
pub trait Handler {
    /// The request body, as kacl-protocol declares it.
    type Request<'r>: Message<'r>;
    /// The response body, as kacl-protocol declares it.
    type Response<'r>: Message<'r> + ResponseErrors;

    /// Answers one request.
    fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: Self::Request<'r>,
    ) -> impl Future<Output = Result<Self::Response<'r>, Outcome>> + Send + 'r;
}

/// The handler of one API that runs before (ApiVersions) or as part of authentication
/// (SaslHandshake, SaslAuthenticate): the same shape as [`Handler`], with the connection's
/// [`Session`](crate::context::Session) in its context instead of a principal, since these
/// change it. Their responses are encoded as they are, error codes uncounted.
///
/// `Err` is any other outcome: a close, or a failed authentication's answer followed by the
/// close (`Outcome::RespondThenClose`).
pub trait SessionHandler {
    /// The request body, as kacl-protocol declares it.
    type Request<'r>: Message<'r>;
    /// The response body, as kacl-protocol declares it.
    type Response<'r>: Message<'r>;

    /// Answers one request.
    fn handle<'r>(
        ctx: SessionContext<'r>,
        request: Self::Request<'r>,
    ) -> impl Future<Output = Result<Self::Response<'r>, Outcome>> + Send + 'r;
}

/// Decodes the body of `frame` as `M`; a malformed body closes the connection, as in Kafka.
///
/// Bytes after a complete body are ignored, as Kafka's request parser ignores them (it never
/// checks that the buffer was consumed). Real clients rely on this: librdkafka 2.x sends three
/// extra bytes after a flexible all-topics Metadata request (librdkafka #5049) and one after
/// AlterUserScramCredentials.
pub fn decode<'a, M: Message<'a>>(
    ctx_api: kacl_protocol::ApiKey,
    frame: &RequestFrame<'a>,
) -> Result<M, Outcome> {
    // Bounded by `kacl.request.max.decoded.bytes`, whose budget the router parsed the frame with.
    let mut reader = frame.body_reader();
    let body = M::decode(&mut reader, frame.version()).map_err(|err| {
        let hint = match err {
            DecodeError::MemoryBudgetExceeded { .. } => " (kacl.request.max.decoded.bytes)",
            _ => "",
        };
        Outcome::close(format!(
            "malformed {ctx_api} v{} request body: {err}{hint}",
            frame.version()
        ))
    })?;
    if !reader.is_empty() {
        tracing::debug!(
            api = %ctx_api,
            version = frame.version(),
            trailing = reader.remaining(),
            "ignored bytes after the request body, as Kafka does"
        );
    }
    Ok(body)
}

/// The longest error message a handler sends: well under the 32,767 bytes a protocol string
/// may hold, so that a message echoing client input (a value, a list of key names) can never
/// make the whole response unencodable and the connection close with every other result.
pub(crate) const MAX_ERROR_MESSAGE_BYTES: usize = 4_096;

/// `message`, cut at a character boundary to [`MAX_ERROR_MESSAGE_BYTES`] with a marker saying
/// how much was left out.
pub(crate) fn bounded_message(mut message: String) -> String {
    if message.len() <= MAX_ERROR_MESSAGE_BYTES {
        return message;
    }
    let total = message.len();
    let mut end = MAX_ERROR_MESSAGE_BYTES - 64;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    message.truncate(end);
    message.push_str(&format!("... ({} more bytes)", total - end));
    message
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_at_a_character_boundary() {
        assert_eq!(bounded_message("short".into()), "short");
        let long = "é".repeat(40_000);
        let cut = bounded_message(long);
        assert!(cut.len() <= MAX_ERROR_MESSAGE_BYTES, "{}", cut.len());
        assert!(cut.ends_with("more bytes)"), "{cut}");
    }
}
