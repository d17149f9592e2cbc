//! AlterClientQuotas (49), v0-1, as Kafka's `ControllerApis` and `ClientQuotaControlManager`
//! decide it:
//!
//! - ALTER_CONFIGS on the cluster, else every entry CLUSTER_AUTHORIZATION_FAILED;
//! - per entry (one result per entry, in request order): an entity without components is
//!   INVALID_REQUEST `Invalid empty client quota entity`, a type twice `Invalid client quota
//!   entity, duplicate entity entry T`, a type other than `user`/`client-id`/`ip`
//!   `Unhandled client quota entity type: T`, an empty name `Empty T not supported`; a key twice
//!   `Duplicate quota key K not updating quota for this entity E`; a key other than Kafka's four
//!   `Invalid configuration key K`; a value of 0 or less `Quota K must be greater than 0`; a
//!   byte rate above a long `Proposed value for K is too large for a LONG.`, a fractional one
//!   `K cannot be a fractional value.` (Kafka 4.x's `ClientQuotaControlManager`);
//! - a removal of an absent key and a set to the stored value change nothing; `validate_only`
//!   validates and commits nothing;
//! - the valid entries' changes are one store transaction, delivered to every node through the
//!   store's feed.
//!
//! Deliberate differences from Kafka:
//! - an `ip` entity (Kafka's connection rate quota) is INVALID_REQUEST `kacl does not keep ip
//!   quotas`: kacl accepts no connections on behalf of a broker it could rate-limit by address;
//! - a value that is not finite is INVALID_REQUEST (Kafka stores it);
//! - an entity named twice in one request is refused on each of its entries with `Ignoring
//!   duplicate entity E` and none of its changes apply (Kafka applies the first one's changes
//!   and answers the error once).

use std::borrow::Cow;
use std::collections::HashMap;

use kacl_acl::AclOperation;
use kacl_protocol::messages::alter_client_quotas::{
    AlterClientQuotasRequest, AlterClientQuotasResponse, EntityData, EntryData, EntryResult,
    ResultEntity,
};
use kacl_protocol::ErrorCode;
use kacl_store::{QuotaEntity, QuotaName, QuotaOp};

