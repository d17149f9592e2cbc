//! The `put_*` writers that append Kafka primitives to a [`Sink`], and the sizes they write.

use super::{EncodeError, Sink, MAX_STRING_LEN};

/// Appends an unsigned LEB128 varint.
#[inline]
pub fn put_uvarint(out: &mut impl Sink, value: u32) {
    put_uvarlong(out, u64::from(value));
}

/// Appends an unsigned LEB128 varlong.
#[inline]
pub fn put_uvarlong(out: &mut impl Sink, mut value: u64) {
    while value >= 0x80 {
        out.put_u8((value as u8) | 0x80);
        value >>= 7;
    }
    out.put_u8(value as u8);
}

/// Appends a zigzag-encoded signed varint.
#[inline]
pub fn put_varint(out: &mut impl Sink, value: i32) {
    put_uvarint(out, ((value << 1) ^ (value >> 31)) as u32);
}

/// Appends a zigzag-encoded signed varlong.
#[inline]
pub fn put_varlong(out: &mut impl Sink, value: i64) {
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

/// Appends a length prefix: `int16` (strings) or `int32` (`wide`) with -1 for null, or in
/// compact form a uvarint of length + 1 with 0 for null. Fails if the length does not fit the
/// form: `max` is `i16::MAX` for strings and `i32::MAX - 1` otherwise.
#[inline(always)]
pub fn put_length(
    out: &mut impl Sink,
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
    // Null is -1 in every form (compact adds one to it as to any length).
    let value = match length {
        Some(length) if length > max => return Err(too_long(what, length, max)),
        Some(length) => length as i32,
        None => -1,
    };
    if compact {
        put_uvarint(out, (value + 1) as u32);
    } else if wide {
        out.put_array(value.to_be_bytes());
    } else {
        out.put_array((value as i16).to_be_bytes());
    }
    Ok(())
}

/// Appends a (possibly null) string with its length prefix.
#[inline]
pub fn put_nullable_str(
    out: &mut impl Sink,
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
    out: &mut impl Sink,
    what: &'static str,
    value: &str,
    compact: bool,
) -> Result<(), EncodeError> {
    let length = value.len();
    if length > MAX_STRING_LEN {
        return Err(too_long(what, length, MAX_STRING_LEN));
    }
    out.put_short_str(value.as_bytes(), compact);
    Ok(())
}

#[cold]
#[inline(never)]
fn too_long(what: &'static str, length: usize, max: usize) -> EncodeError {
    EncodeError::TooLong { what, length, max }
}

/// Appends a (possibly null) byte array with its length prefix.
#[inline]
pub fn put_nullable_bytes(
    out: &mut impl Sink,
    what: &'static str,
    value: Option<&[u8]>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_length(out, what, value.map(<[u8]>::len), compact, true)?;
    if let Some(b) = value {
        out.put_slice(b);
    }
    Ok(())
}

/// Reserves an `int32` length prefix and returns its position, for [`patch_length_prefix`]
/// once the bytes it measures have been written.
#[inline]
pub fn reserve_length_prefix(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    at
}

/// Writes into the prefix reserved at `at` the number of bytes written after it.
#[inline]
pub fn patch_length_prefix(out: &mut [u8], at: usize) -> Result<(), EncodeError> {
    let length = out.len().saturating_sub(at + 4);
    set_length_prefix(out, at, length)
}

/// Writes `length` into the prefix reserved at `at`: for a frame whose bytes after the prefix
/// are not all in `out` (one sent in pieces).
#[inline]
pub fn set_length_prefix(out: &mut [u8], at: usize, length: usize) -> Result<(), EncodeError> {
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
