//! The glue between the primitive codec and declared messages: the [`Field`] trait that knows
//! how each Rust field type is laid out on the wire at a given version, the [`Struct`] and
//! [`Message`] traits the declaration macro implements, and the per-field [`FieldSpec`].
//!
//! Type mapping (Kafka schema type → Rust field type):
//!
//! | Kafka                         | Rust                                  |
//! |-------------------------------|---------------------------------------|
//! | `int8/16/32/64`, `uint16/32`  | `i8`/`i16`/`i32`/`i64`, `u16`/`u32`   |
//! | `bool`, `float64`, `uuid`     | `bool`, `f64`, [`Uuid`]               |
//! | `string`                      | `Cow<'a, str>`                        |
//! | `string`, nullable            | `Option<Cow<'a, str>>`                |
//! | `bytes` (nullable)            | `Cow<'a, [u8]>` (`Option<..>`)        |
//! | `[]T` (nullable)              | `Vec<T>` (`Option<Vec<T>>`)           |
//! | `[]T`, usually one element    | [`SmallArray<T>`]                     |
//! | nested struct                 | the declared struct, e.g. `Foo<'a>`   |
//! | nested struct, nullable       | `Option<Foo<'a>>`                     |
//!
//! Decoding borrows strings and bytes from the frame (`Cow::Borrowed`); encoders accept either
//! borrowed or owned values, so a server can answer with strings borrowed from its own state.
//! Classic vs compact encoding is chosen at run time from [`Cx::flexible`], nullability from
//! [`Cx::nullable`], both derived by the generated code from the declaration and the version.

use std::borrow::Cow;

use crate::api_key::ApiKey;
use crate::codec::{
    length_prefix_len, put_nullable_bytes, put_nullable_str, put_uvarint, uvarint_len, DecodeError,
    EncodeError, ExactWriter, Reader, Sink, Uuid, VecWriter,
};
pub use crate::tagged_fields::TaggedFields;
pub use crate::version_range::VersionRange;

pub use crate::small_array::SmallArray;

mod arrays;
pub use arrays::array_field_len;
mod nullable_struct;

/// Deepest nesting of structs a decoder follows. Kafka's schemas nest at most four levels; the
/// bound keeps any future recursive schema from turning into unbounded recursion.
pub const MAX_DEPTH: u8 = 16;

/// What a declaration says about one field, evaluated at compile time by the macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// Versions in which the field exists.
    pub versions: VersionRange,
    /// Versions in which the field may be null.
    pub nullable: VersionRange,
    /// `Some(tag)` for a tagged field, written in the tagged section of flexible versions.
    pub tag: Option<u32>,
    /// Whether a non-default value may be silently dropped when encoding a version without the
    /// field (Kafka's `"ignorable": true`); otherwise that is an [`EncodeError::NonDefaultField`].
    pub ignorable: bool,
}

impl FieldSpec {
    /// The starting point the macro refines: present nowhere, never nullable, untagged.
    pub const DEFAULT: FieldSpec = FieldSpec {
        versions: VersionRange::NONE,
        nullable: VersionRange::NONE,
        tag: None,
        ignorable: false,
    };
}

/// Encoding context threaded through every field: the version, whether it is flexible, whether
/// the field at hand may be null, and how deep in nested structs the decoder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cx {
    /// Message version being encoded or decoded.
    pub version: i16,
    /// Compact lengths and tagged fields (Kafka's flexible versions).
    pub flexible: bool,
    /// Whether null is allowed for the current field at this version.
    pub nullable: bool,
    /// Current struct nesting depth (top level = 0).
    pub depth: u8,
}

impl Cx {
    /// Context for the top-level struct of a message.
    #[inline]
    pub const fn top(version: i16, flexible: bool) -> Self {
        Self {
            version,
            flexible,
            nullable: false,
            depth: 0,
        }
    }

    /// The same context for a field whose nullability is `nullable`.
    #[inline]
    pub const fn with_nullable(self, nullable: bool) -> Self {
        Self { nullable, ..self }
    }

