//! The reader checks strings against a window of input already known to be UTF-8 instead of
//! validating each string on its own. These tests hold it to exactly what validating each
//! string with `core::str::from_utf8` would answer, on inputs that mix long ASCII runs, valid
//! multi-byte characters, invalid bytes, characters cut by a string's end, null strings and
//! raw bytes between strings.

use kacl_protocol::{DecodeError, Reader};
use proptest::prelude::*;

/// One thing on the wire between string reads.
#[derive(Debug, Clone)]
enum Item {
    /// A string whose bytes may or may not be UTF-8.
    Str(Vec<u8>),
    /// A null string.
    Null,
    /// Bytes consumed with `take`, as fixed-width fields or uuids would be.
    Raw(Vec<u8>),
}

/// Bytes biased towards the interesting cases: ASCII, pieces of multi-byte characters and
/// bytes that can never appear in UTF-8.
fn byte_run() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => "[a-zA-Z0-9:._*-]{0,40}".prop_map(String::into_bytes),
        1 => "[é€😀ñ]{1,3}".prop_map(String::into_bytes),
        1 => prop::collection::vec(0x80u8..=0xff, 1..3),
        1 => "[é€😀]".prop_map(|s| s.into_bytes()[..1].to_vec()),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|pieces| pieces.concat())
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        6 => byte_run().prop_map(Item::Str),
        1 => Just(Item::Null),
        2 => byte_run().prop_map(Item::Raw),
    ]
}

fn encode(items: &[Item], compact: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let put_len = |out: &mut Vec<u8>, len: Option<usize>| match (compact, len) {
        (true, len) => {
            let mut value = len.map_or(0, |n| n as u32 + 1);
            while value >= 0x80 {
                out.push(value as u8 | 0x80);
                value >>= 7;
            }
            out.push(value as u8);
        }
        (false, Some(n)) => out.extend_from_slice(&(n as i16).to_be_bytes()),
        (false, None) => out.extend_from_slice(&(-1i16).to_be_bytes()),
    };
    for item in items {
        match item {
            Item::Str(bytes) => {
                put_len(&mut out, Some(bytes.len()));
                out.extend_from_slice(bytes);
            }
            Item::Null => put_len(&mut out, None),
            Item::Raw(bytes) => out.extend_from_slice(bytes),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every string read answers what `from_utf8` on that string alone answers, borrowed from
    /// the input, and the reader ends where the input ends.
    #[test]
    fn strings_read_as_if_validated_one_by_one(
        items in prop::collection::vec(item(), 0..24),
        compact in any::<bool>(),
    ) {
        let wire = encode(&items, compact);
        let mut reader = Reader::new(&wire);
        for item in &items {
            match item {
                Item::Str(bytes) => {
                    let at = reader.position();
                    let got = reader.read_nullable_str("s", compact);
                    match core::str::from_utf8(bytes) {
                        Ok(expected) => {
                            let got = got.unwrap().unwrap();
                            prop_assert_eq!(got, expected);
                            // Borrowed from the input, right after the length prefix.
                            let offset = got.as_ptr() as usize - wire.as_ptr() as usize;
                            prop_assert_eq!(offset + got.len(), reader.position());
                            prop_assert!(offset > at);
                        }
                        Err(_) => {
                            prop_assert_eq!(got, Err(DecodeError::InvalidUtf8 { what: "s" }));
                            // An invalid string ends the read; nothing after it is checked.
                            return Ok(());
                        }
                    }
                }
                Item::Null => prop_assert_eq!(reader.read_nullable_str("s", compact), Ok(None)),
                Item::Raw(bytes) => prop_assert_eq!(reader.take(bytes.len(), "raw").unwrap(), &bytes[..]),
            }
        }
        prop_assert!(reader.is_empty());
    }
}

#[test]
fn a_long_ascii_run_then_a_classic_null_then_more_strings() {
    let name = "orders.eu-west.topic-000001".repeat(20);
    let items = [
        Item::Str(name.clone().into_bytes()),
        Item::Null,
        Item::Str(b"User:alice".to_vec()),
        Item::Raw(vec![0xff, 0x80]),
        Item::Str("Usér:bob".as_bytes().to_vec()),
    ];
    let wire = encode(&items, false);
    let mut reader = Reader::new(&wire);
    assert_eq!(
        reader.read_nullable_str("a", false),
        Ok(Some(name.as_str()))
    );
    assert_eq!(reader.read_nullable_str("b", false), Ok(None));
    assert_eq!(reader.read_nullable_str("c", false), Ok(Some("User:alice")));
    assert_eq!(reader.take(2, "raw"), Ok(&[0xff, 0x80][..]));
    assert_eq!(reader.read_nullable_str("d", false), Ok(Some("Usér:bob")));
    assert!(reader.is_empty());
}

#[test]
fn a_character_cut_by_the_string_end_is_invalid_even_if_the_input_completes_it() {
    // "é" is c3 a9: the string holds only c3, and the a9 that completes it follows.
    let wire = [0x00, 0x02, b'a', 0xc3, 0xa9, b'b'];
    let mut reader = Reader::new(&wire);
    assert_eq!(
        reader.read_nullable_str("cut", false),
        Err(DecodeError::InvalidUtf8 { what: "cut" })
    );
}
