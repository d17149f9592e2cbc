//! DescribeClientQuotas (48), v0-1, answered from the quotas in memory as Kafka's
//! `ClientQuotasImage.describe` does:
//!
//! - DESCRIBE_CONFIGS on the cluster, else CLUSTER_AUTHORIZATION_FAILED for the whole request
//!   (entries null);
//! - each component: an empty entity type is INVALID_REQUEST `Invalid empty entity type.`, a
//!   type named twice INVALID_REQUEST `Entity type T cannot appear more than once in the
//!   filter.`, a type other than `user`, `client-id` and `ip` UNSUPPORTED_VERSION `Unsupported
//!   entity type T`; EXACT (0) needs a match string, DEFAULT (1) and SPECIFIED (2) none, another
//!   match type is INVALID_REQUEST; `ip` with `user` or `client-id` is INVALID_REQUEST;
//! - an entity matches when it has every EXACT/DEFAULT component's name and every SPECIFIED
//!   component's type (any name, the default included, as Kafka's index of names does); with
//!   `strict`, only entities with exactly those types; no components and not strict: every
//!   entity.
//!
//! kacl keeps no `ip` entities (connection rate quotas are Kafka's broker-side
//! `connection_creation_rate`), so an `ip` filter matches nothing.

use std::borrow::Cow;

use kacl_acl::AclOperation;
use kacl_protocol::messages::describe_client_quotas::{
    DescribeClientQuotasRequest, DescribeClientQuotasResponse, EntityData, EntryData, ValueData,
};
use kacl_protocol::ErrorCode;
use kacl_store::{QuotaEntity, QuotaName};

use super::Handler;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Kafka's entity type names.
pub const USER: &str = "user";
/// The client id entity type.
pub const CLIENT_ID: &str = "client-id";
/// The IP entity type (not stored by kacl).
pub const IP: &str = "ip";

/// One component of a filter, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Component {
    /// EXACT (a name) or DEFAULT (`QuotaName::Default`).
    Is(QuotaName),
    /// SPECIFIED: any name.
    Any,
}

/// A validated filter: the user and client-id components, whether an `ip` one was given.
#[derive(Debug, Default)]
struct Filter {
    user: Option<Component>,
    client_id: Option<Component>,
    ip: bool,
    strict: bool,
}

fn invalid(message: String) -> (ErrorCode, String) {
    (ErrorCode::InvalidRequest, message)
}

fn parse(request: &DescribeClientQuotasRequest<'_>) -> Result<Filter, (ErrorCode, String)> {
    let mut filter = Filter {
        strict: request.strict,
        ..Filter::default()
    };
    let mut seen: Vec<&str> = Vec::new();
    for component in &request.components {
        let entity_type = component.entity_type.as_ref();
        if entity_type.is_empty() {
            return Err(invalid("Invalid empty entity type.".into()));
        }
        if seen.contains(&entity_type) {
            return Err(invalid(format!(
                "Entity type {entity_type} cannot appear more than once in the filter."
            )));
        }
        seen.push(entity_type);
        if ![USER, CLIENT_ID, IP].contains(&entity_type) {
            return Err((
                ErrorCode::UnsupportedVersion,
                format!("Unsupported entity type {entity_type}"),
            ));
        }
        let matched =
            match (component.match_type, component.match_.as_deref()) {
                (0, Some(name)) => Component::Is(QuotaName::Named(name.to_owned())),
                (0, None) => {
                    return Err(invalid(
                        "Request specified MATCH_TYPE_EXACT, but set match string to null.".into(),
                    ))
                }
                (1, None) => Component::Is(QuotaName::Default),
                (1, Some(_)) => {
                    return Err(invalid(
                        "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."
                            .into(),
                    ))
                }
                (2, None) => Component::Any,
                (2, Some(_)) => return Err(invalid(
                    "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."
                        .into(),
                )),
                (other, _) => return Err(invalid(format!("Unknown match type {other}"))),
            };
        match entity_type {
            USER => filter.user = Some(matched),
            CLIENT_ID => filter.client_id = Some(matched),
            _ => filter.ip = true,
        }
    }
    if filter.ip && (filter.user.is_some() || filter.client_id.is_some()) {
        return Err(invalid(
            "Invalid entity filter component combination. IP filter component should not be \
             used with user or clientId filter component."
                .into(),
        ));
    }
    Ok(filter)
}

fn component_matches(wanted: &Option<Component>, has: &Option<QuotaName>) -> bool {
    match (wanted, has) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(Component::Any), Some(_)) => true,
        (Some(Component::Is(name)), Some(has)) => name == has,
    }
}

impl Filter {
    fn matches(&self, entity: &QuotaEntity) -> bool {
        if self.ip {
            return false;
        }
        if !component_matches(&self.user, &entity.user)
            || !component_matches(&self.client_id, &entity.client_id)
        {
            return false;
        }
        if !self.strict {
            return true;
        }
        let wanted = usize::from(self.user.is_some()) + usize::from(self.client_id.is_some());
        let has = usize::from(entity.user.is_some()) + usize::from(entity.client_id.is_some());
        wanted == has
    }
}

