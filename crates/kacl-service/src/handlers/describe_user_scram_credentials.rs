//! DescribeUserScramCredentials (50), v0: which SCRAM mechanisms, with which iteration counts,
//! each user has. Salts and keys never leave the server. Answered from memory.
//!
//! Kafka's rules (`KafkaApis` and `ScramImage.describe`):
//! - DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED at the top level with
//!   `Cluster authorization failed.`, and one result per requested user carrying the same
//!   error and an empty user name (Kafka's `getErrorResponse` leaves the name unset);
//! - a null or empty user list describes every user with a credential;
//! - a user named twice: DUPLICATE_RESOURCE, `Cannot describe SCRAM credentials for the same
//!   user twice in a single request: <user>`, once;
//! - a user without credentials: RESOURCE_NOT_FOUND, `Attempt to describe a user credential
//!   that does not exist: <user>`;
//! - success messages are `""` (the schema's default), not null.
//!
//! Deliberate difference from Kafka: results come in request order (all users: by name) and
//! SHA-256 before SHA-512; Kafka's order is that of its hash maps.

use std::borrow::Cow;
use std::collections::HashMap;

use kacl_acl::AclOperation;
use kacl_protocol::messages::describe_user_scram_credentials::{
    CredentialInfo, DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse,
    DescribeUserScramCredentialsResult,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::context::RequestContext;
use crate::credentials::ScramCredentials;
use crate::outcome::Outcome;

/// Kafka's message for a user named twice (the user name follows).
pub const DUPLICATE_USER: &str =
    "Cannot describe SCRAM credentials for the same user twice in a single request: ";
/// Kafka's message for a user without credentials (the user name follows).
pub const NO_SUCH_USER: &str = "Attempt to describe a user credential that does not exist: ";
/// Kafka's text of a bare ClusterAuthorizationException.
pub const CLUSTER_AUTHORIZATION_FAILED: &str = "Cluster authorization failed.";

/// DescribeUserScramCredentials: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct DescribeUserScramCredentials;

impl Handler for DescribeUserScramCredentials {
    type Request<'r> = DescribeUserScramCredentialsRequest<'r>;
    type Response<'r> = DescribeUserScramCredentialsResponse<'r>;

    /// Answers one DescribeUserScramCredentials request.
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: DescribeUserScramCredentialsRequest<'r>,
    ) -> Result<DescribeUserScramCredentialsResponse<'r>, Outcome> {
        let names: Option<Vec<&str>> = request
            .users
            .as_ref()
            .map(|users| users.iter().map(|u| u.name.as_ref()).collect());
        if !ctx.cluster_allows(AclOperation::Describe) {
            return Ok(denied(names.as_deref().unwrap_or_default()));
        }
        Ok(describe(&ctx.state.scram, names.as_deref()))
    }
}

/// The answer for an authorized request: `names` as requested (`None` or empty: all users).
pub fn describe(
    credentials: &ScramCredentials,
    names: Option<&[&str]>,
) -> DescribeUserScramCredentialsResponse<'static> {
    let requested: Vec<(String, bool)> = match names {
        None | Some([]) => credentials
            .users()
            .into_iter()
            .map(|u| (u, false))
            .collect(),
        Some(names) => {
            // First occurrence keeps its place; a repeat marks the user duplicated.
            let mut order: Vec<(String, bool)> = Vec::new();
            let mut position: HashMap<&str, usize> = HashMap::new();
            for name in names {
                match position.get(name) {
                    Some(&at) => {
                        if let Some(entry) = order.get_mut(at) {
                            entry.1 = true;
                        }
                    }
                    None => {
                        position.insert(name, order.len());
                        order.push(((*name).to_owned(), false));
                    }
                }
            }
            order
        }
    };
    let results = requested
        .into_iter()
        .map(|(user, duplicated)| {
            if duplicated {
                return user_error(
                    user.clone(),
                    ErrorCode::DuplicateResource,
                    format!("{DUPLICATE_USER}{user}"),
                );
            }
            let infos = credentials.describe(&user);
            if infos.is_empty() {
                return user_error(
                    user.clone(),
                    ErrorCode::ResourceNotFound,
                    format!("{NO_SUCH_USER}{user}"),
                );
            }
            DescribeUserScramCredentialsResult {
                user: Cow::Owned(user),
                error_code: 0,
                error_message: Some(Cow::Borrowed("")),
                credential_infos: infos
                    .into_iter()
                    .map(|(mechanism, iterations)| CredentialInfo {
                        mechanism: mechanism.type_code(),
                        iterations: i32::try_from(iterations).unwrap_or(i32::MAX),
                        unknown_tagged_fields: Default::default(),
                    })
                    .collect(),
                unknown_tagged_fields: Default::default(),
            }
        })
        .collect();
    DescribeUserScramCredentialsResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: Some(Cow::Borrowed("")),
        results,
        unknown_tagged_fields: Default::default(),
    }
}

/// Kafka's `getErrorResponse` for CLUSTER_AUTHORIZATION_FAILED.
fn denied(names: &[&str]) -> DescribeUserScramCredentialsResponse<'static> {
    let message = || Some(Cow::Borrowed(CLUSTER_AUTHORIZATION_FAILED));
    DescribeUserScramCredentialsResponse {
        throttle_time_ms: 0,
        error_code: ErrorCode::ClusterAuthorizationFailed.code(),
        error_message: message(),
        results: names
            .iter()
            .map(|_| DescribeUserScramCredentialsResult {
                user: Cow::Borrowed(""),
                error_code: ErrorCode::ClusterAuthorizationFailed.code(),
                error_message: message(),
                credential_infos: Vec::new(),
                unknown_tagged_fields: Default::default(),
            })
            .collect(),
        unknown_tagged_fields: Default::default(),
    }
}

fn user_error(
    user: String,
    code: ErrorCode,
    message: String,
) -> DescribeUserScramCredentialsResult<'static> {
    DescribeUserScramCredentialsResult {
        user: Cow::Owned(user),
        error_code: code.code(),
        error_message: Some(Cow::Owned(message)),
        credential_infos: Vec::new(),
        unknown_tagged_fields: Default::default(),
    }
}
