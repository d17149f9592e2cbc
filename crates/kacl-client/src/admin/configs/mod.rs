//! Config administration: `describe_configs` (DescribeConfigs), `incremental_alter_configs`
//! (IncrementalAlterConfigs, KIP-339) and the legacy `alter_configs` (AlterConfigs).
//!
//! Routing is Kafka's AdminClient's: a named broker's configs (and a broker's loggers) are
//! asked of that broker itself, since a broker only answers for its own id; topics and the
//! cluster-wide broker default (`""`) go to any broker. A call that names several brokers
//! sends one request per broker and one for the rest. Results come back by input position; a
//! resource given twice is sent once.

use std::borrow::Cow;

use kacl_protocol::messages::alter_configs::{
    AlterConfigsRequest, AlterConfigsResource, AlterConfigsResponse, AlterableConfig,
};
use kacl_protocol::messages::describe_configs::{
    DescribeConfigsRequest, DescribeConfigsResource, DescribeConfigsResourceResult,
    DescribeConfigsResponse,
};
use kacl_protocol::messages::incremental_alter_configs as iac;
use kacl_protocol::{ApiKey, ErrorCode, Message};

use super::dedupe::Deduped;
use super::{Admin, Target};
use crate::error::AdminError;

mod types;

pub use types::{
    AlterConfigOp, AlterConfigOpType, AlterConfigsOptions, ConfigEntry, ConfigResource,
    ConfigResourceType, ConfigSource, ConfigSynonym, ConfigType, DescribeConfigsOptions,
};

/// The broker a resource must be asked of, if it is broker-scoped (Kafka's `nodeFor`).
fn target(resource: &ConfigResource) -> Result<Target, AdminError> {
    let scoped = match resource.resource_type {
        ConfigResourceType::Broker => !resource.name.is_empty(),
        ConfigResourceType::BrokerLogger => true,
        _ => false,
    };
    if !scoped {
        return Ok(Target::AnyBroker);
    }
    resource.name.parse::<i32>().map(Target::Node).map_err(|_| {
        AdminError::InvalidRequest(format!(
            "The name of a {} resource must be a broker id, not '{}'",
            resource.resource_type, resource.name
        ))
    })
}

/// Per-resource outcomes keyed by `(type code, name)`, as a response reports them.
type Outcomes<T> = Vec<((i8, String), Result<T, AdminError>)>;

/// Groups the distinct resources by the broker they must go to, keeping input order within
/// each group; a resource whose broker id does not parse is failed at once.
fn by_target(unique: &[ConfigResource]) -> (Vec<(Target, Vec<&ConfigResource>)>, Outcomes<()>) {
    let mut groups: Vec<(Target, Vec<&ConfigResource>)> = Vec::new();
    let mut refused = Vec::new();
    for resource in unique {
        match target(resource) {
            Ok(target) => match groups.iter_mut().find(|(t, _)| *t == target) {
                Some((_, members)) => members.push(resource),
                None => groups.push((target, vec![resource])),
            },
            Err(err) => refused.push((key(resource), Err(err))),
        }
    }
    (groups, refused)
}

fn key(resource: &ConfigResource) -> (i8, String) {
    (resource.resource_type.code(), resource.name.clone())
}

/// One outcome per distinct resource, from what the responses said (Kafka's
/// `completeUnrealizedFutures` for anything they left out).
fn collect<T: Clone>(
    unique: &[ConfigResource],
    outcomes: &Outcomes<T>,
) -> Vec<Result<T, AdminError>> {
    unique
        .iter()
        .map(|resource| {
            let wanted = key(resource);
            outcomes
                .iter()
                .find(|(k, _)| *k == wanted)
                .map(|(_, r)| r.clone())
                .unwrap_or_else(|| {
                    Err(AdminError::server(
                        ErrorCode::UnknownServerError,
                        Some(&format!(
                            "The node response did not contain a result for config resource \
                             {resource}"
                        )),
                    ))
                })
        })
        .collect()
}

/// A described entry as Kafka's client reads it. At v0 there is no source on the wire: Kafka
/// derives it from `is_default` and the resource type (`DescribeConfigsResponse`).
fn entry(
    config: &DescribeConfigsResourceResult<'_>,
    resource_type: i8,
    version: i16,
) -> ConfigEntry {
    let source = if version == 0 {
        match (
            config.is_default,
            ConfigResourceType::from_code(resource_type),
        ) {
            (true, _) => ConfigSource::DefaultConfig,
            (false, ConfigResourceType::Broker) => ConfigSource::StaticBrokerConfig,
            (false, ConfigResourceType::Topic) => ConfigSource::DynamicTopicConfig,
            _ => ConfigSource::Unknown,
        }
    } else {
        ConfigSource::from_id(config.config_source)
    };
    ConfigEntry {
        name: config.name.to_string(),
        value: config.value.as_deref().map(str::to_owned),
        source,
        is_sensitive: config.is_sensitive,
        is_read_only: config.read_only,
        synonyms: config
            .synonyms
            .iter()
            .map(|s| ConfigSynonym {
                name: s.name.to_string(),
                value: s.value.as_deref().map(str::to_owned),
                source: ConfigSource::from_id(s.source),
            })
            .collect(),
        config_type: ConfigType::from_id(config.config_type),
        documentation: config
            .documentation
            .as_deref()
            .filter(|_| version >= 3)
            .map(str::to_owned),
    }
}

