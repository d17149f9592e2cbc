//! FindCoordinator: DESCRIBE on the group or transactional id of each key; the coordinator is
//! shown at its gateway endpoint.

use std::borrow::Cow;
use std::sync::Arc;

use kacl_acl::{AclOperation, ResourceType};
use kacl_protocol::frame::RequestFrame;
use kacl_protocol::messages::find_coordinator::{
    Coordinator, FindCoordinatorRequest, FindCoordinatorResponse,
};
use kacl_protocol::ErrorCode;
use kacl_service::audit::AuditPolicy;
use kacl_service::context::RequestContext;

use super::access::group_allows;
use crate::plan::{Asker, Plan};
use crate::Shared;

/// Kafka's coordinator key types.
const GROUP_KEY: i8 = 0;
const TRANSACTION_KEY: i8 = 1;

/// DESCRIBE on the group or transactional id of each key; the coordinator is shown at its
/// gateway endpoint (COORDINATOR_NOT_AVAILABLE when the gateway has no port for it, which
/// makes the client ask again).
pub(in crate::rules) fn find_coordinator(
    shared: &Arc<Shared>,
    ctx: &RequestContext<'_>,
    mut request: FindCoordinatorRequest<'_>,
    frame: &RequestFrame<'_>,
) -> Plan {
    let session = ctx.authorizer();
    let key_type = request.key_type;
    let refusal = |key: &str| -> Option<ErrorCode> {
        match key_type {
            GROUP_KEY => (!group_allows(&session, AclOperation::Describe, key))
                .then_some(ErrorCode::GroupAuthorizationFailed),
            TRANSACTION_KEY => (!session.allows(
                AclOperation::Describe,
                ResourceType::TransactionalId,
                key,
                AuditPolicy::ENFORCED,
            ))
            .then_some(ErrorCode::TransactionalIdAuthorizationFailed),
            // Share-group keys (KIP-932) and unknown types: not forwarded.
            _ => Some(ErrorCode::InvalidRequest),
        }
    };
    let mut refused: Vec<(String, ErrorCode)> = Vec::new();
    if ctx.version < 4 {
        if let Some(code) = refusal(&request.key) {
            drop(session);
            return Plan::answer(
                ctx,
                &FindCoordinatorResponse {
                    error_code: code.code(),
                    error_message: Some(Cow::Borrowed(code.default_message())),
                    node_id: -1,
                    host: Cow::Borrowed(""),
                    port: -1,
                    ..Default::default()
                },
            );
        }
    } else {
        request.coordinator_keys.retain(|key| match refusal(key) {
            Some(code) => {
                refused.push((key.to_string(), code));
                false
            }
            None => true,
        });
    }
    drop(session);
    let shared = shared.clone();
    let reduced = !refused.is_empty();
    let merge = move |asker: &Asker, body: &mut FindCoordinatorResponse<'_>| {
        if asker.version < 4 {
            if body.error_code == 0 {
                match shared.addresses.get(body.node_id) {
                    Some(endpoint) => {
                        body.host = Cow::Owned(endpoint.host);
                        body.port = i32::from(endpoint.port);
                    }
                    None => unavailable(&mut body.error_code, &mut body.host, &mut body.port),
                }
            }
            return;
        }
        for coordinator in &mut body.coordinators {
            if coordinator.error_code == 0 {
                match shared.addresses.get(coordinator.node_id) {
                    Some(endpoint) => {
                        coordinator.host = Cow::Owned(endpoint.host);
                        coordinator.port = i32::from(endpoint.port);
                    }
                    None => unavailable(
                        &mut coordinator.error_code,
                        &mut coordinator.host,
                        &mut coordinator.port,
                    ),
                }
            }
        }
        for (key, code) in refused {
            body.coordinators.push(Coordinator {
                key: Cow::Owned(key),
                node_id: -1,
                host: Cow::Borrowed(""),
                port: -1,
                error_code: code.code(),
                error_message: Some(Cow::Borrowed(code.default_message())),
                ..Default::default()
            });
        }
    };
    if ctx.version >= 4 && request.coordinator_keys.is_empty() {
        let mut body = FindCoordinatorResponse::default();
        merge(&Asker::of(ctx), &mut body);
        return Plan::answer(ctx, &body);
    }
    let finish = Box::new(move |asker: &Asker, payload: Vec<u8>| {
        asker.rewrite::<FindCoordinatorResponse<'_>>(&payload, merge)
    });
    if reduced {
        Plan::reduced(ctx, frame, &request, finish)
    } else {
        Plan::rewrite(finish)
    }
}

/// A coordinator the gateway has no port for: never shown with its upstream address.
fn unavailable(code: &mut i16, host: &mut Cow<'_, str>, port: &mut i32) {
    *code = ErrorCode::CoordinatorNotAvailable.code();
    *host = Cow::Borrowed("");
    *port = -1;
}
