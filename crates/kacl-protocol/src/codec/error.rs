//! Typed failures of the codec. Every variant names what was being read or written (a message
//! name, a `Struct.field` path or a primitive) so a malformed frame can be diagnosed from the
//! error alone.

use thiserror::Error;

/// Why bytes could not be decoded. Returned, never panicked, for any input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[allow(missing_docs)] // variant fields are named for what they hold
pub enum DecodeError {
    /// The input ended before `what` was complete.
    #[error("truncated input reading {what}: needed {needed} bytes, {remaining} remaining")]
    Truncated {
        what: &'static str,
        needed: usize,
        remaining: usize,
    },
    /// A string field was not valid UTF-8.
    #[error("invalid UTF-8 in {what}")]
    InvalidUtf8 { what: &'static str },
    /// A length or count was negative but not the null marker -1.
    #[error("invalid negative length {length} for {what}")]
    NegativeLength { what: &'static str, length: i64 },
    /// A string length above what Kafka allows.
    #[error("length {length} of {what} exceeds the maximum {max}")]
    LengthTooLong {
        what: &'static str,
        length: usize,
        max: usize,
    },
    /// An array count that the remaining bytes cannot possibly hold.
    #[error("{what} declares {count} elements but only {remaining} bytes remain")]
    TooManyElements {
        what: &'static str,
        count: usize,
        remaining: usize,
    },
    /// Decoding would allocate more element storage than the reader's memory budget allows
    /// (see [`Reader::with_memory_budget`](super::Reader::with_memory_budget)).
    #[error("{what} needs {needed} more bytes of memory, more than the {left} left of the decoding budget")]
    MemoryBudgetExceeded {
        what: &'static str,
        needed: usize,
        left: usize,
    },
    /// A varint longer than its type allows.
    #[error("varint overflow reading {what}")]
    VarintOverflow { what: &'static str },
    /// The message was complete but bytes were left over.
    #[error("{remaining} trailing bytes after {message}")]
    TrailingBytes {
        message: &'static str,
        remaining: usize,
    },
    /// Structures nested deeper than [`crate::wire::MAX_DEPTH`].
    #[error("nesting deeper than {max} levels at {what}")]
    NestingTooDeep { what: &'static str, max: u8 },
    /// A null where the schema does not allow one at this version.
    #[error("null is not allowed for {what} at version {version}")]
    NullNotAllowed { what: &'static str, version: i16 },
    /// The message is not defined at this version.
    #[error("{message} has no version {version}")]
    UnsupportedVersion { message: &'static str, version: i16 },
    /// A header version other than those Kafka defines (request 0-2, response 0-1).
    #[error("unknown header version {version}")]
    UnknownHeaderVersion { version: i16 },
    /// A request for an API kacl does not serve.
    #[error("unknown API key {api_key}")]
    UnknownApiKey { api_key: i16 },
}

/// Why a value could not be encoded at the requested version.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[allow(missing_docs)] // variant fields are named for what they hold
pub enum EncodeError {
    /// A `None` in a field that is not nullable at this version.
    #[error("null is not allowed for {what} at version {version}")]
    NullNotAllowed { what: &'static str, version: i16 },
    /// A field that does not exist at this version holds a non-default value that Kafka would
    /// not silently drop (the field is not `ignorable`).
    #[error("{what} has a non-default value but does not exist at version {version}")]
    NonDefaultField { what: &'static str, version: i16 },
    /// A string, byte array, array or frame too long for its length prefix.
    #[error("{what} is {length} long, more than the maximum {max}")]
    TooLong {
        what: &'static str,
        length: usize,
        max: usize,
    },
    /// The message is not defined at this version.
    #[error("{message} has no version {version}")]
    UnsupportedVersion { message: &'static str, version: i16 },
    /// Unknown tagged fields were set on a struct encoded at a non-flexible version.
    #[error("{what} carries tagged fields but version {version} is not flexible")]
    TaggedFieldsUnsupported { what: &'static str, version: i16 },
    /// A reserved length prefix position no longer lies inside the buffer.
    #[error("length prefix at offset {at} lies outside the buffer")]
    LengthPrefixOutOfBounds { at: usize },
    /// A header version other than those Kafka defines (request 0-2, response 0-1).
    #[error("unknown header version {version}")]
    UnknownHeaderVersion { version: i16 },
    /// A message handed to a streaming encoder does not end with an empty array and an empty
    /// tagged section at this version.
    #[error("{message} v{version} cannot be encoded with a streamed array")]
    NotStreamable { message: &'static str, version: i16 },
    /// A streamed array wrote a different number of elements than its count said.
    #[error("{what} declared {declared} elements but wrote {written}")]
    ArrayCountMismatch {
        what: &'static str,
        declared: usize,
        written: usize,
    },
    /// An [`ExactWriter`](super::ExactWriter) was not filled exactly: the size computed before
    /// encoding disagreed with the bytes written (a bug in a size computation, never input).
    #[error("{what}: sized {expected} bytes but wrote {written}{}", if *overflowed { " and ran out of room" } else { "" })]
    SizeMismatch {
        what: &'static str,
        expected: usize,
        written: usize,
        overflowed: bool,
    },
}
