//! How a nullable nested struct is laid out: an `int8` marker, -1 for null or 1 for a present
//! struct, then the struct itself (Kafka's `"type": "SomeStruct", "nullableVersions": ...`,
//! e.g. ConsumerGroupHeartbeat's assignment). As in Kafka's readers, any negative marker reads as
//! null and any other as present.

use super::{null_allowed_on_decode, null_allowed_on_encode, Cx, Field, Struct};
use crate::codec::{DecodeError, EncodeError, Reader, Sink};

impl<'a, T: Struct<'a> + Field<'a>> Field<'a> for Option<T> {
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        if r.read_i8(what)? < 0 {
            return null_allowed_on_decode(cx, what).map(|()| None);
        }
        T::decode_field(r, cx.with_nullable(false), what).map(Some)
    }
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        match self {
            Some(value) => {
                out.put_u8(1);
                value.encode_field(out, cx.with_nullable(false), what)
            }
            None => {
                null_allowed_on_encode(cx, what)?;
                out.put_u8(0xff);
                Ok(())
            }
        }
    }
    fn field_len(&self, cx: Cx) -> usize {
        1 + self
            .as_ref()
            .map_or(0, |value| value.field_len(cx.with_nullable(false)))
    }
}

#[cfg(test)]
mod tests {
    use crate::wire::Message;

    kafka_message! {
        /// A message with a nullable struct field, as ConsumerGroupHeartbeat's response has.
        pub(super) struct NullableStructTest<'a> {
            api_key: ConsumerGroupHeartbeat, versions: 0-1, flexible: 1+;
            /// Nullable from v1 only.
            inner: Option<Inner<'a>> [versions 0+, nullable 1+],
        }
        pub(super) struct Inner<'a> {
            value: i32 [versions 0+],
        }
    }

    fn inner(value: i32) -> Option<Inner<'static>> {
        Some(Inner {
            value,
            ..Inner::default()
        })
    }

    #[test]
    fn null_is_minus_one_and_present_is_one_then_the_struct() {
        let null = NullableStructTest::default();
        assert_eq!(null.to_bytes(1).unwrap(), [0xff, 0]);
        let present = NullableStructTest {
            inner: inner(7),
            ..NullableStructTest::default()
        };
        assert_eq!(present.to_bytes(1).unwrap(), [1, 0, 0, 0, 7, 0, 0]);
        assert_eq!(present.to_bytes(0).unwrap(), [1, 0, 0, 0, 7]);
        for (bytes, version) in [(&[0xff, 0][..], 1), (&[1, 0, 0, 0, 7, 0, 0], 1)] {
            let decoded = NullableStructTest::decode_exact(bytes, version).unwrap();
            assert_eq!(decoded.to_bytes(version).unwrap(), bytes);
        }
        // Any negative marker is null, any other present, as in Kafka's readers.
        let decoded = NullableStructTest::decode_exact(&[0x80, 0], 1).unwrap();
        assert_eq!(decoded.inner, None);
        let decoded = NullableStructTest::decode_exact(&[0, 0, 0, 0, 7, 0, 0], 1).unwrap();
        assert_eq!(decoded.inner, inner(7));
    }

    #[test]
    fn null_is_refused_where_the_schema_does_not_allow_it() {
        assert!(NullableStructTest::default().to_bytes(0).is_err());
        assert!(NullableStructTest::decode_exact(&[0xff], 0).is_err());
    }
}
