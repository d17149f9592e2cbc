//! IncrementalAlterConfigs (44), v0-1: SET, DELETE, APPEND and SUBTRACT on single keys of each
//! resource, with AlterConfigs' preprocessing, broker rules and durable commit (see
//! [`super::alter_configs`]).
//!
//! TOPIC, as Kafka's `ConfigurationControlManager`: the operations apply in request order to
//! the topic's current settings; APPEND/SUBTRACT need a LIST-typed config (INVALID_CONFIG
//! `Can't APPEND to key x because its type is not LIST.`) and start from the default when the
//! topic does not set the key; the result is validated whole, as at CreateTopics.
//! BROKER_LOGGER: CLUSTER ALTER_CONFIGS, then every logger named must exist; kacl has none.

use std::collections::BTreeMap;

use kacl_protocol::messages::incremental_alter_configs::{
    AlterConfigsResource, AlterConfigsResourceResponse, IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
};
use kacl_protocol::ErrorCode;
use kacl_topics::topic_config;

use super::alter_configs::{
    check_alter_authorized, check_broker_change, check_keys, commit_topic_configs, refusal,
    repeated, response_entry, Refusal, REPEATED_RESOURCE,
};
use super::describe_configs::{BROKER, BROKER_LOGGER, TOPIC};
use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

const SET: i8 = 0;
const DELETE: i8 = 1;
const APPEND: i8 = 2;
const SUBTRACT: i8 = 3;

/// IncrementalAlterConfigs: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct IncrementalAlterConfigs;

impl Handler for IncrementalAlterConfigs {
    type Request<'r> = IncrementalAlterConfigsRequest<'r>;
    type Response<'r> = IncrementalAlterConfigsResponse<'r>;

    /// Answers one IncrementalAlterConfigs request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: IncrementalAlterConfigsRequest<'r>,
    ) -> Result<IncrementalAlterConfigsResponse<'r>, Outcome> {
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
            let entry = response_entry(resource.resource_type, &resource.resource_name, outcome);
            responses.push(AlterConfigsResourceResponse {
                error_code: entry.error_code,
                error_message: entry.error_message,
                resource_type: entry.resource_type,
                resource_name: entry.resource_name,
                ..Default::default()
            });
        }
        Ok(IncrementalAlterConfigsResponse {
            responses,
            ..Default::default()
        })
    }
}

async fn alter_one(
    ctx: &RequestContext<'_>,
    resource: &AlterConfigsResource<'_>,
    validate_only: bool,
) -> Result<(), Refusal> {
    let name: &str = &resource.resource_name;
    check_alter_authorized(ctx, resource.resource_type, name)?;
    check_keys(
        resource
            .configs
            .iter()
            .map(|c| (&*c.name, c.config_operation != DELETE && c.value.is_none())),
    )?;
    if let Some(op) = resource
        .configs
        .iter()
        .find(|c| !(SET..=SUBTRACT).contains(&c.config_operation))
    {
        return Err(refusal(
            ErrorCode::InvalidRequest,
            format!("Unknown operations type {}", op.config_operation),
        ));
    }
    match resource.resource_type {
        BROKER => {
            let set: Vec<&str> = resource
                .configs
                .iter()
                .filter(|c| c.config_operation != DELETE)
                .map(|c| &*c.name)
                .collect();
            check_broker_change(ctx, name, &set)
        }
        BROKER_LOGGER => {
            match resource.configs.first() {
                // Deliberate difference from Kafka: kacl has no log4j loggers, so every
                // logger named is one that does not exist.
                Some(config) => Err(refusal(
                    ErrorCode::InvalidConfig,
                    format!("Logger {} does not exist!", config.name),
                )),
                None => Ok(()),
            }
        }
        TOPIC => {
            commit_topic_configs(ctx, name, validate_only, |current| {
                apply_ops(current, resource)
            })
            .await
        }
        other => Err(refusal(
            ErrorCode::InvalidRequest,
            format!("Unknown resource type {other}"),
        )),
    }
}

