//! AlterUserScramCredentials (51), v0: delete SCRAM credentials, or upsert them from a salted
//! password the client computed (the password itself never reaches the server, and the server
//! keeps only salt, iterations, StoredKey and ServerKey).
//!
//! Kafka's rules (`ControllerApis` and `ScramControlManager.alterCredentials`), in this order:
//! - ALTER on the cluster, else every user named gets CLUSTER_AUTHORIZATION_FAILED (one result
//!   per distinct user, sorted by name);
//! - deletions first, then upsertions, each checked in request order: a user already refused is
//!   skipped; a user named a second time (in either list, whatever the mechanism) gets
//!   DUPLICATE_RESOURCE `A user credential cannot be altered twice in the same request` and its
//!   earlier change is dropped;
//! - an empty user: UNACCEPTABLE_CREDENTIAL `Username must not be empty`; a mechanism other
//!   than 1 and 2: UNSUPPORTED_SASL_MECHANISM `Unknown SCRAM mechanism`; deleting a credential
//!   that is not stored: RESOURCE_NOT_FOUND `Attempt to delete a user credential that does not
//!   exist`; iterations below 4096: UNACCEPTABLE_CREDENTIAL `Too few iterations`, above 16384:
//!   `Too many iterations`;
//! - results: successful deletions, successful upsertions, then the refusals; success messages
//!   are null.
//!
//! Deliberate differences from Kafka:
//! - an empty salt or salted password is UNACCEPTABLE_CREDENTIAL (`Salt must not be empty`,
//!   `Salted password must not be empty`); Kafka stores an empty salt and answers
//!   UNKNOWN_SERVER_ERROR for an empty salted password;
//! - results within each group come in request order (Kafka's follow its hash maps);
//! - each change is its own store transaction (see [`ScramCredentials::write`]), and a change
//!   the store refused gets UNKNOWN_SERVER_ERROR on its user.
//!
//! [`ScramCredentials::write`]: crate::credentials::ScramCredentials::write

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use kacl_acl::AclOperation;
use kacl_protocol::messages::alter_user_scram_credentials::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResult,
};
use kacl_protocol::ErrorCode;

use super::Handler;
use crate::context::RequestContext;
use crate::credentials::{CredentialChange, CredentialView};
use crate::outcome::Outcome;
use kacl_sasl::{ScramCredential, ScramMechanism};

/// Kafka's DUPLICATE_RESOURCE text.
pub const ALTERED_TWICE: &str = "A user credential cannot be altered twice in the same request";

/// One deletion, owned (the request borrows the frame; the plan runs on a blocking thread).
#[derive(Debug, Clone)]
pub struct Deletion {
    /// The user.
    pub name: String,
    /// Kafka's mechanism code.
    pub mechanism: i8,
}

/// One upsertion, owned.
#[derive(Debug, Clone)]
pub struct Upsertion {
    /// The user.
    pub name: String,
    /// Kafka's mechanism code.
    pub mechanism: i8,
    /// PBKDF2 iterations the client used.
    pub iterations: i32,
    /// The client's salt.
    pub salt: Vec<u8>,
    /// `Hi(password, salt, iterations)`, computed by the client.
    pub salted_password: Vec<u8>,
}

/// A refusal for one user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The user.
    pub user: String,
    /// The error.
    pub code: ErrorCode,
    /// Kafka's message.
    pub message: &'static str,
}

/// AlterUserScramCredentials: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct AlterUserScramCredentials;

impl Handler for AlterUserScramCredentials {
    type Request<'r> = AlterUserScramCredentialsRequest<'r>;
    type Response<'r> = AlterUserScramCredentialsResponse<'r>;

