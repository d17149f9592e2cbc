//! Java `.properties` text, as `java.util.Properties.load` reads it: the format of Kafka client
//! config files (`--command-config client.properties`).
//!
//! Rules followed: `#` and `!` comment lines; a key ends at the first unescaped `=`, `:` or
//! whitespace; a backslash at the end of a line continues it (leading whitespace of the next
//! line dropped); escapes `\t \n \r \f \uXXXX`, and `\x` is `x`; the last value of a repeated
//! key wins.

/// Keys and values in file order (a repeated key keeps its first position, its last value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    entries: Vec<(String, String)>,
}

impl Properties {
    /// Parses properties text. Java's loader accepts any text, and so does this.
    pub fn parse(text: &str) -> Properties {
        let mut props = Properties::default();
        for line in logical_lines(text) {
            let (key, value) = split_key_value(&line);
            props.set(key, value);
        }
        props
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

/// Joins continued lines and drops blanks and comments. Escapes are still raw here.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current: Option<String> = None;
    for raw in text.lines() {
        let piece = raw.trim_start_matches([' ', '\t', '\x0c']);
        let continuing = current.is_some();
        if !continuing && (piece.is_empty() || piece.starts_with('#') || piece.starts_with('!')) {
            continue;
        }
        let trailing_backslashes = piece.chars().rev().take_while(|c| *c == '\\').count();
        let continues = trailing_backslashes % 2 == 1;
        let content = if continues {
            &piece[..piece.len() - 1]
        } else {
            piece
        };
        let line = current.get_or_insert_with(String::new);
        line.push_str(content);
        if !continues {
            lines.extend(current.take());
        }
    }
    lines.extend(current);
    lines
}

/// Splits one logical line at the key terminator and unescapes both halves.
fn split_key_value(line: &str) -> (String, String) {
    let mut chars = line.char_indices().peekable();
    let mut key_end = line.len();
    let mut value_start = line.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '=' | ':' => {
                key_end = i;
                value_start = i + 1;
                break;
            }
            ' ' | '\t' | '\x0c' => {
                key_end = i;
                // Whitespace, then at most one `=` or `:`, then whitespace.
                let rest = &line[i..];
                let after_ws = rest.trim_start_matches([' ', '\t', '\x0c']);
                let after_sep = after_ws
                    .strip_prefix(['=', ':'])
                    .unwrap_or(after_ws)
                    .trim_start_matches([' ', '\t', '\x0c']);
                value_start = line.len() - after_sep.len();
                break;
            }
            _ => {}
        }
    }
    let value = line[value_start..].trim_start_matches([' ', '\t', '\x0c']);
    (unescape(&line[..key_end]), unescape(value))
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('u') => {
                let hex: String = chars.clone().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) if hex.len() == 4 => {
                        out.push(decoded);
                        for _ in 0..4 {
                            chars.next();
                        }
                    }
                    // Java throws "Malformed \uxxxx encoding"; keep the text instead.
                    _ => out.push('u'),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_comments_and_whitespace() {
        let props = Properties::parse(
            "# comment\n! also\n\n  a=1\nb : 2\nc 3\nd\ne=\nf = x = y\n  g\t=\t spaced \n",
        );
        assert_eq!(props.get("a"), Some("1"));
        assert_eq!(props.get("b"), Some("2"));
        assert_eq!(props.get("c"), Some("3"));
        assert_eq!(props.get("d"), Some(""));
        assert_eq!(props.get("e"), Some(""));
        assert_eq!(props.get("f"), Some("x = y"));
        assert_eq!(props.get("g"), Some("spaced "));
        assert_eq!(props.get("# comment"), None);
    }

    #[test]
    fn continuations_escapes_and_repeats() {
        let props = Properties::parse(
            "jaas=one \\\n    two \\\n  three;\nkey\\ with\\=odd=v\\tx\\u0041\\\\\nk=1\nk=2\n",
        );
        assert_eq!(props.get("jaas"), Some("one two three;"));
        assert_eq!(props.get("key with=odd"), Some("v\txA\\"));
        assert_eq!(props.get("k"), Some("2"));
        let keys: Vec<&str> = props.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["jaas", "key with=odd", "k"]);
    }

    #[test]
    fn a_trailing_continuation_at_end_of_file_is_kept() {
        let props = Properties::parse("a=b\\");
        assert_eq!(props.get("a"), Some("b"));
        assert!(!props.is_empty());
    }
}
