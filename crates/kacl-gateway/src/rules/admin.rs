//! Topic administration (CreateTopics 19, DeleteTopics 20, CreatePartitions 37) and configs
//! (DescribeConfigs 32, AlterConfigs 33, IncrementalAlterConfigs 44), authorized per entry as
//! Kafka's `KafkaApis` does: the refused entries are taken out of the forwarded request and
//! answered by the gateway with Kafka's per-entry code, merged into the upstream's answer;
//! a request with nothing left is answered without the upstream.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType, CLUSTER_NAME};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::alter_configs::{
    AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse,
};
use kacl_protocol::messages::create_partitions::{
    CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopicResult,
};
use kacl_protocol::messages::create_topics::{
    CreatableTopicResult, CreateTopicsRequest, CreateTopicsResponse,
};
use kacl_protocol::messages::delete_topics::{
    DeletableTopicResult, DeleteTopicsRequest, DeleteTopicsResponse,
};
use kacl_protocol::messages::describe_configs::{
    DescribeConfigsRequest, DescribeConfigsResponse, DescribeConfigsResult,
};
use kacl_protocol::messages::incremental_alter_configs::{
    self as incremental, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
};
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::{AuditedSession, RequestContext};

use crate::plan::{Asker, Plan};
use crate::Shared;

/// Kafka's `ConfigResource.Type` codes.
const TOPIC: i8 = 2;
const BROKER: i8 = 4;
const BROKER_LOGGER: i8 = 8;
const CLIENT_METRICS: i8 = 16;
const GROUP: i8 = 32;

fn refused(code: ErrorCode) -> (i16, Option<Cow<'static, str>>) {
    (code.code(), Some(Cow::Borrowed(code.default_message())))
}

/// CREATE on the cluster, else on each topic.
pub(super) fn create_topics(
    ctx: &RequestContext<'_>,
    mut request: CreateTopicsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let cluster = session.allows(
        AclOperation::Create,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    let mut denied = Vec::new();
    request.topics.retain(|topic| {
        let allowed = cluster
            || session.allows(
                AclOperation::Create,
                ResourceType::Topic,
                &topic.name,
                AuditPolicy::ENFORCED,
            );
        if !allowed {
            denied.push(topic.name.to_string());
        }
        allowed
    });
    drop(session);
    let nothing_refused = denied.is_empty();
    let merge = move |asker: &Asker, body: &mut CreateTopicsResponse<'_>| {
        let ctx = asker.context();
        let session = ctx.authorizer();
        // Kafka shows a created topic's configs only to a principal that may describe them.
        for result in &mut body.topics {
            if asker.version >= 5
                && result.error_code == 0
                && !session.allows(
                    AclOperation::DescribeConfigs,
                    ResourceType::Topic,
                    &result.name,
                    AuditPolicy::DENIALS_ONLY,
                )
            {
                result.topic_config_error_code = ErrorCode::TopicAuthorizationFailed.code();
                result.configs = None;
                result.num_partitions = -1;
                result.replication_factor = -1;
            }
        }
        for name in &denied {
            let (error_code, error_message) = refused(ErrorCode::TopicAuthorizationFailed);
            body.topics.push(CreatableTopicResult {
                name: Cow::Owned(name.clone()),
                error_code,
                error_message,
                ..Default::default()
            });
        }
    };
    if request.topics.is_empty() {
        let mut body = CreateTopicsResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<CreateTopicsResponse<'_>>(&payload, merge)
    });
    if nothing_refused {
        return Plan::rewrite(finish);
    }
    Plan::reduced(ctx, frame, &request, finish)
}

/// DELETE on each topic; v6 may name topics by id, resolved through the ids Metadata showed
/// (DESCRIBE first, as Kafka does, so an id never confirms a topic the principal cannot see).
pub(super) fn delete_topics(
    shared: &std::sync::Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: DeleteTopicsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied: Vec<DeletableTopicResult<'static>> = Vec::new();
    let may_delete = |name: &str| {
        session.allows(
            AclOperation::Delete,
            ResourceType::Topic,
            name,
            AuditPolicy::ENFORCED,
        )
    };
    let before = request.topics.len() + request.topic_names.len();
    request.topic_names.retain(|name| {
        let allowed = may_delete(name);
        if !allowed {
            let (error_code, error_message) = refused(ErrorCode::TopicAuthorizationFailed);
            denied.push(DeletableTopicResult {
                name: Some(Cow::Owned(name.to_string())),
                error_code,
                error_message,
                ..Default::default()
            });
        }
        allowed
    });
    request.topics.retain(|topic| {
        let (name, code) = match &topic.name {
            Some(name) => (name.to_string(), ErrorCode::TopicAuthorizationFailed),
            None => match shared.topic_ids.name(&topic.topic_id) {
                Some(name) => (name, ErrorCode::TopicAuthorizationFailed),
                None => (String::new(), ErrorCode::UnknownTopicId),
            },
        };
        let allowed = !name.is_empty()
            && (topic.name.is_some()
                || session.allows(
                    AclOperation::Describe,
                    ResourceType::Topic,
                    &name,
                    AuditPolicy::ENFORCED,
                ))
            && may_delete(&name);
        if !allowed {
            let (error_code, error_message) = refused(code);
            denied.push(DeletableTopicResult {
                name: topic.name.as_ref().map(|n| Cow::Owned(n.to_string())),
                topic_id: topic.topic_id,
                error_code,
                error_message,
                ..Default::default()
            });
        }
        allowed
    });
    drop(session);
    let after = request.topics.len() + request.topic_names.len();
    let merge = move |_: &Asker, body: &mut DeleteTopicsResponse<'_>| {
        body.responses.extend(denied);
    };
    if after == 0 {
        let mut body = DeleteTopicsResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    if after == before {
        return Plan::pass();
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<DeleteTopicsResponse<'_>>(&payload, merge)
    });
    Plan::reduced(ctx, frame, &request, finish)
}

