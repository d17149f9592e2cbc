//! What `kafka-configs.sh` does to its arguments before it talks to a broker: `--add-config`
//! split on commas and `=` outside square brackets, `--add-config-file` read as a properties
//! file, key characters checked, and the users entity's SCRAM values
//! (`[iterations=8192,]password=...`) taken apart, each with Kafka's message on failure.

use std::collections::BTreeMap;

use anyhow::{bail, Context};
use kacl_client::{Properties, ScramMechanism};

use crate::cli::users::DEFAULT_ITERATIONS;

/// Whether the separator at `at` lies outside square brackets: Kafka's lookahead
/// `(?=[^\]]*(?:\[|$))`, i.e. no `]` comes before the next `[` or the end.
fn outside_brackets(text: &str, at: usize) -> bool {
    for c in text[at..].chars() {
        match c {
            ']' => return false,
            '[' => return true,
            _ => {}
        }
    }
    true
}

/// Splits `text` at every `sep` outside brackets (Kafka's `split` with limit -1: empty pieces
/// are kept).
fn split_outside(text: &str, sep: char) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == sep && outside_brackets(text, i + 1) {
            pieces.push(&text[start..i]);
            start = i + 1;
        }
    }
    pieces.push(&text[start..]);
    pieces
}

/// `--add-config 'k1=v1,k2=[a,b],k3='`: keys and values trimmed, brackets removed from values.
pub(super) fn add_config(text: &str) -> anyhow::Result<BTreeMap<String, String>> {
    let mut configs = BTreeMap::new();
    for pair in split_outside(text, ',') {
        let parts = split_outside(pair, '=');
        let [key, value] = parts[..] else {
            bail!(
                "Invalid entity config: all configs to be added must be in the format \"key=val\"."
            );
        };
        let value: String = value.chars().filter(|c| !matches!(c, '[' | ']')).collect();
        configs.insert(key.trim().to_owned(), value.trim().to_owned());
    }
    Ok(configs)
}

/// `--add-config-file FILE`: a Java properties file.
pub(super) fn add_config_file(path: &std::path::Path) -> anyhow::Result<BTreeMap<String, String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let props =
        Properties::parse(&text).with_context(|| format!("cannot parse {}", path.display()))?;
    Ok(props
        .iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect())
}

/// Kafka's `validatePropsKey`: keys of `[a-zA-Z0-9._-]*` only.
pub(super) fn check_keys(configs: &BTreeMap<String, String>) -> anyhow::Result<()> {
    for key in configs.keys() {
        let ok = key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !ok {
            bail!("Invalid character found for config key: {key}");
        }
    }
    Ok(())
}

/// `--delete-config k1,k2`: trimmed keys.
pub(super) fn delete_config(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(|k| k.trim().to_owned())
        .collect()
}

/// The iterations and password of a SCRAM `--add-config` value, as kafka-configs.sh reads
/// `(?:iterations=(-?[0-9]*),)?password=(.*)` (iterations -1 or absent: 4096).
pub(super) fn scram_credential(
    mechanism: ScramMechanism,
    value: &str,
) -> anyhow::Result<(u32, String)> {
    let invalid = || anyhow::anyhow!("Invalid credential property {}={value}", mechanism.name());
    let (iterations, rest) = match value.strip_prefix("iterations=") {
        Some(rest) => {
            let (number, rest) = rest.split_once(',').ok_or_else(invalid)?;
            let digits = number.strip_prefix('-').unwrap_or(number);
            if !digits.chars().all(|c| c.is_ascii_digit()) {
                return Err(invalid());
            }
            (Some(number), rest)
        }
        None => (None, value),
    };
    let password = rest.strip_prefix("password=").ok_or_else(invalid)?;
    let iterations: i64 = match iterations {
        None | Some("-1") => i64::from(DEFAULT_ITERATIONS),
        // Java's toInt of "" or "-" fails with a NumberFormatException.
        Some(number) => number.parse().map_err(|_| invalid())?,
    };
    let minimum = i64::from(ScramMechanism::MIN_ITERATIONS);
    if iterations < minimum {
        bail!(
            "Iterations {iterations} is less than the minimum {minimum} required for {}",
            mechanism.name()
        );
    }
    let iterations = u32::try_from(iterations).map_err(|_| invalid())?;
    Ok((iterations, password.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String)> {
        add_config(text).unwrap().into_iter().collect()
    }

    #[test]
    fn add_config_splits_outside_brackets_as_kafka_does() {
        assert_eq!(
            pairs("retention.ms=1000, cleanup.policy=[compact,delete],x = y"),
            [
                ("cleanup.policy".into(), "compact,delete".into()),
                ("retention.ms".into(), "1000".into()),
                ("x".into(), "y".into()),
            ]
        );
        // An empty value is allowed (ssl.endpoint.identification.algorithm=).
        assert_eq!(pairs("k="), [("k".into(), String::new())]);
        // `=` inside brackets belongs to the value (SCRAM).
        assert_eq!(
            pairs("SCRAM-SHA-512=[iterations=8192,password=a=b]"),
            [(
                "SCRAM-SHA-512".into(),
                "iterations=8192,password=a=b".into()
            )]
        );
        for bad in ["novalue", "a=b=c", "a=1,,b=2"] {
            let err = add_config(bad).unwrap_err().to_string();
            assert!(err.starts_with("Invalid entity config"), "{bad}: {err}");
        }
    }

    #[test]
    fn keys_and_deletes_are_checked_and_trimmed() {
        assert!(check_keys(&add_config("a.b_c-9=1").unwrap()).is_ok());
        let err = check_keys(&add_config("a b=1").unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid character found for config key: a b"
        );
        assert_eq!(delete_config(&["a, b".into(), "c".into()]), ["a", "b", "c"]);
    }

    #[test]
    fn scram_values_parse_with_kafkas_messages() {
        let m = ScramMechanism::Sha512;
        assert_eq!(
            scram_credential(m, "iterations=8192,password=s3,cr=t").unwrap(),
            (8192, "s3,cr=t".into())
        );
        assert_eq!(
            scram_credential(m, "password=x").unwrap(),
            (4096, "x".into())
        );
        assert_eq!(
            scram_credential(m, "iterations=-1,password=x").unwrap(),
            (4096, "x".into())
        );
        assert_eq!(
            scram_credential(m, "iterations=100,password=x")
                .unwrap_err()
                .to_string(),
            "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-512"
        );
        for bad in ["pass=x", "iterations=x,password=y", "iterations=9000"] {
            assert_eq!(
                scram_credential(m, bad).unwrap_err().to_string(),
                format!("Invalid credential property SCRAM-SHA-512={bad}")
            );
        }
    }
}