fn unsupported(api: ApiKey, detail: &str) -> AdminError {
    AdminError::UnsupportedVersion {
        api,
        detail: detail.to_owned(),
    }
}

impl Admin {
    /// Describes the configs of each resource; one result per input position, each the
    /// resource's entries in the broker's order.
    pub async fn describe_configs(
        &self,
        resources: Vec<ConfigResource>,
        options: DescribeConfigsOptions,
    ) -> Vec<Result<Vec<ConfigEntry>, AdminError>> {
        let deduped = Deduped::new(resources);
        let (groups, refused) = by_target(&deduped.unique);
        let mut outcomes: Outcomes<Vec<ConfigEntry>> = refused
            .into_iter()
            .map(|(k, r)| (k, r.map(|()| Vec::new())))
            .collect();
        let keys: Option<Vec<Cow<'_, str>>> = options
            .configuration_keys
            .as_ref()
            .map(|keys| keys.iter().map(|k| Cow::Borrowed(k.as_str())).collect());
        for (target, members) in groups {
            let sent = self
                .call("describeConfigs", options.timeout, target, |broker| {
                    let (members, keys, options) = (&members, &keys, &options);
                    async move {
                        let version = broker
                            .versions
                            .pick(ApiKey::DescribeConfigs, DescribeConfigsRequest::VERSIONS)?;
                        if options.include_synonyms && version < 1 {
                            return Err(unsupported(
                                ApiKey::DescribeConfigs,
                                "the broker cannot return synonyms (DescribeConfigs v1+)",
                            ));
                        }
                        if options.include_documentation && version < 3 {
                            return Err(unsupported(
                                ApiKey::DescribeConfigs,
                                "the broker cannot return documentation (DescribeConfigs v3+)",
                            ));
                        }
                        let request = DescribeConfigsRequest {
                            resources: members
                                .iter()
                                .map(|r| DescribeConfigsResource {
                                    resource_type: r.resource_type.code(),
                                    resource_name: Cow::Borrowed(r.name.as_str()),
                                    configuration_keys: keys.clone(),
                                    ..Default::default()
                                })
                                .collect(),
                            include_synonyms: options.include_synonyms,
                            include_documentation: options.include_documentation,
                            ..Default::default()
                        };
                        let response = broker.conn.send(version, &request).await?;
                        let body: DescribeConfigsResponse = response.decode()?;
                        Ok(body
                            .results
                            .iter()
                            .map(|r| {
                                let outcome =
                                    AdminError::check(r.error_code, r.error_message.as_deref())
                                        .map(|()| {
                                            r.configs
                                                .iter()
                                                .map(|c| entry(c, r.resource_type, version))
                                                .collect()
                                        });
                                ((r.resource_type, r.resource_name.to_string()), outcome)
                            })
                            .collect::<Outcomes<_>>())
                    }
                })
                .await;
            match sent {
                Ok(results) => outcomes.extend(results),
                Err(err) => outcomes.extend(members.iter().map(|r| (key(r), Err(err.clone())))),
            }
        }
        deduped.spread(&collect(&deduped.unique, &outcomes))
    }

