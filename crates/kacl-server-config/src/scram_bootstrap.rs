//! `kacl.scram.bootstrap.credentials`: the first SCRAM credentials of a new cluster, so that a
//! cluster whose listeners accept SCRAM only can be started and administered at all.
//!
//! The value uses the syntax of Kafka's `kafka-storage.sh format --add-scram`, one entry per
//! credential, entries separated by `;` (or by `,` between entries):
//!
//! ```text
//! kacl.scram.bootstrap.credentials=SCRAM-SHA-512=[name=admin,password-file=/etc/kacl/admin.password]
//! ```
//!
//! Keys inside the brackets: `name` (required), exactly one of `password-file` (kacl's: a file
//! whose content, less one trailing line break, is the password) or `password` (Kafka's; it
//! leaves the password in the config file), and `iterations` (4096 to 16384, default 4096).
//! Values may be double-quoted. The server salts each password with fresh random bytes at
//! start and keeps only the salted credential.
//!
//! The entries are applied once per store, like Kafka's `--add-scram`, which applies only when
//! the storage is formatted (the store records it; see `kacl_server::scram_bootstrap`): from
//! then on credentials are managed with AlterUserScramCredentials (`kacl users`), and a
//! credential deleted there does not come back at the next restart. Remove the key (and the
//! password file) once the cluster is bootstrapped.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use kacl_sasl::{ScramCredential, ScramMechanism};

/// The configuration key.
pub const BOOTSTRAP_KEY: &str = "kacl.scram.bootstrap.credentials";

/// Where a bootstrap password comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum PasswordSource {
    /// `password=`: in the config itself.
    Inline(String),
    /// `password-file=`: read at start.
    File(PathBuf),
}

/// Never shows an inline password.
impl fmt::Debug for PasswordSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PasswordSource::Inline(_) => f.write_str("Inline(<hidden>)"),
            PasswordSource::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

/// One credential to create when the cluster has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootstrapCredential {
    /// The user name.
    pub user: String,
    /// The hash.
    pub mechanism: ScramMechanism,
    /// The password.
    pub password: PasswordSource,
    /// PBKDF2 iterations.
    pub iterations: u32,
}

/// Why the bootstrap credentials could not be created at start.
#[derive(Debug, Error)]
pub enum BootstrapError {
    /// A password file cannot be read.
    #[error("cannot read the password file {path} of SCRAM user {user}: {reason}")]
    PasswordFile {
        /// The user.
        user: String,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// A password (file) is empty.
    #[error("the bootstrap password of SCRAM user {0} is empty")]
    EmptyPassword(String),
    /// The store refused a credential.
    #[error("cannot store the bootstrap SCRAM credential of {user}: {reason}")]
    Store {
        /// The user.
        user: String,
        /// The store's reason.
        reason: String,
    },
}

/// Parses the key's value; the error is the reason, for a `ConfigError` naming the key.
pub fn parse(value: &str) -> Result<Vec<BootstrapCredential>, String> {
    let mut credentials: Vec<BootstrapCredential> = Vec::new();
    for entry in split_entries(value)? {
        let credential = parse_entry(entry)?;
        if credentials
            .iter()
            .any(|c| c.user == credential.user && c.mechanism == credential.mechanism)
        {
            return Err(format!(
                "{} credential for user `{}` is given twice",
                credential.mechanism, credential.user
            ));
        }
        credentials.push(credential);
    }
    Ok(credentials)
}

/// Splits at `;` and `,` outside brackets and quotes; empty entries are skipped.
fn split_entries(value: &str) -> Result<Vec<&str>, String> {
    let mut entries = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, 0usize);
    for (at, c) in value.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' if !quoted => depth += 1,
            ']' if !quoted => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("unbalanced `]` in `{}`", redacted(value)))?;
            }
            ';' | ',' if !quoted && depth == 0 => {
                entries.push(value.get(start..at).unwrap_or_default());
                start = at + c.len_utf8();
            }
            _ => {}
        }
    }
    if depth != 0 || quoted {
        return Err(format!("unclosed `[` or `\"` in `{}`", redacted(value)));
    }
    entries.push(value.get(start..).unwrap_or_default());
    Ok(entries
        .into_iter()
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .collect())
}

