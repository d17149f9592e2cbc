//! The client's reading of Kafka's `sasl.jaas.config`: one login module, its control flag and
//! its `key=value` options, e.g.
//! `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b";`.
//!
//! Values may be bare words or quoted with `"` or `'` (backslash escapes inside quotes), as
//! Kafka's `JaasConfig` tokenizer accepts them.

use crate::error::AdminError;

/// One parsed login module.
#[derive(Clone, PartialEq, Eq)]
pub struct LoginModule {
    /// The module's class name, e.g. `org.apache.kafka.common.security.plain.PlainLoginModule`.
    pub class: String,
    /// `required`, `requisite`, `sufficient` or `optional`.
    pub flag: String,
    options: Vec<(String, String)>,
}

impl LoginModule {
    /// The value of an option, if present.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Option values may be passwords: print only the names.
impl std::fmt::Debug for LoginModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.options.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("LoginModule")
            .field("class", &self.class)
            .field("flag", &self.flag)
            .field("options", &names)
            .finish()
    }
}

fn jaas_error(detail: impl std::fmt::Display) -> AdminError {
    AdminError::Config(format!("sasl.jaas.config: {detail}"))
}

/// Parses a `sasl.jaas.config` value holding exactly one login module (Kafka requires one for
/// a client).
pub fn parse_login_module(text: &str) -> Result<LoginModule, AdminError> {
    let tokens = tokenize(text)?;
    let mut it = tokens.into_iter();
    let class = match it.next() {
        Some(Token::Word(w)) => w,
        _ => return Err(jaas_error("expected a login module class name")),
    };
    let flag = match it.next() {
        Some(Token::Word(w))
            if ["required", "requisite", "sufficient", "optional"]
                .contains(&w.to_ascii_lowercase().as_str()) =>
        {
            w.to_ascii_lowercase()
        }
        Some(Token::Word(w)) => return Err(jaas_error(format!("invalid control flag `{w}`"))),
        _ => return Err(jaas_error("expected a control flag after the class name")),
    };
    let mut options = Vec::new();
    loop {
        match it.next() {
            Some(Token::Semicolon) => break,
            Some(Token::Word(key)) => {
                if it.next() != Some(Token::Equals) {
                    return Err(jaas_error(format!("expected `=` after option `{key}`")));
                }
                match it.next() {
                    Some(Token::Word(value)) | Some(Token::Quoted(value)) => {
                        options.push((key, value));
                    }
                    _ => return Err(jaas_error(format!("option `{key}` has no value"))),
                }
            }
            None => return Err(jaas_error("login module entry must end with `;`")),
            Some(_) => return Err(jaas_error("unexpected token in options")),
        }
    }
    if it.next().is_some() {
        return Err(jaas_error(
            "a client's sasl.jaas.config must contain exactly one login module",
        ));
    }
    Ok(LoginModule {
        class,
        flag,
        options,
    })
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Equals,
    Semicolon,
}

fn tokenize(text: &str) -> Result<Vec<Token>, AdminError> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '=' => {
                chars.next();
                tokens.push(Token::Equals);
            }
            ';' => {
                chars.next();
                tokens.push(Token::Semicolon);
            }
            '"' | '\'' => {
                chars.next();
                let mut value = String::new();
                loop {
                    match chars.next() {
                        None => return Err(jaas_error("unterminated quoted value")),
                        Some(q) if q == c => break,
                        Some('\\') => match chars.next() {
                            Some('n') => value.push('\n'),
                            Some('t') => value.push('\t'),
                            Some('r') => value.push('\r'),
                            Some(other) => value.push(other),
                            None => return Err(jaas_error("unterminated quoted value")),
                        },
                        Some(other) => value.push(other),
                    }
                }
                tokens.push(Token::Quoted(value));
            }
            _ => {
                let mut word = String::new();
                while let Some(&w) = chars.peek() {
                    if w.is_whitespace() || matches!(w, '=' | ';' | '"' | '\'') {
                        break;
                    }
                    word.push(w);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_scram_modules() {
        let m = parse_login_module(
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             username=\"alice\" password=\"a \\\"quoted\\\" secret\";",
        )
        .unwrap();
        assert_eq!(
            m.class,
            "org.apache.kafka.common.security.plain.PlainLoginModule"
        );
        assert_eq!(m.flag, "required");
        assert_eq!(m.option("username"), Some("alice"));
        assert_eq!(m.option("password"), Some("a \"quoted\" secret"));
        assert!(!format!("{m:?}").contains("secret"));

        let m =
            parse_login_module("ScramLoginModule REQUIRED username=bob password='x=y;z';").unwrap();
        assert_eq!(m.flag, "required");
        assert_eq!(m.option("username"), Some("bob"));
        assert_eq!(m.option("password"), Some("x=y;z"));
    }

    #[test]
    fn malformed_entries_are_refused_with_a_reason() {
        for (text, reason) in [
            ("", "class name"),
            ("M", "control flag"),
            ("M always;", "invalid control flag"),
            ("M required username=\"a\"", "must end with"),
            ("M required username;", "expected `=`"),
            ("M required username=;", "no value"),
            ("M required password=\"open;", "unterminated"),
            ("M required; N required;", "exactly one"),
        ] {
            let err = parse_login_module(text).unwrap_err().to_string();
            assert!(err.contains(reason), "{text:?}: {err}");
        }
    }
}
