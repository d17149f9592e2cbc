//! [`Reader`]: the bounds-checked cursor every decoder reads through.

use super::{DecodeError, Uuid, MAX_STRING_LEN};

/// A cursor over a borrowed byte slice. All reads are bounds-checked.
///
/// The hot paths (fixed-width reads, one-byte varints, short strings) are small and inlined;
/// error construction lives in cold functions so it does not weigh on them.
///
/// Strings are checked to be UTF-8 without validating each one on its own: the reader keeps a
/// window of the input already known to be valid UTF-8 (see [`Reader::read_nullable_str`]).
/// ACL messages are runs of short ASCII strings separated by small lengths and enum codes, so
/// one fast pass over a long run replaces thousands of short validations, which cost far more
/// per byte.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    /// What has not been consumed yet.
    rest: &'a [u8],
    /// Length of the original input, for [`Reader::position`].
    total: usize,
    /// Input known to be valid UTF-8, starting where `rest` started when it was scanned.
    text: &'a str,
    /// `rest.len()` at the start of `text`: the reader is `text_from - rest.len()` bytes in.
    text_from: usize,
    /// Bytes of element storage decoding may still allocate (see [`Reader::with_memory_budget`]).
    budget: usize,
}

#[cold]
#[inline(never)]
fn negative_length(what: &'static str, length: i32) -> DecodeError {
    DecodeError::NegativeLength {
        what,
        length: i64::from(length),
    }
}

#[cold]
#[inline(never)]
fn string_too_long(what: &'static str, length: usize) -> DecodeError {
    DecodeError::LengthTooLong {
        what,
        length,
        max: MAX_STRING_LEN,
    }
}

#[cold]
#[inline(never)]
fn invalid_utf8(what: &'static str) -> DecodeError {
    DecodeError::InvalidUtf8 { what }
}

#[cold]
#[inline(never)]
fn too_many_elements(what: &'static str, count: usize, remaining: usize) -> DecodeError {
    DecodeError::TooManyElements {
        what,
        count,
        remaining,
    }
}

#[cold]
#[inline(never)]
fn over_budget(what: &'static str, needed: usize, left: usize) -> DecodeError {
    DecodeError::MemoryBudgetExceeded { what, needed, left }
}

#[cold]
#[inline(never)]
fn truncated(what: &'static str, needed: usize, remaining: usize) -> DecodeError {
    DecodeError::Truncated {
        what,
        needed,
        remaining,
    }
}

/// The multi-byte path of [`Reader::read_uvarint`]: the value and the input after it. Like the
/// reader's other out-of-line path (`rescan_window`) it takes and returns the input by value
/// rather than `&mut Reader`.
#[inline(never)]
fn uvarint_slow<'a>(
    mut rest: &'a [u8],
    what: &'static str,
) -> Result<(u32, &'a [u8]), DecodeError> {
    let mut value: u32 = 0;
    for i in 0..5 {
        let Some((&byte, tail)) = rest.split_first() else {
            return Err(truncated(what, 1, 0));
        };
        rest = tail;
        if i == 4 && byte > 0x0f {
            return Err(DecodeError::VarintOverflow { what });
        }
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, rest));
        }
    }
    Err(DecodeError::VarintOverflow { what })
}

impl<'a> Reader<'a> {
    /// Starts reading at the beginning of `buf`.
    #[inline]
    pub fn new(buf: &'a [u8]) -> Self {
        Self {
            rest: buf,
            total: buf.len(),
            text: "",
            text_from: buf.len(),
            budget: usize::MAX,
        }
    }

    /// The same reader, allowing decoders to allocate at most `bytes` of element storage (array
    /// elements and kept unknown tagged fields; strings borrow from the input and cost nothing).
    ///
    /// Counts are already checked against the bytes left, but a decoded element can be far
    /// larger than its encoding: an empty topic name is 2 bytes on the wire and a 48-byte struct
    /// in memory. A server that takes 100 MB frames bounds what one request can make it
    /// allocate with this; past the budget decoding fails with
    /// [`DecodeError::MemoryBudgetExceeded`]. [`Reader::new`] has no budget.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// Bytes of element storage decoding may still allocate.
    #[inline]
    pub fn memory_budget(&self) -> usize {
        self.budget
    }

