//! The byte-level primitives every stored record is built from: single bytes, LEB128
//! varints, zigzag-encoded `i32`s and length-prefixed byte strings.
//!
//! Decoding is strict, so that one value has exactly one encoding: varints must be
//! minimal, strings must be UTF-8, and a record must be consumed to its last byte. A
//! corrupt length can never make the reader allocate more than the record holds.

use std::fmt;

/// Why a stored record could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordDecodeError {
    /// The record ended inside a value.
    Truncated,
    /// A varint was longer than its type allows, or not in its shortest form.
    BadVarint,
    /// A string was not UTF-8.
    InvalidUtf8,
    /// Bytes were left over after the record's last field.
    TrailingBytes(usize),
    /// A field held a value outside its domain.
    BadValue(&'static str),
    /// The record was written by a newer format than this build reads.
    UnknownVersion(u8),
    /// The record's checksum does not match its key and value: it was damaged on disk.
    ChecksumMismatch,
}

impl fmt::Display for RecordDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordDecodeError::Truncated => f.write_str("record is truncated"),
            RecordDecodeError::BadVarint => f.write_str("malformed varint"),
            RecordDecodeError::InvalidUtf8 => f.write_str("string is not UTF-8"),
            RecordDecodeError::TrailingBytes(n) => write!(f, "{n} unexpected trailing bytes"),
            RecordDecodeError::BadValue(what) => write!(f, "invalid {what}"),
            RecordDecodeError::UnknownVersion(v) => write!(f, "unknown record version {v}"),
            RecordDecodeError::ChecksumMismatch => {
                f.write_str("checksum mismatch (the record was damaged on disk)")
            }
        }
    }
}

/// Appends encoded values to a buffer.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(capacity),
        }
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    pub(crate) fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    pub(crate) fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.buf.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.buf.push(value as u8);
    }

    /// Zigzag, so that small negative numbers (such as -1) stay one byte.
    pub(crate) fn i32(&mut self, value: i32) {
        let zigzag = ((value << 1) ^ (value >> 31)) as u32;
        self.varint(u64::from(zigzag));
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.varint(bytes.len() as u64);
        self.raw(bytes);
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
}

/// Reads encoded values from the front of a record.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    pub(crate) fn u8(&mut self) -> Result<u8, RecordDecodeError> {
        let (&first, rest) = self
            .rest
            .split_first()
            .ok_or(RecordDecodeError::Truncated)?;
        self.rest = rest;
        Ok(first)
    }

    pub(crate) fn raw(&mut self, len: usize) -> Result<&'a [u8], RecordDecodeError> {
        if len > self.rest.len() {
            return Err(RecordDecodeError::Truncated);
        }
        let (head, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(head)
    }

    pub(crate) fn array16(&mut self) -> Result<[u8; 16], RecordDecodeError> {
        let mut out = [0u8; 16];
        out.copy_from_slice(self.raw(16)?);
        Ok(out)
    }

    pub(crate) fn varint(&mut self) -> Result<u64, RecordDecodeError> {
        let mut value: u64 = 0;
        for index in 0..10u32 {
            let byte = self.u8()?;
            let shift = index * 7;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(RecordDecodeError::BadVarint);
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                // A zero final byte after the first means a padded, non-canonical form.
                if index > 0 && byte == 0 {
                    return Err(RecordDecodeError::BadVarint);
                }
                return Ok(value);
            }
        }
        Err(RecordDecodeError::BadVarint)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, RecordDecodeError> {
        u32::try_from(self.varint()?).map_err(|_| RecordDecodeError::BadVarint)
    }

    pub(crate) fn i32(&mut self) -> Result<i32, RecordDecodeError> {
        let zigzag = self.u32()?;
        Ok(((zigzag >> 1) as i32) ^ -((zigzag & 1) as i32))
    }

    /// A count of items that each take at least one byte: a larger count is corruption.
    pub(crate) fn count(&mut self) -> Result<usize, RecordDecodeError> {
        let count = usize::try_from(self.varint()?).map_err(|_| RecordDecodeError::Truncated)?;
        if count > self.rest.len() {
            return Err(RecordDecodeError::Truncated);
        }
        Ok(count)
    }

    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], RecordDecodeError> {
        let len = self.count()?;
        self.raw(len)
    }

    pub(crate) fn str(&mut self) -> Result<&'a str, RecordDecodeError> {
        std::str::from_utf8(self.bytes()?).map_err(|_| RecordDecodeError::InvalidUtf8)
    }

    /// Fails unless the whole record was read.
    pub(crate) fn finish(self) -> Result<(), RecordDecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(RecordDecodeError::TrailingBytes(self.rest.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_the_edges() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut w = Writer::default();
            w.varint(value);
            let bytes = w.into_bytes();
            let mut r = Reader::new(&bytes);
            assert_eq!(r.varint(), Ok(value));
            assert_eq!(r.finish(), Ok(()));
        }
    }

    #[test]
    fn i32_zigzag_round_trips_and_keeps_minus_one_short() {
        for value in [0, -1, 1, i32::MIN, i32::MAX, -1000] {
            let mut w = Writer::default();
            w.i32(value);
            let bytes = w.into_bytes();
            if value == -1 {
                assert_eq!(bytes.len(), 1);
            }
            assert_eq!(Reader::new(&bytes).i32(), Ok(value));
        }
    }

    #[test]
    fn non_canonical_and_overlong_varints_are_rejected() {
        assert_eq!(
            Reader::new(&[0x80, 0x00]).varint(),
            Err(RecordDecodeError::BadVarint)
        );
        assert_eq!(
            Reader::new(&[0xff; 11]).varint(),
            Err(RecordDecodeError::BadVarint)
        );
        let too_big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(
            Reader::new(&too_big).varint(),
            Err(RecordDecodeError::BadVarint)
        );
        assert_eq!(
            Reader::new(&[0x80]).varint(),
            Err(RecordDecodeError::Truncated)
        );
    }

    #[test]
    fn a_length_beyond_the_record_is_truncation_not_an_allocation() {
        let mut w = Writer::default();
        w.varint(u64::MAX >> 1);
        let bytes = w.into_bytes();
        assert_eq!(
            Reader::new(&bytes).bytes(),
            Err(RecordDecodeError::Truncated)
        );
    }

    #[test]
    fn strings_must_be_utf8_and_records_fully_consumed() {
        assert_eq!(
            Reader::new(&[2, 0xff, 0xfe]).str(),
            Err(RecordDecodeError::InvalidUtf8)
        );
        let mut r = Reader::new(&[1, b'a', 9]);
        assert_eq!(r.str(), Ok("a"));
        assert_eq!(r.finish(), Err(RecordDecodeError::TrailingBytes(1)));
    }
}
