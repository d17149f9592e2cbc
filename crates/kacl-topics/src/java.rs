//! The few Java text behaviours Kafka's config parsing leans on, so kacl accepts, refuses
//! and prints config values character for character as Kafka does: `String.trim`,
//! `Integer.parseInt`/`Long.parseLong`, `Double.parseDouble`, `Double.toString`,
//! `String.equalsIgnoreCase`, `ConfigDef`'s list split and `List.toString`.

/// Java's `String.trim()`: strips every char up to U+0020, not Unicode whitespace.
pub(crate) fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// Java's `Integer.parseInt` of an already trimmed string. Deliberate difference: Java
/// also accepts non-ASCII decimal digits (e.g. `١`), kacl refuses them.
pub(crate) fn parse_int(text: &str) -> Option<i32> {
    text.parse().ok()
}

/// Java's `Long.parseLong`, with the same deliberate difference as [`parse_int`].
pub(crate) fn parse_long(text: &str) -> Option<i64> {
    text.parse().ok()
}

/// Java's `Double.parseDouble`: optional sign, `NaN`, `Infinity`, or a decimal with an
/// optional exponent and an optional `f`/`F`/`d`/`D` suffix. Deliberate difference:
/// hexadecimal floating literals (`0x1p3`) are refused.
pub(crate) fn parse_double(text: &str) -> Option<f64> {
    let text = trim(text);
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = match body {
        "NaN" => f64::NAN,
        "Infinity" => f64::INFINITY,
        _ => {
            let digits = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
            let java_shaped = digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                && digits
                    .bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
            if !java_shaped {
                return None;
            }
            digits.parse::<f64>().ok()?
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Java's `Double.toString` (JDK 19+): the shortest digits that round-trip, in plain
/// notation for magnitudes in [10^-3, 10^7) and `d.dddE±n` notation otherwise, always
/// with at least one digit after the point.
pub(crate) fn format_double(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 || (1e-3..1e7).contains(&magnitude) {
        let plain = format!("{value}");
        return if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        };
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    if mantissa.contains('.') {
        format!("{mantissa}E{exponent}")
    } else {
        format!("{mantissa}.0E{exponent}")
    }
}

/// Java's `String.equalsIgnoreCase`: chars equal after upper-casing, or after upper- then
/// lower-casing (so `ſ` matches `s`, as it does in Java).
pub(crate) fn equals_ignore_case(a: &str, b: &str) -> bool {
    let mut left = a.chars();
    let mut right = b.chars();
    loop {
        match (left.next(), right.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                if x == y {
                    continue;
                }
                let (ux, uy) = (single_upper(x), single_upper(y));
                if ux != uy && single_lower(ux) != single_lower(uy) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

fn single_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

fn single_lower(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// `ConfigDef`'s LIST parsing of a trimmed value: empty means no elements, otherwise a
/// split on commas with Java regex whitespace (`\s`) around them, empty pieces kept.
pub(crate) fn split_list(trimmed: &str) -> Vec<&str> {
    if trimmed.is_empty() {
        return Vec::new();
    }
    let is_regex_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r');
    trimmed
        .split(',')
        .map(|piece| piece.trim_matches(is_regex_space))
        .collect()
}

/// Java's `List.toString()`: `[a, b]`.
pub(crate) fn list_to_string(items: &[&str]) -> String {
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_strips_control_characters_but_not_unicode_spaces() {
        assert_eq!(trim(" \t\u{1}x y\n\u{1F}"), "x y");
        assert_eq!(trim("\u{A0}x\u{A0}"), "\u{A0}x\u{A0}");
    }

    #[test]
    fn integers_parse_as_java_does() {
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("2147483648"), None);
        for bad in ["", "+", "-", "1.0", "0x10", "1_000", "１"] {
            assert_eq!(parse_int(bad), None, "{bad:?}");
        }
        assert_eq!(parse_long("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_long("9223372036854775808"), None);
    }

    #[test]
    fn doubles_parse_as_java_does() {
        let cases = [
            ("0.5", Some(0.5)),
            ("+.5", Some(0.5)),
            ("5.", Some(5.0)),
            ("1e3", Some(1000.0)),
            ("1.E-2", Some(0.01)),
            ("2d", Some(2.0)),
            ("0.25F", Some(0.25)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("1e999", Some(f64::INFINITY)),
            ("inf", None),
            ("infinity", None),
            ("nan", None),
            ("", None),
            (".", None),
            ("1e", None),
            ("1.2.3", None),
            ("0x1p3", None),
            ("2dd", None),
            ("d", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_double(text), expected, "{text:?}");
        }
        assert!(parse_double("NaN").is_some_and(f64::is_nan));
        assert!(parse_double("-NaN").is_some_and(f64::is_nan));
    }

    #[test]
    fn doubles_print_as_java_prints_them() {
        let cases = [
            (1.5, "1.5"),
            (2.0, "2.0"),
            (-0.5, "-0.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (1234567.0, "1234567.0"),
            (1e7, "1.0E7"),
            (1.25e10, "1.25E10"),
            (-3e-5, "-3.0E-5"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
        ];
        for (value, expected) in cases {
            assert_eq!(format_double(value), expected, "{value}");
        }
    }

    #[test]
    fn equals_ignore_case_follows_java() {
        assert!(equals_ignore_case("TRUE", "true"));
        assert!(equals_ignore_case("fAlSe", "false"));
        assert!(equals_ignore_case("falſe", "false"));
        assert!(!equals_ignore_case("tru", "true"));
        assert!(!equals_ignore_case("truee", "true"));
        assert!(!equals_ignore_case("yes", "true"));
    }

    #[test]
    fn lists_split_like_config_def() {
        assert_eq!(split_list(""), Vec::<&str>::new());
        assert_eq!(split_list("delete"), vec!["delete"]);
        assert_eq!(split_list("compact , delete"), vec!["compact", "delete"]);
        assert_eq!(split_list("a,,b,"), vec!["a", "", "b", ""]);
        assert_eq!(split_list("a\u{1},b"), vec!["a\u{1}", "b"]);
        assert_eq!(list_to_string(&["1:2", "x"]), "[1:2, x]");
        assert_eq!(list_to_string(&[]), "[]");
    }
}
