//! Client quotas (KIP-546): `Admin::describe_client_quotas` and `Admin::alter_client_quotas`,
//! as the Java AdminClient's `describeClientQuotas` / `alterClientQuotas` send them (to any
//! broker, which forwards an alteration to the controller).

use std::borrow::Cow;
use std::time::Duration;

use kacl_protocol::messages::alter_client_quotas::{
    AlterClientQuotasRequest, AlterClientQuotasResponse, EntityData, EntryData, OpData,
};
use kacl_protocol::messages::describe_client_quotas::{
    ComponentData, DescribeClientQuotasRequest, DescribeClientQuotasResponse,
};
use kacl_protocol::{ApiKey, ErrorCode, Message};

use super::{Admin, Target};
use crate::error::AdminError;

/// One component of a quota entity: its type (`user`, `client-id`, `ip`) and its name, `None`
/// for the type's default.
pub type QuotaEntityPart = (String, Option<String>);

/// A quota entity: its components, user first.
pub type QuotaEntityParts = Vec<QuotaEntityPart>;

/// How a filter component matches (Kafka's `ClientQuotaFilterComponent`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuotaMatch {
    /// This name.
    Exact(String),
    /// The default (null) name.
    Default,
    /// Any name, the default included.
    Specified,
}

/// One entity and its quota values, as described.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientQuotaEntry {
    /// The entity.
    pub entity: QuotaEntityParts,
    /// The values, by key.
    pub values: Vec<(String, f64)>,
}

/// One quota change: set the key to the value, or remove it (`None`).
pub type QuotaAlteration = (String, Option<f64>);

/// Options of the quota calls.
#[derive(Debug, Clone, Default)]
pub struct QuotaOptions {
    /// The call's deadline (the client's default when `None`).
    pub timeout: Option<Duration>,
    /// AlterClientQuotas: validate only, change nothing.
    pub validate_only: bool,
}

impl Admin {
    /// The entities matching `components` (each an entity type and how it matches), with
    /// their quota values; `strict`: only entities with exactly those types.
    pub async fn describe_client_quotas(
        &self,
        components: Vec<(String, QuotaMatch)>,
        strict: bool,
        options: QuotaOptions,
    ) -> Result<Vec<ClientQuotaEntry>, AdminError> {
        self.call(
            "describeClientQuotas",
            options.timeout,
            Target::AnyBroker,
            |broker| {
                let components = &components;
                async move {
                    let version = broker.versions.pick(
                        ApiKey::DescribeClientQuotas,
                        DescribeClientQuotasRequest::VERSIONS,
                    )?;
                    let request = DescribeClientQuotasRequest {
                        components: components
                            .iter()
                            .map(|(entity_type, matching)| {
                                let (match_type, name) = match matching {
                                    QuotaMatch::Exact(name) => (0, Some(name.as_str())),
                                    QuotaMatch::Default => (1, None),
                                    QuotaMatch::Specified => (2, None),
                                };
                                ComponentData {
                                    entity_type: Cow::Borrowed(entity_type.as_str()),
                                    match_type,
                                    match_: name.map(Cow::Borrowed),
                                    ..Default::default()
                                }
                            })
                            .collect(),
                        strict,
                        ..Default::default()
                    };
                    let response = broker.conn.send(version, &request).await?;
                    let body: DescribeClientQuotasResponse = response.decode()?;
                    AdminError::check(body.error_code, body.error_message.as_deref())?;
                    Ok(body
                        .entries
                        .unwrap_or_default()
                        .iter()
                        .map(|e| ClientQuotaEntry {
                            entity: e
                                .entity
                                .iter()
                                .map(|c| {
                                    (
                                        c.entity_type.to_string(),
                                        c.entity_name.as_deref().map(str::to_owned),
                                    )
                                })
                                .collect(),
                            values: e
                                .values
                                .iter()
                                .map(|v| (v.key.to_string(), v.value))
                                .collect(),
                        })
                        .collect())
                }
            },
        )
        .await
    }

    /// Applies `alterations` to each entity; one result per entity, in order.
    pub async fn alter_client_quotas(
        &self,
        alterations: Vec<(QuotaEntityParts, Vec<QuotaAlteration>)>,
        options: QuotaOptions,
    ) -> Vec<Result<(), AdminError>> {
        let count = alterations.len();
        let sent = self
            .call(
                "alterClientQuotas",
                options.timeout,
                Target::AnyBroker,
                |broker| {
                    let alterations = &alterations;
                    async move {
                        let version = broker.versions.pick(
                            ApiKey::AlterClientQuotas,
                            AlterClientQuotasRequest::VERSIONS,
                        )?;
                        let request = AlterClientQuotasRequest {
                            entries: alterations
                                .iter()
                                .map(|(entity, ops)| EntryData {
                                    entity: entity
                                        .iter()
                                        .map(|(t, n)| EntityData {
                                            entity_type: Cow::Borrowed(t.as_str()),
                                            entity_name: n.as_deref().map(Cow::Borrowed),
                                            ..Default::default()
                                        })
                                        .collect(),
                                    ops: ops
                                        .iter()
                                        .map(|(key, value)| OpData {
                                            key: Cow::Borrowed(key.as_str()),
                                            value: value.unwrap_or(0.0),
                                            remove: value.is_none(),
                                            ..Default::default()
                                        })
                                        .collect(),
                                    ..Default::default()
                                })
                                .collect(),
                            validate_only: options.validate_only,
                            ..Default::default()
                        };
                        let response = broker.conn.send(version, &request).await?;
                        let body: AlterClientQuotasResponse = response.decode()?;
                        Ok(body
                            .entries
                            .iter()
                            .map(|e| AdminError::check(e.error_code, e.error_message.as_deref()))
                            .collect::<Vec<_>>())
                    }
                },
            )
            .await;
        match sent {
            Err(err) => vec![Err(err); count],
            Ok(results) if results.len() == count => results,
            Ok(_) => vec![
                Err(AdminError::server(
                    ErrorCode::UnknownServerError,
                    Some("The broker response did not contain one result per entity"),
                ));
                count
            ],
        }
    }
}
