//! DescribeUserScramCredentials (API key 50, KIP-554): which SCRAM mechanisms and iteration
//! counts each user has credentials for. Salts and salted passwords never leave the broker.
//! One version, flexible.

use std::borrow::Cow;

kafka_message! {
    /// The users to describe.
    pub struct DescribeUserScramCredentialsRequest<'a> {
        api_key: DescribeUserScramCredentials, versions: 0-0, flexible: 0+;
        /// The users to describe, or null/empty to describe all users. The default, like
        /// Kafka's, is the empty list.
        users: Option<Vec<UserName<'a>>> [versions 0+, nullable 0+, default Some(Vec::new())],
    }

    /// One user to describe.
    pub struct UserName<'a> {
        /// The user name.
        name: Cow<'a, str> [versions 0+],
    }
}

kafka_message! {
    /// One result per described user.
    pub struct DescribeUserScramCredentialsResponse<'a> {
        api_key: DescribeUserScramCredentials, versions: 0-0, flexible: 0+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The message-level error code, 0 except for authorization or infrastructure issues.
        error_code: i16 [versions 0+],
        /// The message-level error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The results, one per user.
        results: Vec<DescribeUserScramCredentialsResult<'a>> [versions 0+],
    }

    /// The credentials of one user.
    pub struct DescribeUserScramCredentialsResult<'a> {
        /// The user name.
        user: Cow<'a, str> [versions 0+],
        /// The user-level error code.
        error_code: i16 [versions 0+],
        /// The user-level error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The mechanisms the user has credentials for.
        credential_infos: Vec<CredentialInfo<'a>> [versions 0+],
    }

    /// One SCRAM credential, without its secrets.
    pub struct CredentialInfo<'a> {
        /// The SCRAM mechanism: 1 = SCRAM-SHA-256, 2 = SCRAM-SHA-512.
        mechanism: i8 [versions 0+],
        /// The number of iterations used in the credential.
        iterations: i32 [versions 0+],
    }
}
