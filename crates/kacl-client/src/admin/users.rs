//! SCRAM credentials (KIP-554): `alter_user_scram_credentials` computes a fresh salt and the
//! salted password on the client, as Kafka's AdminClient does, so the password never leaves
//! this process; `describe_user_scram_credentials` lists mechanisms and iteration counts.

use std::borrow::Cow;
use std::time::Duration;

use kacl_protocol::messages::alter_user_scram_credentials::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, ScramCredentialDeletion,
    ScramCredentialUpsertion,
};
use kacl_protocol::messages::describe_user_scram_credentials::{
    DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, UserName,
};
use kacl_protocol::{ApiKey, ErrorCode, Message};
use kacl_sasl::scram::{random_salt, ScramMechanism};

use super::{Admin, Target};
use crate::error::AdminError;

/// One change to a user's SCRAM credentials.
#[derive(Clone, PartialEq, Eq)]
pub enum UserScramCredentialAlteration {
    /// Set (or replace) the credential for one mechanism.
    Upsert {
        /// The user name.
        user: String,
        /// SCRAM-SHA-256 or SCRAM-SHA-512.
        mechanism: ScramMechanism,
        /// PBKDF2 iterations (Kafka accepts 4096..=16384).
        iterations: u32,
        /// The password; only its salted form is sent.
        password: String,
    },
    /// Remove the credential for one mechanism.
    Delete {
        /// The user name.
        user: String,
        /// SCRAM-SHA-256 or SCRAM-SHA-512.
        mechanism: ScramMechanism,
    },
}

impl UserScramCredentialAlteration {
    /// The user this alteration concerns.
    pub fn user(&self) -> &str {
        match self {
            UserScramCredentialAlteration::Upsert { user, .. }
            | UserScramCredentialAlteration::Delete { user, .. } => user,
        }
    }
}

/// Never prints passwords.
impl std::fmt::Debug for UserScramCredentialAlteration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UserScramCredentialAlteration::Upsert {
                user,
                mechanism,
                iterations,
                ..
            } => f
                .debug_struct("Upsert")
                .field("user", user)
                .field("mechanism", mechanism)
                .field("iterations", iterations)
                .finish_non_exhaustive(),
            UserScramCredentialAlteration::Delete { user, mechanism } => f
                .debug_struct("Delete")
                .field("user", user)
                .field("mechanism", mechanism)
                .finish(),
        }
    }
}

/// One credential a user has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScramCredentialInfo {
    /// The mechanism, or `None` for a code this client does not know.
    pub mechanism: Option<ScramMechanism>,
    /// The iteration count.
    pub iterations: i32,
}

/// A user's credentials, or the error describing them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserScramCredentialsDescription {
    /// The user name.
    pub user: String,
    /// The credentials, or e.g. RESOURCE_NOT_FOUND for a named user without any.
    pub credentials: Result<Vec<ScramCredentialInfo>, AdminError>,
}

/// Options of the SCRAM calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserScramOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// An upsertion with its salt and salted password computed.
struct SaltedUpsertion {
    user: String,
    mechanism: ScramMechanism,
    iterations: u32,
    salt: Vec<u8>,
    salted: Vec<u8>,
}

/// Kafka's local checks: an empty user or password fails that user without sending.
fn local_error(alteration: &UserScramCredentialAlteration) -> Option<AdminError> {
    let unacceptable = |m: &str| {
        Some(AdminError::server(
            ErrorCode::UnacceptableCredential,
            Some(m),
        ))
    };
    if alteration.user().is_empty() {
        return unacceptable("Username must not be empty");
    }
    match alteration {
        UserScramCredentialAlteration::Upsert { password, .. } if password.is_empty() => {
            unacceptable("Password must not be empty")
        }
        _ => None,
    }
}