/// `SCRAM-SHA-256=[name=alice,password-file=/path,iterations=8192]`.
fn parse_entry(entry: &str) -> Result<BootstrapCredential, String> {
    let shape = || {
        format!("`{}` is not MECHANISM=[name=...,password-file=...] (e.g. SCRAM-SHA-512=[name=admin,password-file=/etc/kacl/admin.password])", redacted(entry))
    };
    let (mechanism, body) = entry.split_once('=').ok_or_else(shape)?;
    let mechanism = ScramMechanism::from_name(mechanism.trim()).ok_or_else(|| {
        format!(
            "`{}` is not SCRAM-SHA-256 or SCRAM-SHA-512",
            mechanism.trim()
        )
    })?;
    let body = body
        .trim()
        .strip_prefix('[')
        .and_then(|b| b.strip_suffix(']'))
        .ok_or_else(shape)?;
    let (mut user, mut password, mut iterations) = (None, None, None);
    for field in split_fields(body) {
        let (key, raw) = field.split_once('=').ok_or_else(shape)?;
        let value = unquote(raw.trim());
        match key.trim() {
            "name" => user = Some(value.to_owned()),
            "password" if password.is_none() => {
                password = Some(PasswordSource::Inline(value.to_owned()));
            }
            "password-file" if password.is_none() => {
                password = Some(PasswordSource::File(PathBuf::from(value)));
            }
            "password" | "password-file" => {
                return Err(format!(
                    "`{}` gives the password twice (use one of password-file, password)",
                    redacted(entry)
                ));
            }
            "iterations" => {
                let n: i64 = value
                    .parse()
                    .map_err(|_| format!("iterations `{value}` is not a number"))?;
                if n < i64::from(ScramMechanism::MIN_ITERATIONS)
                    || n > i64::from(ScramMechanism::MAX_ITERATIONS)
                {
                    return Err(format!(
                        "iterations {n} is outside {}..={}",
                        ScramMechanism::MIN_ITERATIONS,
                        ScramMechanism::MAX_ITERATIONS
                    ));
                }
                iterations = u32::try_from(n).ok();
            }
            other => {
                let known = "name, password-file, password, iterations";
                return Err(format!(
                    "unknown field `{other}` in `{}` ({known})",
                    redacted(entry)
                ));
            }
        }
    }
    let user = user
        .filter(|u| !u.is_empty())
        .ok_or_else(|| format!("`{}` needs a non-empty name", redacted(entry)))?;
    let password =
        password.ok_or_else(|| format!("`{entry}` needs password-file (or password)"))?;
    Ok(BootstrapCredential {
        user,
        mechanism,
        password,
        iterations: iterations.unwrap_or(ScramCredential::DEFAULT_ITERATIONS),
    })
}

/// Splits at commas outside double quotes.
fn split_fields(body: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    let (mut quoted, mut start) = (false, 0usize);
    for (at, c) in body.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                fields.push(body.get(start..at).unwrap_or_default());
                start = at + 1;
            }
            _ => {}
        }
    }
    fields.push(body.get(start..).unwrap_or_default());
    fields
        .into_iter()
        .filter(|f| !f.trim().is_empty())
        .collect()
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value)
}

impl BootstrapCredential {
    /// The password, read from its file now if it has one (less one trailing line break).
    /// Blocking.
    pub fn read_password(&self) -> Result<String, BootstrapError> {
        let entry = self;
        let password = match &entry.password {
            PasswordSource::Inline(password) => password.clone(),
            PasswordSource::File(path) => {
                let mut text =
                    std::fs::read_to_string(path).map_err(|e| BootstrapError::PasswordFile {
                        user: entry.user.clone(),
                        path: path.clone(),
                        reason: e.to_string(),
                    })?;
                if text.ends_with('\n') {
                    text.pop();
                    if text.ends_with('\r') {
                        text.pop();
                    }
                }
                text
            }
        };
        if password.is_empty() {
            return Err(BootstrapError::EmptyPassword(entry.user.clone()));
        }
        Ok(password)
    }
}

