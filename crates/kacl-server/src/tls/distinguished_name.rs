//! The subject of an X.509 certificate as Java prints it with `X500Principal.getName()` (RFC
//! 2253 form), which is the string Kafka hands to `ssl.principal.mapping.rules`: relative
//! distinguished names most specific first (`CN=alice,OU=eng,O=Example,C=US`), several values
//! of one RDN joined by `+` in certificate order.
//!
//! Java's rules, kept exactly so that mapping rules written for Kafka match the same DNs:
//! - only CN, C, L, ST, O, OU, STREET, DC and UID are written as keywords; every other
//!   attribute is its dotted OID (`1.2.840.113549.1.9.1` for an e-mail address);
//! - a value under an OID, or one that is not a string type (Printable, T61, IA5, General,
//!   UTF8, BMP, Universal), is `#` followed by the lower-case hex of its whole DER encoding;
//! - in a string value `, = + < > # ; " \` are escaped with a backslash, NUL is `\00`, and
//!   leading and trailing spaces (and carriage returns) are escaped; other characters are
//!   written as they are.
//!
//! Only the subject is read, with a small DER walker; the certificate was already verified
//! against the trust store by rustls. Malformed input gives `None`, never a panic.

/// The subject DN of a DER certificate in RFC 2253 form, or `None` if the certificate does
/// not parse.
pub fn subject_rfc2253(certificate: &[u8]) -> Option<String> {
    let (certificate, _) = expect(certificate, SEQUENCE)?;
    let (tbs, _) = expect(certificate.content, SEQUENCE)?;
    let mut rest = tbs.content;
    // version [0] EXPLICIT, optional
    let (first, after) = read(rest)?;
    if first.tag == VERSION_TAG {
        rest = after;
    }
    let (_serial, rest) = expect(rest, INTEGER)?;
    let (_signature, rest) = expect(rest, SEQUENCE)?;
    let (_issuer, rest) = expect(rest, SEQUENCE)?;
    let (_validity, rest) = expect(rest, SEQUENCE)?;
    let (subject, _) = expect(rest, SEQUENCE)?;
    name_rfc2253(subject.content)
}

/// An RDNSequence's content (the inside of the Name SEQUENCE) in RFC 2253 form.
pub fn name_rfc2253(mut rdns: &[u8]) -> Option<String> {
    let mut written: Vec<String> = Vec::new();
    while !rdns.is_empty() {
        let (set, rest) = expect(rdns, SET)?;
        rdns = rest;
        let mut values = set.content;
        let mut parts: Vec<String> = Vec::new();
        while !values.is_empty() {
            let (ava, rest) = expect(values, SEQUENCE)?;
            values = rest;
            parts.push(attribute_rfc2253(ava.content)?);
        }
        if parts.is_empty() {
            return None;
        }
        written.push(parts.join("+"));
    }
    written.reverse();
    Some(written.join(","))
}

/// One AttributeTypeAndValue: `KEYWORD=value`.
fn attribute_rfc2253(ava: &[u8]) -> Option<String> {
    let (oid, rest) = expect(ava, OID)?;
    let (value, rest) = read(rest)?;
    if !rest.is_empty() {
        return None;
    }
    let oid = dotted_oid(oid.content)?;
    let keyword = keyword(&oid);
    let mut out = String::with_capacity(keyword.map_or(oid.len(), str::len) + value.whole.len());
    out.push_str(keyword.unwrap_or(&oid));
    out.push('=');
    match (keyword, decode_string(value.tag, value.content)) {
        (Some(_), Some(text)) => out.push_str(&escape(&text)),
        _ => {
            out.push('#');
            for byte in value.whole {
                out.push(hex_digit(byte >> 4));
                out.push(hex_digit(byte & 0x0f));
            }
        }
    }
    Some(out)
}

/// The attribute types Java writes by name in RFC 2253 output.
fn keyword(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "2.5.4.3" => "CN",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.9" => "STREET",
        "0.9.2342.19200300.100.1.25" => "DC",
        "0.9.2342.19200300.100.1.1" => "UID",
        _ => return None,
    })
}

