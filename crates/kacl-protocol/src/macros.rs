//! The declaration macro: each Kafka message is written down once, in Kafka's field order, and
//! the struct, its `Default`, decoder, encoder and exact size are derived from that.
//!
//! # Syntax
//!
//! ```ignore
//! kafka_message! {
//!     /// DescribeAcls request: one filter over the ACL set.
//!     pub struct DescribeAclsRequest<'a> {
//!         api_key: DescribeAcls, versions: 0-3, flexible: 2+;
//!         /// The resource type.
//!         resource_type_filter: i8 [versions 0+],
//!         resource_name_filter: Option<Cow<'a, str>> [versions 0+, nullable 0+],
//!         pattern_type_filter: i8 [versions 1+, default 3],
//!         // ...
//!     }
//!     // Nested structs follow, declared the same way minus the header line:
//!     // pub struct AclDescription<'a> { principal: Cow<'a, str> [versions 0+], ... }
//! }
//! ```
//!
//! The header line names the [`ApiKey`](crate::ApiKey) variant, the versions the declaration
//! covers (`lo-hi`) and the first flexible version (`N+`, or `none`). Each field is
//! `name: RustType [spec]`, where `spec` lists, in this order:
//!
//! - `versions N+` or `versions N-M` (required): versions in which the field exists;
//! - `nullable N+` / `nullable N-M`: versions in which it may be null (type must be `Option`);
//! - `tag T`: a tagged field with tag number `T`, written only when not default;
//! - `ignorable`: a non-default value may be dropped silently at versions without the field;
//! - `default EXPR`: the value when absent (otherwise `Default::default()`).
//!
//! Every generated struct has a lifetime `'a` (strings and bytes borrow from the frame), the
//! declared fields as `pub` fields, and `unknown_tagged_fields`, which preserves tags the schema
//! does not know. It derives `Debug, Clone, PartialEq` and implements `Default`,
//! [`Struct`](crate::wire::Struct), [`Field`](crate::wire::Field) and
//! [`IntoStatic`](crate::wire::IntoStatic); the first struct also implements
//! [`Message`](crate::Message).