    /// Counts `bytes` of storage about to be allocated for `what` against the memory budget.
    #[inline]
    pub fn charge(&mut self, what: &'static str, bytes: usize) -> Result<(), DecodeError> {
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(over_budget(what, bytes, self.budget)),
        }
    }

    /// A reader over `data` (a tagged field's bytes, already taken from this reader) that draws
    /// on this reader's memory budget; hand what it left back with [`Reader::settle`].
    pub fn sub_reader<'b>(&self, data: &'b [u8]) -> Reader<'b> {
        Reader::new(data).with_memory_budget(self.budget)
    }

    /// Takes over the budget `sub` (from [`Reader::sub_reader`]) has left.
    pub fn settle(&mut self, sub: &Reader<'_>) {
        self.budget = sub.budget;
    }

    /// Bytes not yet consumed.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// How many bytes have been consumed so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.total - self.rest.len()
    }

    /// True when every byte has been consumed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The unconsumed tail, without consuming it.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Fails with [`DecodeError::TrailingBytes`] unless everything was consumed: Kafka rejects
    /// a request body that is longer than its schema says.
    #[inline]
    pub fn expect_end(&self, message: &'static str) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            remaining => Err(DecodeError::TrailingBytes { message, remaining }),
        }
    }

    /// Consumes exactly `n` bytes and returns them borrowed from the input.
    #[inline(always)]
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        match self.rest.split_at_checked(n) {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(head)
            }
            None => Err(truncated(what, n, self.rest.len())),
        }
    }

    #[inline(always)]
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        match self.rest.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(*head)
            }
            None => Err(truncated(what, N, self.rest.len())),
        }
    }

    /// Reads a Kafka `int8`.
    #[inline]
    pub fn read_i8(&mut self, what: &'static str) -> Result<i8, DecodeError> {
        Ok(i8::from_be_bytes(self.array(what)?))
    }
    /// Reads a big-endian Kafka `int16`.
    #[inline]
    pub fn read_i16(&mut self, what: &'static str) -> Result<i16, DecodeError> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }
    /// Reads a big-endian Kafka `int32`.
    #[inline]
    pub fn read_i32(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }
    /// Reads a big-endian Kafka `int64`.
    #[inline]
    pub fn read_i64(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }
    /// Reads a big-endian Kafka `uint16`.
    #[inline]
    pub fn read_u16(&mut self, what: &'static str) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }
    /// Reads a big-endian Kafka `uint32`.
    #[inline]
    pub fn read_u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }
    /// Reads a big-endian IEEE-754 Kafka `float64`.
    #[inline]
    pub fn read_f64(&mut self, what: &'static str) -> Result<f64, DecodeError> {
        Ok(f64::from_be_bytes(self.array(what)?))
    }
    /// Reads a Kafka `bool`: any non-zero byte is true, as in Kafka's readers.
    #[inline]
    pub fn read_bool(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        Ok(self.read_i8(what)? != 0)
    }
    /// Reads a 16-byte Kafka `uuid`.
    #[inline]
    pub fn read_uuid(&mut self, what: &'static str) -> Result<Uuid, DecodeError> {
        Ok(Uuid(self.array(what)?))
    }

    /// Reads an unsigned LEB128 varint of at most 32 bits (5 bytes).
    #[inline(always)]
    pub fn read_uvarint(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        // One byte covers every compact length below 127 and every tag count in practice.
        if let Some((&byte, tail)) = self.rest.split_first() {
            if byte < 0x80 {
                self.rest = tail;
                return Ok(u32::from(byte));
            }
        }
        let (value, rest) = uvarint_slow(self.rest, what)?;
        self.rest = rest;
        Ok(value)
    }

    /// Reads an unsigned LEB128 varint of at most 64 bits (10 bytes).
    #[inline]
    pub fn read_uvarlong(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let mut value: u64 = 0;
        for i in 0..10 {
            let byte = self.array::<1>(what)?[0];
            if i == 9 && byte > 0x01 {
                return Err(DecodeError::VarintOverflow { what });
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::VarintOverflow { what })
    }

    /// Reads a zigzag-encoded signed 32-bit varint.
    #[inline]
    pub fn read_varint(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        let raw = self.read_uvarint(what)?;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    /// Reads a zigzag-encoded signed 64-bit varlong.
    #[inline]
    pub fn read_varlong(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        let raw = self.read_uvarlong(what)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    /// Reads a length prefix: `int16`/`int32` in classic encoding (-1 = null), or a uvarint
    /// holding length + 1 in compact encoding (0 = null). Returns `None` for null.
    #[inline(always)]
    fn read_length(
        &mut self,
        what: &'static str,
        compact: bool,
        wide: bool,
    ) -> Result<Option<usize>, DecodeError> {
        if compact {
            return Ok(match self.read_uvarint(what)? {
                0 => None,
                n => Some((n - 1) as usize),
            });
        }
        let length = if wide {
            self.read_i32(what)?
        } else {
            i32::from(self.read_i16(what)?)
        };
        match length {
            -1 => Ok(None),
            // Kafka treats every negative length as null; kacl accepts only -1 and rejects the
            // rest, which no Kafka client produces.
            n if n < 0 => Err(negative_length(what, n)),
            n => Ok(Some(n as usize)),
        }
    }

    /// Reads a (possibly null) string, borrowed from the input and checked to be UTF-8.
    #[inline(always)]
    pub fn read_nullable_str(
        &mut self,
        what: &'static str,
        compact: bool,
    ) -> Result<Option<&'a str>, DecodeError> {
        let Some(length) = self.read_length(what, compact, false)? else {
            return Ok(None);
        };
        if length > MAX_STRING_LEN {
            return Err(string_too_long(what, length));
        }
        // Within the valid window, a slice that starts and ends on character boundaries is
        // valid UTF-8 itself; `str::get` checks exactly those two boundaries.
        let start = self.text_from.wrapping_sub(self.rest.len());
        let text = start
            .checked_add(length)
            .and_then(|end| self.text.get(start..end));
        if let Some(s) = text {
            self.take(length, what)?;
            return Ok(Some(s));
        }
        // Outside the window, a short ASCII string (every ACL name and principal of a classic
        // version, whose null strings end each window) is a `&str` as it is.
        if length <= SHORT_STR {
            if let Some(s) = self.rest.get(..length).and_then(short_ascii_str) {
                self.take(length, what)?;
                return Ok(Some(s));
            }
        }
        self.read_str_rescanning(length, what).map(Some)
    }

    /// The slow path of [`Reader::read_nullable_str`]: moves the window (see [`rescan_window`]).
    #[inline(always)]
    fn read_str_rescanning(
        &mut self,
        length: usize,
        what: &'static str,
    ) -> Result<&'a str, DecodeError> {
        let (text, s) = rescan_window(self.rest, length, what)?;
        self.text = text;
        self.text_from = self.rest.len();
        self.take(length, what)?;
        Ok(s)
    }

    /// Reads a (possibly null) byte array, borrowed from the input.
    #[inline]
    pub fn read_nullable_bytes(
        &mut self,
        what: &'static str,
        compact: bool,
    ) -> Result<Option<&'a [u8]>, DecodeError> {
        match self.read_length(what, compact, true)? {
            None => Ok(None),
            Some(length) => self.take(length, what).map(Some),
        }
    }

    /// Reads an array element count (`None` for a null array). A count larger than the bytes
    /// left is rejected before any allocation, as Kafka does: every element takes at least one
    /// byte.
    #[inline]
    pub fn read_array_len(
        &mut self,
        what: &'static str,
        compact: bool,
    ) -> Result<Option<usize>, DecodeError> {
        let count = self.read_length(what, compact, true)?;
        if let Some(count) = count {
            let remaining = self.remaining();
            if count > remaining {
                return Err(too_many_elements(what, count, remaining));
            }
        }
        Ok(count)
    }
}

