//! Where encoders put bytes: the [`Sink`] trait, implemented by a growable `Vec<u8>`, by an
//! [`ExactWriter`] over a region whose size was computed beforehand, and by a [`VecWriter`]
//! appending to a `Vec` through a cursor.
//!
//! A connection appends each response to a write buffer kept across responses; a body whose
//! exact size is known (`Message::to_bytes`, a response frame sized up front) can be written
//! into a region that never reallocates. Either way a whole message body is written through a
//! cursor whose position stays in a register: written field by field into a `Vec`, its length
//! was stored to memory and loaded back around every field (any write through the buffer
//! might, as far as the compiler could tell, have changed it). `to_bytes` of a 1,000 x 10
//! DescribeAcls response went from 112 to 89 µs with the `ExactWriter` (BENCHMARKS.md); the
//! `Vec` sink itself stays for headers and other small writes.

use super::EncodeError;

/// Something encoders append bytes to. Writes cannot fail: a `Vec` grows, and an
/// [`ExactWriter`] that runs out of room remembers it and fails in [`ExactWriter::finish`].
pub trait Sink {
    /// Appends one byte.
    fn put_u8(&mut self, byte: u8);
    /// Appends a fixed-width value already in wire (big-endian) order.
    fn put_array<const N: usize>(&mut self, bytes: [u8; N]);
    /// Appends bytes of any length.
    fn put_slice(&mut self, bytes: &[u8]);
    /// Appends a string's length prefix, int16 or (`compact`) uvarint length + 1, then its bytes.
    /// The caller has checked that `bytes` is at most `i16::MAX` long.
    fn put_short_str(&mut self, bytes: &[u8], compact: bool);
    /// The `Vec` this sink is, if it is one: [`crate::wire::Message::encode`] then writes the
    /// body through a [`VecWriter`] over it instead of field by field into the `Vec`.
    #[inline(always)]
    fn growable(&mut self) -> Option<&mut Vec<u8>> {
        None
    }
}

/// Largest chunk [`copy_short`] copies at once; it handles up to twice this inline.
pub(super) const SHORT_CHUNK: usize = 16;

impl Sink for Vec<u8> {
    #[inline(always)]
    fn put_u8(&mut self, byte: u8) {
        self.push(byte);
    }

    #[inline(always)]
    fn put_array<const N: usize>(&mut self, bytes: [u8; N]) {
        self.extend_from_slice(&bytes);
    }

    #[inline(always)]
    fn put_slice(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    #[inline(always)]
    fn put_short_str(&mut self, bytes: &[u8], compact: bool) {
        let length = bytes.len();
        // Room for the prefix and for `append_short`'s whole chunks.
        self.reserve(length + 3 + SHORT_CHUNK);
        if !compact {
            self.extend_from_slice(&(length as u16).to_be_bytes());
        } else if length < 0x7f {
            self.push(length as u8 + 1);
        } else {
            super::put_uvarint(self, length as u32 + 1);
        }
        append_short(self, bytes);
    }

    #[inline(always)]
    fn growable(&mut self) -> Option<&mut Vec<u8>> {
        Some(self)
    }
}

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

/// A cursor writing into a region sized beforehand (by `Struct::body_len`), with no
/// reallocation and no length kept in memory. Every write is bounds-checked; one that does not
/// fit writes nothing and marks the writer, so a size computed wrong becomes an error from
/// [`ExactWriter::finish`], never a panic or a short frame.
#[derive(Debug)]
pub struct ExactWriter<'b> {
    buf: &'b mut [u8],
    pos: usize,
    overflowed: bool,
}

impl<'b> ExactWriter<'b> {
    /// A writer that must fill all of `buf`.
    #[inline]
    pub fn new(buf: &'b mut [u8]) -> Self {
        Self {
            buf,
            pos: 0,
            overflowed: false,
        }
    }

    /// Bytes written so far.
    #[inline]
    pub fn written(&self) -> usize {
        self.pos
    }

