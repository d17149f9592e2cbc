//! AlterConfigs (33), v0-2: replace each resource's whole dynamic config set (keys not listed
//! return to their defaults), and what IncrementalAlterConfigs shares with it: Kafka's
//! preprocessing (`ConfigAdminManager.preprocess`), the broker rules and the durable commit of
//! a topic's new config set.
//!
//! Order per resource: a resource named twice (INVALID_REQUEST for every occurrence); then
//! authorization, before anything else about the resource is looked at (ALTER_CONFIGS on the
//! cluster for BROKER, CLUSTER_AUTHORIZATION_FAILED; on the topic for TOPIC,
//! TOPIC_AUTHORIZATION_FAILED; see README, differences from Kafka); a key named twice, a null
//! value (INVALID_REQUEST); BROKER: the id (INVALID_REQUEST), then every key set is refused as
//! Kafka refuses a config it cannot update dynamically (kacl has no dynamic broker configs:
//! INVALID_REQUEST `Cannot update these configs dynamically: Set(...)`); TOPIC: the new set
//! validated as CreateTopics validates (INVALID_CONFIG), the topic's existence
//! (UNKNOWN_TOPIC_OR_PARTITION), then, unless `validate_only`, one durable write of the
//! topic's configs before the response, so a resource is changed whole or not at all.
//! Results in request order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::alter_configs::{
    AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse,
};
use kacl_protocol::ErrorCode;
use kacl_topics::validate_topic_configs;

use super::describe_configs::{BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP, TOPIC};
use super::topic_commit::topic_store_failure;
use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;
use crate::topic_registry::{TopicChange, TopicCommit};

/// A per-resource failure: Kafka's code and message.
pub(crate) type Refusal = (ErrorCode, String);

pub(crate) fn refusal(code: ErrorCode, message: impl Into<String>) -> Refusal {
    (code, message.into())
}

/// Marks every `(type, name)` that occurs more than once (Kafka: "Each resource must appear at
/// most once.").
pub(crate) fn repeated<'a>(keys: impl Iterator<Item = (i8, &'a str)>) -> Vec<bool> {
    let keys: Vec<(i8, &str)> = keys.collect();
    let mut counts: HashMap<(i8, &str), usize> = HashMap::new();
    for key in &keys {
        *counts.entry(*key).or_default() += 1;
    }
    keys.iter().map(|k| counts[k] > 1).collect()
}

pub(crate) const REPEATED_RESOURCE: &str = "Each resource must appear at most once.";

/// Kafka's key checks: no key twice, no null value (except for a DELETE).
pub(crate) fn check_keys<'a>(
    configs: impl Iterator<Item = (&'a str, bool)> + Clone,
) -> Result<(), Refusal> {
    let mut seen = std::collections::HashSet::new();
    if configs.clone().any(|(name, _)| !seen.insert(name)) {
        return Err(refusal(
            ErrorCode::InvalidRequest,
            "Error due to duplicate config keys",
        ));
    }
    let nulls: Vec<&str> = configs.filter(|(_, null)| *null).map(|(n, _)| n).collect();
    if !nulls.is_empty() {
        return Err(refusal(
            ErrorCode::InvalidRequest,
            format!("Null value not supported for : {}", nulls.join(", ")),
        ));
    }
    Ok(())
}

/// The broker-side rules for a BROKER resource: the id, then the keys being set. kacl has no
/// dynamic broker configs, so any key set is one Kafka cannot update dynamically.
pub(crate) fn check_broker_change(
    ctx: &RequestContext<'_>,
    name: &str,
    set_keys: &[&str],
) -> Result<(), Refusal> {
    if !name.is_empty() {
        let id = ctx.state.node_id();
        match name.parse::<i32>() {
            Err(_) => {
                return Err(refusal(
                    ErrorCode::InvalidRequest,
                    format!("Node id must be an integer, but it is: {name}"),
                ))
            }
            Ok(asked) if asked != id => {
                return Err(refusal(
                    ErrorCode::InvalidRequest,
                    format!("Unexpected broker id, expected {id}, but received {name}"),
                ))
            }
            Ok(_) => {}
        }
    }
    if !set_keys.is_empty() {
        // Deliberate difference from Kafka: every broker key is static in kacl (Kafka
        // accepts its dynamic ones and keys it does not know).
        return Err(refusal(
            ErrorCode::InvalidRequest,
            format!(
                "Cannot update these configs dynamically: Set({})",
                set_keys.join(", ")
            ),
        ));
    }
    Ok(())
}

/// ALTER_CONFIGS on what the resource type answers to, decided before anything about the
/// resource's name, keys or values is checked, so that a principal without it learns only
/// that it lacks it: the cluster for BROKER, BROKER_LOGGER and CLIENT_METRICS, the topic or
/// the group itself. `None`: a type no ACL covers (refused as unknown afterwards).
pub(crate) fn check_alter_authorized(
    ctx: &RequestContext<'_>,
    resource_type: i8,
    name: &str,
) -> Result<(), Refusal> {
    let (allowed, code) = match resource_type {
        BROKER | BROKER_LOGGER | CLIENT_METRICS => (
            ctx.cluster_allows(AclOperation::AlterConfigs),
            ErrorCode::ClusterAuthorizationFailed,
        ),
        TOPIC => (
            ctx.authorize(AclOperation::AlterConfigs, ResourceType::Topic, name),
            ErrorCode::TopicAuthorizationFailed,
        ),
        GROUP => (
            ctx.authorize(AclOperation::AlterConfigs, ResourceType::Group, name),
            ErrorCode::GroupAuthorizationFailed,
        ),
        _ => return Ok(()),
    };
    if allowed {
        Ok(())
    } else {
        Err(refusal(code, code.default_message()))
    }
}

