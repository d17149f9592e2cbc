//! FindCoordinator (10), v0-6: which broker coordinates a group or a transactional id. A
//! standalone kacl node answers itself, at the listener's advertised address: it is the
//! coordinator of every group and transactional id there is, none, so that admin tools can go
//! on to DescribeGroups, ConsumerGroupDescribe or DescribeTransactions and be told there is no
//! such group or transaction (a consumer or producer gets no further: a standalone node does
//! not serve JoinGroup, Produce or the transaction APIs). On a gateway node FindCoordinator is
//! forwarded to the upstream, whose coordinators the gateway rewrites to its own addresses.
//!
//! Kafka's rules kept (`KafkaApis.getCoordinator`): DESCRIBE on the group (key type 0) or the
//! transactional id (1), else GROUP_AUTHORIZATION_FAILED / TRANSACTIONAL_ID_AUTHORIZATION_FAILED
//! with no node (-1, "", -1). v0-3 answer one key, with `error_message` Kafka's error text
//! (`NONE` on success); v4+ one coordinator per key.
//!
//! Deliberate difference from Kafka: key type 2 (share groups, KIP-932, which brokers ask of
//! each other) is INVALID_REQUEST like an unknown type: kacl has no share coordinator.

use std::borrow::Cow;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::messages::find_coordinator::{
    Coordinator, FindCoordinatorRequest, FindCoordinatorResponse,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::audit::AuditPolicy;
use crate::context::RequestContext;
use crate::outcome::Outcome;

/// Key type 0: a consumer group.
const GROUP: i8 = 0;
/// Key type 1: a transactional id.
const TRANSACTION: i8 = 1;

/// The answer for one key: the error (0) and its message, and whether this node coordinates it.
struct Answer {
    error_code: i16,
    message: Cow<'static, str>,
    found: bool,
}

/// FindCoordinator: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct FindCoordinator;

impl Handler for FindCoordinator {
    type Request<'r> = FindCoordinatorRequest<'r>;
    type Response<'r> = FindCoordinatorResponse<'r>;

    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: FindCoordinatorRequest<'r>,
    ) -> Result<FindCoordinatorResponse<'r>, Outcome> {
        Ok(answer(ctx, request))
    }
}

/// Answers one FindCoordinator request.
fn answer<'r>(
    ctx: &RequestContext<'_>,
    request: FindCoordinatorRequest<'r>,
) -> FindCoordinatorResponse<'r> {
    let session = ctx.authorizer();
    let answer = |key: &str| -> Answer {
        let resource = match request.key_type {
            GROUP => (ResourceType::Group, ErrorCode::GroupAuthorizationFailed),
            TRANSACTION => (
                ResourceType::TransactionalId,
                ErrorCode::TransactionalIdAuthorizationFailed,
            ),
            other => {
                return Answer {
                    error_code: ErrorCode::InvalidRequest.code(),
                    message: Cow::Owned(format!("Unknown coordinator type received: {other}")),
                    found: false,
                }
            }
        };
        if session.allows(
            AclOperation::Describe,
            resource.0,
            key,
            AuditPolicy::ENFORCED,
        ) {
            Answer {
                error_code: 0,
                message: Cow::Borrowed("NONE"),
                found: true,
            }
        } else {
            Answer {
                error_code: resource.1.code(),
                message: Cow::Borrowed(resource.1.default_message()),
                found: false,
            }
        }
    };
    let listener = ctx.listener;
    let node_id = ctx.state.node_id();
    let port = i32::from(listener.advertised_port);
    let node = |found: bool| {
        if found {
            (node_id, Cow::Owned(listener.advertised_host.clone()), port)
        } else {
            (-1, Cow::Borrowed(""), -1)
        }
    };
    if ctx.version < 4 {
        let a = answer(&request.key);
        let (node_id, host, port) = node(a.found);
        return FindCoordinatorResponse {
            error_code: a.error_code,
            error_message: Some(a.message),
            node_id,
            host,
            port,
            ..Default::default()
        };
    }
    let coordinators = request
        .coordinator_keys
        .iter()
        .map(|key| {
            let a = answer(key);
            let (node_id, host, port) = node(a.found);
            Coordinator {
                key: key.clone(),
                node_id,
                host,
                port,
                error_code: a.error_code,
                // Kafka sets no message on a v4+ coordinator.
                error_message: Some(Cow::Borrowed("")),
                unknown_tagged_fields: Default::default(),
            }
        })
        .collect();
    FindCoordinatorResponse {
        coordinators,
        ..Default::default()
    }
}