/// Finds a new valid-UTF-8 window starting at `rest`, for a string of `length` bytes there
/// that runs past the old window (or is not valid UTF-8). Each byte of the input is scanned by
/// at most one window. Returns the window and the string.
///
/// A window normally runs to the input's first invalid byte (one fast pass, plus a second over
/// the valid prefix if there is an invalid byte). Classic versions break runs every few dozen
/// bytes (a null string's length is `ff ff`), where two passes per run would cost more than
/// validating each string; so a probe first looks for a non-ASCII byte nearby, and a short
/// ASCII run becomes the window in one pass.
#[cold]
#[inline(never)]
fn rescan_window<'a>(
    rest: &'a [u8],
    length: usize,
    what: &'static str,
) -> Result<(&'a str, &'a str), DecodeError> {
    /// How far the probe for a short ASCII run looks.
    const PROBE: usize = 256;
    let probed = rest.get(..PROBE).unwrap_or(rest);
    let ascii = ascii_prefix(probed);
    let text = if ascii.len() < probed.len() {
        ascii
    } else {
        match core::str::from_utf8(rest) {
            Ok(text) => text,
            Err(e) => rest
                .get(..e.valid_up_to())
                .and_then(|valid| core::str::from_utf8(valid).ok())
                .unwrap_or(""),
        }
    };
    let Some(bytes) = rest.get(..length) else {
        return Err(truncated(what, length, rest.len()));
    };
    // The window holds the whole string exactly when the string is valid UTF-8 (its characters
    // are complete, so the first invalid byte lies at or after its end).
    match text.get(..length) {
        Some(s) => Ok((text, s)),
        None => match core::str::from_utf8(bytes) {
            Ok(s) => Ok((text, s)),
            Err(_) => Err(invalid_utf8(what)),
        },
    }
}

