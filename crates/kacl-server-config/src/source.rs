//! The raw `key=value` pairs being turned into a typed config, with Kafka's parsing of
//! numbers and booleans, and a record of which keys were read so the rest can be reported
//! as unknown.

use std::collections::{BTreeMap, BTreeSet};

use super::ConfigError;

pub(crate) struct Source {
    values: BTreeMap<String, String>,
    used: BTreeSet<String>,
}

impl Source {
    /// Later pairs override earlier ones (file, then each `--override` in order).
    pub(crate) fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Self {
        Source {
            values: pairs.into_iter().collect(),
            used: BTreeSet::new(),
        }
    }

    /// A key's raw value, marking the key as known.
    pub(crate) fn take(&mut self, key: &str) -> Option<&str> {
        let value = self.values.get(key)?;
        self.used.insert(key.to_owned());
        Some(value)
    }

    /// A key's raw value without marking the key as known.
    pub(crate) fn peek(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// Keys starting with `prefix` (not yet marked known).
    pub(crate) fn keys_with_prefix(&self, prefix: &str) -> Vec<String> {
        self.values
            .keys()
            .filter(|k| k.starts_with(prefix))
            .cloned()
            .collect()
    }

    /// Keys nobody read.
    pub(crate) fn unused(&self) -> impl Iterator<Item = &str> {
        self.values
            .keys()
            .filter(|k| !self.used.contains(*k))
            .map(String::as_str)
    }

    /// An integer in `min..=max` (Kafka trims the text first).
    pub(crate) fn int(
        &mut self,
        key: &str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, ConfigError> {
        let Some(raw) = self.take(key) else {
            return Ok(default);
        };
        let raw = raw.trim();
        let value: i64 = raw
            .parse()
            .map_err(|_| ConfigError::invalid(key, format!("`{raw}` is not an integer")))?;
        if value < min {
            return Err(ConfigError::invalid(
                key,
                format!("{value} is below the minimum {min}"),
            ));
        }
        if value > max {
            return Err(ConfigError::invalid(
                key,
                format!("{value} is above the maximum {max}"),
            ));
        }
        Ok(value)
    }

    /// `true` or `false` in any case, as Kafka's `ConfigDef` reads booleans.
    pub(crate) fn bool(&mut self, key: &str, default: bool) -> Result<bool, ConfigError> {
        match self.take(key).map(str::trim) {
            None => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(ConfigError::invalid(
                key,
                format!("`{v}` is neither true nor false"),
            )),
        }
    }
}
