//! The OAUTHBEARER keys Kafka's `OAuthBearerValidatorCallbackHandler` and
//! `BrokerJwtValidator` read: where the identity provider's JWKS is
//! (`sasl.oauthbearer.jwks.endpoint.url`), how often it is refreshed, and what a token must
//! say (`expected.audience`, `expected.issuer`, `clock.skew.seconds`, `sub.claim.name`,
//! `scope.claim.name`); plus kacl's bounds on the JWKS fetch.
//!
//! Kafka configures its validator per listener and needs
//! `listener.name.<l>.oauthbearer.sasl.server.callback.handler.class=...OAuthBearerValidatorCallbackHandler`
//! (without it Kafka falls back to its *unsecured* validator, for development only). kacl has
//! one validator for every listener and always verifies signed tokens: the handler class and
//! the `OAuthBearerLoginModule` JAAS line are accepted as Kafka's configs carry them, another
//! handler class is named in a warning. Both are in DIFFERENCES_FROM_KAFKA.

use std::path::PathBuf;
use std::time::Duration;

use kacl_sasl::oauthbearer::TokenRules;
use kacl_sasl::SaslMechanism;

use super::source::Source;
use super::ConfigError;

/// The key that configures OAUTHBEARER.
pub const JWKS_URL_KEY: &str = "sasl.oauthbearer.jwks.endpoint.url";

/// Kafka's one validating callback handler.
pub const VALIDATOR_CALLBACK_HANDLER: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
/// Its pre-3.x home, still found in configs.
const OLD_VALIDATOR_CALLBACK_HANDLER: &str =
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerValidatorCallbackHandler";

/// Where the keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwksLocation {
    /// An `http://` or `https://` URL, fetched at start and refreshed.
    Url(String),
    /// A `file:` URL: a JWKS document on disk, read at start and on each refresh.
    File(PathBuf),
}

/// OAUTHBEARER's validation settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthBearerConfig {
    /// `sasl.oauthbearer.jwks.endpoint.url`.
    pub jwks: JwksLocation,
    /// What a token must say.
    pub rules: TokenRules,
    /// `sasl.oauthbearer.jwks.endpoint.refresh.ms` (default 3600000): the scheduled refresh.
    pub jwks_refresh: Duration,
    /// `sasl.oauthbearer.jwks.endpoint.retry.backoff.ms` (100): the first wait after a
    /// failed fetch, doubled per attempt ...
    pub jwks_retry_backoff: Duration,
    /// ... up to `sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms` (10000).
    pub jwks_retry_backoff_max: Duration,
    /// `kacl.oauthbearer.jwks.max.bytes` (1 MiB): the largest JWKS answer read.
    pub jwks_max_bytes: usize,
    /// `kacl.oauthbearer.jwks.timeout.ms` (10000): one fetch, connect to last byte.
    pub jwks_timeout: Duration,
    /// `kacl.oauthbearer.jwks.ssl.truststore.location`: PEM CA certificates for an https
    /// endpoint (default: the system's bundle).
    pub jwks_ca_file: Option<PathBuf>,
}

fn millis(source: &mut Source, key: &str, default: i64, min: i64) -> Result<Duration, ConfigError> {
    Ok(Duration::from_millis(
        source.int(key, default, min, i64::from(i32::MAX) * 1000)? as u64,
    ))
}

fn location(value: &str) -> Result<JwksLocation, ConfigError> {
    let value = value.trim();
    if let Some(path) = value.strip_prefix("file:") {
        // file:/abs, file:///abs and file://localhost/abs all name /abs.
        let path = path
            .strip_prefix("//localhost")
            .or_else(|| path.strip_prefix("//"))
            .unwrap_or(path);
        if !path.starts_with('/') {
            return Err(ConfigError::invalid(
                JWKS_URL_KEY,
                "a file: URL needs an absolute path",
            ));
        }
        return Ok(JwksLocation::File(PathBuf::from(path)));
    }
    let lower = value.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => {
            Ok(JwksLocation::Url(value.to_owned()))
        }
        _ => Err(ConfigError::invalid(
            JWKS_URL_KEY,
            format!("`{value}` is not an http://, https:// or file: URL"),
        )),
    }
}

