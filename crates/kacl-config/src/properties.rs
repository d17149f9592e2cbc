//! The `.properties` format of `java.util.Properties.load`, which Kafka's `server.properties`
//! uses: `key=value`, `key: value` or `key value`; `#` and `!` comment lines; a line ending in
//! an odd number of backslashes continues on the next (whose leading blanks are dropped);
//! backslash escapes `\t`, `\n`, `\r`, `\f`, `\uXXXX`, and `\<any>` for the character itself
//! (so `\=`, `\:` and `\ ` put separators into keys).
//!
//! Deliberate difference: the file is read as UTF-8, where Java's `load(InputStream)` reads
//! ISO-8859-1. ASCII files, and files that spell other characters as `\uXXXX`, read the same.
//!
//! [`parse_properties`] gives the entries as written (the server applies them, then its
//! `--override` pairs, in order); [`Properties`] is the resulting map a client reads.

use thiserror::Error;

/// A line Java's `Properties.load` would also refuse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {reason}")]
pub struct PropertiesError {
    /// 1-based number of the line where the entry starts.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// The entries of a properties text, in file order (a later duplicate overrides an earlier
/// one when collected into a map).
pub fn parse_properties(text: &str) -> Result<Vec<(String, String)>, PropertiesError> {
    let mut entries = Vec::new();
    for (line, logical) in logical_lines(text) {
        let (raw_key, raw_value) = split_key_value(&logical);
        let unescape_here =
            |raw: &str| unescape(raw).map_err(|reason| PropertiesError { line, reason });
        entries.push((unescape_here(raw_key)?, unescape_here(raw_value)?));
    }
    Ok(entries)
}

/// Keys and their values, in file order: a repeated key keeps its first position and takes its
/// last value, which is what Java's `Properties` (a hash table) ends up holding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    entries: Vec<(String, String)>,
}

impl Properties {
    /// Parses properties text, refusing what Java's `Properties.load` refuses.
    pub fn parse(text: &str) -> Result<Properties, PropertiesError> {
        Ok(parse_properties(text)?.into_iter().collect())
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `key`, replacing an earlier value.
    pub fn set(&mut self, key: String, value: String) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Every key and value, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, String)> for Properties {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(entries: I) -> Self {
        let mut properties = Properties::default();
        for (key, value) in entries {
            properties.set(key, value);
        }
        properties
    }
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{c}')
}

/// Natural lines split on `\n`, `\r\n` or `\r`.
fn natural_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\n', '\r']) {
            Some(at) => {
                let after = if current.get(at..at + 2) == Some("\r\n") {
                    at + 2
                } else {
                    at + 1
                };
                rest = current.get(after..);
                current.get(..at)
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// Joins continued lines and drops blank and comment lines; yields (first line number, text
/// still escaped).
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, natural) in natural_lines(text).enumerate() {
        let trimmed = natural.trim_start_matches(is_blank);
        let (start, mut logical) = match pending.take() {
            Some(started) => started,
            None => {
                if trimmed.is_empty() || trimmed.starts_with(['#', '!']) {
                    continue;
                }
                (index + 1, String::new())
            }
        };
        let trailing_backslashes = trimmed.chars().rev().take_while(|&c| c == '\\').count();
        if trailing_backslashes % 2 == 1 {
            logical.push_str(trimmed.get(..trimmed.len() - 1).unwrap_or_default());
            pending = Some((start, logical));
        } else {
            logical.push_str(trimmed);
            out.push((start, logical));
        }
    }
    // A continuation at the end of the file just ends the entry.
    if let Some(last) = pending {
        out.push(last);
    }
    out
}

/// Splits a logical line at the first unescaped `=`, `:` or blank, then skips blanks and at
/// most one `=` or `:` before the value.
fn split_key_value(line: &str) -> (&str, &str) {
    let mut escaped = false;
    let mut key_end = line.len();
    let mut value_start = line.len();
    let mut has_separator = false;
    for (i, c) in line.char_indices() {
        if !escaped && (c == '=' || c == ':') {
            key_end = i;
            value_start = i + 1;
            has_separator = true;
            break;
        }
        if !escaped && is_blank(c) {
            key_end = i;
            value_start = i + 1;
            break;
        }
        escaped = c == '\\' && !escaped;
    }
    let mut rest = line.get(value_start..).unwrap_or_default();
    loop {
        rest = rest.trim_start_matches(is_blank);
        match rest.chars().next() {
            Some(c @ ('=' | ':')) if !has_separator => {
                has_separator = true;
                rest = rest.get(c.len_utf8()..).unwrap_or_default();
            }
            _ => break,
        }
    }
    (line.get(..key_end).unwrap_or_default(), rest)
}

