//! DescribeGroups, ConsumerGroupDescribe, ListGroups and DeleteGroups: DESCRIBE on each group
//! (authorized operations recomputed for the client's principal), the list filtered to the
//! groups the principal may describe unless it may describe the cluster, DELETE to delete.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::consumer_group_describe::{
    self as cg_describe, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
};
use kacl_protocol::messages::delete_groups::{
    DeletableGroupResult, DeleteGroupsRequest, DeleteGroupsResponse,
};
use kacl_protocol::messages::describe_groups::{
    DescribeGroupsRequest, DescribeGroupsResponse, DescribedGroup,
};
use kacl_protocol::messages::list_groups::ListGroupsResponse;
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use super::access::{keep_allowed_groups, GROUP_DENIED};
use crate::plan::{Asker, Plan};

/// DESCRIBE on each group; authorized operations are the client principal's.
pub(in crate::rules) fn describe_groups(
    ctx: &RequestContext<'_>,
    mut request: DescribeGroupsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = keep_allowed_groups(ctx, AclOperation::Describe, &mut request.groups);
    let include_ops = request.include_authorized_operations;
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut DescribeGroupsResponse<'_>| {
        if include_ops {
            let ctx = asker.context();
            let session = ctx.authorizer();
            for group in &mut body.groups {
                if group.error_code == 0 {
                    group.authorized_operations =
                        session.authorized_operations(ResourceType::Group, &group.group_id);
                }
            }
        }
        for group_id in refused {
            body.groups.push(DescribedGroup {
                error_code: GROUP_DENIED,
                group_id: Cow::Owned(group_id),
                ..Default::default()
            });
        }
    };
    if request.groups.is_empty() {
        let mut body = DescribeGroupsResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if !reduced && !include_ops {
        return Plan::pass();
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<DescribeGroupsResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// KIP-848 groups: DESCRIBE on each group; a group whose members' assignments name a topic
/// the principal may not describe is answered TOPIC_AUTHORIZATION_FAILED, without members
/// (Kafka 4.4's `handleConsumerGroupDescribe`).
pub(in crate::rules) fn consumer_group_describe(
    ctx: &RequestContext<'_>,
    mut request: ConsumerGroupDescribeRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = keep_allowed_groups(ctx, AclOperation::Describe, &mut request.group_ids);
    let include_ops = request.include_authorized_operations;
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut ConsumerGroupDescribeResponse<'_>| {
        let ctx = asker.context();
        let session = ctx.authorizer();
        if include_ops {
            for group in &mut body.groups {
                if group.error_code == 0 {
                    group.authorized_operations =
                        session.authorized_operations(ResourceType::Group, &group.group_id);
                }
            }
        }
        refuse_groups_with_hidden_topics(&mut body.groups, |topic| {
            session.allows(
                AclOperation::Describe,
                ResourceType::Topic,
                topic,
                AuditPolicy::ENFORCED,
            )
        });
        for group_id in refused {
            body.groups.push(cg_describe::DescribedGroup {
                error_code: GROUP_DENIED,
                error_message: Some(Cow::Borrowed(
                    ErrorCode::GroupAuthorizationFailed.default_message(),
                )),
                group_id: Cow::Owned(group_id),
                ..Default::default()
            });
        }
    };
    if request.group_ids.is_empty() {
        let mut body = ConsumerGroupDescribeResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<ConsumerGroupDescribeResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// Kafka's message for a group described without its topics.
const HIDDEN_TOPICS: &str =
    "The group has described topic(s) that the client is not authorized to describe.";

/// Each group whose members' current or target assignment names a topic `may_describe`
/// refuses is replaced by Kafka's refusal: its id, TOPIC_AUTHORIZATION_FAILED, no members.
/// (Subscribed topic names are not checked, as in Kafka.)
fn refuse_groups_with_hidden_topics(
    groups: &mut [cg_describe::DescribedGroup<'_>],
    mut may_describe: impl FnMut(&str) -> bool,
) {
    for group in groups {
        let hidden = group.members.iter().any(|member| {
            [&member.assignment, &member.target_assignment]
                .into_iter()
                .flat_map(|assignment| &assignment.topic_partitions)
                .any(|topic| !may_describe(&topic.topic_name))
        });
        if hidden {
            *group = cg_describe::DescribedGroup {
                group_id: Cow::Owned(group.group_id.to_string()),
                error_code: ErrorCode::TopicAuthorizationFailed.code(),
                error_message: Some(Cow::Borrowed(HIDDEN_TOPICS)),
                ..Default::default()
            };
        }
    }
}

/// DESCRIBE on the cluster lists every group; otherwise the list is filtered to the groups the
/// principal may describe (Kafka's `handleListGroupsRequest`).
pub(in crate::rules) fn list_groups(ctx: &RequestContext<'_>) -> Plan {
    let cluster = ctx.authorizer().allows(
        AclOperation::Describe,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    if cluster {
        return Plan::pass();
    }
    Plan::rewrite(Box::new(|asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<ListGroupsResponse<'_>>(&payload, |asker, body| {
            let ctx = asker.context();
            let session = ctx.authorizer();
            body.groups.retain(|g| {
                session.allows(
                    AclOperation::Describe,
                    ResourceType::Group,
                    &g.group_id,
                    AuditPolicy::FILTERING,
                )
            });
        })
    }))
}

/// DELETE on each group.
pub(in crate::rules) fn delete_groups(
    ctx: &RequestContext<'_>,
    mut request: DeleteGroupsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let refused = keep_allowed_groups(ctx, AclOperation::Delete, &mut request.groups_names);
    if refused.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut DeleteGroupsResponse<'_>| {
        body.results
            .extend(refused.into_iter().map(|group_id| DeletableGroupResult {
                group_id: Cow::Owned(group_id),
                error_code: GROUP_DENIED,
                ..Default::default()
            }));
    };
    merged!(
        ctx,
        frame,
        request,
        DeleteGroupsResponse,
        request.groups_names.is_empty(),
        merge
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::consumer_group_describe::{Assignment, Member, TopicPartitions};

    fn assigned(topic: &'static str) -> Assignment<'static> {
        Assignment {
            topic_partitions: vec![TopicPartitions {
                topic_name: Cow::Borrowed(topic),
                partitions: vec![0],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn group(
        id: &'static str,
        current: &'static str,
        target: &'static str,
    ) -> cg_describe::DescribedGroup<'static> {
        cg_describe::DescribedGroup {
            group_id: Cow::Borrowed(id),
            group_state: Cow::Borrowed("Stable"),
            group_epoch: 3,
            authorized_operations: 8,
            members: vec![Member {
                member_id: Cow::Borrowed("m"),
                subscribed_topic_names: vec![Cow::Borrowed("secret")],
                assignment: assigned(current),
                target_assignment: assigned(target),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_group_assigned_a_hidden_topic_is_refused_whole() {
        let mut groups = vec![
            group("open-only", "open", "open"),
            group("current", "secret", "open"),
            group("target", "open", "secret"),
        ];
        refuse_groups_with_hidden_topics(&mut groups, |topic| topic == "open");
        // Only assignments count: a subscription naming a hidden topic does not.
        assert_eq!(groups[0], group("open-only", "open", "open"));
        for refused in &groups[1..] {
            assert_eq!(
                refused.error_code,
                ErrorCode::TopicAuthorizationFailed.code()
            );
            assert_eq!(refused.error_message.as_deref(), Some(HIDDEN_TOPICS));
            assert!(refused.members.is_empty());
            assert_eq!(refused.group_state, "");
            assert_eq!(refused.authorized_operations, i32::MIN);
        }
        assert_eq!(groups[1].group_id, "current");
    }
}