    /// Applies each resource's changes (IncrementalAlterConfigs); one result per input
    /// position. A resource given twice is sent once, with its first list of changes.
    pub async fn incremental_alter_configs(
        &self,
        changes: Vec<(ConfigResource, Vec<AlterConfigOp>)>,
        options: AlterConfigsOptions,
    ) -> Vec<Result<(), AdminError>> {
        let deduped = Deduped::new(changes.iter().map(|(r, _)| r.clone()).collect());
        let ops_of = |resource: &ConfigResource| {
            changes
                .iter()
                .find(|(r, _)| r == resource)
                .map(|(_, ops)| ops.as_slice())
                .unwrap_or_default()
        };
        let (groups, mut outcomes) = by_target(&deduped.unique);
        for (target, members) in groups {
            let request = iac::IncrementalAlterConfigsRequest {
                resources: members
                    .iter()
                    .map(|r| iac::AlterConfigsResource {
                        resource_type: r.resource_type.code(),
                        resource_name: Cow::Borrowed(r.name.as_str()),
                        configs: ops_of(r)
                            .iter()
                            .map(|op| iac::AlterableConfig {
                                name: Cow::Borrowed(op.name.as_str()),
                                config_operation: op.op.code(),
                                value: op.value.as_deref().map(Cow::Borrowed),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                validate_only: options.validate_only,
                ..Default::default()
            };
            let sent = self
                .call(
                    "incrementalAlterConfigs",
                    options.timeout,
                    target,
                    |broker| {
                        let request = &request;
                        async move {
                            let version = broker.versions.pick(
                                ApiKey::IncrementalAlterConfigs,
                                iac::IncrementalAlterConfigsRequest::VERSIONS,
                            )?;
                            let response = broker.conn.send(version, request).await?;
                            let body: iac::IncrementalAlterConfigsResponse = response.decode()?;
                            Ok(body
                                .responses
                                .iter()
                                .map(|r| {
                                    (
                                        (r.resource_type, r.resource_name.to_string()),
                                        AdminError::check(r.error_code, r.error_message.as_deref()),
                                    )
                                })
                                .collect::<Outcomes<()>>())
                        }
                    },
                )
                .await;
            match sent {
                Ok(results) => outcomes.extend(results),
                Err(err) => outcomes.extend(members.iter().map(|r| (key(r), Err(err.clone())))),
            }
        }
        deduped.spread(&collect(&deduped.unique, &outcomes))
    }

    /// Replaces each resource's whole dynamic config set (the legacy AlterConfigs: keys not
    /// listed return to their defaults); one result per input position.
    pub async fn alter_configs(
        &self,
        configs: Vec<(ConfigResource, Vec<(String, String)>)>,
        options: AlterConfigsOptions,
    ) -> Vec<Result<(), AdminError>> {
        let deduped = Deduped::new(configs.iter().map(|(r, _)| r.clone()).collect());
        let entries_of = |resource: &ConfigResource| {
            configs
                .iter()
                .find(|(r, _)| r == resource)
                .map(|(_, entries)| entries.as_slice())
                .unwrap_or_default()
        };
        let (groups, mut outcomes) = by_target(&deduped.unique);
        for (target, members) in groups {
            let request = AlterConfigsRequest {
                resources: members
                    .iter()
                    .map(|r| AlterConfigsResource {
                        resource_type: r.resource_type.code(),
                        resource_name: Cow::Borrowed(r.name.as_str()),
                        configs: entries_of(r)
                            .iter()
                            .map(|(name, value)| AlterableConfig {
                                name: Cow::Borrowed(name.as_str()),
                                value: Some(Cow::Borrowed(value.as_str())),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                validate_only: options.validate_only,
                ..Default::default()
            };
            let sent = self
                .call("alterConfigs", options.timeout, target, |broker| {
                    let request = &request;
                    async move {
                        let version = broker
                            .versions
                            .pick(ApiKey::AlterConfigs, AlterConfigsRequest::VERSIONS)?;
                        let response = broker.conn.send(version, request).await?;
                        let body: AlterConfigsResponse = response.decode()?;
                        Ok(body
                            .responses
                            .iter()
                            .map(|r| {
                                (
                                    (r.resource_type, r.resource_name.to_string()),
                                    AdminError::check(r.error_code, r.error_message.as_deref()),
                                )
                            })
                            .collect::<Outcomes<()>>())
                    }
                })
                .await;
            match sent {
                Ok(results) => outcomes.extend(results),
                Err(err) => outcomes.extend(members.iter().map(|r| (key(r), Err(err.clone())))),
            }
        }
        deduped.spread(&collect(&deduped.unique, &outcomes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_scoped_resources_route_to_their_broker() {
        assert_eq!(target(&ConfigResource::topic("t")), Ok(Target::AnyBroker));
        assert_eq!(target(&ConfigResource::broker("")), Ok(Target::AnyBroker));
        assert_eq!(target(&ConfigResource::broker("3")), Ok(Target::Node(3)));
        let logger = ConfigResource {
            resource_type: ConfigResourceType::BrokerLogger,
            name: "x".into(),
        };
        assert!(matches!(
            target(&logger),
            Err(AdminError::InvalidRequest(_))
        ));
        assert_eq!(
            ConfigResource::topic("t").to_string(),
            "ConfigResource(type=TOPIC, name='t')"
        );
    }

    #[test]
    fn v0_sources_follow_is_default_and_the_resource_type() {
        let config = DescribeConfigsResourceResult {
            is_default: false,
            config_source: 3, // ignored at v0
            ..Default::default()
        };
        assert_eq!(
            entry(&config, 4, 0).source,
            ConfigSource::StaticBrokerConfig
        );
        assert_eq!(
            entry(&config, 2, 0).source,
            ConfigSource::DynamicTopicConfig
        );
        assert_eq!(entry(&config, 8, 0).source, ConfigSource::Unknown);
        let default = DescribeConfigsResourceResult {
            is_default: true,
            ..Default::default()
        };
        assert_eq!(entry(&default, 2, 0).source, ConfigSource::DefaultConfig);
        assert_eq!(
            entry(&config, 2, 1).source,
            ConfigSource::DynamicDefaultBrokerConfig
        );
        // Below v3 the decoded documentation is the schema default "", not a real text.
        assert_eq!(entry(&config, 2, 2).documentation, None);
    }
}