/// Longest string [`Reader::read_nullable_str`] checks for ASCII on its own, outside the window.
const SHORT_STR: usize = 32;

/// `bytes` (at most [`SHORT_STR`] long) as a `&str` if every byte is ASCII.
#[inline(always)]
fn short_ascii_str(bytes: &[u8]) -> Option<&str> {
    let ascii = ascii_prefix(bytes);
    (ascii.len() == bytes.len()).then_some(ascii)
}

/// The longest ASCII prefix of `bytes`, as a `&str`: any run of bytes below 0x80 is valid
/// UTF-8, so it needs no second validation pass. Strings of up to [`SHORT_STR`] bytes that are
/// ASCII throughout are recognised inline, with two overlapping word loads.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn ascii_prefix(bytes: &[u8]) -> &str {
    let len = if bytes.len() <= SHORT_STR && short_is_ascii(bytes) {
        bytes.len()
    } else {
        ascii_prefix_len(bytes)
    };
    match bytes.get(..len) {
        // SAFETY: `len` is either the length of `bytes` after `short_is_ascii` found every byte
        // below 0x80, or what `ascii_prefix_len` returns, the length of a prefix whose every
        // byte is below 0x80 (both tested at every length, position of a high byte and
        // alignment); any sequence of such bytes is valid UTF-8. This is the crate's only
        // `unsafe`: classic versions end a window at every null string (`ff ff`), and a second
        // `from_utf8` pass over each short run held the 100-filter v1 DeleteAcls decode at 3.7x
        // kafka-protocol's speed against a 5x target (BENCHMARKS.md).
        Some(run) => unsafe { core::str::from_utf8_unchecked(run) },
        None => "",
    }
}

/// Whether every byte of `bytes` (at most [`SHORT_STR`] long) is below 0x80, read as (at most)
/// two overlapping chunks OR-ed together, as the encoder copies short strings.
#[inline(always)]
pub(crate) fn short_is_ascii(bytes: &[u8]) -> bool {
    fn chunks<const N: usize>(bytes: &[u8]) -> Option<([u8; N], [u8; N])> {
        Some((*bytes.first_chunk::<N>()?, *bytes.last_chunk::<N>()?))
    }
    match bytes.len() {
        0..=3 => bytes.iter().fold(0, |all, &byte| all | byte) < 0x80,
        4..=7 => chunks::<4>(bytes).is_some_and(|(head, tail)| {
            (u32::from_ne_bytes(head) | u32::from_ne_bytes(tail)) & 0x8080_8080 == 0
        }),
        8..=15 => chunks::<8>(bytes).is_some_and(|(head, tail)| {
            (u64::from_ne_bytes(head) | u64::from_ne_bytes(tail)) & 0x8080_8080_8080_8080 == 0
        }),
        16..=SHORT_STR => chunks::<16>(bytes).is_some_and(|(head, tail)| {
            (u128::from_ne_bytes(head) | u128::from_ne_bytes(tail)) & (u128::MAX / 0xff * 0x80) == 0
        }),
        _ => false,
    }
}

/// Length of the ASCII prefix of `bytes`, eight bytes at a time. [`ascii_prefix`]'s soundness
/// rests on this never counting a byte of 0x80 or above (see the tests).
#[inline]
pub(crate) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut len = 0;
    for word in &mut words {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        let high = u64::from_le_bytes(word) & HIGH_BITS;
        if high != 0 {
            return len + (high.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    len + words
        .remainder()
        .iter()
        .position(|byte| !byte.is_ascii())
        .unwrap_or(words.remainder().len())
}
