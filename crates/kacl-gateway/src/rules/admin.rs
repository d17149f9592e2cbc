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
use kacl_protocol::{ErrorCode, Uuid};
use kacl_service::audit::AuditPolicy;
use kacl_service::context::{AuditedSession, RequestContext};

use kacl_topics::CLUSTER_METADATA_TOPIC_NAME;

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

/// CREATE on the cluster, else on each topic; as Kafka's controller (`ControllerApis`)
/// answers, a name given twice is answered once with INVALID_REQUEST, and so is the metadata
/// log's name, before any authorization.
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
    let names: Vec<&str> = request.topics.iter().map(|t| t.name.as_ref()).collect();
    let twice: Vec<String> = duplicates(&names).into_iter().map(str::to_owned).collect();
    let mut invalid: Vec<(String, String)> = twice
        .iter()
        .map(|name| (name.clone(), "Duplicate topic name.".to_owned()))
        .collect();
    let mut denied = Vec::new();
    request.topics.retain(|topic| {
        if twice.iter().any(|t| *t == topic.name) {
            return false;
        }
        if topic.name == CLUSTER_METADATA_TOPIC_NAME {
            invalid.push((
                topic.name.to_string(),
                format!("Creation of internal topic {CLUSTER_METADATA_TOPIC_NAME} is prohibited."),
            ));
            return false;
        }
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
    let nothing_refused = denied.is_empty() && invalid.is_empty();
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
        for (name, message) in &invalid {
            body.topics.push(CreatableTopicResult {
                name: Cow::Owned(name.clone()),
                error_code: ErrorCode::InvalidRequest.code(),
                error_message: Some(Cow::Owned(message.clone())),
                ..Default::default()
            });
        }
        for name in &denied {
            // Kafka's controller words this refusal so, not with the code's default message.
            body.topics.push(CreatableTopicResult {
                name: Cow::Owned(name.clone()),
                error_code: ErrorCode::TopicAuthorizationFailed.code(),
                error_message: Some(Cow::Borrowed("Authorization failed.")),
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

/// DELETE on the cluster, else on each topic (Kafka's controller, `ControllerApis.deleteTopics`);
/// v6 may name topics by id, resolved through the ids Metadata showed, and a refused id is
/// answered with its name only to a principal that may describe the topic. Entries Kafka
/// rejects before authorizing (a name given twice, an id given twice, both or neither) are
/// answered INVALID_REQUEST with Kafka's messages.
pub(super) fn delete_topics(
    shared: &std::sync::Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: DeleteTopicsRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let cluster = session.allows(
        AclOperation::Delete,
        ResourceType::Cluster,
        CLUSTER_NAME,
        AuditPolicy::FILTERING,
    );
    let may = |operation: AclOperation, name: &str| {
        cluster || session.allows(operation, ResourceType::Topic, name, AuditPolicy::ENFORCED)
    };
    let mut answered: Vec<DeletableTopicResult<'static>> = Vec::new();
    let names: Vec<String> = request
        .topic_names
        .iter()
        .map(|n| n.to_string())
        .chain(
            request
                .topics
                .iter()
                .filter(|t| t.topic_id == Uuid::ZERO)
                .filter_map(|t| Some(t.name.as_deref()?.to_owned())),
        )
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ids: Vec<Uuid> = request
        .topics
        .iter()
        .filter(|t| t.name.is_none() && t.topic_id != Uuid::ZERO)
        .map(|t| t.topic_id)
        .collect();
    let duplicate_names = duplicates(&names);
    let duplicate_ids = duplicates(&ids);
    let before = request.topics.len() + request.topic_names.len();
    let refuse_name = |name: &str, answered: &mut Vec<DeletableTopicResult<'static>>| {
        if duplicate_names.contains(&name) {
            return false;
        }
        if may(AclOperation::Delete, name) {
            return true;
        }
        answered.push(deletion_result(
            Some(name),
            Uuid::ZERO,
            ErrorCode::TopicAuthorizationFailed,
            None,
        ));
        false
    };
    request
        .topic_names
        .retain(|name| refuse_name(name, &mut answered));
    request
        .topics
        .retain(|topic| match (&topic.name, topic.topic_id) {
            (None, Uuid::ZERO) => {
                answered.push(deletion_result(
                    None,
                    Uuid::ZERO,
                    ErrorCode::InvalidRequest,
                    Some("Neither topic name nor id were specified."),
                ));
                false
            }
            (Some(name), id) if id != Uuid::ZERO => {
                answered.push(deletion_result(
                    Some(name),
                    id,
                    ErrorCode::InvalidRequest,
                    Some("You may not specify both topic name and topic id."),
                ));
                false
            }
            (Some(name), _) => refuse_name(name, &mut answered),
            (None, id) => {
                if duplicate_ids.contains(&id) {
                    return false;
                }
                let Some(name) = shared.topic_ids.name(&id) else {
                    answered.push(deletion_result(None, id, ErrorCode::UnknownTopicId, None));
                    return false;
                };
                if may(AclOperation::Delete, &name) {
                    return true;
                }
                let shown = may(AclOperation::Describe, &name).then_some(name.as_str());
                answered.push(deletion_result(
                    shown,
                    id,
                    ErrorCode::TopicAuthorizationFailed,
                    None,
                ));
                false
            }
        });
    for name in &duplicate_names {
        answered.push(deletion_result(
            Some(name),
            Uuid::ZERO,
            ErrorCode::InvalidRequest,
            Some("Duplicate topic name."),
        ));
    }
    for id in &duplicate_ids {
        answered.push(deletion_result(
            None,
            *id,
            ErrorCode::InvalidRequest,
            Some("Duplicate topic id."),
        ));
    }
    drop(session);
    let after = request.topics.len() + request.topic_names.len();
    let merge = move |_: &Asker, body: &mut DeleteTopicsResponse<'_>| {
        body.responses.extend(answered);
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

/// The values that occur more than once in `all`, each once.
fn duplicates<T: PartialEq + Copy>(all: &[T]) -> Vec<T> {
    let mut seen: Vec<T> = Vec::new();
    let mut twice: Vec<T> = Vec::new();
    for value in all {
        if seen.contains(value) {
            if !twice.contains(value) {
                twice.push(*value);
            }
        } else {
            seen.push(*value);
        }
    }
    twice
}

/// One DeleteTopics result the gateway answers itself (`message`: Kafka's, else the code's).
fn deletion_result(
    name: Option<&str>,
    topic_id: Uuid,
    code: ErrorCode,
    message: Option<&'static str>,
) -> DeletableTopicResult<'static> {
    DeletableTopicResult {
        name: name.map(|n| Cow::Owned(n.to_owned())),
        topic_id,
        error_code: code.code(),
        error_message: Some(Cow::Borrowed(message.unwrap_or(code.default_message()))),
        ..Default::default()
    }
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

/// DESCRIBE_CONFIGS on each resource; a broker's configs that carry upstream addresses are
/// hidden (see [`hide_upstream_addresses`]).
pub(super) fn describe_configs(
    shared: &std::sync::Arc<Shared>,
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
    let names_a_broker = request.resources.iter().any(|r| r.resource_type == BROKER);
    if denied.is_empty() && !names_a_broker {
        return Plan::pass();
    }
    let shared = shared.clone();
    let merge = move |_: &Asker, body: &mut DescribeConfigsResponse<'_>| {
        if names_a_broker {
            hide_upstream_addresses(&mut body.results, &shared.upstream.addresses());
        }
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

/// The broker configs whose value is an address of the upstream cluster (its own listeners,
/// its controllers).
const ADDRESS_CONFIGS: &[&str] = &[
    "listeners",
    "advertised.listeners",
    "controller.quorum.voters",
    "controller.quorum.bootstrap.servers",
    "zookeeper.connect",
];

/// A gateway's clients never learn where the upstream cluster is. Kafka shows a broker's
/// `listeners`, `advertised.listeners` and controller addresses to a principal with
/// DESCRIBE_CONFIGS on the cluster; the gateway shows them (and any other broker config whose
/// value names a known upstream `host:port`) as Kafka shows a password: sensitive, without a
/// value (a deliberate difference, in `DIFFERENCES_FROM_KAFKA`).
fn hide_upstream_addresses(results: &mut [DescribeConfigsResult<'_>], upstream: &[String]) {
    let names_upstream = |value: &Option<Cow<'_, str>>| {
        value
            .as_deref()
            .is_some_and(|v| upstream.iter().any(|address| v.contains(address.as_str())))
    };
    for result in results.iter_mut().filter(|r| r.resource_type == BROKER) {
        for config in &mut result.configs {
            let hide = ADDRESS_CONFIGS.contains(&config.name.as_ref())
                || names_upstream(&config.value)
                || config.synonyms.iter().any(|s| names_upstream(&s.value));
            if hide {
                config.value = None;
                config.is_sensitive = true;
                for synonym in &mut config.synonyms {
                    synonym.value = None;
                }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::describe_configs::{
        DescribeConfigsResourceResult, DescribeConfigsSynonym,
    };

    fn config(name: &'static str, value: &'static str) -> DescribeConfigsResourceResult<'static> {
        DescribeConfigsResourceResult {
            name: Cow::Borrowed(name),
            value: Some(Cow::Borrowed(value)),
            synonyms: vec![DescribeConfigsSynonym {
                name: Cow::Borrowed(name),
                value: Some(Cow::Borrowed(value)),
                source: 4,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_brokers_upstream_addresses_are_never_shown() {
        let mut results = vec![
            DescribeConfigsResult {
                resource_type: BROKER,
                resource_name: Cow::Borrowed("1"),
                configs: vec![
                    config("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"),
                    config("advertised.listeners", "PLAINTEXT://kafka-1.internal:9092"),
                    config("controller.quorum.voters", "1@kafka-1.internal:9093"),
                    config("some.vendor.endpoint", "https://kafka-1.internal:9092/x"),
                    config("num.io.threads", "8"),
                ],
                ..Default::default()
            },
            DescribeConfigsResult {
                resource_type: TOPIC,
                resource_name: Cow::Borrowed("t"),
                configs: vec![config("cleanup.policy", "kafka-1.internal:9092")],
                ..Default::default()
            },
        ];
        hide_upstream_addresses(&mut results, &["kafka-1.internal:9092".to_owned()]);
        let broker = &results[0].configs;
        for hidden in &broker[..4] {
            assert_eq!(hidden.value, None, "{}", hidden.name);
            assert!(hidden.is_sensitive);
            assert!(hidden.synonyms.iter().all(|s| s.value.is_none()));
        }
        assert_eq!(broker[4], config("num.io.threads", "8"));
        assert_eq!(
            results[1].configs[0],
            config("cleanup.policy", "kafka-1.internal:9092")
        );
    }

    #[test]
    fn duplicates_are_named_once() {
        assert_eq!(duplicates(&["a", "b", "a", "a", "c", "b"]), vec!["a", "b"]);
        assert!(duplicates::<u8>(&[]).is_empty());
    }
}
