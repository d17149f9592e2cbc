//! `ssl.principal.mapping.rules`: how a TLS client certificate's distinguished name becomes
//! the name in its `User:` principal, with the rule syntax of Kafka's `SslPrincipalMapper`.
//!
//! A rule list is comma-separated. Each rule is `DEFAULT` (the DN unchanged) or
//! `RULE:pattern/replacement/` optionally followed by `L` (lower-case the result) or `U`
//! (upper-case it). Inside pattern and replacement a backslash escapes the next character, so
//! `\/` is a slash and commas need no escaping. Rules are tried in order; the first whose
//! pattern matches the *whole* DN wins. Empty rules (`,,`) are ignored.
//!
//! Kafka quirks kept on purpose, so that a rule list copied from a Kafka broker behaves alike:
//! the replacement is Java's (`$1` is a group, `\$` a dollar sign, a `$N` naming a group the
//! pattern lacks stays literal text), and the replacement is applied to every match of the
//! pattern in the DN, as `String.replaceAll` does, once the pattern has matched the whole DN.
//!
//! Deliberate differences from Kafka:
//! - Patterns are compiled by the `regex` crate, not `java.util.regex`: no look-around or
//!   back-references (such a rule is refused at start-up), and `\w`, `\d`, `\s` and `(?i)` are
//!   Unicode-aware where Java's are ASCII-only. Matching runs in linear time.
//! - A replacement that can never be expanded (a dangling `\`, a `$` not followed by a group
//!   number, `$1` in a pattern without groups) is refused when the rules are parsed; Kafka
//!   accepts it and fails each TLS login whose DN the rule matches.
//! - Line breaks inside a rule list are ordinary characters.

use std::fmt;

use regex::Regex;
use thiserror::Error;

/// The rule list Kafka uses when `ssl.principal.mapping.rules` is not set.
pub const DEFAULT_RULES: &str = "DEFAULT";

/// A rule list that cannot be used; the message names the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MappingRuleError {
    /// The text does not follow the rule grammar (Kafka's own wording).
    #[error("Invalid rule: `{rule}`, unmatched substring: `{unmatched}`")]
    Unmatched {
        /// The whole rule as split from the list.
        rule: String,
        /// The part that could not be read.
        unmatched: String,
    },
    /// The pattern is not a regular expression the `regex` crate accepts.
    #[error("Invalid rule: `{rule}`, bad pattern: {reason}")]
    BadPattern {
        /// The whole rule.
        rule: String,
        /// The compiler's explanation.
        reason: String,
    },
    /// The replacement cannot be expanded for any DN.
    #[error("Invalid rule: `{rule}`, bad replacement: {reason}")]
    BadReplacement {
        /// The whole rule.
        rule: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// No rule matched the DN (Kafka's `NoMatchingRule`); the TLS login must then fail.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("No rules apply to {distinguished_name}, rules [{rules}]")]
pub struct NoMatchingRule {
    /// The DN that no rule matched.
    pub distinguished_name: String,
    /// The rules, as Kafka prints them.
    pub rules: String,
}

/// A parsed `ssl.principal.mapping.rules` value.
#[derive(Debug, Clone)]
pub struct SslPrincipalMapper {
    rules: Vec<Rule>,
}

impl SslPrincipalMapper {
    /// Parses a comma-separated rule list with Kafka's splitting rules.
    pub fn from_rules(rules: &str) -> Result<Self, MappingRuleError> {
        let mut parsed = Vec::new();
        for item in split_rules(rules) {
            if let Some(rule) = parse_rule(item)? {
                parsed.push(rule);
            }
        }
        Ok(SslPrincipalMapper { rules: parsed })
    }

    /// The principal name for a DN (in RFC 2253 form, as Java's `X500Principal.getName()`
    /// prints it: `CN=Duke,OU=ServiceUsers,O=Org,C=US`).
    pub fn name_for(&self, distinguished_name: &str) -> Result<String, NoMatchingRule> {
        self.rules
            .iter()
            .find_map(|rule| rule.apply(distinguished_name))
            .ok_or_else(|| NoMatchingRule {
                distinguished_name: distinguished_name.to_owned(),
                rules: self.rules_text(),
            })
    }

    /// The principal Kafka gives a client that presented this certificate DN: `User:<name>`.
    pub fn user_principal(&self, distinguished_name: &str) -> Result<String, NoMatchingRule> {
        self.name_for(distinguished_name)
            .map(|name| format!("User:{name}"))
    }

    fn rules_text(&self) -> String {
        let shown: Vec<String> = self.rules.iter().map(Rule::to_string).collect();
        shown.join(", ")
    }
}

/// `DEFAULT`: every DN maps to itself.
impl Default for SslPrincipalMapper {
    fn default() -> Self {
        SslPrincipalMapper {
            rules: vec![Rule::Default],
        }
    }
}

/// Kafka's `toString()`: `SslPrincipalMapper(rules = [RULE:^CN=(.*?),.*$/$1/L, DEFAULT])`.
impl fmt::Display for SslPrincipalMapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SslPrincipalMapper(rules = [{}])", self.rules_text())
    }
}