    /// The context one struct deeper, or [`DecodeError::NestingTooDeep`].
    #[inline]
    pub fn nested(self, what: &'static str) -> Result<Self, DecodeError> {
        if self.depth >= MAX_DEPTH {
            return Err(DecodeError::NestingTooDeep {
                what,
                max: MAX_DEPTH,
            });
        }
        Ok(Self {
            depth: self.depth + 1,
            nullable: false,
            ..self
        })
    }
}

/// A tagged field the schema does not know at this version, kept verbatim.
///
/// kacl preserves unknown tags rather than dropping them: a decode/encode round trip is then
/// lossless, and a client can see what a newer broker sent. Encoding writes them in ascending
/// tag order interleaved with the known tagged fields, as Kafka requires.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawTaggedField<'a> {
    /// The tag number.
    pub tag: u32,
    /// The field's encoded bytes, without tag and size.
    pub data: Cow<'a, [u8]>,
}

impl RawTaggedField<'_> {
    /// Appends tag, size and data.
    pub fn encode(&self, out: &mut impl Sink) {
        put_uvarint(out, self.tag);
        put_uvarint(out, self.data.len() as u32);
        out.put_slice(&self.data);
    }

    /// Size of what [`RawTaggedField::encode`] appends.
    pub fn encoded_len(&self) -> usize {
        uvarint_len(self.tag) + uvarint_len(self.data.len() as u32) + self.data.len()
    }
}

/// A Rust type that can be a message field: it knows its own wire layout for a context.
pub trait Field<'a>: Sized + Default {
    /// Reads the field; `what` is its `Struct.field` path, used in errors.
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError>;
    /// Reads the field into `slot`, which holds `Default::default()`. Structs override this to
    /// decode in place, which spares moving every decoded struct through the stack.
    #[inline]
    fn decode_into(
        slot: &mut Self,
        r: &mut Reader<'a>,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), DecodeError> {
        *slot = Self::decode_field(r, cx, what)?;
        Ok(())
    }
    /// Appends the field.
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError>;
    /// Exactly how many bytes [`Field::encode_field`] appends.
    fn field_len(&self, cx: Cx) -> usize;
}

/// A declared struct (a message body or one of its nested structs). Implemented by the macro.
pub trait Struct<'a>: Sized + Default {
    /// Kafka's name for the struct, e.g. `"DescribeAclsResource"`.
    const NAME: &'static str;
    /// Reads the fields of this struct, then its tagged section in flexible versions, into
    /// `self`, which must hold `Default::default()` (fields a version lacks are not touched).
    fn decode_in_place(&mut self, r: &mut Reader<'a>, cx: Cx) -> Result<(), DecodeError>;
    /// Reads a whole struct; see [`Struct::decode_in_place`].
    #[inline]
    fn decode_body(r: &mut Reader<'a>, cx: Cx) -> Result<Self, DecodeError> {
        let mut this = Self::default();
        this.decode_in_place(r, cx)?;
        Ok(this)
    }
    /// Appends the fields of this struct, then its tagged section in flexible versions.
    fn encode_body(&self, out: &mut impl Sink, cx: Cx) -> Result<(), EncodeError>;
    /// Exactly how many bytes [`Struct::encode_body`] appends.
    fn body_len(&self, cx: Cx) -> usize;
    /// Whether [`Struct::encode_body`] writes any tagged field (a known one set to a
    /// non-default value, or a kept unknown one); always false in non-flexible versions.
    fn has_tagged_fields(&self, cx: Cx) -> bool;
}

/// A top-level request or response body of one API.
pub trait Message<'a>: Struct<'a> {
    /// The API this body belongs to.
    const API_KEY: ApiKey;
    /// Versions the declaration covers.
    const VERSIONS: VersionRange;
    /// Versions using compact encoding and tagged fields.
    const FLEXIBLE: VersionRange;

    /// Decodes the body at `version`, leaving the reader after it.
    fn decode(r: &mut Reader<'a>, version: i16) -> Result<Self, DecodeError> {
        if !Self::VERSIONS.contains(version) {
            return Err(DecodeError::UnsupportedVersion {
                message: Self::NAME,
                version,
            });
        }
        Self::decode_body(r, Cx::top(version, Self::FLEXIBLE.contains(version)))
    }