fn non_empty(source: &mut Source, key: &str, default: &str) -> Result<String, ConfigError> {
    match source.take(key).map(str::trim) {
        None => Ok(default.to_owned()),
        Some("") => Err(ConfigError::invalid(key, "must not be empty")),
        Some(v) => Ok(v.to_owned()),
    }
}

/// Reads the OAUTHBEARER keys. `None` without a JWKS URL; an error if OAUTHBEARER is enabled
/// without one.
pub(crate) fn parse(
    source: &mut Source,
    enabled: &[SaslMechanism],
    warnings: &mut Vec<String>,
) -> Result<Option<OAuthBearerConfig>, ConfigError> {
    take_kafka_wiring(source, warnings);
    let Some(url) = source.take(JWKS_URL_KEY).map(str::to_owned) else {
        if enabled.contains(&SaslMechanism::OAuthBearer) {
            return Err(ConfigError::invalid(
                JWKS_URL_KEY,
                "OAUTHBEARER is in sasl.enabled.mechanisms, so the identity provider's JWKS \
                 endpoint must be given",
            ));
        }
        if let Some(key) = source.keys_with_prefix("sasl.oauthbearer.").first() {
            warnings.push(format!("`{key}` has no effect without {JWKS_URL_KEY}"));
        }
        return Ok(None);
    };
    let jwks = location(&url)?;
    if !enabled.contains(&SaslMechanism::OAuthBearer) {
        warnings.push(format!(
            "{JWKS_URL_KEY} is set but OAUTHBEARER is not in sasl.enabled.mechanisms"
        ));
    }
    let expected_audiences = source
        .take("sasl.oauthbearer.expected.audience")
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let expected_issuer = source
        .take("sasl.oauthbearer.expected.issuer")
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned);
    let clock_skew = Duration::from_secs(source.int(
        "sasl.oauthbearer.clock.skew.seconds",
        30,
        0,
        i32::MAX.into(),
    )? as u64);
    let rules = TokenRules {
        expected_audiences,
        expected_issuer,
        clock_skew,
        sub_claim: non_empty(source, "sasl.oauthbearer.sub.claim.name", "sub")?,
        scope_claim: non_empty(source, "sasl.oauthbearer.scope.claim.name", "scope")?,
    };
    let jwks_refresh = millis(
        source,
        "sasl.oauthbearer.jwks.endpoint.refresh.ms",
        3_600_000,
        0,
    )?;
    let jwks_retry_backoff = millis(
        source,
        "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
        100,
        0,
    )?;
    let jwks_retry_backoff_max = millis(
        source,
        "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms",
        10_000,
        0,
    )?;
    let jwks_max_bytes =
        source.int("kacl.oauthbearer.jwks.max.bytes", 1 << 20, 1024, 64 << 20)? as usize;
    let jwks_timeout = millis(source, "kacl.oauthbearer.jwks.timeout.ms", 10_000, 1)?;
    let jwks_ca_file = source
        .take("kacl.oauthbearer.jwks.ssl.truststore.location")
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    Ok(Some(OAuthBearerConfig {
        jwks,
        rules,
        jwks_refresh,
        jwks_retry_backoff,
        jwks_retry_backoff_max: jwks_retry_backoff_max.max(jwks_retry_backoff),
        jwks_max_bytes,
        jwks_timeout,
        jwks_ca_file,
    }))
}

