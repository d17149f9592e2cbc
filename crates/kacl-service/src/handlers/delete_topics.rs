//! DeleteTopics (20), v1-6: delete topics by name, or (v6) by name or topic id, in one
//! durable commit. A deleted topic's ACLs stay, as in Kafka.
//!
//! Kafka's rules (`ControllerApis.deleteTopics`), which kacl follows:
//! - DELETE on the cluster allows deleting (and describing) every topic; otherwise DELETE on
//!   the topic, and DESCRIBE on it decides what a refusal may reveal;
//! - by name: not describable → TOPIC_AUTHORIZATION_FAILED, whether it exists or not; else
//!   missing → UNKNOWN_TOPIC_OR_PARTITION; else not deletable → TOPIC_AUTHORIZATION_FAILED;
//! - by id: missing → UNKNOWN_TOPIC_ID (null name); not deletable → TOPIC_AUTHORIZATION_FAILED,
//!   naming the topic only if it is describable;
//! - a name or id given twice: INVALID_REQUEST `Duplicate topic name.` / `Duplicate topic id.`
//!   (one result); neither name nor id, or both: INVALID_REQUEST; a name that resolves to an id
//!   also given: INVALID_REQUEST on the name, and neither is deleted;
//! - internal topics may be deleted like any other (KRaft has no exception).
//!
//! Kafka shuffles the results so their order reveals nothing; kacl answers in request order,
//! which reveals nothing either.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::codec::Uuid;
use kacl_protocol::messages::delete_topics::{
    DeletableTopicResult, DeleteTopicsRequest, DeleteTopicsResponse,
};
use kacl_protocol::ErrorCode;

use super::topic_commit::{commit_topics_coded, CommitFailure};
use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::topic_registry::{TopicChange, TopicCommit, TopicTable, TopicWriteGuard};

/// One entry of the request, as given.
#[derive(Debug, Clone, Copy)]
enum Target<'r> {
    Name(&'r str),
    Id([u8; 16]),
    Neither,
    Both(&'r str, [u8; 16]),
}

/// What the answer for one entry will be.
#[derive(Debug)]
enum Verdict {
    /// The entry gets this result now.
    Done(DeletableTopicResult<'static>),
    /// Delete this topic; the result depends on the commit.
    Delete { name: String, id: [u8; 16] },
    /// No result of its own (an id whose name was also given; the name answers for both).
    Silent,
}

/// DeleteTopics: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DeleteTopics;

impl Handler for DeleteTopics {
    type Request<'r> = DeleteTopicsRequest<'r>;
    type Response<'r> = DeleteTopicsResponse<'r>;

    /// Answers one DeleteTopics request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DeleteTopicsRequest<'r>,
    ) -> Result<DeleteTopicsResponse<'r>, Outcome> {
        let state = ctx.state;
        let targets = targets(&request, ctx.version);
        let guard = state.topics.begin_write().await;
        let verdicts = {
            let table = state.topics.read();
            let rights = topic_rights(ctx, &targets, &table);
            plan(&targets, &table, &rights)
        };
        let stored = commit(ctx, guard, &verdicts).await;
        Ok(response(verdicts, &stored))
    }
}

/// What the request names, in request order: names before v6, names or ids from v6.
fn targets<'r>(request: &'r DeleteTopicsRequest<'_>, version: i16) -> Vec<Target<'r>> {
    if version >= 6 {
        request
            .topics
            .iter()
            .map(|t| match (t.name.as_deref(), t.topic_id.0) {
                (None, id) if id == Uuid::ZERO.0 => Target::Neither,
                (None, id) => Target::Id(id),
                (Some(name), id) if id == Uuid::ZERO.0 => Target::Name(name),
                (Some(name), id) => Target::Both(name, id),
            })
            .collect()
    } else {
        request
            .topic_names
            .iter()
            .map(|n| Target::Name(n))
            .collect()
    }
}

