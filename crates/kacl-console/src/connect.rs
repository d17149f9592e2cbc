//! From a login form to an admin connection as that user, and from an admin failure to
//! what the user should be told.

use std::time::Duration;

use kacl_client::{
    Admin, AdminConfig, AdminError, Properties, SaslConfig, SaslMechanism, SecurityProtocol,
};
use kacl_protocol::ErrorCode;

use crate::needs::Action;
use crate::ConsoleConfig;

/// How a user authenticates to the cluster: the login page's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// No SASL: a PLAINTEXT (or SSL) development listener; the principal is the broker's.
    None,
    /// SASL with this mechanism.
    Sasl(SaslMechanism),
}

impl Mechanism {
    /// Every choice, in the login page's order.
    pub const ALL: [Mechanism; 4] = [
        Mechanism::None,
        Mechanism::Sasl(SaslMechanism::Plain),
        Mechanism::Sasl(SaslMechanism::ScramSha256),
        Mechanism::Sasl(SaslMechanism::ScramSha512),
    ];

    /// `none`, `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::None => "none",
            Mechanism::Sasl(m) => m.name(),
        }
    }

    /// The inverse of [`Mechanism::name`].
    pub fn parse(text: &str) -> Option<Mechanism> {
        Mechanism::ALL.into_iter().find(|m| m.name() == text)
    }
}

/// Keys of `--command-config` that the login page supplies instead.
const PER_USER_KEYS: [&str; 3] = ["security.protocol", "sasl.mechanism", "sasl.jaas.config"];

/// Whether `security.protocol` of the properties asks for TLS.
fn uses_tls(props: &Properties) -> Result<bool, AdminError> {
    match props.get("security.protocol") {
        None => Ok(false),
        Some(p) => p
            .trim()
            .parse::<SecurityProtocol>()
            .map(SecurityProtocol::uses_tls)
            .map_err(|e| AdminError::Config(e.to_string())),
    }
}

/// The mechanism the login page offers first: the properties' SASL one, else none.
pub(crate) fn default_mechanism(config: &ConsoleConfig) -> Mechanism {
    let sasl = config
        .properties
        .get("security.protocol")
        .and_then(|p| p.trim().parse::<SecurityProtocol>().ok())
        .is_some_and(SecurityProtocol::uses_sasl);
    match config.properties.get("sasl.mechanism") {
        Some(m) if sasl => m
            .trim()
            .parse()
            .map(Mechanism::Sasl)
            .unwrap_or(Mechanism::None),
        None if sasl => Mechanism::Sasl(SaslMechanism::Plain),
        _ => Mechanism::None,
    }
}

/// The client configuration for one user.
pub(crate) fn admin_config(
    config: &ConsoleConfig,
    mechanism: Mechanism,
    username: &str,
    password: &str,
) -> Result<AdminConfig, AdminError> {
    let mut props = Properties::default();
    for (key, value) in config.properties.iter() {
        if !PER_USER_KEYS.contains(&key) {
            props.set(key.to_owned(), value.to_owned());
        }
    }
    let (mut admin, _) = AdminConfig::from_properties(&config.bootstrap, &props)?;
    let tls = uses_tls(&config.properties)?;
    // A person is waiting on the other side: fail in seconds, not Kafka's minute.
    admin.connect_timeout = admin.connect_timeout.min(Duration::from_secs(5));
    admin.default_api_timeout = admin.default_api_timeout.min(Duration::from_secs(20));
    admin.retries = admin.retries.min(1);
    admin.client_id = "kacl-console".to_owned();
    match mechanism {
        Mechanism::None => {
            admin.security_protocol = if tls {
                SecurityProtocol::Ssl
            } else {
                SecurityProtocol::Plaintext
            };
        }
        Mechanism::Sasl(mechanism) => {
            admin.security_protocol = if tls {
                SecurityProtocol::SaslSsl
            } else {
                SecurityProtocol::SaslPlaintext
            };
            admin.sasl = Some(SaslConfig {
                mechanism,
                username: username.to_owned(),
                password: password.to_owned(),
            });
        }
    }
    Ok(admin)
}

/// Checks at start-up that the properties make a client configuration.
pub(crate) fn check(config: &ConsoleConfig) -> Result<(), AdminError> {
    let admin = admin_config(config, Mechanism::None, "", "")?;
    if admin.bootstrap_servers.is_empty() {
        return Err(AdminError::Config(
            "No resolvable bootstrap urls given in bootstrap.servers".into(),
        ));
    }
    Ok(())
}

/// Connects as the user: the connection authenticates during `connect`.
pub(crate) async fn login(
    config: &ConsoleConfig,
    mechanism: Mechanism,
    username: &str,
    password: &str,
) -> Result<(Admin, String), AdminError> {
    let admin = Admin::connect(admin_config(config, mechanism, username, password)?).await?;
    let principal = match mechanism {
        Mechanism::None => "User:ANONYMOUS".to_owned(),
        Mechanism::Sasl(_) => format!("User:{username}"),
    };
    Ok((admin, principal))
}

