//! The primitive codec: a bounds-checked [`Reader`] over a borrowed frame and the matching
//! `put_*` writers that append to a [`Sink`] (a `Vec<u8>`, or an [`ExactWriter`] over a region
//! sized beforehand).
//!
//! Every read checks the remaining length first and names what it was reading when it fails, so
//! a hostile or truncated frame turns into a [`DecodeError`] rather than a panic. Lengths and
//! counts read from the wire are validated against the bytes actually left before anything is
//! allocated. Strings and byte arrays are returned as slices borrowed from the input.

mod error;
mod reader;
mod sink;
mod writer;

pub use error::{DecodeError, EncodeError};
pub use reader::Reader;
pub use sink::{append_exact, ExactWriter, Sink, VecWriter};
pub use writer::{
    length_prefix_len, patch_length_prefix, put_length, put_nullable_bytes, put_nullable_str,
    put_str, put_uvarint, put_uvarlong, put_varint, put_varlong, reserve_length_prefix,
    set_length_prefix, uvarint_len,
};

/// Kafka never encodes a string longer than `i16::MAX` bytes, in either the classic (int16
/// length) or the compact (uvarint length) form; its generated readers reject longer ones.
pub const MAX_STRING_LEN: usize = i16::MAX as usize;

/// Upper bound, in bytes, of what a single array decode preallocates before it has seen its
/// elements. The element count is also capped by the bytes remaining, so a hostile count can
/// neither exhaust memory nor cost more than this up front; genuine large arrays grow normally.
pub const MAX_PREALLOC_BYTES: usize = 1 << 20;

/// How many elements of type `T` to preallocate for a wire count already checked against the
/// remaining bytes: never more than [`MAX_PREALLOC_BYTES`] worth.
#[inline]
pub fn prealloc_capacity<T>(count: usize) -> usize {
    count.min(MAX_PREALLOC_BYTES / core::mem::size_of::<T>().max(1))
}