    /// Decodes a body that must span all of `buf`; trailing bytes are an error.
    fn decode_exact(buf: &'a [u8], version: i16) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let message = Self::decode(&mut r, version)?;
        r.expect_end(Self::NAME)?;
        Ok(message)
    }

    /// Appends the body encoded at `version`.
    fn encode(&self, out: &mut impl Sink, version: i16) -> Result<(), EncodeError> {
        if !Self::VERSIONS.contains(version) {
            return Err(EncodeError::UnsupportedVersion {
                message: Self::NAME,
                version,
            });
        }
        let cx = Cx::top(version, Self::FLEXIBLE.contains(version));
        match out.growable() {
            Some(vec) => self.encode_body(&mut VecWriter::new(vec), cx),
            None => self.encode_body(out, cx),
        }
    }

    /// Exactly how many bytes [`Message::encode`] appends at `version` (0 if unsupported).
    fn encoded_len(&self, version: i16) -> usize {
        if !Self::VERSIONS.contains(version) {
            return 0;
        }
        self.body_len(Cx::top(version, Self::FLEXIBLE.contains(version)))
    }

    /// The body encoded at `version` in a buffer of exactly the right size, written through an
    /// [`ExactWriter`] (see [`crate::codec::Sink`] for why that is faster than a `Vec`).
    fn to_bytes(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        let mut out = vec![0; self.encoded_len(version)];
        let mut writer = ExactWriter::new(&mut out);
        self.encode(&mut writer, version)?;
        writer.finish(Self::NAME)?;
        Ok(out)
    }
}

/// Converts a value borrowing from a frame into one that owns its data, for keeping decoded
/// messages beyond the life of the receive buffer.
pub trait IntoStatic {
    /// The same type with every borrow replaced by an owned value.
    type Static: 'static;
    /// Performs the conversion, copying only borrowed strings and bytes.
    fn into_static(self) -> Self::Static;
}

/// Fields of a fixed width: `type => reader method, width, |value| its wire bytes`.
macro_rules! fixed_width_fields {
    ($($ty:ty => $read:ident, $len:expr, |$v:ident| $to_wire:expr;)*) => {$(
        impl<'a> Field<'a> for $ty {
            #[inline]
            fn decode_field(r: &mut Reader<'a>, _cx: Cx, what: &'static str)
                -> Result<Self, DecodeError> {
                r.$read(what)
            }
            #[inline]
            fn encode_field(&self, out: &mut impl Sink, _cx: Cx, _what: &'static str)
                -> Result<(), EncodeError> {
                let $v = *self;
                out.put_array($to_wire);
                Ok(())
            }
            #[inline]
            fn field_len(&self, _cx: Cx) -> usize {
                $len
            }
        }
        impl IntoStatic for $ty {
            type Static = $ty;
            #[inline]
            fn into_static(self) -> $ty {
                self
            }
        }
    )*};
}

fixed_width_fields! {
    i8 => read_i8, 1, |v| v.to_be_bytes();
    i16 => read_i16, 2, |v| v.to_be_bytes();
    i32 => read_i32, 4, |v| v.to_be_bytes();
    i64 => read_i64, 8, |v| v.to_be_bytes();
    u16 => read_u16, 2, |v| v.to_be_bytes();
    u32 => read_u32, 4, |v| v.to_be_bytes();
    f64 => read_f64, 8, |v| v.to_be_bytes();
    bool => read_bool, 1, |v| [u8::from(v)];
    Uuid => read_uuid, 16, |v| v.0;
}

#[cold]
#[inline(never)]
fn null_not_allowed(cx: Cx, what: &'static str) -> DecodeError {
    DecodeError::NullNotAllowed {
        what,
        version: cx.version,
    }
}

/// Fails unless null is allowed here; shared by every nullable type.
#[inline]
fn null_allowed_on_decode(cx: Cx, what: &'static str) -> Result<(), DecodeError> {
    if cx.nullable {
        Ok(())
    } else {
        Err(null_not_allowed(cx, what))
    }
}

#[inline]
fn null_allowed_on_encode(cx: Cx, what: &'static str) -> Result<(), EncodeError> {
    if cx.nullable {
        Ok(())
    } else {
        Err(EncodeError::NullNotAllowed {
            what,
            version: cx.version,
        })
    }
}

impl<'a> Field<'a> for Option<Cow<'a, str>> {
    #[inline]
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        match r.read_nullable_str(what, cx.flexible)? {
            Some(s) => Ok(Some(Cow::Borrowed(s))),
            None => null_allowed_on_decode(cx, what).map(|()| None),
        }
    }
    #[inline(always)]
    fn decode_into(
        slot: &mut Self,
        r: &mut Reader<'a>,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), DecodeError> {
        *slot = match r.read_nullable_str(what, cx.flexible)? {
            Some(s) => Some(Cow::Borrowed(s)),
            None => null_allowed_on_decode(cx, what).map(|()| None)?,
        };
        Ok(())
    }
    #[inline(always)]
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        if self.is_none() {
            null_allowed_on_encode(cx, what)?;
        }
        put_nullable_str(out, what, self.as_deref(), cx.flexible)
    }
    #[inline]
    fn field_len(&self, cx: Cx) -> usize {
        let len = self.as_ref().map(|s| s.len());
        length_prefix_len(len, cx.flexible, false) + len.unwrap_or(0)
    }
}