/// What went wrong, in the words a page uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// HTTP status.
    pub(crate) status: u16,
    /// The page's heading.
    pub(crate) title: &'static str,
    /// What it means for the user.
    pub(crate) explanation: String,
    /// The Kafka error as the client reported it.
    pub(crate) detail: String,
}

/// Classifies an admin failure of `action` for `principal`; a refusal names the permission
/// the action needs.
pub(crate) fn problem(err: &AdminError, principal: &str, action: Action<'_>) -> Problem {
    let detail = err.to_string();
    let (status, title, explanation) = match err {
        AdminError::Network { .. } | AdminError::Timeout { .. } => (
            502,
            "Cluster unreachable",
            "The console could not reach the cluster (or it did not answer in time). Check \
             that the brokers are running and that --bootstrap-server names them."
                .to_owned(),
        ),
        AdminError::Authentication(_) => (
            401,
            "Login failed",
            "The cluster did not accept these credentials.".to_owned(),
        ),
        AdminError::Server { code, .. } => match code {
            ErrorCode::SaslAuthenticationFailed | ErrorCode::IllegalSaslState => (
                401,
                "Login failed",
                "The cluster did not accept these credentials.".to_owned(),
            ),
            ErrorCode::UnsupportedSaslMechanism => (
                401,
                "Login failed",
                "The cluster's listener does not offer this SASL mechanism; choose another."
                    .to_owned(),
            ),
            ErrorCode::ClusterAuthorizationFailed => (
                403,
                "Not authorized on the cluster",
                action.needs().refusal(principal),
            ),
            ErrorCode::TopicAuthorizationFailed => {
                (403, "Not authorized", action.needs().refusal(principal))
            }
            ErrorCode::GroupAuthorizationFailed => (
                403,
                "Not authorized",
                format!("Your principal {principal} is not allowed to do this."),
            ),
            _ => (
                400,
                "The cluster refused the request",
                "The cluster answered with an error.".to_owned(),
            ),
        },
        AdminError::Config(_) => (
            400,
            "Configuration problem",
            "The console cannot build a client configuration for this login.".to_owned(),
        ),
        _ => (
            400,
            "The request failed",
            "The cluster or the client refused the request.".to_owned(),
        ),
    };
    Problem {
        status,
        title,
        explanation,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_login_page_supplies_sasl_and_the_file_supplies_tls() {
        let mut config = ConsoleConfig::new("h:1");
        config.properties = Properties::parse(
            "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n\
             ssl.truststore.location=/ca.pem\nrequest.timeout.ms=7000\n",
        )
        .unwrap();
        assert_eq!(
            default_mechanism(&config),
            Mechanism::Sasl(SaslMechanism::ScramSha512)
        );
        let admin = admin_config(
            &config,
            Mechanism::Sasl(SaslMechanism::Plain),
            "alice",
            "pw",
        )
        .unwrap();
        assert_eq!(admin.security_protocol, SecurityProtocol::SaslSsl);
        assert_eq!(admin.sasl.unwrap().username, "alice");
        assert_eq!(admin.request_timeout, Duration::from_secs(7));
        let admin = admin_config(&config, Mechanism::None, "", "").unwrap();
        assert_eq!(admin.security_protocol, SecurityProtocol::Ssl);
        assert!(admin.sasl.is_none());
    }

    #[test]
    fn refusals_name_the_missing_permission() {
        let err = AdminError::server(ErrorCode::ClusterAuthorizationFailed, None);
        let p = problem(&err, "User:bob", Action::ReadAcls);
        assert_eq!(p.status, 403);
        assert!(p
            .explanation
            .contains("User:bob lacks Describe on the cluster"));
        let p = problem(&err, "User:bob", Action::ChangeAcls);
        assert!(
            p.explanation
                .contains("User:bob lacks Alter on the cluster")
                && p.explanation
                    .contains("`--allow-principal User:bob --operation Alter --cluster`"),
            "{}",
            p.explanation
        );
        let err = AdminError::server(ErrorCode::TopicAuthorizationFailed, None);
        let p = problem(&err, "User:bob", Action::DeleteTopic("orders"));
        assert!(
            p.explanation.contains("lacks Delete on topic orders")
                && p.explanation.contains("--operation Delete --topic orders`"),
            "{}",
            p.explanation
        );
        let err = AdminError::Network {
            addr: "h:1".into(),
            message: "refused".into(),
        };
        assert_eq!(
            problem(&err, "User:bob", Action::ReadAcls).title,
            "Cluster unreachable"
        );
        for m in Mechanism::ALL {
            assert_eq!(Mechanism::parse(m.name()), Some(m));
        }
    }
}