/// A string-typed value decoded with the charset Java uses for its tag; `None` for other
/// types.
fn decode_string(tag: u8, content: &[u8]) -> Option<String> {
    const REPLACEMENT: char = '\u{fffd}';
    let ascii = |bytes: &[u8]| -> String {
        bytes
            .iter()
            .map(|&b| {
                if b.is_ascii() {
                    char::from(b)
                } else {
                    REPLACEMENT
                }
            })
            .collect()
    };
    Some(match tag {
        PRINTABLE_STRING | IA5_STRING | GENERAL_STRING => ascii(content),
        T61_STRING => content.iter().map(|&b| char::from(b)).collect(),
        UTF8_STRING => String::from_utf8_lossy(content).into_owned(),
        BMP_STRING => {
            let units = content.chunks(2).map(|pair| match pair {
                [hi, lo] => u16::from_be_bytes([*hi, *lo]),
                _ => 0xfffd,
            });
            char::decode_utf16(units)
                .map(|c| c.unwrap_or(REPLACEMENT))
                .collect()
        }
        UNIVERSAL_STRING => content
            .chunks(4)
            .map(|quad| match quad {
                [a, b, c, d] => {
                    char::from_u32(u32::from_be_bytes([*a, *b, *c, *d])).unwrap_or(REPLACEMENT)
                }
                _ => REPLACEMENT,
            })
            .collect(),
        _ => return None,
    })
}