impl<'a> Field<'a> for Cow<'a, str> {
    #[inline]
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        match r.read_nullable_str(what, cx.flexible)? {
            Some(s) => Ok(Cow::Borrowed(s)),
            None => Err(null_not_allowed(cx, what)),
        }
    }
    #[inline(always)]
    fn decode_into(
        slot: &mut Self,
        r: &mut Reader<'a>,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), DecodeError> {
        // The hottest field of every ACL message: kept inline in the struct decoder.
        match r.read_nullable_str(what, cx.flexible)? {
            Some(s) => {
                *slot = Cow::Borrowed(s);
                Ok(())
            }
            None => Err(null_not_allowed(cx, what)),
        }
    }
    #[inline(always)]
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        crate::codec::put_str(out, what, self, cx.flexible)
    }
    #[inline]
    fn field_len(&self, cx: Cx) -> usize {
        length_prefix_len(Some(self.len()), cx.flexible, false) + self.len()
    }
}

impl<'a> Field<'a> for Option<Cow<'a, [u8]>> {
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        match r.read_nullable_bytes(what, cx.flexible)? {
            Some(b) => Ok(Some(Cow::Borrowed(b))),
            None => null_allowed_on_decode(cx, what).map(|()| None),
        }
    }
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        if self.is_none() {
            null_allowed_on_encode(cx, what)?;
        }
        put_nullable_bytes(out, what, self.as_deref(), cx.flexible)
    }
    fn field_len(&self, cx: Cx) -> usize {
        let len = self.as_ref().map(|b| b.len());
        length_prefix_len(len, cx.flexible, true) + len.unwrap_or(0)
    }
}

impl<'a> Field<'a> for Cow<'a, [u8]> {
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        match r.read_nullable_bytes(what, cx.flexible)? {
            Some(b) => Ok(Cow::Borrowed(b)),
            None => Err(DecodeError::NullNotAllowed {
                what,
                version: cx.version,
            }),
        }
    }
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        put_nullable_bytes(out, what, Some(self), cx.flexible)
    }
    fn field_len(&self, cx: Cx) -> usize {
        length_prefix_len(Some(self.len()), cx.flexible, true) + self.len()
    }
}

impl IntoStatic for Cow<'_, str> {
    type Static = Cow<'static, str>;
    fn into_static(self) -> Cow<'static, str> {
        Cow::Owned(self.into_owned())
    }
}

impl IntoStatic for Cow<'_, [u8]> {
    type Static = Cow<'static, [u8]>;
    fn into_static(self) -> Cow<'static, [u8]> {
        Cow::Owned(self.into_owned())
    }
}

impl<T: IntoStatic> IntoStatic for Option<T> {
    type Static = Option<T::Static>;
    fn into_static(self) -> Self::Static {
        self.map(IntoStatic::into_static)
    }
}

impl IntoStatic for RawTaggedField<'_> {
    type Static = RawTaggedField<'static>;
    fn into_static(self) -> RawTaggedField<'static> {
        RawTaggedField {
            tag: self.tag,
            data: self.data.into_static(),
        }
    }
}