impl Admin {
    /// Applies SCRAM alterations; one result per input position (the result of its user:
    /// Kafka reports one outcome per user).
    pub async fn alter_user_scram_credentials(
        &self,
        alterations: Vec<UserScramCredentialAlteration>,
        options: UserScramOptions,
    ) -> Vec<Result<(), AdminError>> {
        let local: Vec<Option<AdminError>> = alterations.iter().map(local_error).collect();
        // A user with any invalid alteration is not sent at all.
        let failed_users: Vec<&str> = alterations
            .iter()
            .zip(&local)
            .filter(|(_, e)| e.is_some())
            .map(|(a, _)| a.user())
            .collect();
        let to_send: Vec<&UserScramCredentialAlteration> = alterations
            .iter()
            .filter(|a| !failed_users.contains(&a.user()))
            .collect();
        // Salting is deliberately slow (PBKDF2): do it once, not once per retry.
        let upsertions: Vec<SaltedUpsertion> = to_send
            .iter()
            .filter_map(|a| match a {
                UserScramCredentialAlteration::Upsert {
                    user,
                    mechanism,
                    iterations,
                    password,
                } => {
                    let salt = random_salt();
                    let salted = mechanism.salted_password(password.as_bytes(), &salt, *iterations);
                    Some(SaltedUpsertion {
                        user: user.clone(),
                        mechanism: *mechanism,
                        iterations: *iterations,
                        salt,
                        salted,
                    })
                }
                UserScramCredentialAlteration::Delete { .. } => None,
            })
            .collect();
        let deletions: Vec<(&str, ScramMechanism)> = to_send
            .iter()
            .filter_map(|a| match a {
                UserScramCredentialAlteration::Delete { user, mechanism } => {
                    Some((user.as_str(), *mechanism))
                }
                UserScramCredentialAlteration::Upsert { .. } => None,
            })
            .collect();
        let sent = if to_send.is_empty() {
            Ok(Vec::new())
        } else {
            self.call(
                "alterUserScramCredentials",
                options.timeout,
                Target::Controller,
                |broker| {
                    let (upsertions, deletions) = (&upsertions, &deletions);
                    async move {
                        let version = broker.versions.pick(
                            ApiKey::AlterUserScramCredentials,
                            AlterUserScramCredentialsRequest::VERSIONS,
                        )?;
                        let request = AlterUserScramCredentialsRequest {
                            deletions: deletions
                                .iter()
                                .map(|(user, mechanism)| ScramCredentialDeletion {
                                    name: Cow::Borrowed(user),
                                    mechanism: mechanism.type_code(),
                                    ..Default::default()
                                })
                                .collect(),
                            upsertions: upsertions
                                .iter()
                                .map(|u| ScramCredentialUpsertion {
                                    name: Cow::Borrowed(&u.user),
                                    mechanism: u.mechanism.type_code(),
                                    iterations: i32::try_from(u.iterations).unwrap_or(i32::MAX),
                                    salt: Cow::Borrowed(&u.salt),
                                    salted_password: Cow::Borrowed(&u.salted),
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        };
                        let response = broker.conn.send(version, &request).await?;
                        let body: AlterUserScramCredentialsResponse = response.decode()?;
                        Ok(body
                            .results
                            .iter()
                            .map(|r| {
                                (
                                    r.user.to_string(),
                                    AdminError::check(r.error_code, r.error_message.as_deref()),
                                )
                            })
                            .collect::<Vec<_>>())
                    }
                },
            )
            .await
        };
        alterations
            .iter()
            .zip(local)
            .map(|(alteration, local)| {
                if let Some(err) = local {
                    return Err(err);
                }
                if failed_users.contains(&alteration.user()) {
                    return Err(AdminError::server(
                        ErrorCode::UnacceptableCredential,
                        Some("another alteration of this user is invalid"),
                    ));
                }
                match &sent {
                    Err(err) => Err(err.clone()),
                    Ok(results) => results
                        .iter()
                        .find(|(user, _)| user == alteration.user())
                        .map(|(_, r)| r.clone())
                        .unwrap_or_else(|| {
                            Err(AdminError::server(
                                ErrorCode::UnknownServerError,
                                Some("The broker response did not contain a result for the user"),
                            ))
                        }),
                }
            })
            .collect()
    }

    /// Describes the SCRAM credentials of `users`, or of every user with credentials for
    /// `None`. A top-level error fails the call; a user-level error (RESOURCE_NOT_FOUND for a
    /// named user without credentials) is reported for that user.
    pub async fn describe_user_scram_credentials(
        &self,
        users: Option<Vec<String>>,
        options: UserScramOptions,
    ) -> Result<Vec<UserScramCredentialsDescription>, AdminError> {
        self.call(
            "describeUserScramCredentials",
            options.timeout,
            Target::AnyBroker,
            |broker| {
                let users = &users;
                async move {
                    let version = broker.versions.pick(
                        ApiKey::DescribeUserScramCredentials,
                        DescribeUserScramCredentialsRequest::VERSIONS,
                    )?;
                    let request = DescribeUserScramCredentialsRequest {
                        users: users.as_ref().map(|names| {
                            names
                                .iter()
                                .map(|n| UserName {
                                    name: Cow::Borrowed(n.as_str()),
                                    ..Default::default()
                                })
                                .collect()
                        }),
                        ..Default::default()
                    };
                    let response = broker.conn.send(version, &request).await?;
                    let body: DescribeUserScramCredentialsResponse = response.decode()?;
                    AdminError::check(body.error_code, body.error_message.as_deref())?;
                    Ok(body
                        .results
                        .iter()
                        .map(|r| UserScramCredentialsDescription {
                            user: r.user.to_string(),
                            credentials: AdminError::check(
                                r.error_code,
                                r.error_message.as_deref(),
                            )
                            .map(|()| {
                                r.credential_infos
                                    .iter()
                                    .map(|c| ScramCredentialInfo {
                                        mechanism: ScramMechanism::from_type_code(c.mechanism),
                                        iterations: c.iterations,
                                    })
                                    .collect()
                            }),
                        })
                        .collect())
                }
            },
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_users_and_passwords_fail_locally() {
        let upsert = |user: &str, password: &str| UserScramCredentialAlteration::Upsert {
            user: user.into(),
            mechanism: ScramMechanism::Sha256,
            iterations: 4096,
            password: password.into(),
        };
        let err = local_error(&upsert("", "pw")).unwrap();
        assert_eq!(
            err.to_string(),
            "UNACCEPTABLE_CREDENTIAL: Username must not be empty"
        );
        let err = local_error(&upsert("alice", "")).unwrap();
        assert!(err.to_string().contains("Password must not be empty"));
        assert_eq!(local_error(&upsert("alice", "pw")), None);
        assert!(!format!("{:?}", upsert("alice", "hunter2")).contains("hunter2"));
    }
}
