//! Size-prefixed frames: every Kafka request and response is an `int32` byte count followed by
//! a header and a body. Encoding reserves the count, writes header and body, then patches the
//! count; decoding first checks that a whole frame, no larger than the configured limit, has
//! arrived.

use thiserror::Error;

use crate::api_key::ApiKey;
use crate::codec::{
    append_exact, length_prefix_len, patch_length_prefix, put_length, reserve_length_prefix,
    set_length_prefix, DecodeError, EncodeError, ExactWriter, Reader,
};
use crate::header::{RequestHeader, ResponseHeader};
use crate::wire::{Cx, Field, Message};

/// Bytes taken by the size prefix.
pub const SIZE_PREFIX_LEN: usize = 4;

/// A response header is a correlation id, then (v1) an empty tagged-field section.
const RESPONSE_HEADER_MAX_LEN: usize = 5;

/// A frame whose declared size cannot be accepted. The connection should be closed: the stream
/// can no longer be delimited.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    /// The size prefix was negative.
    #[error("frame size {size} is negative")]
    NegativeSize {
        /// The declared size.
        size: i32,
    },
    /// The size prefix exceeded the limit (`socket.request.max.bytes` on the server).
    #[error("frame size {size} exceeds the limit of {max} bytes")]
    TooLarge {
        /// The declared size.
        size: usize,
        /// The configured limit.
        max: usize,
    },
}

/// Whether `buf` starts with a complete frame. Returns the payload length (without the size
/// prefix) when it does, `None` when more bytes are needed, an error for an unacceptable size.
pub fn frame_payload_len(buf: &[u8], max: usize) -> Result<Option<usize>, FrameError> {
    let Some(prefix) = buf.first_chunk::<SIZE_PREFIX_LEN>() else {
        return Ok(None);
    };
    let size = i32::from_be_bytes(*prefix);
    let payload_len = usize::try_from(size).map_err(|_| FrameError::NegativeSize { size })?;
    if payload_len > max {
        return Err(FrameError::TooLarge {
            size: payload_len,
            max,
        });
    }
    Ok((buf.len() - SIZE_PREFIX_LEN >= payload_len).then_some(payload_len))
}

/// Splits the first complete frame off `buf`: its payload and the total bytes it occupies
/// (payload plus prefix), or `None` when more bytes are needed.
pub fn split_frame(buf: &[u8], max: usize) -> Result<Option<(&[u8], usize)>, FrameError> {
    Ok(frame_payload_len(buf, max)?.and_then(|len| {
        let total = SIZE_PREFIX_LEN + len;
        buf.get(SIZE_PREFIX_LEN..total)
            .map(|payload| (payload, total))
    }))
}

/// A request frame payload split into its API, header and still-encoded body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFrame<'a> {
    /// The API the header names.
    pub api_key: ApiKey,
    /// The decoded header.
    pub header: RequestHeader<'a>,
    /// The body bytes, to be decoded by the handler for `api_key`.
    pub body: &'a [u8],
    /// What is left, after the header, of the memory budget the frame was parsed with: the
    /// body's decoder gets this (see [`Reader::with_memory_budget`]).
    pub memory_budget: usize,
}

impl<'a> RequestFrame<'a> {
    /// Reads the header of a frame payload (size prefix already removed). Use
    /// [`crate::header::RequestPrefix::peek`] first if a correlation id is needed for a frame
    /// whose header turns out to be malformed.
    pub fn parse(payload: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_within(payload, usize::MAX)
    }

    /// [`RequestFrame::parse`] allowing header and body together at most `memory_budget` bytes
    /// of decoded element storage (see [`Reader::with_memory_budget`]); the body's share is
    /// used by [`RequestFrame::body_reader`].
    pub fn parse_within(payload: &'a [u8], memory_budget: usize) -> Result<Self, DecodeError> {
        let mut r = Reader::new(payload).with_memory_budget(memory_budget);
        let (api_key, header) = RequestHeader::decode_auto(&mut r)?;
        Ok(Self {
            api_key,
            header,
            body: r.rest(),
            memory_budget: r.memory_budget(),
        })
    }

