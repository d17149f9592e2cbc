//! [`AdminConfig`]: where the cluster is, how to authenticate, and how patient to be. The
//! defaults are Kafka's AdminClient defaults (`request.timeout.ms` 30 s,
//! `default.api.timeout.ms` 60 s, `retry.backoff.ms` 100 ms).
//!
//! [`AdminConfig::from_properties`] reads the Kafka client properties that `kafka-acls.sh
//! --command-config` accepts.

use std::fmt;
use std::time::Duration;

use kacl_config::tls::{CIPHER_SUITES_KEY, ENABLED_PROTOCOLS_KEY};
use kacl_config::UnknownSecurityProtocol;
pub use kacl_config::{Properties, SecurityProtocol, TlsOffer, TlsProtocol};
use kacl_sasl::jaas::parse_single_module;
use kacl_sasl::SaslMechanism;

use crate::error::AdminError;

/// Credentials for SASL.
#[derive(Clone, PartialEq, Eq)]
pub struct SaslConfig {
    /// Which mechanism to ask for in SaslHandshake.
    pub mechanism: SaslMechanism,
    /// The user name (for OAUTHBEARER only a label: the token names the principal).
    pub username: String,
    /// The password; for OAUTHBEARER, the bearer token (an access token from the identity
    /// provider, as the console's single sign-on obtains it).
    pub password: String,
}

/// Never prints the password.
impl fmt::Debug for SaslConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslConfig")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// TLS settings (Kafka's `ssl.*` client properties, PEM only).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TlsConfig {
    /// PEM file of CA certificates to trust (`ssl.truststore.location` with
    /// `ssl.truststore.type=PEM`); `None` trusts nothing, so a path is required for TLS.
    pub truststore_pem: Option<std::path::PathBuf>,
    /// PEM file holding the client's private key and certificate chain, for brokers that
    /// require client certificates (`ssl.keystore.location` with `ssl.keystore.type=PEM`).
    pub keystore_pem: Option<std::path::PathBuf>,
    /// Whether to check that the certificate names the host dialled
    /// (`ssl.endpoint.identification.algorithm=https`, Kafka's default).
    pub verify_hostname: bool,
    /// What the client offers: `ssl.enabled.protocols` and `ssl.cipher.suites` (Kafka's
    /// defaults: TLS 1.2 and 1.3, every suite kacl has).
    pub offer: TlsOffer,
}

/// What [`AdminConfig::from_properties`] did not take as it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigNotes {
    /// Keys the client has no use for (Kafka logs such "unused configs" too).
    pub unused: Vec<String>,
    /// Values partly ignored, e.g. `TLSv1.1` in `ssl.enabled.protocols`.
    pub warnings: Vec<String>,
}

/// Everything [`Admin::connect`](crate::Admin::connect) needs.
#[derive(Debug, Clone)]
pub struct AdminConfig {
    /// `host:port` pairs to bootstrap from, tried in order (`bootstrap.servers`).
    pub bootstrap_servers: Vec<String>,
    /// `security.protocol`.
    pub security_protocol: SecurityProtocol,
    /// SASL credentials, required when the protocol uses SASL.
    pub sasl: Option<SaslConfig>,
    /// TLS settings, used when the protocol uses TLS.
    pub tls: TlsConfig,
    /// `client.id`, sent in every request header.
    pub client_id: String,
    /// How long one request may wait for its response (`request.timeout.ms`).
    pub request_timeout: Duration,
    /// How long a whole call may take, retries included, unless its options say otherwise
    /// (`default.api.timeout.ms`).
    pub default_api_timeout: Duration,
    /// How many times a call is retried after a retriable failure (`retries`).
    pub retries: u32,
    /// Pause before the first retry (`retry.backoff.ms`); doubles on each further retry up to
    /// [`AdminConfig::retry_backoff_max`].
    pub retry_backoff: Duration,
    /// Upper bound of the backoff (`retry.backoff.max.ms`).
    pub retry_backoff_max: Duration,
    /// How long to wait for a TCP connection (`socket.connection.setup.timeout.ms`).
    pub connect_timeout: Duration,
}

impl AdminConfig {
    /// Kafka's defaults for a list of bootstrap servers over PLAINTEXT.
    pub fn new(bootstrap_servers: impl IntoIterator<Item = impl Into<String>>) -> Self {
        AdminConfig {
            bootstrap_servers: bootstrap_servers.into_iter().map(Into::into).collect(),
            security_protocol: SecurityProtocol::Plaintext,
            sasl: None,
            tls: TlsConfig {
                truststore_pem: None,
                keystore_pem: None,
                verify_hostname: true,
                offer: TlsOffer::default(),
            },
            client_id: "kacl-admin".to_owned(),
            request_timeout: Duration::from_secs(30),
            default_api_timeout: Duration::from_secs(60),
            retries: 5,
            retry_backoff: Duration::from_millis(100),
            retry_backoff_max: Duration::from_secs(1),
            connect_timeout: Duration::from_secs(10),
        }
    }