/// The keys Kafka needs to wire its validator in, which kacl does not: taken, so they are not
/// reported unknown, with a warning for a handler class that is not Kafka's validator.
fn take_kafka_wiring(source: &mut Source, warnings: &mut Vec<String>) {
    let mut handler_keys = vec!["sasl.server.callback.handler.class".to_owned()];
    let mut jaas_keys = Vec::new();
    for key in source.keys_with_prefix("listener.name.") {
        if key.ends_with(".oauthbearer.sasl.server.callback.handler.class") {
            handler_keys.push(key);
        } else if key.ends_with(".oauthbearer.sasl.jaas.config")
            || key.ends_with(".oauthbearer.connections.max.reauth.ms")
        {
            jaas_keys.push(key);
        }
    }
    for key in handler_keys {
        if let Some(class) = source.take(&key).map(str::trim) {
            if class != VALIDATOR_CALLBACK_HANDLER && class != OLD_VALIDATOR_CALLBACK_HANDLER {
                warnings.push(format!(
                    "`{key}` names {class}; kacl has no callback handlers and always validates \
                     OAUTHBEARER tokens as {VALIDATOR_CALLBACK_HANDLER} does"
                ));
            }
        }
    }
    for key in jaas_keys {
        let _ = source.take(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_pairs(
        pairs: &[(&str, &str)],
        enabled: &[SaslMechanism],
    ) -> (Result<Option<OAuthBearerConfig>, ConfigError>, Vec<String>) {
        let mut source = Source::new(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let mut warnings = Vec::new();
        let parsed = parse(&mut source, enabled, &mut warnings);
        warnings.extend(source.unused().map(|k| format!("unknown {k}")));
        (parsed, warnings)
    }

    #[test]
    fn kafkas_keys_and_defaults() {
        let (parsed, warnings) = parse_pairs(
            &[
                (JWKS_URL_KEY, "https://idp.example/jwks"),
                ("sasl.oauthbearer.expected.audience", "kafka, other"),
                ("sasl.oauthbearer.expected.issuer", "https://idp.example"),
                ("sasl.oauthbearer.sub.claim.name", "preferred_username"),
                (
                    "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                    VALIDATOR_CALLBACK_HANDLER,
                ),
                (
                    "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ;",
                ),
            ],
            &[SaslMechanism::OAuthBearer],
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let c = parsed.unwrap().unwrap();
        assert_eq!(c.jwks, JwksLocation::Url("https://idp.example/jwks".into()));
        assert_eq!(c.rules.expected_audiences, ["kafka", "other"]);
        assert_eq!(
            c.rules.expected_issuer.as_deref(),
            Some("https://idp.example")
        );
        assert_eq!(c.rules.clock_skew, Duration::from_secs(30));
        assert_eq!(c.rules.sub_claim, "preferred_username");
        assert_eq!(c.rules.scope_claim, "scope");
        assert_eq!(c.jwks_refresh, Duration::from_secs(3600));
        assert_eq!(c.jwks_retry_backoff, Duration::from_millis(100));
        assert_eq!(c.jwks_retry_backoff_max, Duration::from_secs(10));
        assert_eq!(c.jwks_max_bytes, 1 << 20);
    }

    #[test]
    fn oauthbearer_needs_a_jwks_endpoint() {
        let (parsed, _) = parse_pairs(&[], &[SaslMechanism::OAuthBearer]);
        assert!(parsed.unwrap_err().to_string().contains(JWKS_URL_KEY));
        let (parsed, _) = parse_pairs(&[], &[SaslMechanism::Plain]);
        assert_eq!(parsed.unwrap(), None);
    }

    #[test]
    fn locations() {
        assert_eq!(
            location("file:///etc/kacl/jwks.json").unwrap(),
            JwksLocation::File("/etc/kacl/jwks.json".into())
        );
        assert_eq!(
            location("file:/etc/jwks.json").unwrap(),
            JwksLocation::File("/etc/jwks.json".into())
        );
        for bad in [
            "ftp://x/jwks",
            "http://",
            "https:///jwks",
            "file:relative",
            "jwks.json",
        ] {
            assert!(location(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn another_handler_class_is_named() {
        let (parsed, warnings) = parse_pairs(
            &[
                (JWKS_URL_KEY, "http://127.0.0.1:1/jwks"),
                (
                    "listener.name.x.oauthbearer.sasl.server.callback.handler.class",
                    "com.example.Custom",
                ),
                ("sasl.oauthbearer.clock.skew.seconds", "-1"),
            ],
            &[SaslMechanism::OAuthBearer],
        );
        assert!(parsed.is_err());
        assert!(
            warnings.iter().any(|w| w.contains("com.example.Custom")),
            "{warnings:?}"
        );
    }
}