    /// A reader over the body holding what is left of the frame's memory budget.
    pub fn body_reader(&self) -> Reader<'a> {
        Reader::new(self.body).with_memory_budget(self.memory_budget)
    }

    /// The request version the header names.
    pub fn version(&self) -> i16 {
        self.header.request_api_version
    }

    /// Decodes the body as `M`, which must span the whole body.
    pub fn decode_body<M: Message<'a>>(&self) -> Result<M, DecodeError> {
        let mut r = self.body_reader();
        let message = M::decode(&mut r, self.version())?;
        r.expect_end(M::NAME)?;
        Ok(message)
    }
}

/// Appends a complete response frame: size, response header of the version `M`'s API uses at
/// `version`, and the body.
pub fn encode_response_frame<'a, M: Message<'a>>(
    out: &mut Vec<u8>,
    correlation_id: i32,
    version: i16,
    body: &M,
) -> Result<(), EncodeError> {
    // Sized up front: a DescribeAcls answer of millions of ACLs is tens of megabytes, and
    // growing it by doubling copied it several times over and touched twice the memory.
    // The body is then written through an `ExactWriter` (see `codec::Sink` for why).
    let body_len = body.encoded_len(version);
    out.reserve(SIZE_PREFIX_LEN + RESPONSE_HEADER_MAX_LEN + body_len);
    let at = reserve_length_prefix(out);
    let header_version = M::API_KEY.response_header_version(version);
    ResponseHeader::new(correlation_id).encode(out, header_version)?;
    append_exact(out, body_len, M::NAME, |writer| {
        body.encode(writer, version)
    })?;
    patch_length_prefix(out, at)
}