/// Kafka's answer for every target, given the topics as they stand and what the principal may
/// do: pure, so the rules are tested without a store or a socket.
fn plan(
    targets: &[Target<'_>],
    table: &TopicTable,
    rights: &HashMap<&str, TopicRights>,
) -> Vec<Verdict> {
    let describable = |name: &str| rights.get(name).is_some_and(|r| r.describe);
    let deletable = |name: &str| rights.get(name).is_some_and(|r| r.delete);

    let mut name_count: HashMap<&str, usize> = HashMap::new();
    let mut id_count: HashMap<[u8; 16], usize> = HashMap::new();
    for target in targets {
        match target {
            Target::Name(name) => *name_count.entry(name).or_default() += 1,
            Target::Id(id) => *id_count.entry(*id).or_default() += 1,
            _ => {}
        }
    }
    // Ids that a deletable name also resolves to: the name answers INVALID_REQUEST and
    // neither is deleted (an id given once then has no result of its own).
    let claimed_by_name: HashSet<[u8; 16]> = name_count
        .iter()
        .filter(|(name, count)| **count == 1 && describable(name) && deletable(name))
        .filter_map(|(name, _)| table.get(name))
        .map(|record| record.topic_id)
        .filter(|id| id_count.contains_key(id))
        .collect();

    let mut answered_names = HashSet::new();
    let mut answered_ids = HashSet::new();
    targets
        .iter()
        .map(|target| match *target {
            Target::Neither => Verdict::Done(result(
                None,
                Uuid::ZERO.0,
                ErrorCode::InvalidRequest,
                Some("Neither topic name nor id were specified."),
            )),
            Target::Both(name, id) => Verdict::Done(result(
                Some(name),
                id,
                ErrorCode::InvalidRequest,
                Some("You may not specify both topic name and topic id."),
            )),
            Target::Name(name) => {
                if !answered_names.insert(name) {
                    Verdict::Silent
                } else if name_count.get(name).copied().unwrap_or(0) > 1 {
                    Verdict::Done(result(
                        Some(name),
                        Uuid::ZERO.0,
                        ErrorCode::InvalidRequest,
                        Some("Duplicate topic name."),
                    ))
                } else if !describable(name) {
                    Verdict::Done(default_result(
                        Some(name),
                        Uuid::ZERO.0,
                        ErrorCode::TopicAuthorizationFailed,
                    ))
                } else if let Some(record) = table.get(name) {
                    if !deletable(name) {
                        Verdict::Done(default_result(
                            Some(name),
                            Uuid::ZERO.0,
                            ErrorCode::TopicAuthorizationFailed,
                        ))
                    } else if claimed_by_name.contains(&record.topic_id) {
                        Verdict::Done(result(
                            Some(name),
                            record.topic_id,
                            ErrorCode::InvalidRequest,
                            Some(
                                "The provided topic name maps to an ID that was already supplied.",
                            ),
                        ))
                    } else {
                        Verdict::Delete {
                            name: name.to_owned(),
                            id: record.topic_id,
                        }
                    }
                } else {
                    Verdict::Done(default_result(
                        Some(name),
                        Uuid::ZERO.0,
                        ErrorCode::UnknownTopicOrPartition,
                    ))
                }
            }
            Target::Id(id) => {
                if !answered_ids.insert(id) {
                    Verdict::Silent
                } else if id_count.get(&id).copied().unwrap_or(0) > 1 {
                    Verdict::Done(result(
                        None,
                        id,
                        ErrorCode::InvalidRequest,
                        Some("Duplicate topic id."),
                    ))
                } else if let Some(record) = table.by_id(&id) {
                    if !deletable(&record.name) {
                        let shown = describable(&record.name).then_some(record.name.as_str());
                        Verdict::Done(default_result(
                            shown,
                            id,
                            ErrorCode::TopicAuthorizationFailed,
                        ))
                    } else if claimed_by_name.contains(&id) {
                        Verdict::Silent
                    } else {
                        Verdict::Delete {
                            name: record.name.clone(),
                            id,
                        }
                    }
                } else {
                    Verdict::Done(default_result(None, id, ErrorCode::UnknownTopicId))
                }
            }
        })
        .collect::<Vec<Verdict>>()
}

/// Deletes the topics the plan dooms, in one durable commit (the write guard held since the
/// plan was made); a failure carries the code every doomed topic answers (REQUEST_TIMED_OUT
/// when etcd did not answer, as CreateTopics).
async fn commit(
    ctx: &RequestContext<'_>,
    guard: TopicWriteGuard,
    verdicts: &[Verdict],
) -> Result<(), CommitFailure> {
    let state = ctx.state;

    let doomed: Vec<String> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Delete { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let stored = if doomed.is_empty() {
        drop(guard);
        Ok(())
    } else {
        let count = doomed.len();
        match commit_topics_coded(state, guard, TopicChange::Delete(doomed)).await {
            Ok(TopicCommit::Deleted(_)) => {
                tracing::info!(principal = %kacl_logsafe::safe(ctx.principal), topics = count, "deleted topics");
                Ok(())
            }
            Ok(other) => Err(CommitFailure::Whole {
                code: ErrorCode::UnknownServerError.code(),
                message: format!("unexpected commit outcome {other:?}"),
            }),
            Err(err) => Err(err),
        }
    };
    if let Err(err) = &stored {
        tracing::error!(error = ?err, "DeleteTopics could not be stored");
    }
    stored
}

/// The response: each verdict's result, a planned deletion answered by how the commit went.
fn response(
    verdicts: Vec<Verdict>,
    stored: &Result<(), CommitFailure>,
) -> DeleteTopicsResponse<'static> {
    let responses = verdicts
        .into_iter()
        .filter_map(|verdict| match verdict {
            Verdict::Done(result) => Some(result),
            Verdict::Delete { name, id } => Some(match stored {
                Ok(()) => result(Some(&name), id, ErrorCode::None, None),
                Err(failure) => {
                    let (code, message) = failure.answer();
                    result(
                        Some(&name),
                        id,
                        ErrorCode::from_code(code),
                        message.as_deref(),
                    )
                }
            }),
            Verdict::Silent => None,
        })
        .collect();
    DeleteTopicsResponse {
        throttle_time_ms: 0,
        responses,
        unknown_tagged_fields: Default::default(),
    }
}

/// What the principal may do with one topic named by the request.
#[derive(Debug, Clone, Copy)]
struct TopicRights {
    describe: bool,
    delete: bool,
}

/// Asks the authorizer once per topic the request names (by name, or by an id the table
/// resolves), as Kafka's ControllerApis does: DELETE on the cluster without logging a denial,
/// then for every topic DESCRIBE (denials not logged: the answer hides the topic) and DELETE
/// (audited). Each decision is asked, and logged, once however often the topic is named.
fn topic_rights<'t>(
    ctx: &RequestContext<'_>,
    targets: &[Target<'t>],
    table: &'t TopicTable,
) -> HashMap<&'t str, TopicRights> {
    let session = ctx.authorizer();
    let cluster_delete = session.allows(
        AclOperation::Delete,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    let mut rights = HashMap::new();
    for target in targets {
        let name = match target {
            Target::Name(name) => *name,
            Target::Id(id) => match table.by_id(id) {
                Some(record) => record.name.as_str(),
                None => continue,
            },
            _ => continue,
        };
        rights.entry(name).or_insert_with(|| {
            if cluster_delete {
                return TopicRights {
                    describe: true,
                    delete: true,
                };
            }
            TopicRights {
                describe: session.allows(
                    AclOperation::Describe,
                    ResourceType::Topic,
                    name,
                    AuditPolicy::FILTERING,
                ),
                delete: session.allows(
                    AclOperation::Delete,
                    ResourceType::Topic,
                    name,
                    AuditPolicy::ENFORCED,
                ),
            }
        });
    }
    rights
}

fn result(
    name: Option<&str>,
    id: [u8; 16],
    code: ErrorCode,
    message: Option<&str>,
) -> DeletableTopicResult<'static> {
    DeletableTopicResult {
        name: name.map(|n| Cow::Owned(n.to_owned())),
        topic_id: Uuid(id),
        error_code: code.code(),
        error_message: message.map(|m| Cow::Owned(m.to_owned())),
        unknown_tagged_fields: Default::default(),
    }
}