/// `text` with the value of every `password=` field replaced by `<hidden>`, for error messages:
/// a parse error names the entry it refuses but never echoes an inline password.
fn redacted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("password=") {
        let value_start = at + "password=".len();
        out.push_str(&rest[..value_start]);
        out.push_str("<hidden>");
        let value_len = rest[value_start..]
            .find([',', ']', ';'])
            .unwrap_or(rest.len() - value_start);
        rest = &rest[value_start + value_len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kafkas_add_scram_syntax() {
        let parsed = parse(
            "SCRAM-SHA-512=[name=admin,password-file=/etc/kacl/admin.pw]; \
             SCRAM-SHA-256=[name=\"ops,team\",password=\"s3cr,et\",iterations=8192]",
        )
        .unwrap();
        assert_eq!(
            parsed,
            vec![
                BootstrapCredential {
                    user: "admin".into(),
                    mechanism: ScramMechanism::Sha512,
                    password: PasswordSource::File("/etc/kacl/admin.pw".into()),
                    iterations: 4096,
                },
                BootstrapCredential {
                    user: "ops,team".into(),
                    mechanism: ScramMechanism::Sha256,
                    password: PasswordSource::Inline("s3cr,et".into()),
                    iterations: 8192,
                },
            ]
        );
        // Comma between entries works too.
        assert_eq!(
            parse("SCRAM-SHA-256=[name=a,password=x],SCRAM-SHA-512=[name=a,password=x]")
                .unwrap()
                .len(),
            2
        );
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn refuses_bad_entries_with_a_reason() {
        for (value, reason) in [
            ("SCRAM-SHA-1=[name=a,password=x]", "not SCRAM-SHA-256"),
            ("SCRAM-SHA-256=[password=x]", "needs a non-empty name"),
            ("SCRAM-SHA-256=[name=a]", "needs password-file"),
            (
                "SCRAM-SHA-256=[name=a,password=x,iterations=100]",
                "outside",
            ),
            (
                "SCRAM-SHA-256=[name=a,password=x,iterations=20000]",
                "outside",
            ),
            (
                "SCRAM-SHA-256=[name=a,password=x,colour=red]",
                "unknown field",
            ),
            ("SCRAM-SHA-256=[name=a,password=x,password-file=y]", "twice"),
            (
                "SCRAM-SHA-256=[name=a,password=x];SCRAM-SHA-256=[name=a,password=y]",
                "twice",
            ),
            ("SCRAM-SHA-256=[name=a,password=x", "unclosed"),
            ("SCRAM-SHA-256", "is not MECHANISM"),
        ] {
            let err = parse(value).unwrap_err();
            assert!(err.contains(reason), "{value}: {err}");
        }
    }

    #[test]
    fn debug_hides_inline_passwords() {
        let shown = format!(
            "{:?}",
            parse("SCRAM-SHA-256=[name=a,password=hunter2]").unwrap()
        );
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn parse_errors_never_echo_an_inline_password() {
        for value in [
            "SCRAM-SHA-256=[name=a,password=hunter2,colour=red]",
            "SCRAM-SHA-256=[name=,password=hunter2]",
            "SCRAM-SHA-256=[name=a,password=hunter2,password-file=x]",
            "SCRAM-SHA-256=[name=a,password=hunter2",
            "SCRAM-SHA-256=[name=a,password=hunter2]]",
            "SCRAM-SHA-256:[name=a,password=hunter2]",
        ] {
            let err = parse(value).unwrap_err();
            assert!(!err.contains("hunter2"), "{value}: {err}");
        }
        assert_eq!(
            redacted("S=[name=a,password=x y;z],T=[password=q]"),
            "S=[name=a,password=<hidden>;z],T=[password=<hidden>]"
        );
    }
}
