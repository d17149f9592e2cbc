//! The SASL keys: `sasl.enabled.mechanisms`, and the PLAIN users of `sasl.jaas.config` and of
//! its listener-prefixed copies `listener.name.<name>.plain.sasl.jaas.config`.

use std::collections::BTreeMap;

use super::source::Source;
use super::{ConfigError, Listener};
use kacl_sasl::{PlainUsers, SaslMechanism};

/// The parsed SASL keys; see the fields of [`ServerConfig`](super::ServerConfig) of the same
/// names.
pub(super) struct SaslKeys {
    pub sasl_enabled_mechanisms: Vec<SaslMechanism>,
    pub plain_users: Option<PlainUsers>,
    pub listener_plain_users: BTreeMap<String, PlainUsers>,
}

pub(super) fn parse_sasl_keys(
    source: &mut Source,
    listeners: &[Listener],
    warnings: &mut Vec<String>,
) -> Result<SaslKeys, ConfigError> {
    let sasl_enabled_mechanisms = mechanisms(source.take("sasl.enabled.mechanisms"))?;
    let plain_users = match source.take("sasl.jaas.config") {
        Some(text) => Some(
            PlainUsers::from_jaas(text)
                .map_err(|e| ConfigError::invalid("sasl.jaas.config", e.to_string()))?,
        ),
        None => None,
    };
    Ok(SaslKeys {
        sasl_enabled_mechanisms,
        plain_users,
        listener_plain_users: listener_plain_users(source, listeners, warnings)?,
    })
}

fn mechanisms(value: Option<&str>) -> Result<Vec<SaslMechanism>, ConfigError> {
    let Some(value) = value else {
        return Ok(SaslMechanism::DEFAULT_ENABLED.to_vec());
    };
    let mut enabled = Vec::new();
    for name in super::listeners::split_list(value) {
        let mechanism: SaslMechanism =
            name.parse().map_err(|e: kacl_sasl::UnsupportedMechanism| {
                ConfigError::invalid("sasl.enabled.mechanisms", e.to_string())
            })?;
        if !enabled.contains(&mechanism) {
            enabled.push(mechanism);
        }
    }
    Ok(enabled)
}

/// `listener.name.<name>.plain.sasl.jaas.config` keys (listener names in any case).
fn listener_plain_users(
    source: &mut Source,
    listeners: &[Listener],
    warnings: &mut Vec<String>,
) -> Result<BTreeMap<String, PlainUsers>, ConfigError> {
    let mut users = BTreeMap::new();
    for key in source.keys_with_prefix("listener.name.") {
        let Some(name) = key
            .strip_prefix("listener.name.")
            .and_then(|rest| rest.strip_suffix(".plain.sasl.jaas.config"))
            .filter(|name| !name.is_empty() && !name.contains('.'))
        else {
            continue;
        };
        let name = name.to_ascii_uppercase();
        let text = source.take(&key).unwrap_or_default();
        let parsed =
            PlainUsers::from_jaas(text).map_err(|e| ConfigError::invalid(&key, e.to_string()))?;
        if !listeners.iter().any(|l| l.name == name) {
            warnings.push(format!(
                "`{key}` names listener {name}, which is not in listeners"
            ));
        }
        users.insert(name, parsed);
    }
    Ok(users)
}