fn unescape(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let unit = read_utf16_unit(&mut chars)?;
                if (0xd800..0xdc00).contains(&unit) {
                    // A high surrogate must be followed by `\uDC00`..`\uDFFF`.
                    let low = match (chars.next(), chars.next()) {
                        (Some('\\'), Some('u')) => read_utf16_unit(&mut chars)?,
                        _ => return Err("lone surrogate in \\u escape".to_owned()),
                    };
                    let pair = char::decode_utf16([unit, low]).next();
                    match pair {
                        Some(Ok(c)) => out.push(c),
                        _ => return Err("lone surrogate in \\u escape".to_owned()),
                    }
                } else {
                    match char::from_u32(u32::from(unit)) {
                        Some(c) => out.push(c),
                        None => return Err("lone surrogate in \\u escape".to_owned()),
                    }
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    Ok(out)
}

fn read_utf16_unit(chars: &mut std::str::Chars<'_>) -> Result<u16, String> {
    let mut unit = 0u16;
    for _ in 0..4 {
        let digit = chars
            .next()
            .and_then(|c| c.to_digit(16))
            .ok_or_else(|| "Malformed \\uxxxx encoding.".to_owned())?;
        unit = unit * 16 + digit as u16;
    }
    Ok(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<(String, String)> {
        parse_properties(text).unwrap()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn separators_and_blanks() {
        let text = "a=1\nb: 2\nc 3\n  d  =  4  \ne\t:\t5\nf\ng=\nh = = x\ni  :=y\n";
        assert_eq!(
            parse(text),
            pairs(&[
                ("a", "1"),
                ("b", "2"),
                ("c", "3"),
                ("d", "4  "),
                ("e", "5"),
                ("f", ""),
                ("g", ""),
                ("h", "= x"),
                ("i", "=y"),
            ])
        );
    }

    #[test]
    fn comments_and_blank_lines() {
        let text = "# comment\n! also\n   # indented comment \\\nx=1\n\n  \t\ny=#not a comment\n";
        assert_eq!(parse(text), pairs(&[("x", "1"), ("y", "#not a comment")]));
    }

    #[test]
    fn continuation_lines() {
        let text = "listeners=PLAINTEXT://:9092,\\\n    SASL_PLAINTEXT://:9093\ntwo=a\\\\\nthree=b\\\\\\\n  c\n";
        assert_eq!(
            parse(text),
            pairs(&[
                ("listeners", "PLAINTEXT://:9092,SASL_PLAINTEXT://:9093"),
                ("two", "a\\"),
                ("three", "b\\c"),
            ])
        );
        // A continued line followed by an empty one ends there; one at EOF just ends.
        assert_eq!(parse("a=1\\\n\nb=2\\"), pairs(&[("a", "1"), ("b", "2")]));
        // The continuation of a line is never a comment.
        assert_eq!(parse("a=1\\\n# 2"), pairs(&[("a", "1# 2")]));
    }

    #[test]
    fn line_endings() {
        assert_eq!(
            parse("a=1\r\nb=2\rc=3\n"),
            pairs(&[("a", "1"), ("b", "2"), ("c", "3")])
        );
    }

    #[test]
    fn escapes() {
        let text = r"k\=ey\:x\ y=v\tal\nue\u0041\u00e9\q\\";
        assert_eq!(parse(text), pairs(&[("k=ey:x y", "v\tal\nueAéq\\")]));
        assert_eq!(parse(r"smile=\uD83D\uDE00"), pairs(&[("smile", "😀")]));
    }

    #[test]
    fn bad_unicode_escapes_name_the_line() {
        let err = parse_properties("a=1\nb=\\u12G4").unwrap_err();
        assert_eq!(err.line, 2);
        assert_eq!(err.to_string(), "line 2: Malformed \\uxxxx encoding.");
        assert!(parse_properties("a=\\u12").is_err());
        assert!(parse_properties("a=\\uD83D").is_err());
        assert!(parse_properties("a=\\uDE00").is_err());
    }

    #[test]
    fn duplicates_are_kept_in_order() {
        assert_eq!(parse("a=1\na=2"), pairs(&[("a", "1"), ("a", "2")]));
    }

    #[test]
    fn the_map_keeps_first_positions_and_last_values() {
        let props = Properties::parse(
            "# comment\n! also\n\n  a=1\nb : 2\nc 3\nd\ne=\nf = x = y\n  g\t=\t spaced \na=3\n",
        )
        .unwrap();
        let expected = [
            ("a", "3"),
            ("b", "2"),
            ("c", "3"),
            ("d", ""),
            ("e", ""),
            ("f", "x = y"),
            ("g", "spaced "),
        ];
        assert_eq!(props.iter().collect::<Vec<_>>(), expected);
        assert_eq!(props.get("f"), Some("x = y"));
        assert_eq!(props.get("# comment"), None);
        assert!(Properties::parse("\n# only a comment\n")
            .unwrap()
            .is_empty());
    }

    #[test]
    fn continuations_and_escapes_in_the_map() {
        let props = Properties::parse(
            "jaas=one \\\n    two \\\n  three;\nkey\\ with\\=odd=v\\tx\\u0041\\\\\n",
        )
        .unwrap();
        assert_eq!(props.get("jaas"), Some("one two three;"));
        assert_eq!(props.get("key with=odd"), Some("v\txA\\"));
        // A continuation at the very end of the file still ends the entry.
        assert_eq!(Properties::parse("a=b\\").unwrap().get("a"), Some("b"));
        assert!(Properties::parse("a=\\u12").is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "[a-z=:# !\\\\\\n\\r\\tu0-9A-F]{0,60}") {
            let _ = parse_properties(&text);
        }
    }
}