    /// A config from a comma-separated `bootstrap.servers` value and Kafka client properties
    /// (a `--command-config` file). Understood keys: `bootstrap.servers` (used when
    /// `bootstrap` is empty), `security.protocol`, `sasl.mechanism`, `sasl.jaas.config`
    /// (PlainLoginModule or ScramLoginModule with `username` and `password`),
    /// `ssl.truststore.location`, `ssl.keystore.location`, `ssl.truststore.type` and
    /// `ssl.keystore.type` (PEM only), `ssl.enabled.protocols`, `ssl.cipher.suites`,
    /// `ssl.endpoint.identification.algorithm`, `client.id`, `request.timeout.ms`,
    /// `default.api.timeout.ms`, `retries`, `retry.backoff.ms`, `retry.backoff.max.ms`,
    /// `socket.connection.setup.timeout.ms`. Other keys, and values partly ignored, are
    /// returned so the caller can say so, as Kafka logs unused configs.
    pub fn from_properties(
        bootstrap: &str,
        props: &Properties,
    ) -> Result<(AdminConfig, ConfigNotes), AdminError> {
        let servers = if bootstrap.trim().is_empty() {
            props.get("bootstrap.servers").unwrap_or("")
        } else {
            bootstrap
        };
        let mut config = AdminConfig::new(split_servers(servers));
        let mut notes = ConfigNotes::default();
        let (mut enabled_protocols, mut cipher_suites) = (None, None);
        let mut mechanism = SaslMechanism::Plain;
        let mut jaas = None;
        let mut store_types = Vec::new();
        for (key, value) in props.iter() {
            match key {
                "bootstrap.servers" => {}
                "security.protocol" => {
                    config.security_protocol =
                        value.parse().map_err(|err: UnknownSecurityProtocol| {
                            AdminError::Config(err.to_string())
                        })?
                }
                "sasl.mechanism" => {
                    mechanism = value
                        .trim()
                        .parse()
                        .map_err(|e| AdminError::Config(format!("sasl.mechanism: {e}")))?;
                }
                "sasl.jaas.config" => jaas = Some(value),
                "ssl.truststore.location" => {
                    config.tls.truststore_pem = Some(value.trim().into());
                }
                "ssl.truststore.type" | "ssl.keystore.type" => {
                    store_types.push((key, value.trim()));
                }
                "ssl.keystore.location" => {
                    config.tls.keystore_pem = Some(value.trim().into());
                }
                ENABLED_PROTOCOLS_KEY => enabled_protocols = Some(value),
                CIPHER_SUITES_KEY => cipher_suites = Some(value),
                "ssl.endpoint.identification.algorithm" => {
                    config.tls.verify_hostname = !value.trim().is_empty();
                }
                "client.id" => config.client_id = value.trim().to_owned(),
                "request.timeout.ms" => config.request_timeout = millis(key, value)?,
                "default.api.timeout.ms" => config.default_api_timeout = millis(key, value)?,
                "retry.backoff.ms" => config.retry_backoff = millis(key, value)?,
                "retry.backoff.max.ms" => config.retry_backoff_max = millis(key, value)?,
                "socket.connection.setup.timeout.ms" => {
                    config.connect_timeout = millis(key, value)?;
                }
                "retries" => {
                    let n: i64 = parse_number(key, value)?;
                    config.retries = u32::try_from(n.max(0)).unwrap_or(u32::MAX);
                }
                other => notes.unused.push(other.to_owned()),
            }
        }
        config.tls.offer = TlsOffer::parse(enabled_protocols, cipher_suites, &mut notes.warnings)
            .map_err(|e| AdminError::Config(e.to_string()))?;
        for (key, kind) in store_types {
            if !kind.eq_ignore_ascii_case("PEM") {
                return Err(AdminError::Config(format!(
                    "{key}={kind} is not supported: kacl reads PEM files only"
                )));
            }
        }
        if config.security_protocol.uses_sasl() && mechanism == SaslMechanism::OAuthBearer {
            // Kafka clients fetch the token themselves (sasl.oauthbearer.token.endpoint.url
            // with a client id and secret); the admin client takes a token from its caller.
            return Err(AdminError::Config(
                "sasl.mechanism=OAUTHBEARER: kacl's admin client takes a bearer token from the \
                 console's single sign-on, not from client properties"
                    .into(),
            ));
        }
        if config.security_protocol.uses_sasl() {
            let Some(jaas) = jaas else {
                return Err(AdminError::Config(format!(
                    "security.protocol={} needs sasl.jaas.config with a username and password",
                    config.security_protocol
                )));
            };
            let module = parse_single_module(jaas)
                .map_err(|e| AdminError::Config(format!("sasl.jaas.config: {e}")))?;
            let option = |name: &str| {
                module.option(name).map(str::to_owned).ok_or_else(|| {
                    AdminError::Config(format!(
                        "sasl.jaas.config: {} has no `{name}` option",
                        module.login_module
                    ))
                })
            };
            config.sasl = Some(SaslConfig {
                mechanism,
                username: option("username")?,
                password: option("password")?,
            });
        }
        Ok((config, notes))
    }
}