/// A Kafka `uuid`: 16 raw bytes, most significant first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// The all-zero uuid Kafka uses for "no topic id".
    pub const ZERO: Uuid = Uuid([0; 16]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ascii_prefix_len` and the inline check for short strings never count a non-ASCII byte
    /// (the one `unsafe` block relies on them): against a byte-by-byte reference, at every
    /// length and every position of a high byte.
    #[test]
    fn ascii_prefix_len_stops_at_the_first_high_byte() {
        for len in 0..40 {
            for high_at in 0..=len {
                for high in [0x80u8, 0xc3, 0xff] {
                    let mut bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                    if high_at < len {
                        bytes[high_at] = high;
                    }
                    let expected = bytes.iter().position(|b| !b.is_ascii()).unwrap_or(len);
                    assert_eq!(reader::ascii_prefix_len(&bytes), expected, "{bytes:?}");
                    // The same through the `&str` it becomes, short strings checked inline.
                    assert_eq!(reader::ascii_prefix(&bytes).as_bytes(), &bytes[..expected]);
                    if len <= 32 {
                        assert_eq!(reader::short_is_ascii(&bytes), expected == len, "{bytes:?}");
                    }
                    // At every alignment of the slice, too.
                    let mut shifted = vec![b'x'; 7];
                    shifted.extend_from_slice(&bytes);
                    for start in 0..7 {
                        assert_eq!(
                            reader::ascii_prefix_len(&shifted[start..]),
                            (7 - start) + expected
                        );
                        let tail = &shifted[7..];
                        assert_eq!(reader::ascii_prefix(tail).len(), expected);
                    }
                }
            }
        }
    }

    /// Every string length around the chunked copies (0-3 bytewise, 4-32 in overlapping
    /// chunks, longer with one copy) against a plain encoding.
    #[test]
    fn strings_of_every_short_length_encode_exactly() {
        let text: String = ('a'..='z').chain('A'..='Z').collect();
        for compact in [false, true] {
            for len in 0..=48 {
                let value = &text[..len];
                let mut expected = Vec::new();
                if compact {
                    expected.push(len as u8 + 1);
                } else {
                    expected.extend_from_slice(&(len as u16).to_be_bytes());
                }
                expected.extend_from_slice(value.as_bytes());
                // After other bytes, so chunks are written at an offset.
                let mut out = vec![0xee; 3];
                put_str(&mut out, "s", value, compact).unwrap();
                assert_eq!(&out[..3], &[0xee; 3]);
                assert_eq!(&out[3..], &expected[..], "len {len}, compact {compact}");
                // The same through an exactly sized writer, with a byte after it that must
                // survive the chunks.
                let mut exact = vec![0xee; 3 + expected.len() + 1];
                let mut writer = ExactWriter::new(&mut exact[3..3 + expected.len()]);
                put_str(&mut writer, "s", value, compact).unwrap();
                assert_eq!(writer.written(), expected.len());
                writer.finish("s").unwrap();
                assert_eq!(&exact[..3], &[0xee; 3]);
                assert_eq!(&exact[3..3 + expected.len()], &expected[..]);
                assert_eq!(exact.last(), Some(&0xee), "len {len}, compact {compact}");
                // And through a cursor over a `Vec`, which zeroes ahead and cuts back after.
                let mut grown = vec![0xee; 3];
                let mut writer = VecWriter::new(&mut grown);
                put_str(&mut writer, "s", value, compact).unwrap();
                assert_eq!(writer.written(), 3 + expected.len());
                writer.finish();
                assert_eq!(grown, out, "len {len}, compact {compact}");
            }
        }
    }

    /// A `VecWriter` keeps what the `Vec` held, grows past its zeroed room as often as needed
    /// (the same bytes as the field-by-field `Vec` sink), and, dropped without `finish` (an
    /// encoder failing half way), leaves only what was written, never the zeroed room.
    #[test]
    fn vec_writers_grow_and_cut_back_to_what_was_written() {
        let long = "x".repeat(300);
        for start in [0, 5, VecWriter::FIRST_ROOM - 1, VecWriter::ROOM - 1] {
            let mut direct = vec![7u8; start];
            let mut grown = direct.clone();
            let mut writer = VecWriter::new(&mut grown);
            for i in 0..3 * VecWriter::ROOM / 40 {
                let text = &long[..i % 300];
                put_str(&mut direct, "s", text, i % 2 == 0).unwrap();
                put_str(&mut writer, "s", text, i % 2 == 0).unwrap();
                put_uvarint(&mut direct, i as u32 * 131);
                put_uvarint(&mut writer, i as u32 * 131);
                direct.put_array((i as i32).to_be_bytes());
                writer.put_array((i as i32).to_be_bytes());
                direct.put_slice(&long.as_bytes()[..i % 7]);
                writer.put_slice(&long.as_bytes()[..i % 7]);
            }
            assert_eq!(writer.written(), direct.len());
            writer.finish();
            assert_eq!(grown, direct, "start {start}");
        }
        let mut out = vec![1, 2];
        let mut writer = VecWriter::new(&mut out);
        writer.put_u8(3);
        drop(writer);
        assert_eq!(out, [1, 2, 3]);
    }

    /// An exactly sized writer lets neither a short nor a long write pass unnoticed (it
    /// cannot write past its region: it only holds that slice).
    #[test]
    fn exact_writers_report_any_size_mismatch() {
        let mut region = [0u8; 4];
        let mut writer = ExactWriter::new(&mut region);
        writer.put_array(7i16.to_be_bytes());
        assert_eq!(
            writer.finish("x"),
            Err(EncodeError::SizeMismatch {
                what: "x",
                expected: 4,
                written: 2,
                overflowed: false
            })
        );
        for write in [
            |w: &mut ExactWriter<'_>| w.put_array([1u8; 5]),
            |w: &mut ExactWriter<'_>| w.put_slice(&[1; 5]),
            |w: &mut ExactWriter<'_>| w.put_short_str(b"abcd", false),
            |w: &mut ExactWriter<'_>| w.put_short_str(&[b'a'; 200], true),
        ] {
            let mut region = [0u8; 4];
            let mut writer = ExactWriter::new(&mut region);
            write(&mut writer);
            writer.put_u8(9);
            let err = writer.finish("x").unwrap_err();
            assert!(
                matches!(
                    err,
                    EncodeError::SizeMismatch {
                        overflowed: true,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains("ran out of room"));
        }
        let mut out = vec![1];
        append_exact(&mut out, 3, "x", |w| {
            w.put_array([2, 3]);
            w.put_u8(4);
            Ok(())
        })
        .unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
    }

    #[test]
    fn uvarints_match_known_encodings() {
        for (value, wire) in [
            (0u32, &[0x00][..]),
            (1, &[0x01]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
            (u32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ] {
            let mut out = Vec::new();
            put_uvarint(&mut out, value);
            assert_eq!(out, wire, "{value}");
            assert_eq!(uvarint_len(value), wire.len());
            assert_eq!(Reader::new(wire).read_uvarint("v"), Ok(value));
        }
    }

    #[test]
    fn zigzag_varints_round_trip_extremes() {
        for value in [0, -1, 1, i32::MIN, i32::MAX, -64, 64] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(Reader::new(&out).read_varint("v"), Ok(value));
        }
        for value in [0, -1, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            put_varlong(&mut out, value);
            assert_eq!(Reader::new(&out).read_varlong("v"), Ok(value));
        }
        let mut out = Vec::new();
        put_varint(&mut out, -1);
        assert_eq!(out, [0x01]);
    }

    #[test]
    fn overlong_varints_are_rejected() {
        let six = [0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
        assert_eq!(
            Reader::new(&six).read_uvarint("v"),
            Err(DecodeError::VarintOverflow { what: "v" })
        );
        let high_bits = [0xff, 0xff, 0xff, 0xff, 0x1f];
        assert!(Reader::new(&high_bits).read_uvarint("v").is_err());
        let eleven = [0xff; 11];
        assert!(Reader::new(&eleven).read_uvarlong("v").is_err());
    }

    #[test]
    fn reads_past_the_end_name_what_and_how_much() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(
            r.read_i32("X.y"),
            Err(DecodeError::Truncated {
                what: "X.y",
                needed: 4,
                remaining: 3
            })
        );
        assert_eq!(r.read_i16("X.z"), Ok(0x0102));
        assert_eq!(r.remaining(), 1);
    }

    #[test]
    fn length_prefix_is_patched_after_writing() {
        let mut out = vec![9];
        let at = reserve_length_prefix(&mut out);
        out.extend_from_slice(b"abc");
        patch_length_prefix(&mut out, at).unwrap();
        assert_eq!(out, [9, 0, 0, 0, 3, b'a', b'b', b'c']);
        assert_eq!(
            patch_length_prefix(&mut [0u8; 2], 5),
            Err(EncodeError::LengthPrefixOutOfBounds { at: 5 })
        );
    }

    #[test]
    fn strings_longer_than_i16_max_are_not_encoded() {
        let long = "a".repeat(MAX_STRING_LEN + 1);
        let err = put_nullable_str(&mut Vec::new(), "s", Some(&long), true).unwrap_err();
        assert_eq!(
            err,
            EncodeError::TooLong {
                what: "s",
                length: 32768,
                max: 32767
            }
        );
    }
}
