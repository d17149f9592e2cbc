//! Kafka wire codec: primitives, headers, framing, error codes and every message kacl serves,
//! declared once per message.
//!
//! - [`codec`]: the bounds-checked [`Reader`] and the `put_*` writers, [`DecodeError`] and
//!   [`EncodeError`].
//! - [`wire`]: the [`Field`](wire::Field), [`Struct`](wire::Struct) and [`Message`] traits that
//!   the [`kafka_message!`] declarations implement.
//! - [`header`], [`frame`]: request/response headers and size-prefixed frames.
//! - [`api_key`], [`error`]: the API table kacl serves and Kafka's error codes.
//! - [`messages`]: one module per API, each message declared once.
//! - [`small_array`]: [`SmallArray`], the one-element-inline array used for nested arrays that
//!   usually hold one element.
//!
//! Decoding a request on a server:
//!
//! ```
//! use kacl_protocol::frame::{split_frame, RequestFrame};
//! use kacl_protocol::messages::describe_acls::DescribeAclsRequest;
//! use kacl_protocol::ApiKey;
//!
//! let wire = [0, 0, 0, 19, 0, 29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0];
//! let (payload, consumed) = split_frame(&wire, 1 << 20).unwrap().unwrap();
//! assert_eq!(consumed, 23);
//! let request = RequestFrame::parse(payload).unwrap();
//! assert_eq!(request.api_key, ApiKey::DescribeAcls);
//! let body: DescribeAclsRequest = request.decode_body().unwrap();
//! assert_eq!(body.resource_name_filter.as_deref(), Some(""));
//! ```
// One `unsafe` block, measured to be needed: see `codec::reader::ascii_prefix`.
#![deny(unsafe_code)]

#[macro_use]
pub mod macros;

pub mod api_key;
pub mod codec;
pub mod error;
pub mod frame;
pub mod header;
pub mod messages;
pub mod small_array;
mod tagged_fields;
mod version_range;
pub mod wire;

pub use api_key::{ApiKey, ApiRole};
pub use codec::{DecodeError, EncodeError, Reader, Uuid};
pub use error::ErrorCode;
pub use frame::FrameError;
pub use header::{RequestHeader, RequestPrefix, ResponseHeader};
pub use version_range::VersionRange;
pub use wire::{IntoStatic, Message, SmallArray};