/// Java's `AVA.toRFC2253String` escaping of a string value.
pub fn escape(value: &str) -> String {
    const ESCAPEES: &str = ",=+<>#;\"\\";
    let mut escaped: Vec<char> = Vec::with_capacity(value.len());
    for c in value.chars() {
        if ESCAPEES.contains(c) {
            escaped.push('\\');
            escaped.push(c);
        } else if c == '\0' {
            escaped.extend(['\\', '0', '0']);
        } else {
            escaped.push(c);
        }
    }
    let is_space = |c: &char| *c == ' ' || *c == '\r';
    let lead = escaped.iter().take_while(|c| is_space(c)).count();
    let trail = escaped.iter().rev().take_while(|c| is_space(c)).count();
    let keep_from = escaped.len().saturating_sub(trail);
    let mut out = String::with_capacity(escaped.len() + lead + trail);
    for (i, c) in escaped.into_iter().enumerate() {
        if i < lead || i >= keep_from {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn hex_digit(nibble: u8) -> char {
    char::from_digit(u32::from(nibble), 16).unwrap_or('0')
}

/// Dotted decimal of an OID's content bytes.
fn dotted_oid(content: &[u8]) -> Option<String> {
    let mut arcs: Vec<u64> = Vec::new();
    let mut value: u64 = 0;
    let mut in_arc = false;
    for &byte in content {
        if !in_arc && byte == 0x80 {
            return None; // non-minimal encoding
        }
        value = value
            .checked_mul(128)?
            .checked_add(u64::from(byte & 0x7f))?;
        in_arc = byte & 0x80 != 0;
        if !in_arc {
            if arcs.is_empty() {
                let first = (value / 40).min(2);
                arcs.push(first);
                arcs.push(value - first * 40);
            } else {
                arcs.push(value);
            }
            value = 0;
        }
    }
    if in_arc || arcs.is_empty() {
        return None;
    }
    let text: Vec<String> = arcs.iter().map(u64::to_string).collect();
    Some(text.join("."))
}

const INTEGER: u8 = 0x02;
const OID: u8 = 0x06;
const UTF8_STRING: u8 = 0x0c;
const PRINTABLE_STRING: u8 = 0x13;
const T61_STRING: u8 = 0x14;
const IA5_STRING: u8 = 0x16;
const GENERAL_STRING: u8 = 0x1b;
const UNIVERSAL_STRING: u8 = 0x1c;
const BMP_STRING: u8 = 0x1e;
const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const VERSION_TAG: u8 = 0xa0;

/// One DER element.
#[derive(Debug, Clone, Copy)]
struct Element<'a> {
    tag: u8,
    content: &'a [u8],
    /// Tag, length and content.
    whole: &'a [u8],
}

/// The first element of `input` and what follows it.
fn read(input: &[u8]) -> Option<(Element<'_>, &[u8])> {
    let (&tag, after_tag) = input.split_first()?;
    if tag & 0x1f == 0x1f {
        return None; // high tag numbers never occur in a certificate name
    }
    let (&first, after_length) = after_tag.split_first()?;
    let (length, after_length) = if first < 0x80 {
        (usize::from(first), after_length)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 {
            return None; // indefinite or absurd length
        }
        let bytes = after_length.get(..count)?;
        let length = bytes
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (length, after_length.get(count..)?)
    };
    let content = after_length.get(..length)?;
    let rest = after_length.get(length..)?;
    let whole = input.get(..input.len() - rest.len())?;
    Some((
        Element {
            tag,
            content,
            whole,
        },
        rest,
    ))
}

/// The first element, which must carry `tag`.
fn expect(input: &[u8], tag: u8) -> Option<(Element<'_>, &[u8])> {
    read(input).filter(|(element, _)| element.tag == tag)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        if content.len() < 0x80 {
            out.push(content.len() as u8);
        } else {
            out.push(0x82);
            out.extend_from_slice(&(content.len() as u16).to_be_bytes());
        }
        out.extend_from_slice(content);
        out
    }

    fn ava(oid: &[u8], tag: u8, value: &[u8]) -> Vec<u8> {
        let mut inner = tlv(OID, oid);
        inner.extend(tlv(tag, value));
        tlv(SEQUENCE, &inner)
    }

    const CN: &[u8] = &[0x55, 0x04, 0x03];
    const OU: &[u8] = &[0x55, 0x04, 0x0b];
    const O: &[u8] = &[0x55, 0x04, 0x0a];
    const EMAIL: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01];

    fn name(rdns: &[Vec<Vec<u8>>]) -> Vec<u8> {
        rdns.iter()
            .flat_map(|avas| tlv(SET, &avas.concat()))
            .collect()
    }

    #[test]
    fn most_specific_first_with_keywords() {
        let dn = name(&[
            vec![ava(O, PRINTABLE_STRING, b"Example")],
            vec![ava(OU, UTF8_STRING, b"eng")],
            vec![ava(CN, UTF8_STRING, b"alice")],
        ]);
        assert_eq!(
            name_rfc2253(&dn).as_deref(),
            Some("CN=alice,OU=eng,O=Example")
        );
    }

    #[test]
    fn multi_valued_rdn_keeps_certificate_order() {
        let dn = name(&[vec![
            ava(OU, UTF8_STRING, b"eng"),
            ava(CN, UTF8_STRING, b"bob"),
        ]]);
        assert_eq!(name_rfc2253(&dn).as_deref(), Some("OU=eng+CN=bob"));
    }

    #[test]
    fn unknown_attributes_are_oid_and_hex_of_the_der_value() {
        let dn = name(&[vec![ava(EMAIL, IA5_STRING, b"a@b")]]);
        assert_eq!(
            name_rfc2253(&dn).as_deref(),
            Some("1.2.840.113549.1.9.1=#1603614062")
        );
        // A keyword attribute with a non-string value is hex too.
        let dn = name(&[vec![ava(CN, 0x04, &[0xAB])]]);
        assert_eq!(name_rfc2253(&dn).as_deref(), Some("CN=#0401ab"));
    }

    #[test]
    fn escaping_is_javas() {
        assert_eq!(escape("Sue, Grabbit and Runn"), "Sue\\, Grabbit and Runn");
        assert_eq!(
            escape("a=b+c<d>e#f;g\"h\\i"),
            "a\\=b\\+c\\<d\\>e\\#f\\;g\\\"h\\\\i"
        );
        assert_eq!(escape(" lead and trail  "), "\\ lead and trail\\ \\ ");
        assert_eq!(escape("nul\0"), "nul\\00");
        assert_eq!(escape("  "), "\\ \\ ");
        assert_eq!(escape("ünïcode_@*"), "ünïcode_@*");
    }

    #[test]
    fn string_types_decode_with_javas_charsets() {
        let bmp = [0x00, 0x61, 0x00, 0xe9];
        assert_eq!(decode_string(BMP_STRING, &bmp).as_deref(), Some("aé"));
        assert_eq!(decode_string(T61_STRING, &[0xe9]).as_deref(), Some("é"));
        assert_eq!(
            decode_string(PRINTABLE_STRING, &[0x61, 0xe9]).as_deref(),
            Some("a\u{fffd}")
        );
        assert_eq!(
            decode_string(UNIVERSAL_STRING, &[0, 0, 0, 0x62]).as_deref(),
            Some("b")
        );
        assert_eq!(decode_string(0x04, b"x"), None);
    }

    #[test]
    fn oids() {
        assert_eq!(dotted_oid(CN).as_deref(), Some("2.5.4.3"));
        assert_eq!(dotted_oid(EMAIL).as_deref(), Some("1.2.840.113549.1.9.1"));
        assert_eq!(
            dotted_oid(&[0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19]).as_deref(),
            Some("0.9.2342.19200300.100.1.25")
        );
        assert_eq!(dotted_oid(&[0x88, 0x37]).as_deref(), Some("2.999"));
        assert_eq!(dotted_oid(&[0x81]), None, "unterminated arc");
        assert_eq!(dotted_oid(&[]), None);
    }

    #[test]
    fn malformed_names_are_refused() {
        assert_eq!(name_rfc2253(&[0x31, 0x05, 0x30]), None, "truncated");
        assert_eq!(name_rfc2253(&tlv(SET, &[])), None, "empty RDN");
        assert_eq!(name_rfc2253(&[]).as_deref(), Some(""), "empty name");
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = subject_rfc2253(&bytes);
            let _ = name_rfc2253(&bytes);
        }
    }
}