#[derive(Debug, Clone)]
enum Rule {
    Default,
    Pattern(PatternRule),
}

#[derive(Debug, Clone)]
struct PatternRule {
    /// The pattern as written, for display.
    source: String,
    /// The replacement as written, for display.
    replacement_source: String,
    /// Finds matches anywhere (for the replace-all step).
    search: Regex,
    /// The same pattern anchored at both ends (Java's `Matcher.matches()`).
    whole: Regex,
    replacement: Vec<Piece>,
    case: CaseChange,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaseChange {
    Keep,
    Lower,
    Upper,
}

/// One part of an expanded replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Group(usize),
    Named(String),
}

impl Rule {
    fn apply(&self, dn: &str) -> Option<String> {
        match self {
            Rule::Default => Some(dn.to_owned()),
            Rule::Pattern(rule) => rule.apply(dn),
        }
    }
}

impl PatternRule {
    fn apply(&self, dn: &str) -> Option<String> {
        if !self.whole.is_match(dn) {
            return None;
        }
        let replaced = self.replace_all(dn);
        Some(match self.case {
            CaseChange::Keep => replaced,
            CaseChange::Lower => replaced.to_lowercase(),
            CaseChange::Upper => replaced.to_uppercase(),
        })
    }

    /// Java's `String.replaceAll`: after an empty match the search resumes one character
    /// later, and an empty match right after a non-empty one still counts.
    fn replace_all(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut copied_to = 0;
        let mut from = 0;
        while from <= text.len() {
            let Some(caps) = self.search.captures_at(text, from) else {
                break;
            };
            let Some(found) = caps.get(0) else {
                break;
            };
            out.push_str(text.get(copied_to..found.start()).unwrap_or_default());
            for piece in &self.replacement {
                match piece {
                    Piece::Literal(s) => out.push_str(s),
                    Piece::Group(i) => out.push_str(caps.get(*i).map_or("", |m| m.as_str())),
                    Piece::Named(n) => out.push_str(caps.name(n).map_or("", |m| m.as_str())),
                }
            }
            copied_to = found.end();
            from = if found.is_empty() {
                next_char_boundary(text, found.end())
            } else {
                found.end()
            };
        }
        out.push_str(text.get(copied_to..).unwrap_or_default());
        out
    }
}

fn next_char_boundary(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or(text.len() + 1, |c| at + c.len_utf8())
}

/// Kafka's `toString()` of a rule: `DEFAULT`, or `RULE:pattern/replacement[/L|/U]`.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Default => f.write_str("DEFAULT"),
            Rule::Pattern(rule) => {
                write!(f, "RULE:{}/{}", rule.source, rule.replacement_source)?;
                match rule.case {
                    CaseChange::Keep => Ok(()),
                    CaseChange::Lower => f.write_str("/L"),
                    CaseChange::Upper => f.write_str("/U"),
                }
            }
        }
    }
}

/// Java's `\s`.
fn is_java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

fn skip_spaces(text: &str, mut at: usize) -> usize {
    while let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) {
        if !is_java_space(c) {
            break;
        }
        at += c.len_utf8();
    }
    at
}

/// True where a rule may end: optional spaces, then a comma or the end of the list.
fn at_separator(text: &str, at: usize) -> bool {
    let after = skip_spaces(text, at);
    after >= text.len() || text.get(after..).is_some_and(|rest| rest.starts_with(','))
}

/// The first position at or after `at` where a rule may end.
fn next_separator(text: &str, mut at: usize) -> usize {
    while !at_separator(text, at) {
        at = next_char_boundary(text, at);
    }
    at
}

/// Splits a rule list as Kafka's splitter does: a `DEFAULT` or a complete
/// `RULE:p/r/[LU]` may contain commas inside its pattern and replacement; anything else ends
/// at the next comma. Items come back trimmed; empty items are kept (and later ignored).
fn split_rules(list: &str) -> Vec<&str> {
    // Java's String.trim() removes every char up to and including ' '.
    let text = list.trim_matches(|c: char| c <= ' ');
    let mut items = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let start = skip_spaces(text, at);
        let rest = text.get(start..).unwrap_or_default();
        let end = if rest.starts_with("DEFAULT") && at_separator(text, start + 7) {
            start + 7
        } else if let Some(body) = read_rule_body(rest) {
            next_separator(text, start + body.consumed)
        } else {
            next_separator(text, start)
        };
        items.push(text.get(start..end).unwrap_or_default());
        at = skip_spaces(text, end);
        if text.get(at..).is_some_and(|rest| rest.starts_with(',')) {
            at += 1;
        }
    }
    items
}

/// The parts of `RULE:pattern/replacement/[LU]` at the start of a text.
struct RuleBody<'a> {
    pattern: &'a str,
    replacement: &'a str,
    case: CaseChange,
    /// Bytes of the text the body covers.
    consumed: usize,
}