/// ALTER on each topic.
pub(super) fn create_partitions(
    ctx: &RequestContext<'_>,
    mut request: CreatePartitionsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied = Vec::new();
    request.topics.retain(|topic| {
        let allowed = session.allows(
            AclOperation::Alter,
            ResourceType::Topic,
            &topic.name,
            AuditPolicy::ENFORCED,
        );
        if !allowed {
            denied.push(topic.name.to_string());
        }
        allowed
    });
    drop(session);
    if denied.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut CreatePartitionsResponse<'_>| {
        for name in denied {
            let (error_code, error_message) = refused(ErrorCode::TopicAuthorizationFailed);
            body.results.push(CreatePartitionsTopicResult {
                name: Cow::Owned(name),
                error_code,
                error_message,
                ..Default::default()
            });
        }
    };
    merged!(
        ctx,
        frame,
        request,
        CreatePartitionsResponse,
        request.topics.is_empty(),
        merge
    )
}

/// Whether `operation` (DESCRIBE_CONFIGS or ALTER_CONFIGS) is allowed on a config resource,
/// and the code Kafka answers when it is not.
fn config_decision(
    session: &AuditedSession<'_>,
    operation: AclOperation,
    resource_type: i8,
    name: &str,
) -> Result<(), ErrorCode> {
    let (kind, resource, code) = match resource_type {
        TOPIC => (
            ResourceType::Topic,
            name,
            ErrorCode::TopicAuthorizationFailed,
        ),
        BROKER | BROKER_LOGGER | CLIENT_METRICS => (
            ResourceType::Cluster,
            CLUSTER_NAME,
            ErrorCode::ClusterAuthorizationFailed,
        ),
        GROUP => (
            ResourceType::Group,
            name,
            ErrorCode::GroupAuthorizationFailed,
        ),
        _ => return Err(ErrorCode::InvalidRequest),
    };
    if session.allows(operation, kind, resource, AuditPolicy::ENFORCED) {
        Ok(())
    } else {
        Err(code)
    }
}

/// DESCRIBE_CONFIGS on each resource.
pub(super) fn describe_configs(
    ctx: &RequestContext<'_>,
    mut request: DescribeConfigsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied: Vec<DescribeConfigsResult<'static>> = Vec::new();
    request.resources.retain(|resource| {
        match config_decision(
            &session,
            AclOperation::DescribeConfigs,
            resource.resource_type,
            &resource.resource_name,
        ) {
            Ok(()) => true,
            Err(code) => {
                let (error_code, error_message) = refused(code);
                denied.push(DescribeConfigsResult {
                    error_code,
                    error_message,
                    resource_type: resource.resource_type,
                    resource_name: Cow::Owned(resource.resource_name.to_string()),
                    ..Default::default()
                });
                false
            }
        }
    });
    drop(session);
    if denied.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut DescribeConfigsResponse<'_>| {
        body.results.extend(denied);
    };
    merged!(
        ctx,
        frame,
        request,
        DescribeConfigsResponse,
        request.resources.is_empty(),
        merge
    )
}

/// The refusal of one resource of an AlterConfigs or IncrementalAlterConfigs request.
fn alter_refusal(
    code: ErrorCode,
    resource_type: i8,
    name: &str,
) -> AlterConfigsResourceResponse<'static> {
    let (error_code, error_message) = refused(code);
    AlterConfigsResourceResponse {
        error_code,
        error_message,
        resource_type,
        resource_name: Cow::Owned(name.to_owned()),
        ..Default::default()
    }
}

/// ALTER_CONFIGS on each resource.
pub(super) fn alter_configs(
    ctx: &RequestContext<'_>,
    mut request: AlterConfigsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied = Vec::new();
    request.resources.retain(|r| {
        match config_decision(
            &session,
            AclOperation::AlterConfigs,
            r.resource_type,
            &r.resource_name,
        ) {
            Ok(()) => true,
            Err(code) => {
                denied.push(alter_refusal(code, r.resource_type, &r.resource_name));
                false
            }
        }
    });
    drop(session);
    if denied.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut AlterConfigsResponse<'_>| body.responses.extend(denied);
    merged!(
        ctx,
        frame,
        request,
        AlterConfigsResponse,
        request.resources.is_empty(),
        merge
    )
}

/// ALTER_CONFIGS on each resource (KIP-339).
pub(super) fn incremental_alter_configs(
    ctx: &RequestContext<'_>,
    mut request: IncrementalAlterConfigsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let mut denied: Vec<incremental::AlterConfigsResourceResponse<'static>> = Vec::new();
    request.resources.retain(|r| {
        match config_decision(
            &session,
            AclOperation::AlterConfigs,
            r.resource_type,
            &r.resource_name,
        ) {
            Ok(()) => true,
            Err(code) => {
                let refusal = alter_refusal(code, r.resource_type, &r.resource_name);
                denied.push(incremental::AlterConfigsResourceResponse {
                    error_code: refusal.error_code,
                    error_message: refusal.error_message,
                    resource_type: refusal.resource_type,
                    resource_name: refusal.resource_name,
                    ..Default::default()
                });
                false
            }
        }
    });
    drop(session);
    if denied.is_empty() {
        return Plan::pass();
    }
    let merge = move |_: &Asker, body: &mut IncrementalAlterConfigsResponse<'_>| {
        body.responses.extend(denied)
    };
    merged!(
        ctx,
        frame,
        request,
        IncrementalAlterConfigsResponse,
        request.resources.is_empty(),
        merge
    )
}