/// The topic's settings after the resource's operations, in request order (pure).
fn apply_ops(
    current: &BTreeMap<String, String>,
    resource: &AlterConfigsResource<'_>,
) -> Result<BTreeMap<String, String>, Refusal> {
    let mut new = current.clone();
    for config in &resource.configs {
        let key = config.name.to_string();
        let value = config.value.as_deref().unwrap_or_default();
        match config.config_operation {
            SET => {
                new.insert(key, value.to_owned());
            }
            DELETE => {
                new.remove(&key);
            }
            op => {
                let verb = if op == APPEND { "APPEND" } else { "SUBTRACT" };
                let Some(def) = topic_config(&key).filter(|d| d.is_list()) else {
                    return Err(refusal(
                        ErrorCode::InvalidConfig,
                        format!("Can't {verb} to key {key} because its type is not LIST."),
                    ));
                };
                // Kafka's `getParts`: the current value, else the default.
                let base = new.get(&key).map_or(def.default_value, String::as_str);
                let mut parts: Vec<String> = if base.is_empty() {
                    Vec::new()
                } else {
                    base.split(',').map(|p| p.trim().to_owned()).collect()
                };
                for item in value.split(',') {
                    if op == APPEND {
                        if !parts.iter().any(|p| p == item) {
                            parts.push(item.to_owned());
                        }
                    } else if let Some(at) = parts.iter().position(|p| p == item) {
                        parts.remove(at);
                    }
                }
                new.insert(key, parts.join(","));
            }
        }
    }
    Ok(new)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use kacl_protocol::messages::incremental_alter_configs::AlterableConfig;

    use super::*;

    fn op(
        name: &'static str,
        operation: i8,
        value: Option<&'static str>,
    ) -> AlterableConfig<'static> {
        AlterableConfig {
            name: Cow::Borrowed(name),
            config_operation: operation,
            value: value.map(Cow::Borrowed),
            ..Default::default()
        }
    }

    fn resource(configs: Vec<AlterableConfig<'static>>) -> AlterConfigsResource<'static> {
        AlterConfigsResource {
            resource_type: TOPIC,
            resource_name: Cow::Borrowed("t"),
            configs,
            ..Default::default()
        }
    }

    #[test]
    fn append_starts_from_the_default_and_subtract_removes_each_item() {
        let current = BTreeMap::new();
        let new = apply_ops(
            &current,
            &resource(vec![op("cleanup.policy", APPEND, Some("compact"))]),
        )
        .unwrap();
        assert_eq!(new["cleanup.policy"], "delete,compact");
        let new = apply_ops(
            &new,
            &resource(vec![
                op("cleanup.policy", SUBTRACT, Some("delete")),
                op("retention.ms", SET, Some("1000")),
            ]),
        )
        .unwrap();
        assert_eq!(new["cleanup.policy"], "compact");
        assert_eq!(new["retention.ms"], "1000");
        let new = apply_ops(&new, &resource(vec![op("retention.ms", DELETE, None)])).unwrap();
        assert!(!new.contains_key("retention.ms"));
        // Appending what is there already changes nothing.
        let again = apply_ops(
            &new,
            &resource(vec![op("cleanup.policy", APPEND, Some("compact"))]),
        )
        .unwrap();
        assert_eq!(again, new);
    }

    #[test]
    fn append_to_a_non_list_is_kafkas_invalid_config() {
        let err = apply_ops(
            &BTreeMap::new(),
            &resource(vec![op("retention.ms", APPEND, Some("1"))]),
        )
        .unwrap_err();
        assert_eq!(
            err,
            (
                ErrorCode::InvalidConfig,
                "Can't APPEND to key retention.ms because its type is not LIST.".to_owned()
            )
        );
        let err = apply_ops(
            &BTreeMap::new(),
            &resource(vec![op("nope", SUBTRACT, Some("1"))]),
        )
        .unwrap_err();
        assert_eq!(
            err.1,
            "Can't SUBTRACT to key nope because its type is not LIST."
        );
    }
}
