//! OffsetCommit, OffsetFetch and OffsetDelete: READ on the group to commit (and on each
//! committed topic), DESCRIBE on the group to fetch, DELETE on it to delete offsets.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::offset_commit::{
    OffsetCommitRequest, OffsetCommitResponse, OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
};
use kacl_protocol::messages::offset_delete::{
    OffsetDeleteRequest, OffsetDeleteResponse, OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
};
use kacl_protocol::messages::offset_fetch::{
    OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponseGroup,
    OffsetFetchResponsePartition, OffsetFetchResponsePartitions, OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
};
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use super::access::{group_allows, topic_allows, GROUP_DENIED, TOPIC_DENIED};
use crate::plan::{Asker, Plan};

/// READ on the group (else every partition GROUP_AUTHORIZATION_FAILED), READ on each topic.
pub(in crate::rules) fn offset_commit(
    ctx: &RequestContext<'_>,
    mut request: OffsetCommitRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let group_ok = group_allows(&session, AclOperation::Read, &request.group_id);
    let mut refused: Vec<(String, Vec<i32>, i16)> = Vec::new();
    request.topics.retain(|topic| {
        let code = if !group_ok {
            GROUP_DENIED
        } else if !topic_allows(&session, AclOperation::Read, &topic.name) {
            TOPIC_DENIED
        } else {
            return true;
        };
        let partitions = topic.partitions.iter().map(|p| p.partition_index).collect();
        refused.push((topic.name.to_string(), partitions, code));
        false
    });
    drop(session);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut OffsetCommitResponse<'_>| {
        for (name, partitions, code) in refused {
            body.topics.push(OffsetCommitResponseTopic {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| OffsetCommitResponsePartition {
                        partition_index,
                        error_code: code,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    };
    merged!(
        ctx,
        frame,
        request,
        OffsetCommitResponse,
        request.topics.is_empty(),
        merge
    )
}

/// DESCRIBE on the group (v8+: on each group) and on each topic; a fetch of all the group's
/// offsets (null topics) is filtered to the topics the principal may describe.
pub(in crate::rules) fn offset_fetch(
    ctx: &RequestContext<'_>,
    mut request: OffsetFetchRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    if ctx.version < 8 {
        if !group_allows(&session, AclOperation::Describe, &request.group_id) {
            // Kafka 4.4 answers a refused group with the top-level code alone (v2+; v1, which
            // has no such field, sees no topics), not per partition.
            drop(session);
            return Plan::answer(
                ctx,
                &OffsetFetchResponse {
                    error_code: GROUP_DENIED,
                    ..Default::default()
                },
            );
        }
        let mut refused: Vec<(String, Vec<i32>)> = Vec::new();
        if let Some(topics) = &mut request.topics {
            topics.retain(|t| {
                let ok = topic_allows(&session, AclOperation::Describe, &t.name);
                if !ok {
                    refused.push((t.name.to_string(), t.partition_indexes.clone()));
                }
                ok
            });
        }
        drop(session);
        let all = request.topics.is_none();
        let reduced = !refused.is_empty();
        let merge = move |asker: &Asker, body: &mut OffsetFetchResponse<'_>| {
            if all {
                let ctx = asker.context();
                let session = ctx.authorizer();
                body.topics.retain(|t| {
                    session.allows(
                        AclOperation::Describe,
                        ResourceType::Topic,
                        &t.name,
                        AuditPolicy::FILTERING,
                    )
                });
            }
            for (name, partitions) in refused {
                body.topics.push(OffsetFetchResponseTopic {
                    name: Cow::Owned(name),
                    partitions: partitions
                        .into_iter()
                        .map(|partition_index| OffsetFetchResponsePartition {
                            partition_index,
                            committed_offset: -1,
                            error_code: TOPIC_DENIED,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                });
            }
        };
        if !all && !reduced {
            return Plan::pass();
        }
        let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
            asker.rewrite::<OffsetFetchResponse<'_>>(&payload, merge)
        });
        return if reduced {
            Plan::reduced(ctx, frame, &request, finish)
        } else {
            Plan::rewrite(finish)
        };
    }
    // v8+: several groups per request.
    let mut refused_groups: Vec<String> = Vec::new();
    let mut refused_topics: Vec<(String, String, Vec<i32>)> = Vec::new();
    let mut filter_all = false;
    request.groups.retain_mut(|group| {
        if !group_allows(&session, AclOperation::Describe, &group.group_id) {
            refused_groups.push(group.group_id.to_string());
            return false;
        }
        match &mut group.topics {
            None => filter_all = true,
            Some(topics) => topics.retain(|t| {
                let ok = topic_allows(&session, AclOperation::Describe, &t.name);
                if !ok {
                    refused_topics.push((
                        group.group_id.to_string(),
                        t.name.to_string(),
                        t.partition_indexes.clone(),
                    ));
                }
                ok
            }),
        }
        true
    });
    drop(session);
    let reduced = !refused_groups.is_empty() || !refused_topics.is_empty();
    let merge = move |asker: &Asker, body: &mut OffsetFetchResponse<'_>| {
        if filter_all {
            let ctx = asker.context();
            let session = ctx.authorizer();
            for group in &mut body.groups {
                group.topics.retain(|t| {
                    session.allows(
                        AclOperation::Describe,
                        ResourceType::Topic,
                        &t.name,
                        AuditPolicy::FILTERING,
                    )
                });
            }
        }
        for (group_id, name, partitions) in refused_topics {
            let topic = OffsetFetchResponseTopics {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| OffsetFetchResponsePartitions {
                        partition_index,
                        committed_offset: -1,
                        error_code: TOPIC_DENIED,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            };
            match body
                .groups
                .iter_mut()
                .find(|g| g.group_id == group_id.as_str())
            {
                Some(group) => group.topics.push(topic),
                None => body.groups.push(OffsetFetchResponseGroup {
                    group_id: Cow::Owned(group_id),
                    topics: vec![topic],
                    ..Default::default()
                }),
            }
        }
        for group_id in refused_groups {
            body.groups.push(OffsetFetchResponseGroup {
                group_id: Cow::Owned(group_id),
                error_code: GROUP_DENIED,
                ..Default::default()
            });
        }
    };
    if request.groups.is_empty() {
        let mut body = OffsetFetchResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if !reduced && !filter_all {
        return Plan::pass();
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<OffsetFetchResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// DELETE on the group (else GROUP_AUTHORIZATION_FAILED for the request), READ on each topic.
pub(in crate::rules) fn offset_delete(
    ctx: &RequestContext<'_>,
    mut request: OffsetDeleteRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    if !group_allows(&session, AclOperation::Delete, &request.group_id) {
        drop(session);
        return Plan::answer(
            ctx,
            &OffsetDeleteResponse {
                error_code: GROUP_DENIED,
                ..Default::default()
            },
        );
    }
    let mut refused: Vec<(String, Vec<i32>)> = Vec::new();
    request.topics.retain(|t| {
        let ok = topic_allows(&session, AclOperation::Read, &t.name);
        if !ok {
            refused.push((
                t.name.to_string(),
                t.partitions.iter().map(|p| p.partition_index).collect(),
            ));
        }
        ok
    });
    drop(session);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut OffsetDeleteResponse<'_>| {
        for (name, partitions) in refused {
            body.topics.push(OffsetDeleteResponseTopic {
                name: Cow::Owned(name),
                partitions: partitions
                    .into_iter()
                    .map(|partition_index| OffsetDeleteResponsePartition {
                        partition_index,
                        error_code: TOPIC_DENIED,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
        }
    };
    merged!(
        ctx,
        frame,
        request,
        OffsetDeleteResponse,
        request.topics.is_empty(),
        merge
    )
}