/// An entity's components as Kafka lists them (user first).
pub fn entity_components(entity: &QuotaEntity) -> Vec<(&'static str, Option<String>)> {
    let mut out = Vec::with_capacity(2);
    if let Some(user) = &entity.user {
        out.push((USER, user.as_wire().map(str::to_owned)));
    }
    if let Some(client_id) = &entity.client_id {
        out.push((CLIENT_ID, client_id.as_wire().map(str::to_owned)));
    }
    out
}

/// DescribeClientQuotas: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeClientQuotas;

impl Handler for DescribeClientQuotas {
    type Request<'r> = DescribeClientQuotasRequest<'r>;
    type Response<'r> = DescribeClientQuotasResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeClientQuotasRequest<'r>,
    ) -> Result<DescribeClientQuotasResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one DescribeClientQuotas request.
fn answer(
    ctx: &RequestContext<'_>,
    request: DescribeClientQuotasRequest<'_>,
) -> DescribeClientQuotasResponse<'static> {
    let error = |(code, message): (ErrorCode, String)| DescribeClientQuotasResponse {
        error_code: code.code(),
        error_message: Some(Cow::Owned(message)),
        entries: None,
        ..Default::default()
    };
    if !ctx.cluster_allows(AclOperation::DescribeConfigs) {
        return error((
            ErrorCode::ClusterAuthorizationFailed,
            "Cluster authorization failed.".into(),
        ));
    }
    let filter = match parse(&request) {
        Ok(filter) => filter,
        Err(err) => return error(err),
    };
    let quotas = ctx.state.quotas.snapshot();
    let entries = quotas
        .iter()
        .filter(|(entity, _)| filter.matches(entity))
        .map(|(entity, values)| EntryData {
            entity: entity_components(entity)
                .into_iter()
                .map(|(entity_type, entity_name)| EntityData {
                    entity_type: Cow::Borrowed(entity_type),
                    entity_name: entity_name.map(Cow::Owned),
                    ..Default::default()
                })
                .collect(),
            values: values
                .iter()
                .map(|(key, value)| ValueData {
                    key: Cow::Owned(key.clone()),
                    value: *value,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    DescribeClientQuotasResponse {
        entries: Some(entries),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_protocol::messages::describe_client_quotas::ComponentData;

    fn component(
        entity_type: &'static str,
        match_type: i8,
        name: Option<&'static str>,
    ) -> ComponentData<'static> {
        ComponentData {
            entity_type: Cow::Borrowed(entity_type),
            match_type,
            match_: name.map(Cow::Borrowed),
            ..Default::default()
        }
    }

    fn filter(
        components: Vec<ComponentData<'static>>,
        strict: bool,
    ) -> Result<Filter, (ErrorCode, String)> {
        parse(&DescribeClientQuotasRequest {
            components,
            strict,
            ..Default::default()
        })
    }

    fn e(user: Option<QuotaName>, client_id: Option<QuotaName>) -> QuotaEntity {
        QuotaEntity { user, client_id }
    }

    fn n(name: &str) -> Option<QuotaName> {
        Some(QuotaName::Named(name.to_owned()))
    }

    #[test]
    fn filters_match_as_kafkas_image_does() {
        let alice = e(n("alice"), None);
        let alice_app = e(n("alice"), n("app"));
        let default_user = e(Some(QuotaName::Default), None);
        let app = e(None, n("app"));
        let exact = filter(vec![component(USER, 0, Some("alice"))], false).unwrap();
        assert!(exact.matches(&alice) && exact.matches(&alice_app));
        assert!(!exact.matches(&default_user) && !exact.matches(&app));
        let strict = filter(vec![component(USER, 0, Some("alice"))], true).unwrap();
        assert!(strict.matches(&alice) && !strict.matches(&alice_app));
        let default = filter(vec![component(USER, 1, None)], true).unwrap();
        assert!(default.matches(&default_user) && !default.matches(&alice));
        let any_user = filter(vec![component(USER, 2, None)], true).unwrap();
        assert!(any_user.matches(&alice) && any_user.matches(&default_user));
        assert!(!any_user.matches(&alice_app) && !any_user.matches(&app));
        let all = filter(vec![], false).unwrap();
        assert!(all.matches(&app));
        let none = filter(vec![], true).unwrap();
        assert!(!none.matches(&app));
        let ip = filter(vec![component(IP, 2, None)], false).unwrap();
        assert!(!ip.matches(&app));
    }

    #[test]
    fn malformed_filters_get_kafkas_errors() {
        let code = |components, strict| filter(components, strict).unwrap_err().0;
        assert_eq!(
            code(vec![component("", 0, Some("a"))], false),
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            code(
                vec![component(USER, 2, None), component(USER, 1, None)],
                false
            ),
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            code(vec![component("group", 2, None)], false),
            ErrorCode::UnsupportedVersion
        );
        assert_eq!(
            code(vec![component(USER, 0, None)], false),
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            code(vec![component(USER, 1, Some("a"))], false),
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            code(vec![component(USER, 2, Some("a"))], false),
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            code(vec![component(USER, 7, None)], false),
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            code(
                vec![component(IP, 2, None), component(CLIENT_ID, 2, None)],
                false
            ),
            ErrorCode::InvalidRequest
        );
    }
}
