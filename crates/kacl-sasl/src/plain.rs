//! SASL/PLAIN (RFC 4616) as Kafka's `PlainSaslServer` serves it: one token
//! `authzid NUL authcid NUL password`, one answer (empty bytes on success).
//!
//! Kafka's rules, which real clients depend on (`clients.md`): an empty authzid
//! (librdkafka) and an authzid equal to the user (kafka-python) are both accepted; a different
//! authzid is refused *after* the password was checked, with its own message. A token with
//! fewer parts is read as Kafka reads it (missing parts are empty) and fails as "username /
//! password not specified", with the generic message to the client.

use std::collections::BTreeMap;
use std::fmt;

use super::constant_time::secrets_eq;
use super::jaas::{parse_single_module, JaasError};
use super::{AuthFailure, CredentialLookup, SaslMechanism, SaslStep};

/// Kafka's message for a wrong password or an unknown user.
pub const INVALID_CREDENTIALS: &str = "Authentication failed: Invalid username or password";
/// Kafka's message when the client asks to act as someone else.
pub const AUTHZID_MISMATCH: &str =
    "Authentication failed: Client requested an authorization id that is different from username";

/// The PLAIN users of a listener: the `user_<name>="<password>"` options of its JAAS line.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PlainUsers {
    users: BTreeMap<String, String>,
}

impl PlainUsers {
    /// Users from name/password pairs.
    pub fn new(users: impl IntoIterator<Item = (String, String)>) -> Self {
        PlainUsers {
            users: users.into_iter().collect(),
        }
    }

    /// Users from a `sasl.jaas.config` value (exactly one login module, as Kafka requires, of
    /// a class kacl knows; only a `PlainLoginModule` has PLAIN users).
    pub fn from_jaas(jaas_config: &str) -> Result<Self, JaasError> {
        let module = parse_single_module(jaas_config)?;
        module.kind()?;
        Ok(PlainUsers {
            users: module.plain_users(),
        })
    }

    /// How many users there are.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The user names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.users.keys().map(String::as_str)
    }

    /// True if `password` is this user's. The comparison takes the same time for an unknown
    /// user, a wrong password and a right one.
    pub fn verify(&self, username: &str, password: &str) -> bool {
        let stored = self.users.get(username);
        let expected = stored.map_or(&[][..], |p| p.as_bytes());
        let equal = secrets_eq(expected, password.as_bytes());
        equal && stored.is_some()
    }
}

impl CredentialLookup for PlainUsers {
    fn plain_password_matches(&self, username: &str, password: &str) -> bool {
        self.verify(username, password)
    }
}

/// Shows user names only.
impl fmt::Debug for PlainUsers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.users.keys()).finish()
    }
}

/// The server side of one PLAIN exchange.
#[derive(Debug, Default)]
pub struct PlainServer {
    used: bool,
    complete: bool,
}

impl PlainServer {
    /// A fresh exchange.
    pub fn new() -> Self {
        PlainServer::default()
    }

    /// True once the client is authenticated.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Checks the client's only token.
    pub fn step(
        &mut self,
        token: &[u8],
        credentials: &dyn CredentialLookup,
    ) -> Result<SaslStep, AuthFailure> {
        let generic = |reason: &str| AuthFailure::generic(SaslMechanism::Plain, reason);
        if std::mem::replace(&mut self.used, true) {
            return Err(generic(
                "unexpected SASL/PLAIN token after the exchange ended",
            ));
        }
        let text = std::str::from_utf8(token)
            .map_err(|_| generic("Invalid SASL/PLAIN response: not valid UTF-8"))?;
        // At most three parts: a NUL inside the password stays in it, as in Kafka.
        let mut parts = text.splitn(3, '\0');
        let authzid = parts.next().unwrap_or_default();
        let username = parts.next().unwrap_or_default();
        let password = parts.next().unwrap_or_default();
        if username.is_empty() {
            return Err(generic("Authentication failed: username not specified"));
        }
        if password.is_empty() {
            return Err(generic("Authentication failed: password not specified"));
        }
        if !credentials.plain_password_matches(username, password) {
            return Err(AuthFailure {
                log_reason: format!("{INVALID_CREDENTIALS} (user `{username}`)"),
                ..AuthFailure::visible(INVALID_CREDENTIALS)
            });
        }
        if !authzid.is_empty() && authzid != username {
            return Err(AuthFailure {
                log_reason: format!("{AUTHZID_MISMATCH} (user `{username}`, authzid `{authzid}`)"),
                ..AuthFailure::visible(AUTHZID_MISMATCH)
            });
        }
        self.complete = true;
        Ok(SaslStep::complete(username.to_owned(), Vec::new()))
    }
}