    /// Checks that the writes filled the region exactly; `what` names the value in the error.
    pub fn finish(self, what: &'static str) -> Result<(), EncodeError> {
        if self.overflowed || self.pos != self.buf.len() {
            return Err(EncodeError::SizeMismatch {
                what,
                expected: self.buf.len(),
                written: self.pos,
                overflowed: self.overflowed,
            });
        }
        Ok(())
    }

    /// The next `len` bytes of the region, or `None` (and the writer marked) if they are not
    /// all there. The position does not move.
    #[inline(always)]
    fn next(&mut self, len: usize) -> Option<&mut [u8]> {
        let slot = self.buf.get_mut(self.pos..)?.get_mut(..len);
        if slot.is_none() {
            self.overflowed = true;
        }
        slot
    }
}

/// Appends exactly `len` bytes to `out`, written by `write` through an [`ExactWriter`]; fails
/// (naming `what`) if `write` fails or does not write exactly `len` bytes. The region is zeroed
/// first: that costs a few percent and keeps the crate's one `unsafe` block its only one.
pub fn append_exact(
    out: &mut Vec<u8>,
    len: usize,
    what: &'static str,
    write: impl FnOnce(&mut ExactWriter<'_>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let start = out.len();
    out.resize(start + len, 0);
    let mut writer = ExactWriter::new(&mut out[start..]);
    write(&mut writer)?;
    writer.finish(what)
}

impl Sink for ExactWriter<'_> {
    #[inline(always)]
    fn put_u8(&mut self, byte: u8) {
        self.put_array([byte]);
    }

    #[inline(always)]
    fn put_array<const N: usize>(&mut self, bytes: [u8; N]) {
        match self
            .buf
            .get_mut(self.pos..)
            .and_then(<[u8]>::first_chunk_mut)
        {
            Some(slot) => {
                *slot = bytes;
                self.pos += N;
            }
            None => self.overflowed = true,
        }
    }

    #[inline(always)]
    fn put_slice(&mut self, bytes: &[u8]) {
        if let Some(slot) = self.next(bytes.len()) {
            slot.copy_from_slice(bytes);
            self.pos += bytes.len();
        }
    }

    #[inline(always)]
    fn put_short_str(&mut self, bytes: &[u8], compact: bool) {
        let length = bytes.len();
        if compact && length >= 0x7f {
            super::put_uvarint(self, length as u32 + 1);
            return self.put_slice(bytes);
        }
        let prefix = if compact { 1 } else { 2 };
        let Some(slot) = self.next(prefix + length) else {
            return;
        };
        let (head, body) = slot.split_at_mut(prefix);
        if compact {
            head.fill(length as u8 + 1);
        } else {
            head.copy_from_slice(&(length as u16).to_be_bytes());
        }
        copy_short(body, bytes);
        self.pos += prefix + length;
    }
}

/// `dst.copy_from_slice(src)` for slices of equal length, short ones copied in fixed-size
/// (overlapping) chunks inline rather than by a `memcpy` call; see [`append_short`].
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    match src.len() {
        0..=3 => dst.iter_mut().zip(src).for_each(|(d, s)| *d = *s),
        4..=7 => copy_overlapping::<4>(dst, src),
        8..=15 => copy_overlapping::<8>(dst, src),
        16..=32 => copy_overlapping::<SHORT_CHUNK>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// Copies `src` (`N..=2N` long, as long as `dst`) as its first and its last `N` bytes.
#[inline(always)]
fn copy_overlapping<const N: usize>(dst: &mut [u8], src: &[u8]) {
    if let (Some(head), Some(tail), Some(dst_head)) = (
        src.first_chunk::<N>(),
        src.last_chunk::<N>(),
        dst.first_chunk_mut::<N>(),
    ) {
        *dst_head = *head;
        if let Some(dst_tail) = dst.last_chunk_mut::<N>() {
            *dst_tail = *tail;
        }
    } else {
        dst.copy_from_slice(src);
    }
}

/// A cursor appending to a `Vec<u8>` that keeps its position out of the `Vec`: the bytes ahead
/// of it are zeroed [`VecWriter::ROOM`] at a time, and [`VecWriter::finish`] (or dropping the
/// writer, e.g. when an encoder fails half way) cuts the `Vec` back to what was written.
///
/// [`crate::wire::Message::encode`] writes a body into a `Vec` through one. Field by field
/// into the `Vec`, each field's length store was loaded back by the next field: a
/// store-to-load round trip on the critical path of every field, which AMD cores hide by
/// renaming memory and the Intel cores of the current machines do not (issue 19,
/// BENCHMARKS.md). Zeroing ahead keeps the code safe; it costs a `memset` of the bytes
/// written, into lines the writes then find in the L1 cache.
#[derive(Debug)]
pub struct VecWriter<'v> {
    vec: &'v mut Vec<u8>,
    pos: usize,
}

