//! Decoding a DescribeAcls answer while it arrives. A full describe of millions of ACLs is one
//! frame of ~100 MB; reading it whole before decoding leaves the client idle while the bytes
//! arrive and holds all of them at once. [`DescribeAclsDecoder`] takes the frame in chunks and
//! hands out each resource as soon as its bytes are in.
//!
//! It decodes through the codec's own field decoders, so a resource is bounds-checked exactly as
//! in a whole-frame decode, and any input gives the same result or the same [`DecodeError`]:
//! - a resource that decodes from a prefix of the frame decodes the same from the whole frame
//!   (decoding is deterministic in the bytes it consumes, and every bound it checks, such as a
//!   count against the bytes left, only gets looser with more bytes);
//! - a decode that fails before the frame is complete is retried once more bytes are in, and
//!   the failure that counts is the one over the rest of the complete frame, which is exactly
//!   the input the whole-frame decoder sees at that point.
//!
//! A failed attempt is retried only once the buffered bytes have doubled, so a resource larger
//! than a chunk costs amortized linear time. The one count checked against bytes beyond the
//! buffer, the number of resources, is checked against the frame's declared length instead.

use kacl_protocol::messages::describe_acls::{DescribeAclsResource, DescribeAclsResponse};
use kacl_protocol::wire::{Cx, Field, Struct};
use kacl_protocol::{ApiKey, DecodeError, Message, Reader, ResponseHeader};

use crate::acl_groups::AclGroupRef;

const RESOURCES: &str = "DescribeAclsResponse.resources";
const TAGS: &str = "DescribeAclsResponse tagged fields";

/// The fields of a DescribeAcls answer that come before its resources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribeAclsHead {
    /// Throttle time the broker asked for.
    pub throttle_time_ms: i32,
    /// The answer's error code.
    pub error_code: i16,
    /// The answer's error message.
    pub error_message: Option<String>,
    /// How many resources follow.
    pub resources: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Head,
    Resources { left: usize },
    Tail,
    Done,
}

/// A DescribeAcls response frame payload (the bytes after the size prefix: response header,
/// then body) decoded as it arrives: [`push`](Self::push) bytes, then [`advance`](Self::advance)
/// to visit every resource they complete.
#[derive(Debug)]
pub struct DescribeAclsDecoder {
    version: i16,
    frame_len: usize,
    /// Received bytes not consumed yet.
    buf: Vec<u8>,
    /// Frame bytes consumed before `buf[0]`.
    consumed: usize,
    /// A failed attempt is not repeated before `buf` holds this many bytes (or is complete).
    retry_at: usize,
    stage: Stage,
    head: Option<DescribeAclsHead>,
}

impl DescribeAclsDecoder {
    /// A decoder for a payload of `frame_len` bytes answering a request at `version`.
    pub fn new(version: i16, frame_len: usize) -> Self {
        DescribeAclsDecoder {
            version,
            frame_len,
            buf: Vec::new(),
            consumed: 0,
            retry_at: 0,
            stage: Stage::Head,
            head: None,
        }
    }