    /// Answers one AlterUserScramCredentials request; `Err` closes the connection (the credential
    /// writer's thread failed, so nothing can be said about what was stored).
    async fn handle<'r>(
        ctx: &'r RequestContext<'r>,
        request: AlterUserScramCredentialsRequest<'r>,
    ) -> Result<AlterUserScramCredentialsResponse<'r>, Outcome> {
        let deletions: Vec<Deletion> = request
            .deletions
            .iter()
            .map(|d| Deletion {
                name: d.name.to_string(),
                mechanism: d.mechanism,
            })
            .collect();
        let upsertions: Vec<Upsertion> = request
            .upsertions
            .iter()
            .map(|u| Upsertion {
                name: u.name.to_string(),
                mechanism: u.mechanism,
                iterations: u.iterations,
                salt: u.salt.to_vec(),
                salted_password: u.salted_password.to_vec(),
            })
            .collect();
        if !ctx.cluster_allows(AclOperation::Alter) {
            let message = ctx.cluster_denied_message();
            let users: BTreeSet<&str> = deletions
                .iter()
                .map(|d| d.name.as_str())
                .chain(upsertions.iter().map(|u| u.name.as_str()))
                .collect();
            let results = users
                .into_iter()
                .map(|user| {
                    result(
                        user.to_owned(),
                        ErrorCode::ClusterAuthorizationFailed,
                        Some(message.clone()),
                    )
                })
                .collect();
            return Ok(response(results));
        }

        let state = ctx.state.clone();
        let written = tokio::task::spawn_blocking(move || {
            state
                .scram
                .write(|view| plan(&deletions, &upsertions, view))
        })
        .await;
        let (outcomes, refusals) = match written {
            Ok(done) => done,
            Err(err) => {
                tracing::error!(%err, "the SCRAM credential writer failed");
                return Err(Outcome::close(format!(
                    "the SCRAM credential writer failed: {err}"
                )));
            }
        };

        let mut results = Vec::with_capacity(outcomes.len() + refusals.len());
        let mut failed = Vec::new();
        for (change, stored) in outcomes {
            let user = change.user().to_owned();
            match stored {
                Ok(()) => {
                    log_change(ctx, &change);
                    results.push(result(user, ErrorCode::None, None));
                }
                Err(err) => {
                    tracing::error!(%err, user = %kacl_logsafe::safe(&user), mechanism = %change.mechanism(),
                        "cannot store the SCRAM credential change");
                    failed.push(result(
                        user,
                        super::create_acls::store_failure_code(&err),
                        Some(format!("The SCRAM credential could not be stored: {err}")),
                    ));
                }
            }
        }
        results.extend(failed);
        results.extend(
            refusals
                .into_iter()
                .map(|r| result(r.user, r.code, Some(r.message.to_owned()))),
        );
        Ok(response(results))
    }
}

fn log_change(ctx: &RequestContext<'_>, change: &CredentialChange) {
    match change {
        CredentialChange::Delete { user, mechanism } => {
            tracing::info!(principal = %kacl_logsafe::safe(ctx.principal), host = %kacl_logsafe::safe(ctx.client_host), user = %kacl_logsafe::safe(user),
                %mechanism, "deleted SCRAM credential");
        }
        CredentialChange::Upsert {
            user,
            mechanism,
            credential,
        } => {
            tracing::info!(principal = %kacl_logsafe::safe(ctx.principal), host = %kacl_logsafe::safe(ctx.client_host), user = %kacl_logsafe::safe(user),
                %mechanism, iterations = credential.iterations, "stored SCRAM credential");
        }
    }
}

/// Kafka's `alterCredentials` decisions against the current credentials: the changes to make
/// (deletions, then upsertions, each in request order) and the refusals (in the order first
/// refused).
pub fn plan(
    deletions: &[Deletion],
    upsertions: &[Upsertion],
    view: &CredentialView<'_>,
) -> (Vec<CredentialChange>, Vec<Refusal>) {
    let mut refusals: Vec<Refusal> = Vec::new();
    let mut refused: HashSet<&str> = HashSet::new();
    let mut accepted_deletions: Vec<Option<CredentialChange>> = Vec::new();
    let mut deletion_at: HashMap<&str, usize> = HashMap::new();
    for deletion in deletions {
        let name = deletion.name.as_str();
        if refused.contains(name) {
            continue;
        }
        if let Some(at) = deletion_at.remove(name) {
            drop_change(&mut accepted_deletions, at);
            refused.insert(name);
            refuse(
                &mut refusals,
                name,
                ErrorCode::DuplicateResource,
                ALTERED_TWICE,
            );
            continue;
        }
        match check_deletion(deletion, view) {
            Ok(change) => {
                deletion_at.insert(name, accepted_deletions.len());
                accepted_deletions.push(Some(change));
            }
            Err((code, message)) => {
                refused.insert(name);
                refuse(&mut refusals, name, code, message);
            }
        }
    }
    let mut accepted_upsertions: Vec<Option<CredentialChange>> = Vec::new();
    let mut upsertion_at: HashMap<&str, usize> = HashMap::new();
    for upsertion in upsertions {
        let name = upsertion.name.as_str();
        if refused.contains(name) {
            continue;
        }
        let earlier = match deletion_at.remove(name) {
            Some(at) => Some((&mut accepted_deletions, at)),
            None => upsertion_at
                .remove(name)
                .map(|at| (&mut accepted_upsertions, at)),
        };
        if let Some((list, at)) = earlier {
            drop_change(list, at);
            refused.insert(name);
            refuse(
                &mut refusals,
                name,
                ErrorCode::DuplicateResource,
                ALTERED_TWICE,
            );
            continue;
        }
        match check_upsertion(upsertion) {
            Ok(change) => {
                upsertion_at.insert(name, accepted_upsertions.len());
                accepted_upsertions.push(Some(change));
            }
            Err((code, message)) => {
                refused.insert(name);
                refuse(&mut refusals, name, code, message);
            }
        }
    }
    let changes = accepted_deletions
        .into_iter()
        .chain(accepted_upsertions)
        .flatten()
        .collect();
    (changes, refusals)
}

