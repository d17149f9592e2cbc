//! The `put_*` writers that append Kafka primitives to a `Vec<u8>`, and the sizes they write.

use bytes::BufMut;

use super::{EncodeError, MAX_STRING_LEN};

/// Appends an unsigned LEB128 varint.
#[inline]
pub fn put_uvarint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends an unsigned LEB128 varlong.
#[inline]
pub fn put_uvarlong(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a zigzag-encoded signed varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, value: i32) {
    put_uvarint(out, ((value << 1) ^ (value >> 31)) as u32);
}

/// Appends a zigzag-encoded signed varlong.
#[inline]
pub fn put_varlong(out: &mut Vec<u8>, value: i64) {
    put_uvarlong(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// Encoded size of an unsigned varint.
#[inline]
pub const fn uvarint_len(value: u32) -> usize {
    match value {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0x0fff_ffff => 4,
        _ => 5,
    }
}

/// Encoded size of the length prefix for `length` (or null), classic or compact.
#[inline]
pub fn length_prefix_len(length: Option<usize>, compact: bool, wide: bool) -> usize {
    match (compact, wide) {
        (true, _) => uvarint_len(length.map_or(0, |n| (n as u32).saturating_add(1))),
        (false, true) => 4,
        (false, false) => 2,
    }
}

/// Appends a length prefix (see [`Reader::read_nullable_str`](super::Reader::read_nullable_str) for the forms), failing if the
/// length does not fit the form: `max` is `i16::MAX` for strings and `i32::MAX - 1` otherwise.
#[inline]
pub fn put_length(
    out: &mut Vec<u8>,
    what: &'static str,
    length: Option<usize>,
    compact: bool,
    wide: bool,
) -> Result<(), EncodeError> {
    let max = if wide {
        i32::MAX as usize - 1
    } else {
        MAX_STRING_LEN
    };
    match length {
        Some(length) if length > max => Err(EncodeError::TooLong { what, length, max }),
        Some(length) if compact => {
            put_uvarint(out, length as u32 + 1);
            Ok(())
        }
        None if compact => {
            put_uvarint(out, 0);
            Ok(())
        }
        Some(length) if wide => {
            out.put_i32(length as i32);
            Ok(())
        }
        None if wide => {
            out.put_i32(-1);
            Ok(())
        }
        Some(length) => {
            out.put_i16(length as i16);
            Ok(())
        }
        None => {
            out.put_i16(-1);
            Ok(())
        }
    }
}

/// Appends a (possibly null) string with its length prefix.
#[inline]
pub fn put_nullable_str(
    out: &mut Vec<u8>,
    what: &'static str,
    value: Option<&str>,
    compact: bool,
) -> Result<(), EncodeError> {
    match value {
        Some(s) => put_str(out, what, s, compact),
        None => put_length(out, what, None, compact, false),
    }
}

/// Appends a non-null string with its length prefix; the common case, kept small.
#[inline(always)]
pub fn put_str(
    out: &mut Vec<u8>,
    what: &'static str,
    value: &str,
    compact: bool,
) -> Result<(), EncodeError> {
    let length = value.len();
    if length > MAX_STRING_LEN {
        return Err(too_long(what, length, MAX_STRING_LEN));
    }
    // Room for the prefix and for `append_short`'s whole chunks.
    out.reserve(length + 3 + SHORT_CHUNK);
    if !compact {
        out.extend_from_slice(&(length as u16).to_be_bytes());
    } else if length < 0x7f {
        out.push(length as u8 + 1);
    } else {
        put_uvarint(out, length as u32 + 1);
    }
    append_short(out, value.as_bytes());
    Ok(())
}

/// Largest chunk [`append_short`] copies at once; it handles up to twice this inline.
const SHORT_CHUNK: usize = 16;

/// Appends `bytes`, copying short ones in fixed-size chunks the compiler inlines instead of
/// calling `memcpy`: ACL strings are a few dozen bytes, and a library call per string was
/// half of encoding a DescribeAcls response. A length between two chunk sizes is written as
/// two overlapping chunks, the first cut back before the second is appended. The caller
/// reserves `bytes.len() + SHORT_CHUNK` so no chunk reallocates.
#[inline(always)]
fn append_short(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = bytes.len();
    let start = out.len();
    match len {
        0..=3 => bytes.iter().for_each(|&byte| out.push(byte)),
        4..=7 => append_overlapping::<4>(out, bytes, start),
        8..=15 => append_overlapping::<8>(out, bytes, start),
        16..=32 => append_overlapping::<SHORT_CHUNK>(out, bytes, start),
        _ => out.extend_from_slice(bytes),
    }
}

/// `bytes` (`N..=2N` long) as its first `N` bytes, then its last `N` written over the end.
#[inline(always)]
fn append_overlapping<const N: usize>(out: &mut Vec<u8>, bytes: &[u8], start: usize) {
    let len = bytes.len();
    let (Some(head), Some(tail)) = (bytes.first_chunk::<N>(), bytes.last_chunk::<N>()) else {
        out.extend_from_slice(bytes);
        return;
    };
    out.extend_from_slice(head);
    out.truncate(start + len - N);
    out.extend_from_slice(tail);
}

#[cold]
#[inline(never)]
fn too_long(what: &'static str, length: usize, max: usize) -> EncodeError {
    EncodeError::TooLong { what, length, max }
}

/// Appends a (possibly null) byte array with its length prefix.
#[inline]
pub fn put_nullable_bytes(
    out: &mut Vec<u8>,
    what: &'static str,
    value: Option<&[u8]>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_length(out, what, value.map(<[u8]>::len), compact, true)?;
    if let Some(b) = value {
        out.extend_from_slice(b);
    }
    Ok(())
}

/// Reserves an `int32` length prefix and returns its position, for [`patch_length_prefix`]
/// once the bytes it measures have been written.
#[inline]
pub fn reserve_length_prefix(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.put_i32(0);
    at
}

/// Writes into the prefix reserved at `at` the number of bytes written after it.
#[inline]
pub fn patch_length_prefix(out: &mut [u8], at: usize) -> Result<(), EncodeError> {
    let length = out.len().saturating_sub(at + 4);
    let value = i32::try_from(length).map_err(|_| EncodeError::TooLong {
        what: "frame",
        length,
        max: i32::MAX as usize,
    })?;
    match out.get_mut(at..at + 4) {
        Some(slot) => {
            slot.copy_from_slice(&value.to_be_bytes());
            Ok(())
        }
        None => Err(EncodeError::LengthPrefixOutOfBounds { at }),
    }
}