fn read_rule_body(text: &str) -> Option<RuleBody<'_>> {
    let after_prefix = text.strip_prefix("RULE:")?;
    let pattern_len = escaped_part_len(after_prefix);
    let pattern = after_prefix.get(..pattern_len)?;
    let rest = after_prefix.get(pattern_len..)?.strip_prefix('/')?;
    let replacement_len = escaped_part_len(rest);
    let replacement = rest.get(..replacement_len)?;
    let rest = rest.get(replacement_len..)?.strip_prefix('/')?;
    let case = match rest.chars().next() {
        Some('L') => CaseChange::Lower,
        Some('U') => CaseChange::Upper,
        _ => CaseChange::Keep,
    };
    let flag_len = usize::from(case != CaseChange::Keep);
    Some(RuleBody {
        pattern,
        replacement,
        case,
        consumed: text.len() - rest.len() + flag_len,
    })
}

/// Length of the longest prefix made of escaped pairs (`\x`) and characters other than `\`
/// and `/`.
fn escaped_part_len(text: &str) -> usize {
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            '/' => return i,
            '\\' => {
                chars.next();
                if chars.next().is_none() {
                    return i;
                }
            }
            _ => {
                chars.next();
            }
        }
    }
    text.len()
}

fn parse_rule(item: &str) -> Result<Option<Rule>, MappingRuleError> {
    let unmatched = |from: usize| MappingRuleError::Unmatched {
        rule: item.to_owned(),
        unmatched: item.get(from..).unwrap_or_default().to_owned(),
    };
    if item.is_empty() {
        return Ok(None);
    }
    if item.starts_with("DEFAULT") {
        return if item.len() == 7 {
            Ok(Some(Rule::Default))
        } else {
            Err(unmatched(7))
        };
    }
    let Some(body) = read_rule_body(item) else {
        return Err(unmatched(0));
    };
    if body.consumed != item.len() {
        return Err(unmatched(body.consumed));
    }
    compile_rule(item, &body).map(|rule| Some(Rule::Pattern(rule)))
}

fn compile_rule(item: &str, body: &RuleBody<'_>) -> Result<PatternRule, MappingRuleError> {
    let bad_pattern = |e: regex::Error| MappingRuleError::BadPattern {
        rule: item.to_owned(),
        reason: e.to_string(),
    };
    let search = Regex::new(body.pattern).map_err(bad_pattern)?;
    let whole = Regex::new(&format!(r"\A(?:{})\z", body.pattern)).map_err(bad_pattern)?;
    let replacement = parse_replacement(body.replacement, &search).map_err(|reason| {
        MappingRuleError::BadReplacement {
            rule: item.to_owned(),
            reason,
        }
    })?;
    Ok(PatternRule {
        source: body.pattern.to_owned(),
        replacement_source: body.replacement.to_owned(),
        search,
        whole,
        replacement,
        case: body.case,
    })
}

/// Reads a Java replacement string (`Matcher.appendReplacement`) with Kafka's extra rule that a
/// `$N` naming a missing group is literal text when the pattern has groups at all.
fn parse_replacement(text: &str, pattern: &Regex) -> Result<Vec<Piece>, String> {
    let groups = pattern.captures_len().saturating_sub(1);
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    let flush = |literal: &mut String, pieces: &mut Vec<Piece>| {
        if !literal.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(literal)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => literal.push(escaped),
                None => return Err("character to be escaped is missing".to_owned()),
            },
            '$' => match chars.peek().copied() {
                Some('{') => {
                    chars.next();
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(ch) if ch.is_ascii_alphanumeric() => name.push(ch),
                            _ => return Err("named group reference is not closed by '}'".into()),
                        }
                    }
                    if !pattern.capture_names().flatten().any(|n| n == name) {
                        return Err(format!("no group with name {{{name}}}"));
                    }
                    flush(&mut literal, &mut pieces);
                    pieces.push(Piece::Named(name));
                }
                Some(d) if d.is_ascii_digit() => {
                    let first = d as usize - '0' as usize;
                    if groups > 0 && first != 0 && first > groups {
                        // Kafka escapes such a `$` (IdentityMappingUtil): literal text.
                        literal.push('$');
                        continue;
                    }
                    if first > groups {
                        return Err(format!("no group {first}"));
                    }
                    chars.next();
                    let mut group = first;
                    while let Some(next) = chars.peek().and_then(|c| c.to_digit(10)) {
                        let longer = group * 10 + next as usize;
                        if longer > groups {
                            break;
                        }
                        group = longer;
                        chars.next();
                    }
                    flush(&mut literal, &mut pieces);
                    pieces.push(Piece::Group(group));
                }
                _ => return Err("illegal group reference: `$` must be followed by a group".into()),
            },
            other => literal.push(other),
        }
    }
    flush(&mut literal, &mut pieces);
    Ok(pieces)
}

#[cfg(test)]
mod tests;
