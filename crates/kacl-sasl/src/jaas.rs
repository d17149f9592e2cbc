//! Kafka's `sasl.jaas.config` values:
//! `<LoginModuleClass> <controlFlag> (<option>=<value>)* ;`
//!
//! The tokenizer follows the `StreamTokenizer` set-up of Kafka's `JaasConfig`: characters up to
//! and including space separate tokens; `/` starts a comment (`//` and a lone `/` to the end of
//! the line, `/* ... */` a block), so a value holding a slash must be quoted; `"` and `'` quote,
//! with Java escapes (`\n`, `\t`, `\"`, `\\`, octal `\101`); a quoted value also ends at a line
//! break, as in Java. `;` ends an entry and `=` joins an option to its value.
//!
//! The server reads its PLAIN users from the `user_<name>="<password>"` options of a
//! `PlainLoginModule` entry only, as Kafka's `PlainServerCallbackHandler` looks them up in the
//! entries of that class; a login module class kacl does not know is refused
//! ([`JaasModule::kind`]), as Kafka's JAAS login fails at start on a class it cannot load.
//! Clients read `username` and `password` (PlainLoginModule and ScramLoginModule alike).

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

/// A JAAS value Kafka would refuse; messages are Kafka's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JaasError {
    /// The text holds no entry at all.
    #[error("Login module not specified in JAAS config")]
    NoLoginModule,
    /// The entry stops after the class name.
    #[error("Login module control flag not specified in JAAS config")]
    MissingControlFlag,
    /// The token after the class name is `;` or `=`.
    #[error("Login module control flag is not available in the JAAS config")]
    ControlFlagNotAvailable,
    /// Not one of required, requisite, sufficient, optional.
    #[error("Invalid login module control flag '{0}' in JAAS config")]
    InvalidControlFlag(String),
    /// An option without `=value`.
    #[error("Value not specified for key '{0}' in JAAS config")]
    MissingValue(String),
    /// The last entry has no closing `;`.
    #[error("JAAS config entry not terminated by semi-colon")]
    NotTerminated,
    /// `sasl.jaas.config` must hold exactly one entry.
    #[error("JAAS config property contains {0} login modules, should be 1 module")]
    NotOneModule(usize),
    /// A login module class that is neither Kafka's PLAIN nor SCRAM module (JAAS's message
    /// for a class it cannot load).
    #[error(
        "No LoginModule found for {0} (kacl knows {PLAIN_LOGIN_MODULE} and {SCRAM_LOGIN_MODULE})"
    )]
    UnknownLoginModule(String),
}

/// Kafka's PLAIN login module class.
pub const PLAIN_LOGIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
/// Kafka's SCRAM login module class.
pub const SCRAM_LOGIN_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";

/// The login module classes kacl knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginModule {
    /// `org.apache.kafka.common.security.plain.PlainLoginModule`
    Plain,
    /// `org.apache.kafka.common.security.scram.ScramLoginModule`
    Scram,
}

/// JAAS control flags; kacl records them but, like Kafka with a single module, does not act
/// on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlFlag {
    /// `required`
    Required,
    /// `requisite`
    Requisite,
    /// `sufficient`
    Sufficient,
    /// `optional`
    Optional,
}

/// One `<class> <flag> options... ;` entry.
#[derive(Clone, PartialEq, Eq)]
pub struct JaasModule {
    /// The login module class, e.g. `org.apache.kafka.common.security.plain.PlainLoginModule`.
    pub login_module: String,
    /// The control flag.
    pub control_flag: ControlFlag,
    /// Options in key order; a repeated key keeps its last value, as in Kafka.
    pub options: BTreeMap<String, String>,
}

impl JaasModule {
    /// An option's value.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    /// Which known login module this entry names; a class name is compared exactly, as Java
    /// loads classes by their exact name.
    pub fn kind(&self) -> Result<LoginModule, JaasError> {
        match self.login_module.as_str() {
            PLAIN_LOGIN_MODULE => Ok(LoginModule::Plain),
            SCRAM_LOGIN_MODULE => Ok(LoginModule::Scram),
            other => Err(JaasError::UnknownLoginModule(other.to_owned())),
        }
    }

    /// The `user_<name>` options of a `PlainLoginModule` entry: the PLAIN users a broker
    /// accepts, name to password. Other modules' `user_` options are not PLAIN users (none).
    pub fn plain_users(&self) -> BTreeMap<String, String> {
        if self.kind() != Ok(LoginModule::Plain) {
            return BTreeMap::new();
        }
        self.options
            .iter()
            .filter_map(|(key, value)| {
                let name = key.strip_prefix("user_")?;
                (!name.is_empty()).then(|| (name.to_owned(), value.clone()))
            })
            .collect()
    }
}