/// The token a PLAIN client sends: `authzid NUL username NUL password`.
pub fn client_token(authzid: &str, username: &str, password: &str) -> Vec<u8> {
    [authzid.as_bytes(), username.as_bytes(), password.as_bytes()].join(&0u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic_failure_message;

    fn users() -> PlainUsers {
        PlainUsers::from_jaas(
            r#"org.apache.kafka.common.security.plain.PlainLoginModule required
               username="admin" password="admin-secret"
               user_admin="admin-secret" user_alice="alice-secret";"#,
        )
        .unwrap()
    }

    #[test]
    fn an_unknown_login_module_is_refused_and_scrams_user_options_are_not_plain_users() {
        let nope = "org.apache.kafka.common.security.Nope required user_admin=\"pw1\";";
        assert_eq!(
            PlainUsers::from_jaas(nope),
            Err(JaasError::UnknownLoginModule(
                "org.apache.kafka.common.security.Nope".into()
            ))
        );
        let scram = PlainUsers::from_jaas(
            "org.apache.kafka.common.security.scram.ScramLoginModule required user_admin=\"pw1\";",
        )
        .unwrap();
        assert!(scram.is_empty());
        assert!(PlainServer::new()
            .step(&client_token("", "admin", "pw1"), &scram)
            .is_err());
    }

    fn run(token: &[u8]) -> Result<SaslStep, AuthFailure> {
        PlainServer::new().step(token, &users())
    }

    fn principal(step: SaslStep) -> String {
        match step {
            SaslStep::Complete {
                principal, reply, ..
            } => {
                assert!(reply.is_empty(), "PLAIN success must carry empty bytes");
                principal
            }
            other => panic!("not complete: {other:?}"),
        }
    }

    #[test]
    fn empty_authzid_librdkafka_style() {
        assert_eq!(
            principal(run(b"\0alice\0alice-secret").unwrap()),
            "User:alice"
        );
    }

    #[test]
    fn authzid_equal_to_user_kafka_python_style() {
        let token = client_token("alice", "alice", "alice-secret");
        assert_eq!(token, b"alice\0alice\0alice-secret");
        assert_eq!(principal(run(&token).unwrap()), "User:alice");
    }

    #[test]
    fn different_authzid_is_refused_with_kafkas_message() {
        let failure = run(b"admin\0alice\0alice-secret").unwrap_err();
        assert_eq!(failure.client_message, AUTHZID_MISMATCH);
        // Wrong password wins over the authzid check, as in Kafka.
        let failure = run(b"admin\0alice\0wrong").unwrap_err();
        assert_eq!(failure.client_message, INVALID_CREDENTIALS);
    }

    #[test]
    fn wrong_password_and_unknown_user_look_the_same() {
        let wrong = run(b"\0alice\0admin-secret").unwrap_err();
        let unknown = run(b"\0mallory\0alice-secret").unwrap_err();
        assert_eq!(wrong.client_message, INVALID_CREDENTIALS);
        assert_eq!(unknown.client_message, INVALID_CREDENTIALS);
        assert!(
            !wrong.log_reason.contains("admin-secret"),
            "never log a password"
        );
    }

    #[test]
    fn malformed_tokens_get_the_generic_message() {
        let generic = generic_failure_message(SaslMechanism::Plain);
        for token in [
            &b""[..],
            b"alice",
            b"\0alice",
            b"\0alice\0",
            b"\0\0pw",
            b"\0al\xffice\0pw",
        ] {
            let failure = run(token).unwrap_err();
            assert_eq!(failure.client_message, generic, "token {token:?}");
        }
    }

    #[test]
    fn nul_in_password_is_part_of_it() {
        let users = PlainUsers::new([("u".to_owned(), "a\0b".to_owned())]);
        let step = PlainServer::new().step(b"\0u\0a\0b", &users).unwrap();
        assert_eq!(principal(step), "User:u");
    }

    #[test]
    fn a_second_token_is_refused() {
        let mut server = PlainServer::new();
        server.step(b"\0alice\0alice-secret", &users()).unwrap();
        assert!(server.is_complete());
        assert!(server.step(b"\0alice\0alice-secret", &users()).is_err());
    }

    #[test]
    fn users_show_names_only() {
        let users = users();
        assert_eq!(users.len(), 2);
        assert_eq!(users.names().collect::<Vec<_>>(), ["admin", "alice"]);
        assert_eq!(format!("{users:?}"), r#"{"admin", "alice"}"#);
        assert!(users.verify("admin", "admin-secret"));
        assert!(!users.verify("admin", "admin-secret "));
        assert!(!PlainUsers::default().verify("", ""));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_tokens_never_panic(token in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = run(&token);
        }
    }
}