impl<'v> VecWriter<'v> {
    /// The most the `Vec` is zeroed ahead of the position at a time: small enough that the
    /// zeroed bytes are still in the L1 cache when they are written.
    pub const ROOM: usize = 16 * 1024;

    /// The room zeroed first. The room then doubles with what was written, up to
    /// [`VecWriter::ROOM`]: a small response (most requests' answer is a few hundred bytes)
    /// zeroes about its own size, not 16 KiB each time (40% of the instructions of a describe
    /// by principal, and a third of the L1 cache evicted per request).
    pub const FIRST_ROOM: usize = 256;

    /// A writer appending after `vec`'s current contents.
    #[inline]
    pub fn new(vec: &'v mut Vec<u8>) -> Self {
        let pos = vec.len();
        make_room(vec, pos, 0);
        Self { vec, pos }
    }

    /// Bytes in the `Vec`, the earlier contents included.
    #[inline]
    pub fn written(&self) -> usize {
        self.pos
    }

    /// Ends the writes, leaving the `Vec` holding exactly what was written.
    #[inline]
    pub fn finish(self) {}

    /// The next `len` bytes, made room for first if they are not there yet.
    #[inline(always)]
    fn next(&mut self, len: usize) -> &mut [u8] {
        if self.vec.len() - self.pos < len {
            // Not `self`: the writer's address must not escape, or its position could no
            // longer stay in a register.
            make_room(self.vec, self.pos, len);
        }
        let pos = self.pos;
        &mut self.vec[pos..pos + len]
    }
}

/// Zeroes `vec` up to `len` bytes past `pos` and some room more: as much as is in the `Vec`
/// already, at least [`VecWriter::FIRST_ROOM`] and at most [`VecWriter::ROOM`].
#[cold]
#[inline(never)]
fn make_room(vec: &mut Vec<u8>, pos: usize, len: usize) {
    let room = vec.len().clamp(VecWriter::FIRST_ROOM, VecWriter::ROOM);
    vec.resize(pos.saturating_add(len).saturating_add(room), 0);
}

impl Drop for VecWriter<'_> {
    fn drop(&mut self) {
        self.vec.truncate(self.pos);
    }
}

impl Sink for VecWriter<'_> {
    #[inline(always)]
    fn put_u8(&mut self, byte: u8) {
        self.put_array([byte]);
    }

    #[inline(always)]
    fn put_array<const N: usize>(&mut self, bytes: [u8; N]) {
        if let Some(slot) = self.next(N).first_chunk_mut::<N>() {
            *slot = bytes;
        }
        self.pos += N;
    }

    #[inline(always)]
    fn put_slice(&mut self, bytes: &[u8]) {
        self.next(bytes.len()).copy_from_slice(bytes);
        self.pos += bytes.len();
    }

    #[inline(always)]
    fn put_short_str(&mut self, bytes: &[u8], compact: bool) {
        let length = bytes.len();
        if compact && length >= 0x7f {
            super::put_uvarint(self, length as u32 + 1);
            return self.put_slice(bytes);
        }
        let prefix = if compact { 1 } else { 2 };
        let (head, body) = self.next(prefix + length).split_at_mut(prefix);
        if compact {
            head.fill(length as u8 + 1);
        } else {
            head.copy_from_slice(&(length as u16).to_be_bytes());
        }
        copy_short(body, bytes);
        self.pos += prefix + length;
    }
}
