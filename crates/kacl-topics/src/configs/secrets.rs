//! Which broker config keys hold secrets: DescribeConfigs marks them sensitive and never sends
//! their values (Kafka's `ConfigHelper`: a key whose type is PASSWORD, or whose type it cannot
//! tell, is sensitive).
//!
//! The table is every PASSWORD-typed key of Kafka's broker `ConfigDef`, whether kacl uses the
//! key or not, because an operator may carry a Kafka `server.properties` over unchanged.
//! Listener overrides resolve as Kafka's `DynamicBrokerConfig.brokerConfigSynonyms` does:
//! `listener.name.<listener>.<key>` and `listener.name.<listener>.<mechanism>.sasl.jaas.config`
//! are the base key's type.

/// Kafka's PASSWORD-typed broker configs (`SslConfigs`, `BrokerSecurityConfigs`,
/// `SaslConfigs`, `PasswordEncoderConfigs`, `DelegationTokenManagerConfigs`, and the
/// pre-4.0 `ZkConfigs` and `delegation.token.master.key`, still secrets in old files).
pub const KAFKA_PASSWORD_CONFIGS: &[&str] = &[
    "ssl.key.password",
    "ssl.keystore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "sasl.jaas.config",
    "sasl.oauthbearer.client.credentials.client.secret",
    "sasl.oauthbearer.assertion.private.key.passphrase",
    "password.encoder.secret",
    "password.encoder.old.secret",
    "delegation.token.secret.key",
    "delegation.token.master.key",
    "zookeeper.ssl.keystore.password",
    "zookeeper.ssl.truststore.password",
];

/// Keys that Kafka's broker `ConfigDef` does not define because the authorizer, not the
/// broker, reads them. Kafka's DescribeConfigs cannot tell their type and so masks them
/// (value null, sensitive): whoever may describe broker configs does not learn who the super
/// users are.
pub const KAFKA_UNTYPED_BROKER_CONFIGS: &[&str] =
    &["super.users", "allow.everyone.if.no.acl.found"];

/// kacl's own keys that hold secrets.
const KACL_SECRET_CONFIGS: &[&str] = &["kacl.scram.bootstrap.credentials"];

/// Words that mark a key kacl does not know as a secret. Kafka masks every key whose type it
/// cannot tell; kacl knows only part of Kafka's table, so it masks the unknown ones that look
/// like secrets (`passw` catches `password`, `passwd` and misspellings) rather than all of them.
const SECRET_WORDS: &[&str] = &["passw", "passphrase", "secret", "credential", "jaas"];

/// Whether DescribeConfigs must hide the value of broker key `key`.
pub fn is_sensitive_broker_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    let base = listener_base(&lower);
    let listed = |table: &[&str]| table.contains(&lower.as_str()) || table.contains(&base);
    listed(KAFKA_PASSWORD_CONFIGS)
        || listed(KACL_SECRET_CONFIGS)
        || is_untyped_broker_key(key)
        || SECRET_WORDS.iter().any(|word| lower.contains(word))
}

/// Whether `key` is one of [`KAFKA_UNTYPED_BROKER_CONFIGS`]: masked, but not a PASSWORD (its
/// DescribeConfigs type is UNKNOWN, as Kafka sends it).
pub fn is_untyped_broker_key(key: &str) -> bool {
    KAFKA_UNTYPED_BROKER_CONFIGS.contains(&key.to_ascii_lowercase().as_str())
}

/// The key a listener override stands for: `listener.name.l.ssl.key.password` →
/// `ssl.key.password`, `listener.name.l.plain.sasl.jaas.config` → `sasl.jaas.config`.
pub fn listener_base(key: &str) -> &str {
    let Some(rest) = key.strip_prefix("listener.name.") else {
        return key;
    };
    let Some((_, base)) = rest.split_once('.') else {
        return key;
    };
    match base.split_once('.') {
        Some((_mechanism, config)) if config.starts_with("sasl.") => config,
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kafka_password_key_is_sensitive_with_any_listener_prefix() {
        for key in KAFKA_PASSWORD_CONFIGS {
            assert!(is_sensitive_broker_key(key), "{key}");
            let upper = key.to_ascii_uppercase();
            assert!(is_sensitive_broker_key(&upper), "{upper}");
            let listener = format!("listener.name.external.{key}");
            assert!(is_sensitive_broker_key(&listener), "{listener}");
        }
        for key in [
            "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
            "listener.name.internal.oauthbearer.sasl.oauthbearer.assertion.private.key.passphrase",
            "kacl.scram.bootstrap.credentials",
            "ssl.keystore.passwrd",
        ] {
            assert!(is_sensitive_broker_key(key), "{key}");
        }
    }

    #[test]
    fn ordinary_keys_are_shown() {
        for key in [
            "listeners",
            "ssl.keystore.location",
            "ssl.keystore.type",
            "listener.name.external.ssl.client.auth",
            "sasl.enabled.mechanisms",
            "delegation.token.max.lifetime.ms",
        ] {
            assert!(!is_sensitive_broker_key(key), "{key}");
        }
    }

    #[test]
    fn the_authorizers_keys_are_masked_as_kafka_masks_them() {
        for key in [
            "super.users",
            "allow.everyone.if.no.acl.found",
            "Super.Users",
        ] {
            assert!(is_sensitive_broker_key(key), "{key}");
            assert!(is_untyped_broker_key(key), "{key}");
        }
        assert!(!is_untyped_broker_key("ssl.key.password"));
    }

    #[test]
    fn listener_overrides_resolve_to_their_base_key() {
        assert_eq!(
            listener_base("listener.name.l.ssl.key.password"),
            "ssl.key.password"
        );
        assert_eq!(
            listener_base("listener.name.l.plain.sasl.jaas.config"),
            "sasl.jaas.config"
        );
        assert_eq!(listener_base("listener.name.l"), "listener.name.l");
        assert_eq!(listener_base("ssl.key.password"), "ssl.key.password");
    }
}