/// Appends a complete response frame whose body ends with an array written element by element:
/// `shell` is the body with that array empty, `count` how many elements `write_elements` will
/// append (each with [`Field::encode_field`](crate::wire::Field::encode_field) at the context it
/// is given) and `elements_len` exactly how many bytes they take (the sum of their
/// [`Field::field_len`](crate::wire::Field::field_len)); a different size is an
/// [`EncodeError::SizeMismatch`].
///
/// For answers too large to hold as one message value (a DescribeAcls of millions of ACLs):
/// the elements can be built one at a time in reused storage and written straight into `out`,
/// instead of materialising every element first. The array must be the body's last field
/// before its tagged section, and the shell must carry no tagged fields; otherwise this fails
/// with [`EncodeError::NotStreamable`] rather than writing a wrong frame. Tests pin the output
/// to [`encode_response_frame`] of the same message.
pub fn encode_response_frame_with_array<'a, M: Message<'a>>(
    out: &mut Vec<u8>,
    correlation_id: i32,
    version: i16,
    shell: &M,
    count: usize,
    elements_len: usize,
    write_elements: impl FnOnce(&mut ExactWriter<'_>, Cx) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    // Sized once, as in `encode_response_frame`: head, elements, then the tagged section.
    let head = ArrayFrameHead::of(correlation_id, version, shell, count)?;
    out.reserve(head.len() + elements_len + usize::from(head.flexible));
    let at = head.write(out)?;
    append_exact(out, elements_len, M::NAME, |writer| {
        write_elements(writer, head.cx)
    })?;
    if head.flexible {
        out.push(0);
    }
    patch_length_prefix(out, at)
}

/// What precedes the elements in a response frame whose body ends with an array: the response
/// header and the shell's fields, up to and including the array's count.
struct ArrayFrameHead {
    correlation_id: i32,
    header_version: i16,
    /// The shell's encoding without its empty array and tagged section.
    fields: Vec<u8>,
    count: usize,
    what: &'static str,
    flexible: bool,
    /// The context the elements are encoded at.
    cx: Cx,
}

impl ArrayFrameHead {
    fn of<'a, M: Message<'a>>(
        correlation_id: i32,
        version: i16,
        shell: &M,
        count: usize,
    ) -> Result<Self, EncodeError> {
        let flexible = M::FLEXIBLE.contains(version);
        let mut fields = Vec::new();
        shell.encode(&mut fields, version)?;
        // The shell ends with the empty array's count, then (flexible) an empty tagged section.
        let tail: &[u8] = if flexible { &[1, 0] } else { &[0, 0, 0, 0] };
        let streamable = !shell.has_tagged_fields(Cx::top(version, flexible));
        match fields.strip_suffix(tail) {
            Some(kept) if streamable => {
                let kept = kept.len();
                fields.truncate(kept);
            }
            _ => {
                return Err(EncodeError::NotStreamable {
                    message: M::NAME,
                    version,
                })
            }
        }
        Ok(ArrayFrameHead {
            correlation_id,
            header_version: M::API_KEY.response_header_version(version),
            fields,
            count,
            what: M::NAME,
            flexible,
            cx: Cx::top(version, flexible).with_nullable(false),
        })
    }

    /// At most the bytes [`ArrayFrameHead::write`] appends (the size prefix included).
    fn len(&self) -> usize {
        SIZE_PREFIX_LEN
            + RESPONSE_HEADER_MAX_LEN
            + self.fields.len()
            + length_prefix_len(Some(self.count), self.flexible, true)
    }

    /// Appends a reserved size prefix, the header, the fields and the count; returns where the
    /// size prefix is.
    fn write(&self, out: &mut Vec<u8>) -> Result<usize, EncodeError> {
        let at = reserve_length_prefix(out);
        ResponseHeader::new(self.correlation_id).encode(out, self.header_version)?;
        out.extend_from_slice(&self.fields);
        put_length(out, self.what, Some(self.count), self.flexible, true)?;
        Ok(at)
    }
}

/// A response frame like [`encode_response_frame_with_array`]'s, written in pieces so that its
/// first bytes can leave before its last are encoded: a DescribeAcls answer of millions of
/// ACLs takes a tenth of a second to encode, and a client can be decoding it meanwhile.
///
/// The frame's size prefix is computed up front from `elements_len`, so the head
/// ([`StreamedArrayFrame::start`]) is final; the elements are appended one at a time to
/// whichever buffers the caller sends on; [`StreamedArrayFrame::finish`] appends the tail and
/// checks that exactly `count` elements of exactly `elements_len` bytes were written. A frame
/// that fails a check has already been partly sent, so the only safe answer is to close the
/// connection (as for any response that cannot be encoded). Tests pin the concatenated pieces
/// to [`encode_response_frame`] of the same message.
#[derive(Debug)]
pub struct StreamedArrayFrame {
    what: &'static str,
    cx: Cx,
    flexible: bool,
    count: usize,
    elements_len: usize,
    written_count: usize,
    written_len: usize,
}

impl StreamedArrayFrame {
    /// Appends the frame's head to `out` (size prefix, header, `shell`'s fields, the array's
    /// count) for a body ending with `count` elements of `elements_len` bytes in all.
    pub fn start<'a, M: Message<'a>>(
        out: &mut Vec<u8>,
        correlation_id: i32,
        version: i16,
        shell: &M,
        count: usize,
        elements_len: usize,
    ) -> Result<StreamedArrayFrame, EncodeError> {
        let head = ArrayFrameHead::of(correlation_id, version, shell, count)?;
        out.reserve(head.len());
        let at = head.write(out)?;
        let total = (out.len() - at - SIZE_PREFIX_LEN)
            .saturating_add(elements_len)
            .saturating_add(usize::from(head.flexible));
        set_length_prefix(out, at, total)?;
        Ok(StreamedArrayFrame {
            what: head.what,
            cx: head.cx,
            flexible: head.flexible,
            count,
            elements_len,
            written_count: 0,
            written_len: 0,
        })
    }

    /// Appends one element to `out` (any buffer: the pieces are the caller's to send in order).
    pub fn append<'a, F: Field<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        element: &F,
    ) -> Result<(), EncodeError> {
        let len = element.field_len(self.cx);
        self.written_count += 1;
        self.written_len = self.written_len.saturating_add(len);
        if self.written_len > self.elements_len || self.written_count > self.count {
            return Err(self.mismatch(true));
        }
        let (cx, what) = (self.cx, self.what);
        append_exact(out, len, what, |writer| {
            element.encode_field(writer, cx, what)
        })
    }

    /// Appends the frame's tail to `out`, once every element has been appended.
    pub fn finish(self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.written_count != self.count {
            return Err(EncodeError::ArrayCountMismatch {
                what: self.what,
                declared: self.count,
                written: self.written_count,
            });
        }
        if self.written_len != self.elements_len {
            return Err(self.mismatch(false));
        }
        if self.flexible {
            out.push(0);
        }
        Ok(())
    }

    fn mismatch(&self, overflowed: bool) -> EncodeError {
        EncodeError::SizeMismatch {
            what: self.what,
            expected: self.elements_len,
            written: self.written_len,
            overflowed,
        }
    }
}

