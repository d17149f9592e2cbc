//! Client-controlled strings made safe for a log line.
//!
//! A user name, principal, client id, resource name or any other string a client chose can
//! hold a line break followed by a line that looks like the server's own (a forged audit
//! line), terminal escape codes, or 400 KB of anything. Every log call that carries such a
//! string wraps it in [`safe`]: control and other non-printable characters are written as
//! Rust escapes (`\n`, `\u{1b}`, `\u{202e}`), a backslash as `\\` (so an escape in the output
//! always means an escaped character), and at most [`MAX_CHARS`] characters are shown,
//! followed by a marker saying how many bytes were left out.
//!
//! ```
//! use kacl_logsafe::safe;
//! let name = "bob\nINFO kacl::authorizer: Principal = User:admin";
//! assert_eq!(
//!     safe(name).to_string(),
//!     r"bob\nINFO kacl::authorizer: Principal = User:admin"
//! );
//! ```
//!
//! [`Safe`] is a `Display` wrapper: it writes straight into the formatter and allocates
//! nothing; a short printable ASCII string (nearly every real name) is written in one call.
#![forbid(unsafe_code)]

use std::fmt::{self, Write};

/// The most characters of one string a log line shows: room for any real name (topic names
/// stop at 249, Kafka principals and user names are short), little for a 400 KB one.
pub const MAX_CHARS: usize = 1024;

/// A string to log, escaped and bounded when displayed; see the crate documentation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Safe<'a> {
    text: &'a str,
    max_chars: usize,
}

/// `text` for a log line, at most [`MAX_CHARS`] characters of it.
pub fn safe(text: &str) -> Safe<'_> {
    Safe {
        text,
        max_chars: MAX_CHARS,
    }
}

/// `text` for a log line, at most `max_chars` characters of it.
pub fn safe_bounded(text: &str, max_chars: usize) -> Safe<'_> {
    Safe { text, max_chars }
}

impl fmt::Display for Safe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = |b: &u8| matches!(b, b' '..=b'~') && *b != b'\\';
        if self.text.len() <= self.max_chars && self.text.bytes().all(|b| plain(&b)) {
            return f.write_str(self.text);
        }
        for (shown, (at, c)) in self.text.char_indices().enumerate() {
            if shown == self.max_chars {
                return write!(f, "[... {} more bytes]", self.text.len() - at);
            }
            match c {
                '\\' => f.write_str("\\\\")?,
                ' '..='~' => f.write_char(c)?,
                // Escapes controls and what Unicode does not print (format characters such as
                // bidi overrides, line and paragraph separators, combining marks alone);
                // printable non-ASCII letters stay as they are.
                _ => {
                    for e in c.escape_debug() {
                        f.write_char(e)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Quoted, as a string's `Debug` is.
impl fmt::Debug for Safe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_names_pass_unchanged() {
        for name in [
            "alice",
            "User:CN=a,O=b",
            "orders.topic-1",
            "*",
            "",
            "é-ü 名前",
        ] {
            assert_eq!(safe(name).to_string(), name);
        }
    }

    #[test]
    fn controls_and_invisibles_are_escaped() {
        let cases = [
            ("a\nb\r\tc\0", r"a\nb\r\tc\0"),
            ("\u{1b}[31mred", r"\u{1b}[31mred"),
            ("x\u{85}y\u{2028}z\u{2029}", r"x\u{85}y\u{2028}z\u{2029}"),
            ("\u{202e}evil", r"\u{202e}evil"),
            ("a\\nb", r"a\\nb"),
            ("q\"'", "q\"'"),
        ];
        for (raw, shown) in cases {
            assert_eq!(safe(raw).to_string(), shown, "{raw:?}");
        }
    }

    #[test]
    fn long_strings_are_cut_with_a_marker() {
        let long = "n".repeat(400_000);
        let shown = safe(&long).to_string();
        assert_eq!(
            shown,
            format!("{}[... 398976 more bytes]", "n".repeat(1024))
        );
        assert_eq!(
            safe_bounded("abcdé", 4).to_string(),
            "abcd[... 2 more bytes]"
        );
        assert_eq!(
            safe_bounded("abc\n", 3).to_string(),
            "abc[... 1 more bytes]"
        );
        assert_eq!(format!("{:?}", safe("a\nb")), r#""a\nb""#);
    }

    proptest::proptest! {
        #[test]
        fn output_is_one_printable_line_of_bounded_length(text in "\\PC*|\\p{C}*|.*", max in 0usize..64) {
            let shown = safe_bounded(&text, max).to_string();
            proptest::prop_assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
            let invisible = shown.contains('\u{2028}') || shown.contains('\u{1b}');
            proptest::prop_assert!(!invisible, "{:?}", shown);
            // An escape is at most 10 characters (`\u{10ffff}`), plus the marker.
            proptest::prop_assert!(shown.chars().count() <= max * 10 + 40);
        }
    }
}