    /// Appends received bytes. Bytes past the declared frame length are ignored (a caller bug:
    /// the connection never hands out more than the frame).
    pub fn push(&mut self, bytes: &[u8]) {
        let room = self.frame_len - self.received();
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Bytes of the frame received so far.
    pub fn received(&self) -> usize {
        self.consumed + self.buf.len()
    }

    /// True once the whole frame has been received.
    pub fn complete(&self) -> bool {
        self.received() == self.frame_len
    }

    /// The head, once decoded.
    pub fn head(&self) -> Option<&DescribeAclsHead> {
        self.head.as_ref()
    }

    /// True once the whole answer has been decoded.
    pub fn is_done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// Decodes what the received bytes allow: the head, then each complete resource, passed to
    /// `visit` in order, then (with the frame complete) the tail. With `head_only`, stops after
    /// the head. Returns `Ok` when more bytes are needed or the answer is done.
    pub fn advance<F>(&mut self, head_only: bool, visit: &mut F) -> Result<(), DecodeError>
    where
        F: FnMut(AclGroupRef<'_>),
    {
        let last = self.complete();
        if self.stage == Stage::Done || (!last && self.buf.len() < self.retry_at) {
            return Ok(());
        }
        if !DescribeAclsResponse::VERSIONS.contains(self.version) {
            return Err(DecodeError::UnsupportedVersion {
                message: DescribeAclsResponse::NAME,
                version: self.version,
            });
        }
        let cx = Cx::top(
            self.version,
            DescribeAclsResponse::FLEXIBLE.contains(self.version),
        );
        let frame_rest = self.frame_len - self.consumed;
        let mut pos = 0;
        let mut stage = self.stage;
        let mut stalled = false;
        let outcome = loop {
            let window = &self.buf[pos..];
            match stage {
                Stage::Head => {
                    match decode_head(window, last, frame_rest - pos, self.version, cx) {
                        Ok(Some((head, used))) => {
                            pos += used;
                            stage = Stage::Resources {
                                left: head.resources,
                            };
                            self.head = Some(head);
                            if head_only {
                                break Ok(());
                            }
                        }
                        Ok(None) => {
                            stalled = true;
                            break Ok(());
                        }
                        Err(err) => break Err(err),
                    }
                }
                Stage::Resources { left: 0 } => stage = Stage::Tail,
                Stage::Resources { left } => {
                    if head_only {
                        break Ok(());
                    }
                    let mut r = Reader::new(window);
                    match DescribeAclsResource::decode_field(
                        &mut r,
                        cx.with_nullable(false),
                        RESOURCES,
                    ) {
                        Ok(resource) => {
                            pos += r.position();
                            visit(AclGroupRef::of_resource(&resource));
                            stage = Stage::Resources { left: left - 1 };
                        }
                        Err(err) if last => break Err(err),
                        Err(_) => {
                            stalled = true;
                            break Ok(());
                        }
                    }
                }
                Stage::Tail => {
                    if !last {
                        stalled = true;
                        break Ok(());
                    }
                    let mut r = Reader::new(window);
                    match decode_tail(&mut r, cx) {
                        Ok(()) => {
                            pos += r.position();
                            stage = Stage::Done;
                            break Ok(());
                        }
                        Err(err) => break Err(err),
                    }
                }
                Stage::Done => break Ok(()),
            }
        };
        self.stage = stage;
        self.buf.drain(..pos);
        self.consumed += pos;
        self.retry_at = if stalled { self.buf.len() * 2 } else { 0 };
        outcome
    }
}

/// The response header and the body's fields before the resources, as the message's generated
/// decoder reads them (same field paths, same checks). `Ok(None)`: more bytes are needed.
fn decode_head(
    window: &[u8],
    last: bool,
    frame_rest: usize,
    version: i16,
    cx: Cx,
) -> Result<Option<(DescribeAclsHead, usize)>, DecodeError> {
    let mut r = Reader::new(window);
    let attempt = read_head(&mut r, version, cx);
    let head = match attempt {
        Ok(head) => head,
        // The count was read but checked against the buffered bytes only: check it against the
        // frame's rest, as the whole-frame decoder does.
        Err((
            Some(fields),
            DecodeError::TooManyElements {
                what: RESOURCES,
                count,
                ..
            },
        )) if !last => {
            let remaining = frame_rest - r.position();
            if count > remaining {
                return Err(DecodeError::TooManyElements {
                    what: RESOURCES,
                    count,
                    remaining,
                });
            }
            DescribeAclsHead {
                resources: count,
                ..fields
            }
        }
        Err((_, err)) if last => return Err(err),
        Err(_) => return Ok(None),
    };
    Ok(Some((head, r.position())))
}

/// Reads the head; on failure, the fields read so far once the resources count is reached.
fn read_head(
    r: &mut Reader<'_>,
    version: i16,
    cx: Cx,
) -> Result<DescribeAclsHead, (Option<DescribeAclsHead>, DecodeError)> {
    let early = |err| (None, err);
    ResponseHeader::decode(r, ApiKey::DescribeAcls.response_header_version(version))
        .map_err(early)?;
    let throttle_time_ms = i32::decode_field(
        r,
        cx.with_nullable(false),
        "DescribeAclsResponse.throttle_time_ms",
    )
    .map_err(early)?;
    let error_code = i16::decode_field(
        r,
        cx.with_nullable(false),
        "DescribeAclsResponse.error_code",
    )
    .map_err(early)?;
    let error_message = Option::<std::borrow::Cow<'_, str>>::decode_field(
        r,
        cx.with_nullable(true),
        "DescribeAclsResponse.error_message",
    )
    .map_err(early)?
    .map(|m| m.into_owned());
    let fields = DescribeAclsHead {
        throttle_time_ms,
        error_code,
        error_message,
        resources: 0,
    };
    match r.read_array_len(RESOURCES, cx.flexible) {
        Ok(Some(resources)) => Ok(DescribeAclsHead {
            resources,
            ..fields
        }),
        Ok(None) => Err((
            None,
            DecodeError::NullNotAllowed {
                what: RESOURCES,
                version,
            },
        )),
        Err(err) => Err((Some(fields), err)),
    }
}

/// The body's tagged section (flexible versions) and the end of the frame.
fn decode_tail(r: &mut Reader<'_>, cx: Cx) -> Result<(), DecodeError> {
    if cx.flexible {
        let count = r.read_uvarint(TAGS)?;
        for _ in 0..count {
            let _tag = r.read_uvarint(TAGS)?;
            let size = r.read_uvarint(TAGS)? as usize;
            r.take(size, TAGS)?;
        }
    }
    r.expect_end(DescribeAclsResponse::NAME)
}

#[cfg(test)]
#[path = "acl_stream_tests.rs"]
mod tests;