/// Validates a topic's complete new config set, checks the topic exists, and unless
/// `validate_only` stores it durably. `plan` computes the new set from the current one (it
/// runs under the topic writer lock, so no other change interleaves).
pub(crate) async fn commit_topic_configs(
    ctx: &RequestContext<'_>,
    name: &str,
    validate_only: bool,
    plan: impl FnOnce(&BTreeMap<String, String>) -> Result<BTreeMap<String, String>, Refusal>,
) -> Result<(), Refusal> {
    let state = ctx.state;
    let guard = state.topics.begin_write().await;
    let new = {
        let table = state.topics.read();
        let current = table
            .get(name)
            .map(|t| t.configs.clone())
            .unwrap_or_default();
        let new = plan(&current)?;
        validate_topic_configs(new.iter().map(|(k, v)| (k.as_str(), Some(v.as_str()))))
            .map_err(|e| refusal(ErrorCode::from_code(e.code()), e.message()))?;
        if !table.contains(name) {
            return Err(refusal(
                ErrorCode::UnknownTopicOrPartition,
                format!("The topic '{name}' does not exist."),
            ));
        }
        new
    };
    if validate_only {
        return Ok(());
    }
    let shared = state.clone();
    let topic = name.to_owned();
    let commit = tokio::task::spawn_blocking(move || {
        shared.topics.commit(
            guard,
            shared.store.as_ref(),
            TopicChange::SetConfigs(topic, new),
        )
    })
    .await;
    match commit {
        Ok(Ok(TopicCommit::ConfigsSet(_))) => {
            tracing::info!(
                principal = ctx.principal,
                topic = name,
                "altered topic configs"
            );
            Ok(())
        }
        Ok(Err(err)) => {
            tracing::error!(topic = name, %err, "topic configs could not be stored");
            // REQUEST_TIMED_OUT naming etcd when etcd did not answer, as the other writes;
            // Kafka sends no text with UNKNOWN_SERVER_ERROR (the cause is in the log).
            let (code, message) = topic_store_failure(err).answer();
            Err(refusal(
                ErrorCode::from_code(code),
                message.unwrap_or_default(),
            ))
        }
        other => {
            tracing::error!(topic = name, outcome = ?other.map(|r| r.map(|_| ())), "topic configs could not be stored");
            // Kafka sends no text with UNKNOWN_SERVER_ERROR; the cause is in the log.
            Err(refusal(ErrorCode::UnknownServerError, ""))
        }
    }
}

/// AlterConfigs: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct AlterConfigs;

impl Handler for AlterConfigs {
    type Request<'r> = AlterConfigsRequest<'r>;
    type Response<'r> = AlterConfigsResponse<'r>;

    /// Answers one AlterConfigs request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: AlterConfigsRequest<'r>,
    ) -> Result<AlterConfigsResponse<'r>, Outcome> {
        let repeats = repeated(
            request
                .resources
                .iter()
                .map(|r| (r.resource_type, &*r.resource_name)),
        );
        let mut responses = Vec::with_capacity(request.resources.len());
        for (resource, repeated) in request.resources.iter().zip(repeats) {
            let outcome = if repeated {
                Err(refusal(ErrorCode::InvalidRequest, REPEATED_RESOURCE))
            } else {
                alter_one(ctx, resource, request.validate_only).await
            };
            responses.push(response_entry(
                resource.resource_type,
                &resource.resource_name,
                outcome,
            ));
        }
        Ok(AlterConfigsResponse {
            responses,
            ..Default::default()
        })
    }
}

async fn alter_one(
    ctx: &RequestContext<'_>,
    resource: &kacl_protocol::messages::alter_configs::AlterConfigsResource<'_>,
    validate_only: bool,
) -> Result<(), Refusal> {
    let name: &str = &resource.resource_name;
    check_alter_authorized(ctx, resource.resource_type, name)?;
    check_keys(
        resource
            .configs
            .iter()
            .map(|c| (&*c.name, c.value.is_none())),
    )?;
    match resource.resource_type {
        BROKER => {
            let keys: Vec<&str> = resource.configs.iter().map(|c| &*c.name).collect();
            check_broker_change(ctx, name, &keys)
        }
        TOPIC => {
            let new: BTreeMap<String, String> = resource
                .configs
                .iter()
                .filter_map(|c| Some((c.name.to_string(), c.value.as_deref()?.to_owned())))
                .collect();
            commit_topic_configs(ctx, name, validate_only, |_| Ok(new)).await
        }
        other => Err(refusal(
            ErrorCode::InvalidRequest,
            format!("Unknown resource type {other}"),
        )),
    }
}

pub(crate) fn response_entry(
    resource_type: i8,
    name: &str,
    outcome: Result<(), Refusal>,
) -> AlterConfigsResourceResponse<'static> {
    let (code, message) = match outcome {
        Ok(()) => (ErrorCode::None, None),
        Err((code, message)) => (
            code,
            (!message.is_empty()).then(|| super::bounded_message(message)),
        ),
    };
    AlterConfigsResourceResponse {
        error_code: code.code(),
        error_message: message.map(Cow::Owned),
        resource_type,
        resource_name: Cow::Owned(name.to_owned()),
        ..Default::default()
    }
}