fn refuse(refusals: &mut Vec<Refusal>, user: &str, code: ErrorCode, message: &'static str) {
    refusals.push(Refusal {
        user: user.to_owned(),
        code,
        message,
    });
}

fn drop_change(list: &mut [Option<CredentialChange>], at: usize) {
    if let Some(entry) = list.get_mut(at) {
        *entry = None;
    }
}

type Check<T> = Result<T, (ErrorCode, &'static str)>;

/// Kafka's `validateScramUsernameAndMechanism`.
fn check_user_and_mechanism(name: &str, mechanism: i8) -> Check<ScramMechanism> {
    if name.is_empty() {
        return Err((
            ErrorCode::UnacceptableCredential,
            "Username must not be empty",
        ));
    }
    ScramMechanism::from_type_code(mechanism).ok_or((
        ErrorCode::UnsupportedSaslMechanism,
        "Unknown SCRAM mechanism",
    ))
}

fn check_deletion(deletion: &Deletion, view: &CredentialView<'_>) -> Check<CredentialChange> {
    let mechanism = check_user_and_mechanism(&deletion.name, deletion.mechanism)?;
    if !view.contains(&deletion.name, mechanism) {
        return Err((
            ErrorCode::ResourceNotFound,
            "Attempt to delete a user credential that does not exist",
        ));
    }
    Ok(CredentialChange::Delete {
        user: deletion.name.clone(),
        mechanism,
    })
}

fn check_upsertion(upsertion: &Upsertion) -> Check<CredentialChange> {
    let mechanism = check_user_and_mechanism(&upsertion.name, upsertion.mechanism)?;
    let minimum = i32::try_from(ScramMechanism::MIN_ITERATIONS).unwrap_or(i32::MAX);
    if upsertion.iterations < minimum {
        return Err((ErrorCode::UnacceptableCredential, "Too few iterations"));
    }
    let maximum = i32::try_from(ScramMechanism::MAX_ITERATIONS).unwrap_or(i32::MAX);
    if upsertion.iterations > maximum {
        return Err((ErrorCode::UnacceptableCredential, "Too many iterations"));
    }
    // Deliberate difference from Kafka (see the module documentation).
    if upsertion.salt.is_empty() {
        return Err((ErrorCode::UnacceptableCredential, "Salt must not be empty"));
    }
    if upsertion.salted_password.is_empty() {
        return Err((
            ErrorCode::UnacceptableCredential,
            "Salted password must not be empty",
        ));
    }
    Ok(CredentialChange::Upsert {
        user: upsertion.name.clone(),
        mechanism,
        credential: ScramCredential::from_salted_password(
            mechanism,
            &upsertion.salted_password,
            upsertion.salt.clone(),
            upsertion.iterations.unsigned_abs(),
        ),
    })
}

fn result(
    user: String,
    code: ErrorCode,
    message: Option<String>,
) -> AlterUserScramCredentialsResult<'static> {
    AlterUserScramCredentialsResult {
        user: Cow::Owned(user),
        error_code: code.code(),
        error_message: message.map(Cow::Owned),
        unknown_tagged_fields: Default::default(),
    }
}

fn response(
    results: Vec<AlterUserScramCredentialsResult<'static>>,
) -> AlterUserScramCredentialsResponse<'static> {
    AlterUserScramCredentialsResponse {
        throttle_time_ms: 0,
        results,
        unknown_tagged_fields: Default::default(),
    }
}
