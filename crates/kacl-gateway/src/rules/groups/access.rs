//! The group and topic checks every group API starts from.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::{AuditedSession, RequestContext};

use crate::plan::Plan;

pub(super) const GROUP_DENIED: i16 = ErrorCode::GroupAuthorizationFailed.code();
pub(super) const TOPIC_DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();

pub(super) fn group_allows(
    session: &AuditedSession<'_>,
    operation: AclOperation,
    group: &str,
) -> bool {
    session.allows(operation, ResourceType::Group, group, AuditPolicy::ENFORCED)
}

pub(super) fn topic_allows(
    session: &AuditedSession<'_>,
    operation: AclOperation,
    topic: &str,
) -> bool {
    session.allows(operation, ResourceType::Topic, topic, AuditPolicy::ENFORCED)
}

/// READ on the group, or the answer `refuse` builds.
pub(super) fn group_read_or<'m, M: kacl_protocol::Message<'m>>(
    ctx: &RequestContext<'_>,
    group: &str,
    refuse: impl FnOnce() -> M,
) -> Plan {
    if group_allows(&ctx.authorizer(), AclOperation::Read, group) {
        Plan::pass()
    } else {
        Plan::answer(ctx, &refuse())
    }
}

/// Keeps in `groups` those the principal may `operation`, and returns the others (the
/// refused, in request order) for the answer's own entries.
pub(super) fn keep_allowed_groups(
    ctx: &RequestContext<'_>,
    operation: AclOperation,
    groups: &mut Vec<Cow<'_, str>>,
) -> Vec<String> {
    let session = ctx.authorizer();
    let mut refused = Vec::new();
    groups.retain(|group| {
        let ok = group_allows(&session, operation, group);
        if !ok {
            refused.push(group.to_string());
        }
        ok
    });
    refused
}