/// Declares a message body and its nested structs; see the [module docs](crate::macros).
#[macro_export]
macro_rules! kafka_message {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident<'a> {
            api_key: $api:ident, versions: $vlo:literal - $vhi:literal, flexible: none;
            $($body:tt)*
        }
        $($nested:tt)*
    ) => {
        $crate::kafka_message!(@message [$(#[$meta])*] $vis $Name $api $vlo $vhi
            ($crate::wire::VersionRange::NONE) { $($body)* } $($nested)*);
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident<'a> {
            api_key: $api:ident, versions: $vlo:literal - $vhi:literal, flexible: $flo:literal +;
            $($body:tt)*
        }
        $($nested:tt)*
    ) => {
        $crate::kafka_message!(@message [$(#[$meta])*] $vis $Name $api $vlo $vhi
            ($crate::wire::VersionRange::starting_at($flo)) { $($body)* } $($nested)*);
    };
    (@message [$($meta:tt)*] $vis:vis $Name:ident $api:ident $vlo:literal $vhi:literal
        ($flexible:expr) { $($body:tt)* }
        $(
            $(#[$nmeta:meta])*
            $nvis:vis struct $Nested:ident<'a> { $($nbody:tt)* }
        )*
    ) => {
        $crate::kafka_struct! { $($meta)* $vis struct $Name<'a> { $($body)* } }
        $( $crate::kafka_struct! { $(#[$nmeta])* $nvis struct $Nested<'a> { $($nbody)* } } )*

        impl<'a> $crate::wire::Message<'a> for $Name<'a> {
            const API_KEY: $crate::ApiKey = $crate::ApiKey::$api;
            const VERSIONS: $crate::wire::VersionRange =
                $crate::wire::VersionRange::between($vlo, $vhi);
            const FLEXIBLE: $crate::wire::VersionRange = $flexible;
        }
    };
}

/// Declares one struct (used by [`kafka_message!`] for the body and each nested struct).
#[macro_export]
macro_rules! kafka_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident<'a> {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty [ $($spec:tt)* ]
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $Name<'a> {
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// Tagged fields this declaration does not know, kept verbatim in wire order.
            pub unknown_tagged_fields: $crate::wire::TaggedFields<'a>,
        }

        impl<'a> ::core::default::Default for $Name<'a> {
            fn default() -> Self {
                Self {
                    $( $field: $crate::__kacl_default!($ty; $($spec)*), )*
                    unknown_tagged_fields: $crate::wire::TaggedFields::new(),
                }
            }
        }

        impl<'a> $crate::wire::IntoStatic for $Name<'a> {
            type Static = $Name<'static>;
            fn into_static(self) -> $Name<'static> {
                $Name {
                    $( $field: $crate::wire::IntoStatic::into_static(self.$field), )*
                    unknown_tagged_fields:
                        $crate::wire::IntoStatic::into_static(self.unknown_tagged_fields),
                }
            }
        }

        impl<'a> $crate::wire::Field<'a> for $Name<'a> {
            #[inline]
            fn decode_field(
                r: &mut $crate::codec::Reader<'a>,
                cx: $crate::wire::Cx,
                what: &'static str,
            ) -> ::core::result::Result<Self, $crate::codec::DecodeError> {
                <Self as $crate::wire::Struct<'a>>::decode_body(r, cx.nested(what)?)
            }
            #[inline]
            fn decode_into(
                slot: &mut Self,
                r: &mut $crate::codec::Reader<'a>,
                cx: $crate::wire::Cx,
                what: &'static str,
            ) -> ::core::result::Result<(), $crate::codec::DecodeError> {
                <Self as $crate::wire::Struct<'a>>::decode_in_place(slot, r, cx.nested(what)?)
            }
            #[inline]
            fn encode_field(
                &self,
                out: &mut impl $crate::codec::Sink,
                cx: $crate::wire::Cx,
                _what: &'static str,
            ) -> ::core::result::Result<(), $crate::codec::EncodeError> {
                <Self as $crate::wire::Struct<'a>>::encode_body(self, out, cx)
            }
            #[inline]
            fn field_len(&self, cx: $crate::wire::Cx) -> usize {
                <Self as $crate::wire::Struct<'a>>::body_len(self, cx)
            }
        }

        #[allow(clippy::nonminimal_bool, clippy::absurd_extreme_comparisons, unused_comparisons)]
        impl<'a> $crate::wire::Struct<'a> for $Name<'a> {
            const NAME: &'static str = stringify!($Name);

            #[inline]
            fn decode_in_place(
                &mut self,
                r: &mut $crate::codec::Reader<'a>,
                cx: $crate::wire::Cx,
            ) -> ::core::result::Result<(), $crate::codec::DecodeError> {
                use $crate::wire::{Field as _, FieldSpec};
                let version = cx.version;
                $( {
                    const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                    if SPEC.tag.is_none() && SPEC.versions.contains(version) {
                        <$ty>::decode_into(
                            &mut self.$field,
                            r,
                            cx.with_nullable(SPEC.nullable.contains(version)),
                            concat!(stringify!($Name), ".", stringify!($field)),
                        )?;
                    }
                } )*
                if cx.flexible {
                    const WHAT: &str = concat!(stringify!($Name), " tagged fields");
                    let count = r.read_uvarint(WHAT)?;
                    for _ in 0..count {
                        let tag = r.read_uvarint(WHAT)?;
                        let size = r.read_uvarint(WHAT)? as usize;
                        let data = r.take(size, WHAT)?;
                        let mut known = false;
                        $( {
                            const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                            const WHAT: &str = concat!(stringify!($Name), ".", stringify!($field));
                            if SPEC.tag == Some(tag) && SPEC.versions.contains(version) {
                                let mut sub = r.sub_reader(data);
                                self.$field = <$ty>::decode_field(
                                    &mut sub,
                                    cx.with_nullable(SPEC.nullable.contains(version)),
                                    WHAT,
                                )?;
                                sub.expect_end(WHAT)?;
                                r.settle(&sub);
                                known = true;
                            }
                        } )*
                        if !known {
                            r.charge(WHAT, ::core::mem::size_of::<$crate::wire::RawTaggedField<'_>>())?;
                            self.unknown_tagged_fields.push($crate::wire::RawTaggedField {
                                tag,
                                data: ::std::borrow::Cow::Borrowed(data),
                            });
                        }
                    }
                }
                Ok(())
            }

            #[inline]
            fn encode_body(
                &self,
                out: &mut impl $crate::codec::Sink,
                cx: $crate::wire::Cx,
            ) -> ::core::result::Result<(), $crate::codec::EncodeError> {
                use $crate::wire::{Field as _, FieldSpec};
                let version = cx.version;
                $( {
                    const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                    const WHAT: &str = concat!(stringify!($Name), ".", stringify!($field));
                    let present = SPEC.versions.contains(version) && (SPEC.tag.is_none() || cx.flexible);
                    if SPEC.tag.is_none() && present {
                        self.$field.encode_field(
                            out,
                            cx.with_nullable(SPEC.nullable.contains(version)),
                            WHAT,
                        )?;
                    } else if !present
                        && !SPEC.ignorable
                        && self.$field != $crate::__kacl_default!($ty; $($spec)*)
                    {
                        return Err($crate::codec::EncodeError::NonDefaultField {
                            what: WHAT,
                            version,
                        });
                    }
                } )*
                if !cx.flexible {
                    if !self.unknown_tagged_fields.is_empty() {
                        return Err($crate::codec::EncodeError::TaggedFieldsUnsupported {
                            what: stringify!($Name),
                            version,
                        });
                    }
                    return Ok(());
                }
                #[allow(unused_mut)]
                let mut count = self.unknown_tagged_fields.len();
                $( {
                    const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                    if SPEC.tag.is_some()
                        && SPEC.versions.contains(version)
                        && self.$field != $crate::__kacl_default!($ty; $($spec)*)
                    {
                        count += 1;
                    }
                } )*
                $crate::codec::put_uvarint(out, count as u32);
                #[allow(unused_mut)]
                let mut unknown = self.unknown_tagged_fields.iter().peekable();
                $( {
                    const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                    const WHAT: &str = concat!(stringify!($Name), ".", stringify!($field));
                    if let Some(tag) = SPEC.tag {
                        if SPEC.versions.contains(version)
                            && self.$field != $crate::__kacl_default!($ty; $($spec)*)
                        {
                            while let Some(raw) = unknown.next_if(|raw| raw.tag < tag) {
                                raw.encode(out);
                            }
                            let fcx = cx.with_nullable(SPEC.nullable.contains(version));
                            $crate::codec::put_uvarint(out, tag);
                            $crate::codec::put_uvarint(out, self.$field.field_len(fcx) as u32);
                            self.$field.encode_field(out, fcx, WHAT)?;
                        }
                    }
                } )*
                for raw in unknown {
                    raw.encode(out);
                }
                Ok(())
            }

            fn has_tagged_fields(&self, cx: $crate::wire::Cx) -> bool {
                use $crate::wire::FieldSpec;
                if !cx.flexible {
                    return false;
                }
                if !self.unknown_tagged_fields.is_empty() {
                    return true;
                }
                let version = cx.version;
                $( {
                    const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                    if SPEC.tag.is_some()
                        && SPEC.versions.contains(version)
                        && self.$field != $crate::__kacl_default!($ty; $($spec)*)
                    {
                        return true;
                    }
                } )*
                false
            }

            #[inline]
            fn body_len(&self, cx: $crate::wire::Cx) -> usize {
                use $crate::wire::{Field as _, FieldSpec};
                let version = cx.version;
                let mut len = 0;
                $( {
                    const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                    if SPEC.tag.is_none() && SPEC.versions.contains(version) {
                        len += self.$field
                            .field_len(cx.with_nullable(SPEC.nullable.contains(version)));
                    }
                } )*
                if cx.flexible {
                    #[allow(unused_mut)]
                    let mut count = self.unknown_tagged_fields.len();
                    $( {
                        const SPEC: FieldSpec = $crate::__kacl_spec!($($spec)*);
                        if let Some(tag) = SPEC.tag {
                            if SPEC.versions.contains(version)
                                && self.$field != $crate::__kacl_default!($ty; $($spec)*)
                            {
                                let size = self.$field
                                    .field_len(cx.with_nullable(SPEC.nullable.contains(version)));
                                count += 1;
                                len += $crate::codec::uvarint_len(tag)
                                    + $crate::codec::uvarint_len(size as u32)
                                    + size;
                            }
                        }
                    } )*
                    len += self.unknown_tagged_fields.iter().map(|raw| raw.encoded_len()).sum::<usize>();
                    len += $crate::codec::uvarint_len(count as u32);
                }
                len
            }
        }
    };
}

/// Turns a field spec (`versions 1+, nullable 0+, tag 2, ignorable, default 3`) into a
/// [`FieldSpec`](crate::wire::FieldSpec) constant expression.
#[doc(hidden)]
#[macro_export]
macro_rules! __kacl_spec {
    (@acc $acc:expr;) => { $acc };
    (@acc $acc:expr; , $($rest:tt)*) => { $crate::__kacl_spec!(@acc $acc; $($rest)*) };
    (@acc $acc:expr; versions $lo:literal + $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec {
            versions: $crate::wire::VersionRange::starting_at($lo), ..$acc
        }; $($rest)*)
    };
    (@acc $acc:expr; versions $lo:literal - $hi:literal $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec {
            versions: $crate::wire::VersionRange::between($lo, $hi), ..$acc
        }; $($rest)*)
    };
    (@acc $acc:expr; nullable $lo:literal + $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec {
            nullable: $crate::wire::VersionRange::starting_at($lo), ..$acc
        }; $($rest)*)
    };
    (@acc $acc:expr; nullable $lo:literal - $hi:literal $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec {
            nullable: $crate::wire::VersionRange::between($lo, $hi), ..$acc
        }; $($rest)*)
    };
    (@acc $acc:expr; tag $tag:literal $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec { tag: Some($tag), ..$acc }; $($rest)*)
    };
    (@acc $acc:expr; ignorable $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec { ignorable: true, ..$acc }; $($rest)*)
    };
    (@acc $acc:expr; default $def:expr) => { $acc };
    (@acc $acc:expr; default $def:expr, $($rest:tt)*) => {
        $crate::__kacl_spec!(@acc $acc; $($rest)*)
    };
    (@acc $acc:expr; $($other:tt)*) => {
        compile_error!(concat!("unrecognised field spec: ", stringify!($($other)*)))
    };
    (versions $($spec:tt)*) => {
        $crate::__kacl_spec!(@acc $crate::wire::FieldSpec::DEFAULT; versions $($spec)*)
    };
    ($($other:tt)*) => {
        compile_error!(concat!("a field spec must start with `versions`: ", stringify!($($other)*)))
    };
}

/// The default value of a field: its `default EXPR` if the spec has one, else
/// `Default::default()` of its type.
#[doc(hidden)]
#[macro_export]
macro_rules! __kacl_default {
    ($ty:ty;) => { <$ty as ::core::default::Default>::default() };
    ($ty:ty; default $def:expr $(, $($rest:tt)*)?) => { $def };
    ($ty:ty; $skip:tt $($rest:tt)*) => { $crate::__kacl_default!($ty; $($rest)*) };
}