/// A result whose message is Kafka's default text for the code (`new ApiError(error)`).
fn default_result(
    name: Option<&str>,
    id: [u8; 16],
    code: ErrorCode,
) -> DeletableTopicResult<'static> {
    result(name, id, code, Some(code.default_message()))
}

#[cfg(test)]
mod tests {
    use kacl_store::TopicRecord;

    use super::*;

    fn topic(name: &str, id: u8) -> TopicRecord {
        TopicRecord {
            name: name.to_owned(),
            topic_id: [id; 16],
            partitions: Vec::new(),
            configs: Default::default(),
            created_seq: u64::from(id),
        }
    }

    fn codes(verdicts: &[Verdict]) -> Vec<Option<i16>> {
        verdicts
            .iter()
            .map(|v| match v {
                Verdict::Done(result) => Some(result.error_code),
                Verdict::Delete { .. } => None,
                Verdict::Silent => Some(i16::MIN),
            })
            .collect()
    }

    #[test]
    fn the_plan_follows_kafkas_rules_without_a_store() {
        let table = TopicTable::from_records(vec![topic("orders", 1), topic("secret", 2)]);
        let rights = HashMap::from([
            (
                "orders",
                TopicRights {
                    describe: true,
                    delete: true,
                },
            ),
            (
                "secret",
                TopicRights {
                    describe: false,
                    delete: false,
                },
            ),
            (
                "absent",
                TopicRights {
                    describe: true,
                    delete: true,
                },
            ),
        ]);
        let targets = [
            Target::Name("orders"),
            Target::Name("secret"),
            Target::Name("absent"),
            Target::Id([2; 16]),
            Target::Id([9; 16]),
            Target::Neither,
        ];
        assert_eq!(
            codes(&plan(&targets, &table, &rights)),
            [
                None,
                Some(ErrorCode::TopicAuthorizationFailed.code()),
                Some(ErrorCode::UnknownTopicOrPartition.code()),
                Some(ErrorCode::TopicAuthorizationFailed.code()),
                Some(ErrorCode::UnknownTopicId.code()),
                Some(ErrorCode::InvalidRequest.code()),
            ]
        );
        // A name given twice: one INVALID_REQUEST result, nothing deleted.
        let twice = [Target::Name("orders"), Target::Name("orders")];
        assert_eq!(
            codes(&plan(&twice, &table, &rights)),
            [Some(ErrorCode::InvalidRequest.code()), Some(i16::MIN)]
        );
    }
}