/// Appends a complete request frame for `body` at `version`. The header's API key and version
/// are set from `M` and `version`; its correlation id and client id are taken from `header`.
pub fn encode_request_frame<'a, M: Message<'a>>(
    out: &mut Vec<u8>,
    header: &RequestHeader<'_>,
    version: i16,
    body: &M,
) -> Result<(), EncodeError> {
    let at = reserve_length_prefix(out);
    let header = RequestHeader {
        request_api_key: M::API_KEY.key(),
        request_api_version: version,
        correlation_id: header.correlation_id,
        client_id: header.client_id.clone(),
        unknown_tagged_fields: header.unknown_tagged_fields.clone(),
    };
    header.encode(out, M::API_KEY.request_header_version(version))?;
    body.encode(out, version)?;
    patch_length_prefix(out, at)
}

/// Decodes a response frame payload (size prefix removed) as `M` at `version`: the header of
/// the version `M`'s API uses, then a body that must span the rest.
pub fn decode_response_frame<'a, M: Message<'a>>(
    payload: &'a [u8],
    version: i16,
) -> Result<(ResponseHeader<'a>, M), DecodeError> {
    let mut r = Reader::new(payload);
    let parts = decode_response_parts(&mut r, version)?;
    r.expect_end(M::NAME)?;
    Ok(parts)
}

/// Decodes a response frame that a broker wrote, as Kafka's Java client reads one: bytes after
/// a complete body are ignored (the client never checks that the buffer was consumed), where
/// [`decode_response_frame`] refuses them. Real brokers send such bytes: librdkafka's mock
/// cluster ends a Metadata v13 answer with one. For the answers kacl itself writes, tests use
/// the strict decoder.
pub fn decode_broker_response_frame<'a, M: Message<'a>>(
    payload: &'a [u8],
    version: i16,
) -> Result<(ResponseHeader<'a>, M), DecodeError> {
    decode_response_parts(&mut Reader::new(payload), version)
}

/// The header and body of a response frame at `version`, read from `r` (what follows is the
/// caller's to check).
fn decode_response_parts<'a, M: Message<'a>>(
    r: &mut Reader<'a>,
    version: i16,
) -> Result<(ResponseHeader<'a>, M), DecodeError> {
    let header = ResponseHeader::decode(r, M::API_KEY.response_header_version(version))?;
    let body = M::decode(r, version)?;
    Ok((header, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incomplete_frames_ask_for_more() {
        assert_eq!(frame_payload_len(&[], 100), Ok(None));
        assert_eq!(frame_payload_len(&[0, 0, 0], 100), Ok(None));
        assert_eq!(frame_payload_len(&[0, 0, 0, 2, 1], 100), Ok(None));
        assert_eq!(frame_payload_len(&[0, 0, 0, 2, 1, 2], 100), Ok(Some(2)));
        assert_eq!(
            split_frame(&[0, 0, 0, 1, 7, 9], 100),
            Ok(Some((&[7u8][..], 5)))
        );
    }

    #[test]
    fn bad_sizes_name_the_size_and_the_limit() {
        assert_eq!(
            frame_payload_len(&[0xff, 0xff, 0xff, 0xfe], 100),
            Err(FrameError::NegativeSize { size: -2 })
        );
        let err = frame_payload_len(&[0, 0, 1, 0], 100).unwrap_err();
        assert_eq!(
            err,
            FrameError::TooLarge {
                size: 256,
                max: 100
            }
        );
        assert_eq!(
            err.to_string(),
            "frame size 256 exceeds the limit of 100 bytes"
        );
    }
}