/// Splits `host1:9092, host2:9092` into its addresses, dropping empty entries.
pub fn split_servers(servers: &str) -> Vec<String> {
    servers
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn parse_number(key: &str, value: &str) -> Result<i64, AdminError> {
    value.trim().parse().map_err(|_| {
        AdminError::Config(format!(
            "Invalid value {value} for configuration {key}: Not a number of type LONG"
        ))
    })
}

fn millis(key: &str, value: &str) -> Result<Duration, AdminError> {
    let n = parse_number(key, value)?;
    u64::try_from(n).map(Duration::from_millis).map_err(|_| {
        AdminError::Config(format!(
            "Invalid value {value} for configuration {key}: must be at least 0"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<(AdminConfig, ConfigNotes), AdminError> {
        AdminConfig::from_properties("h1:9092, h2:9093", &Properties::parse(text).unwrap())
    }

    #[test]
    fn sasl_plain_from_command_config() {
        let (config, notes) = config(
            "security.protocol=SASL_PLAINTEXT\n\
             sasl.mechanism=PLAIN\n\
             sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n\
             \x20   username=\"admin\" password=\"admin-secret\";\n\
             client.id=ops\n\
             request.timeout.ms=5000\n\
             compression.type=lz4\n",
        )
        .unwrap();
        assert_eq!(config.bootstrap_servers, ["h1:9092", "h2:9093"]);
        assert_eq!(config.security_protocol, SecurityProtocol::SaslPlaintext);
        let sasl = config.sasl.unwrap();
        assert_eq!(sasl.mechanism, SaslMechanism::Plain);
        assert_eq!(sasl.username, "admin");
        assert_eq!(sasl.password, "admin-secret");
        assert_eq!(config.client_id, "ops");
        assert_eq!(config.request_timeout, Duration::from_secs(5));
        assert_eq!(notes.unused, ["compression.type"]);
        assert!(notes.warnings.is_empty());
        assert!(!format!("{sasl:?}").contains("admin-secret"));
    }

    #[test]
    fn scram_and_bad_values() {
        let (config, _) = config(
            "security.protocol=sasl_ssl\nsasl.mechanism=SCRAM-SHA-512\n\
             sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
             username='bob' password=\"p;w\";\nssl.truststore.location=/ca.pem\n",
        )
        .unwrap();
        assert_eq!(config.security_protocol, SecurityProtocol::SaslSsl);
        assert_eq!(config.sasl.unwrap().password, "p;w");
        assert_eq!(config.tls.truststore_pem.unwrap().to_str(), Some("/ca.pem"));

        let err = self::config("security.protocol=SASL_PLAINTEXT\n").unwrap_err();
        assert!(err.to_string().contains("needs sasl.jaas.config"), "{err}");
        let err = self::config("security.protocol=TLS\n").unwrap_err();
        assert!(err.to_string().contains("security.protocol"), "{err}");
        let err = self::config("sasl.mechanism=GSSAPI\n").unwrap_err();
        assert!(err.to_string().contains("GSSAPI"), "{err}");
        let err = self::config("request.timeout.ms=soon\n").unwrap_err();
        assert!(err.to_string().contains("request.timeout.ms"), "{err}");
        let err = self::config("ssl.truststore.type=JKS\n").unwrap_err();
        assert!(err.to_string().contains("PEM"), "{err}");
    }

    #[test]
    fn bootstrap_falls_back_to_the_properties() {
        let (config, _) = AdminConfig::from_properties(
            "",
            &Properties::parse("bootstrap.servers=a:1,b:2").unwrap(),
        )
        .unwrap();
        assert_eq!(config.bootstrap_servers, ["a:1", "b:2"]);
    }

    #[test]
    fn tls_protocols_and_suites_are_read_as_the_server_reads_them() {
        let (config, notes) = config(
            "security.protocol=SSL\nssl.truststore.location=/ca.pem\n\
             ssl.enabled.protocols=TLSv1.1,TLSv1.3\nssl.cipher.suites=TLS_AES_256_GCM_SHA384\n",
        )
        .unwrap();
        assert_eq!(config.tls.offer.protocols, [TlsProtocol::Tls13]);
        assert_eq!(config.tls.offer.cipher_suites, ["TLS_AES_256_GCM_SHA384"]);
        assert!(notes.warnings[0].contains("TLSv1.1"), "{notes:?}");
        let err = self::config("ssl.enabled.protocols=TLSv1\n").unwrap_err();
        assert!(err.to_string().contains("ssl.enabled.protocols"), "{err}");
        assert_eq!(
            self::config("").unwrap().0.tls.offer,
            TlsOffer::default(),
            "Kafka's defaults"
        );
    }
}