use super::describe_client_quotas::{CLIENT_ID, IP, USER};
use super::Handler;
use crate::client_quotas::{QuotaMap, QUOTA_KEYS};
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Kafka's text of an entity in messages (`ClientQuotaEntity.toString`).
fn describe(entity: &[EntityData<'_>]) -> String {
    let entries: Vec<String> = entity
        .iter()
        .map(|c| {
            format!(
                "{}={}",
                c.entity_type,
                c.entity_name.as_deref().unwrap_or("null")
            )
        })
        .collect();
    format!("ClientQuotaEntity(entries={{{}}})", entries.join(", "))
}

/// The stored entity of an entry, or why it is refused.
fn validate_entity(entity: &[EntityData<'_>]) -> Result<QuotaEntity, String> {
    if entity.is_empty() {
        return Err("Invalid empty client quota entity".into());
    }
    let mut out = QuotaEntity {
        user: None,
        client_id: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    for component in entity {
        let entity_type = component.entity_type.as_ref();
        if seen.contains(&entity_type) {
            return Err(format!(
                "Invalid client quota entity, duplicate entity entry {entity_type}"
            ));
        }
        seen.push(entity_type);
        let name = QuotaName::from_wire(component.entity_name.as_deref());
        match entity_type {
            USER => out.user = Some(name),
            CLIENT_ID => out.client_id = Some(name),
            // Deliberate difference from Kafka: no ip quotas (see the module documentation).
            IP => return Err("kacl does not keep ip quotas".into()),
            other => return Err(format!("Unhandled client quota entity type: {other}")),
        }
        if component.entity_name.as_deref() == Some("") {
            return Err(format!("Empty {entity_type} not supported"));
        }
    }
    Ok(out)
}

/// The changes of one valid entry against the stored `current` values, or why it is refused.
fn plan_entry(
    entry: &EntryData<'_>,
    current: &QuotaMap,
) -> Result<(QuotaEntity, Vec<QuotaOp>), String> {
    let entity = validate_entity(&entry.entity)?;
    let mut keys: Vec<&str> = Vec::new();
    let mut ops = Vec::new();
    let stored = current.get(&entity);
    for op in &entry.ops {
        let key = op.key.as_ref();
        if keys.contains(&key) {
            return Err(format!(
                "Duplicate quota key {key} not updating quota for this entity {}",
                describe(&entry.entity)
            ));
        }
        keys.push(key);
        let now = stored.and_then(|values| values.get(key)).copied();
        if op.remove {
            if now.is_some() {
                ops.push((entity.clone(), key.to_owned(), None));
            }
            continue;
        }
        let Some((_, long)) = QUOTA_KEYS.iter().find(|(known, _)| *known == key) else {
            return Err(format!("Invalid configuration key {key}"));
        };
        // Deliberate difference from Kafka: a value that is not finite is refused.
        if !op.value.is_finite() {
            return Err(format!("Configuration {key} must be a finite number"));
        }
        if op.value <= 0.0 {
            return Err(format!("Quota {key} must be greater than 0"));
        }
        if *long {
            if op.value > i64::MAX as f64 {
                return Err(format!("Proposed value for {key} is too large for a LONG."));
            }
            if (op.value % 1.0).abs() > 1e-6 {
                return Err(format!("{key} cannot be a fractional value."));
            }
        }
        if now.map(f64::to_bits) != Some(op.value.to_bits()) {
            ops.push((entity.clone(), key.to_owned(), Some(op.value)));
        }
    }
    Ok((entity, ops))
}

fn result(entry: &EntryData<'_>, code: ErrorCode, message: Option<String>) -> EntryResult<'static> {
    EntryResult {
        error_code: code.code(),
        error_message: message.map(Cow::Owned),
        entity: entry
            .entity
            .iter()
            .map(|c| ResultEntity {
                entity_type: Cow::Owned(c.entity_type.to_string()),
                entity_name: c.entity_name.as_deref().map(|n| Cow::Owned(n.to_owned())),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// AlterClientQuotas: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct AlterClientQuotas;

impl Handler for AlterClientQuotas {
    type Request<'r> = AlterClientQuotasRequest<'r>;
    type Response<'r> = AlterClientQuotasResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: AlterClientQuotasRequest<'r>,
    ) -> Result<AlterClientQuotasResponse<'r>, Outcome> {
        Ok(answer(ctx, request).await)
    }
}

/// Answers one AlterClientQuotas request.
async fn answer(
    ctx: &RequestContext<'_>,
    request: AlterClientQuotasRequest<'_>,
) -> AlterClientQuotasResponse<'static> {
    if !ctx.cluster_allows(AclOperation::AlterConfigs) {
        let message = ctx.cluster_denied_message();
        return AlterClientQuotasResponse {
            entries: request
                .entries
                .iter()
                .map(|e| {
                    result(
                        e,
                        ErrorCode::ClusterAuthorizationFailed,
                        Some(message.clone()),
                    )
                })
                .collect(),
            ..Default::default()
        };
    }
    let current = ctx.state.quotas.snapshot();
    let planned: Vec<Result<(QuotaEntity, Vec<QuotaOp>), String>> = request
        .entries
        .iter()
        .map(|entry| plan_entry(entry, &current))
        .collect();
    // Deliberate difference from Kafka: an entity named twice is refused on every entry.
    let mut count: HashMap<&QuotaEntity, usize> = HashMap::new();
    for (entity, _) in planned.iter().flatten() {
        *count.entry(entity).or_default() += 1;
    }
    let mut outcomes: Vec<Result<&[QuotaOp], String>> = Vec::with_capacity(planned.len());
    for (entry, plan) in request.entries.iter().zip(&planned) {
        outcomes.push(match plan {
            Ok((entity, ops)) if count.get(entity).copied().unwrap_or(0) == 1 => Ok(ops),
            Ok(_) => Err(format!(
                "Ignoring duplicate entity {}",
                describe(&entry.entity)
            )),
            Err(message) => Err(message.clone()),
        });
    }
    let changes: Vec<QuotaOp> = outcomes
        .iter()
        .filter_map(|o| o.as_ref().ok())
        .flat_map(|ops| ops.iter().cloned())
        .collect();
    let mut store_failure: Option<(ErrorCode, String)> = None;
    if !request.validate_only && !changes.is_empty() {
        let store = ctx.state.store.clone();
        let committed =
            tokio::task::spawn_blocking(move || store.alter_client_quotas(&changes)).await;
        match committed {
            Ok(Ok(())) => {}
            Ok(Err(err)) => {
                tracing::error!(%err, "cannot store the client quota changes");
                store_failure = Some((
                    super::create_acls::store_failure_code(&err),
                    format!("The client quotas could not be stored: {err}"),
                ));
            }
            Err(err) => {
                store_failure = Some((
                    ErrorCode::UnknownServerError,
                    format!("The client quota writer failed: {err}"),
                ));
            }
        }
    }
    let entries = request
        .entries
        .iter()
        .zip(outcomes)
        .map(|(entry, outcome)| match (outcome, &store_failure) {
            (Ok(_), None) => {
                if !request.validate_only {
                    tracing::info!(principal = %kacl_logsafe::safe(ctx.principal),
                        entity = %kacl_logsafe::safe(&describe(&entry.entity)),
                        "altered client quotas");
                }
                result(entry, ErrorCode::None, None)
            }
            (Ok(_), Some((code, message))) => result(entry, *code, Some(message.clone())),
            (Err(message), _) => result(entry, ErrorCode::InvalidRequest, Some(message)),
        })
        .collect();
    AlterClientQuotasResponse {
        entries,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::alter_client_quotas::OpData;

    fn entry(
        entity: Vec<(&'static str, Option<&'static str>)>,
        ops: Vec<(&'static str, f64, bool)>,
    ) -> EntryData<'static> {
        EntryData {
            entity: entity
                .into_iter()
                .map(|(t, n)| EntityData {
                    entity_type: Cow::Borrowed(t),
                    entity_name: n.map(Cow::Borrowed),
                    ..Default::default()
                })
                .collect(),
            ops: ops
                .into_iter()
                .map(|(key, value, remove)| OpData {
                    key: Cow::Borrowed(key),
                    value,
                    remove,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn entries_are_validated_as_kafka_does() {
        let none = QuotaMap::new();
        let refuse = |e: EntryData<'static>| plan_entry(&e, &none).unwrap_err();
        assert_eq!(
            refuse(entry(vec![], vec![])),
            "Invalid empty client quota entity"
        );
        assert!(
            refuse(entry(vec![(USER, Some("a")), (USER, Some("b"))], vec![]))
                .contains("duplicate entity entry user")
        );
        assert_eq!(
            refuse(entry(vec![("group", Some("g"))], vec![])),
            "Unhandled client quota entity type: group"
        );
        assert_eq!(
            refuse(entry(vec![(USER, Some(""))], vec![])),
            "Empty user not supported"
        );
        assert_eq!(
            refuse(entry(
                vec![(USER, Some("a"))],
                vec![("producer_byte_rate", 1.5, false)]
            )),
            "producer_byte_rate cannot be a fractional value."
        );
        assert_eq!(
            refuse(entry(
                vec![(USER, Some("a"))],
                vec![("request_percentage", 0.0, false)]
            )),
            "Quota request_percentage must be greater than 0"
        );
        assert_eq!(
            refuse(entry(
                vec![(USER, Some("a"))],
                vec![("fetch_rate", 1.0, false)]
            )),
            "Invalid configuration key fetch_rate"
        );
        assert!(refuse(entry(
            vec![(CLIENT_ID, None)],
            vec![
                ("request_percentage", 1.0, false),
                ("request_percentage", 2.0, true)
            ]
        ))
        .starts_with("Duplicate quota key request_percentage"));
    }

    #[test]
    fn only_real_changes_are_planned() {
        let alice = QuotaEntity {
            user: Some(QuotaName::Named("alice".into())),
            client_id: None,
        };
        let mut current = QuotaMap::new();
        current
            .entry(alice.clone())
            .or_default()
            .insert("producer_byte_rate".into(), 100.0);
        let (entity, ops) = plan_entry(
            &entry(
                vec![(USER, Some("alice"))],
                vec![
                    ("producer_byte_rate", 100.0, false),
                    ("consumer_byte_rate", 0.0, true),
                    ("request_percentage", 12.5, false),
                ],
            ),
            &current,
        )
        .unwrap();
        assert_eq!(entity, alice);
        assert_eq!(
            ops,
            vec![(alice, "request_percentage".to_owned(), Some(12.5))]
        );
    }
}