/// Shows option names only: values hold passwords.
impl fmt::Debug for JaasModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JaasModule")
            .field("login_module", &self.login_module)
            .field("control_flag", &self.control_flag)
            .field("option_names", &self.options.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Parses every entry of a JAAS text.
pub fn parse_jaas_config(text: &str) -> Result<Vec<JaasModule>, JaasError> {
    let mut tokens = Tokenizer::new(text);
    let mut modules = Vec::new();
    while let Some(first) = tokens.next_token() {
        modules.push(parse_entry(first, &mut tokens)?);
    }
    if modules.is_empty() {
        return Err(JaasError::NoLoginModule);
    }
    Ok(modules)
}

/// Parses a `sasl.jaas.config` value, which Kafka requires to hold exactly one entry.
pub fn parse_single_module(text: &str) -> Result<JaasModule, JaasError> {
    let mut modules = parse_jaas_config(text)?;
    match modules.len() {
        1 => modules.pop().ok_or(JaasError::NoLoginModule),
        n => Err(JaasError::NotOneModule(n)),
    }
}

fn parse_entry(first: Token, tokens: &mut Tokenizer<'_>) -> Result<JaasModule, JaasError> {
    let login_module = first.text().ok_or(JaasError::NoLoginModule)?.to_owned();
    let flag_token = tokens.next_token().ok_or(JaasError::MissingControlFlag)?;
    let flag = flag_token
        .text()
        .ok_or(JaasError::ControlFlagNotAvailable)?;
    let control_flag = match flag.to_ascii_uppercase().as_str() {
        "REQUIRED" => ControlFlag::Required,
        "REQUISITE" => ControlFlag::Requisite,
        "SUFFICIENT" => ControlFlag::Sufficient,
        "OPTIONAL" => ControlFlag::Optional,
        _ => return Err(JaasError::InvalidControlFlag(flag.to_owned())),
    };
    let mut options = BTreeMap::new();
    loop {
        let key = match tokens.next_token() {
            None => return Err(JaasError::NotTerminated),
            Some(Token::Semicolon) => break,
            Some(Token::Equals) => return Err(JaasError::MissingValue("=".to_owned())),
            Some(Token::Word(key)) => key,
        };
        if tokens.next_token() != Some(Token::Equals) {
            return Err(JaasError::MissingValue(key));
        }
        match tokens.next_token() {
            Some(Token::Word(value)) => {
                options.insert(key, value);
            }
            _ => return Err(JaasError::MissingValue(key)),
        }
    }
    Ok(JaasModule {
        login_module,
        control_flag,
        options,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A bare word or a quoted string (after unescaping).
    Word(String),
    Semicolon,
    Equals,
}

impl Token {
    fn text(&self) -> Option<&str> {
        match self {
            Token::Word(w) => Some(w),
            _ => None,
        }
    }
}

struct Tokenizer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl<'a> Tokenizer<'a> {
    fn new(text: &'a str) -> Self {
        Tokenizer {
            chars: text.chars().peekable(),
        }
    }

    fn next_token(&mut self) -> Option<Token> {
        loop {
            let c = self.chars.next()?;
            match c {
                c if c <= ' ' => continue,
                '/' => self.skip_comment(),
                ';' => return Some(Token::Semicolon),
                '=' => return Some(Token::Equals),
                '"' | '\'' => return Some(Token::Word(self.quoted(c))),
                c => return Some(Token::Word(self.word(c))),
            }
        }
    }

    fn skip_comment(&mut self) {
        if self.chars.peek() == Some(&'*') {
            self.chars.next();
            let mut previous = '\0';
            for c in self.chars.by_ref() {
                if previous == '*' && c == '/' {
                    return;
                }
                previous = c;
            }
        } else {
            for c in self.chars.by_ref() {
                if c == '\n' || c == '\r' {
                    return;
                }
            }
        }
    }

    fn word(&mut self, first: char) -> String {
        let mut word = String::from(first);
        while let Some(&c) = self.chars.peek() {
            if c <= ' ' || matches!(c, '/' | ';' | '=' | '"' | '\'') {
                break;
            }
            word.push(c);
            self.chars.next();
        }
        word
    }

    fn quoted(&mut self, quote: char) -> String {
        let mut value = String::new();
        while let Some(c) = self.chars.next() {
            match c {
                c if c == quote => break,
                '\n' | '\r' => break,
                '\\' => match self.chars.next() {
                    Some(escaped) => value.push(self.unescape(escaped)),
                    None => break,
                },
                c => value.push(c),
            }
        }
        value
    }

    /// Java `StreamTokenizer` escapes: C-like letters, octal up to `\377`, otherwise the char.
    fn unescape(&mut self, c: char) -> char {
        match c {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '0'..='7' => {
                let mut code = c.to_digit(8).unwrap_or(0);
                let max_digits = if c <= '3' { 3 } else { 2 };
                for _ in 1..max_digits {
                    match self.chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            code = code * 8 + d;
                            self.chars.next();
                        }
                        None => break,
                    }
                }
                char::from_u32(code).unwrap_or('\u{fffd}')
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN_SERVER: &str = r#"org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin"
        password="admin-secret"
        user_admin="admin-secret"
        user_alice="alice-secret";"#;

    #[test]
    fn parses_kafkas_plain_server_line() {
        let module = parse_single_module(PLAIN_SERVER).unwrap();
        assert_eq!(
            module.login_module,
            "org.apache.kafka.common.security.plain.PlainLoginModule"
        );
        assert_eq!(module.control_flag, ControlFlag::Required);
        assert_eq!(module.option("username"), Some("admin"));
        assert_eq!(module.option("password"), Some("admin-secret"));
        let users = module.plain_users();
        assert_eq!(users.len(), 2);
        assert_eq!(users.get("alice").map(String::as_str), Some("alice-secret"));
        assert_eq!(users.get("admin").map(String::as_str), Some("admin-secret"));
    }

    #[test]
    fn parses_a_scram_client_line() {
        let module = parse_single_module(
            "org.apache.kafka.common.security.scram.ScramLoginModule required \
             username=\"bob\" password='p@ss;w=rd';",
        )
        .unwrap();
        assert_eq!(module.option("username"), Some("bob"));
        assert_eq!(module.option("password"), Some("p@ss;w=rd"));
        assert!(module.plain_users().is_empty());
    }

    #[test]
    fn unquoted_values_flags_any_case_and_escapes() {
        let module =
            parse_single_module(r#"x.Module OPTIONAL a=plain b="q\"uo\\te\n" c='\101\7' d=""; "#)
                .unwrap();
        assert_eq!(module.control_flag, ControlFlag::Optional);
        assert_eq!(module.option("a"), Some("plain"));
        assert_eq!(module.option("b"), Some("q\"uo\\te\n"));
        assert_eq!(module.option("c"), Some("A\u{7}"));
        assert_eq!(module.option("d"), Some(""));
    }

    #[test]
    fn comments_are_skipped_and_slashes_need_quotes() {
        let module = parse_single_module(
            "x.M required // the users\n user_a=\"p\" /* block\n comment */ user_b='/q';",
        )
        .unwrap();
        assert_eq!(module.option("user_a"), Some("p"));
        assert_eq!(module.option("user_b"), Some("/q"));
        // An unquoted slash starts a comment, so the entry is left unterminated, as in Kafka.
        assert_eq!(
            parse_single_module("x.M required path=/etc/x;"),
            Err(JaasError::MissingValue("path".into()))
        );
    }

    #[test]
    fn later_duplicate_option_wins() {
        let module = parse_single_module("x.M required user_a=1 user_a=2;").unwrap();
        assert_eq!(module.option("user_a"), Some("2"));
    }

    #[test]
    fn several_entries_parse_but_sasl_jaas_config_wants_one() {
        let two = "a.M required; b.M sufficient k=v;";
        assert_eq!(parse_jaas_config(two).unwrap().len(), 2);
        assert_eq!(parse_single_module(two), Err(JaasError::NotOneModule(2)));
    }

    #[test]
    fn errors_use_kafkas_messages() {
        let cases = [
            ("", JaasError::NoLoginModule),
            ("   // only a comment", JaasError::NoLoginModule),
            ("x.M", JaasError::MissingControlFlag),
            ("x.M ;", JaasError::ControlFlagNotAvailable),
            (
                "x.M mandatory;",
                JaasError::InvalidControlFlag("mandatory".into()),
            ),
            ("x.M required a;", JaasError::MissingValue("a".into())),
            ("x.M required a=;", JaasError::MissingValue("a".into())),
            ("x.M required a=b", JaasError::NotTerminated),
            // An unclosed quote runs to the end of the text, as in Java's StreamTokenizer.
            ("x.M required a=\"open;", JaasError::NotTerminated),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_jaas_config(text), Err(expected), "text {text:?}");
        }
        assert_eq!(
            JaasError::InvalidControlFlag("x".into()).to_string(),
            "Invalid login module control flag 'x' in JAAS config"
        );
    }

    #[test]
    fn the_module_class_is_checked_and_user_options_are_plains_only() {
        let scram = parse_single_module(&format!(
            "{SCRAM_LOGIN_MODULE} required user_admin=\"pw1\";"
        ))
        .unwrap();
        assert_eq!(scram.kind(), Ok(LoginModule::Scram));
        assert!(scram.plain_users().is_empty(), "user_ options are PLAIN's");
        let plain = parse_single_module(PLAIN_SERVER).unwrap();
        assert_eq!(plain.kind(), Ok(LoginModule::Plain));
        for class in [
            "org.apache.kafka.common.security.Nope",
            "org.apache.kafka.common.security.plain.plainloginmodule",
            "x.M",
        ] {
            let module = parse_single_module(&format!("{class} required user_a=\"p\";")).unwrap();
            assert_eq!(
                module.kind(),
                Err(JaasError::UnknownLoginModule(class.to_owned()))
            );
            assert!(module.plain_users().is_empty());
        }
    }

    #[test]
    fn debug_hides_values() {
        let module = parse_single_module(PLAIN_SERVER).unwrap();
        let shown = format!("{module:?}");
        assert!(shown.contains("user_alice"));
        assert!(!shown.contains("alice-secret"));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,60}") {
            let _ = parse_jaas_config(&text);
        }
    }
}
