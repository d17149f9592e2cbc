//! Request and response headers, and the versions each API uses.
//!
//! Request header v0 is `api_key, api_version, correlation_id`; v1 adds `client_id`, a nullable
//! string that stays in the classic int16-length form even in v2 (Kafka keeps it non-flexible so
//! any broker can read it); v2 adds a tagged-field section. Response header v0 is the
//! correlation id; v1 adds a tagged-field section.

use std::borrow::Cow;

use crate::api_key::ApiKey;
use crate::codec::{
    put_nullable_str, put_uvarint, uvarint_len, DecodeError, EncodeError, Reader, Sink,
};
use crate::wire::{IntoStatic, RawTaggedField};

/// The first eight bytes of every request header, readable even when the rest is garbage, so
/// the server can answer (or log) with the right correlation id before giving up on a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestPrefix {
    /// The API key as sent (it may be one kacl does not know).
    pub request_api_key: i16,
    /// The API version as sent. Kafka's header field name, used for the request's version
    /// wherever the header is read; a handler's context and a parsed frame call it `version`.
    pub request_api_version: i16,
    /// The correlation id to echo.
    pub correlation_id: i32,
}

impl RequestPrefix {
    /// Reads the prefix from the start of a frame payload (after the size).
    pub fn peek(payload: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(payload);
        Ok(Self {
            request_api_key: r.read_i16("RequestHeader.request_api_key")?,
            request_api_version: r.read_i16("RequestHeader.request_api_version")?,
            correlation_id: r.read_i32("RequestHeader.correlation_id")?,
        })
    }

    /// The known API, if kacl serves this key.
    pub fn api(&self) -> Option<ApiKey> {
        ApiKey::from_i16(self.request_api_key)
    }
}

/// A request header (v0, v1 or v2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestHeader<'a> {
    /// The API being invoked.
    pub request_api_key: i16,
    /// The version of the API being invoked.
    pub request_api_version: i16,
    /// Echoed in the response so the client can match it.
    pub correlation_id: i32,
    /// The client's id (v1+); null is allowed.
    pub client_id: Option<Cow<'a, str>>,
    /// Header tagged fields (v2+), kept verbatim.
    pub unknown_tagged_fields: Vec<RawTaggedField<'a>>,
}

impl<'a> RequestHeader<'a> {
    /// Reads a header of `header_version` (0, 1 or 2).
    pub fn decode(r: &mut Reader<'a>, header_version: i16) -> Result<Self, DecodeError> {
        if !(0..=2).contains(&header_version) {
            return Err(DecodeError::UnknownHeaderVersion {
                version: header_version,
            });
        }
        let mut header = RequestHeader {
            request_api_key: r.read_i16("RequestHeader.request_api_key")?,
            request_api_version: r.read_i16("RequestHeader.request_api_version")?,
            correlation_id: r.read_i32("RequestHeader.correlation_id")?,
            ..Default::default()
        };
        if header_version >= 1 {
            header.client_id = r
                .read_nullable_str("RequestHeader.client_id", false)?
                .map(Cow::Borrowed);
        }
        if header_version >= 2 {
            header.unknown_tagged_fields = decode_raw_tagged_fields(r, "RequestHeader")?;
        }
        Ok(header)
    }

    /// Reads the header of a request frame payload, choosing its version from the API key and
    /// version it starts with. Fails with [`DecodeError::UnknownApiKey`] for an API kacl does
    /// not serve (Kafka closes the connection in that case).
    pub fn decode_auto(r: &mut Reader<'a>) -> Result<(ApiKey, Self), DecodeError> {
        let prefix = RequestPrefix::peek(r.rest())?;
        let api = prefix.api().ok_or(DecodeError::UnknownApiKey {
            api_key: prefix.request_api_key,
        })?;
        let header = Self::decode(r, api.request_header_version(prefix.request_api_version))?;
        Ok((api, header))
    }

    /// Appends the header at `header_version`.
    pub fn encode(&self, out: &mut impl Sink, header_version: i16) -> Result<(), EncodeError> {
        if !(0..=2).contains(&header_version) {
            return Err(EncodeError::UnknownHeaderVersion {
                version: header_version,
            });
        }
        out.put_array(self.request_api_key.to_be_bytes());
        out.put_array(self.request_api_version.to_be_bytes());
        out.put_array(self.correlation_id.to_be_bytes());
        if header_version >= 1 {
            put_nullable_str(
                out,
                "RequestHeader.client_id",
                self.client_id.as_deref(),
                false,
            )?;
        }
        if header_version >= 2 {
            encode_raw_tagged_fields(out, &self.unknown_tagged_fields);
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::TaggedFieldsUnsupported {
                what: "RequestHeader",
                version: header_version,
            });
        }
        Ok(())
    }

    /// Exactly how many bytes [`RequestHeader::encode`] appends.
    pub fn encoded_len(&self, header_version: i16) -> usize {
        let mut len = 8;
        if header_version >= 1 {
            len += 2 + self.client_id.as_ref().map_or(0, |s| s.len());
        }
        if header_version >= 2 {
            len += raw_tagged_fields_len(&self.unknown_tagged_fields);
        }
        len
    }
}

impl IntoStatic for RequestHeader<'_> {
    type Static = RequestHeader<'static>;
    fn into_static(self) -> RequestHeader<'static> {
        RequestHeader {
            request_api_key: self.request_api_key,
            request_api_version: self.request_api_version,
            correlation_id: self.correlation_id,
            client_id: self.client_id.into_static(),
            unknown_tagged_fields: self.unknown_tagged_fields.into_static(),
        }
    }
}

/// A response header (v0 or v1).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResponseHeader<'a> {
    /// The correlation id of the request this answers.
    pub correlation_id: i32,
    /// Header tagged fields (v1+), kept verbatim.
    pub unknown_tagged_fields: Vec<RawTaggedField<'a>>,
}

impl<'a> ResponseHeader<'a> {
    /// A header carrying only a correlation id.
    pub fn new(correlation_id: i32) -> Self {
        Self {
            correlation_id,
            unknown_tagged_fields: Vec::new(),
        }
    }

    /// Reads a header of `header_version` (0 or 1).
    pub fn decode(r: &mut Reader<'a>, header_version: i16) -> Result<Self, DecodeError> {
        if !(0..=1).contains(&header_version) {
            return Err(DecodeError::UnknownHeaderVersion {
                version: header_version,
            });
        }
        let correlation_id = r.read_i32("ResponseHeader.correlation_id")?;
        let unknown_tagged_fields = if header_version >= 1 {
            decode_raw_tagged_fields(r, "ResponseHeader")?
        } else {
            Vec::new()
        };
        Ok(Self {
            correlation_id,
            unknown_tagged_fields,
        })
    }

    /// Appends the header at `header_version`.
    pub fn encode(&self, out: &mut impl Sink, header_version: i16) -> Result<(), EncodeError> {
        if !(0..=1).contains(&header_version) {
            return Err(EncodeError::UnknownHeaderVersion {
                version: header_version,
            });
        }
        out.put_array(self.correlation_id.to_be_bytes());
        if header_version >= 1 {
            encode_raw_tagged_fields(out, &self.unknown_tagged_fields);
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::TaggedFieldsUnsupported {
                what: "ResponseHeader",
                version: header_version,
            });
        }
        Ok(())
    }

    /// Exactly how many bytes [`ResponseHeader::encode`] appends.
    pub fn encoded_len(&self, header_version: i16) -> usize {
        4 + if header_version >= 1 {
            raw_tagged_fields_len(&self.unknown_tagged_fields)
        } else {
            0
        }
    }
}

/// Reads a tagged-field section whose tags are all unknown (headers define none).
fn decode_raw_tagged_fields<'a>(
    r: &mut Reader<'a>,
    what: &'static str,
) -> Result<Vec<RawTaggedField<'a>>, DecodeError> {
    let count = r.read_uvarint(what)?;
    let mut fields = Vec::new();
    for _ in 0..count {
        let tag = r.read_uvarint(what)?;
        let size = r.read_uvarint(what)? as usize;
        let data = r.take(size, what)?;
        r.charge(what, std::mem::size_of::<RawTaggedField<'_>>())?;
        fields.push(RawTaggedField {
            tag,
            data: Cow::Borrowed(data),
        });
    }
    Ok(fields)
}

fn encode_raw_tagged_fields(out: &mut impl Sink, fields: &[RawTaggedField<'_>]) {
    put_uvarint(out, fields.len() as u32);
    for field in fields {
        field.encode(out);
    }
}

fn raw_tagged_fields_len(fields: &[RawTaggedField<'_>]) -> usize {
    uvarint_len(fields.len() as u32)
        + fields
            .iter()
            .map(RawTaggedField::encoded_len)
            .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_header_v2_keeps_client_id_non_compact() {
        let header = RequestHeader {
            request_api_key: 29,
            request_api_version: 3,
            correlation_id: 7,
            client_id: Some("ab".into()),
            unknown_tagged_fields: Vec::new(),
        };
        let mut out = Vec::new();
        header.encode(&mut out, 2).unwrap();
        assert_eq!(out, [0, 29, 0, 3, 0, 0, 0, 7, 0, 2, b'a', b'b', 0]);
        assert_eq!(header.encoded_len(2), out.len());
        let mut r = Reader::new(&out);
        assert_eq!(RequestHeader::decode(&mut r, 2).unwrap(), header);
        assert!(r.is_empty());
    }

    #[test]
    fn request_header_versions_differ_as_kafka_says() {
        let header = RequestHeader {
            client_id: None,
            correlation_id: -2,
            ..Default::default()
        };
        for (version, len) in [(0, 8), (1, 10), (2, 11)] {
            let mut out = Vec::new();
            header.encode(&mut out, version).unwrap();
            assert_eq!(out.len(), len, "header v{version}");
            assert_eq!(header.encoded_len(version), len);
            let mut r = Reader::new(&out);
            assert_eq!(RequestHeader::decode(&mut r, version).unwrap(), header);
        }
    }

    #[test]
    fn prefix_is_readable_despite_garbage_after_it() {
        let frame = [0, 18, 0, 9, 0, 0, 1, 0, 0xff, 0xff, 0xff];
        let prefix = RequestPrefix::peek(&frame).unwrap();
        assert_eq!(
            prefix,
            RequestPrefix {
                request_api_key: 18,
                request_api_version: 9,
                correlation_id: 256
            }
        );
        assert_eq!(prefix.api(), Some(ApiKey::ApiVersions));
        assert!(RequestPrefix::peek(&frame[..7]).is_err());
    }

    #[test]
    fn decode_auto_picks_the_header_version_from_the_api() {
        // ApiVersions v3: header v2 (tagged section present).
        let frame = [0, 18, 0, 3, 0, 0, 0, 1, 0xff, 0xff, 0];
        let mut r = Reader::new(&frame);
        let (api, header) = RequestHeader::decode_auto(&mut r).unwrap();
        assert_eq!(api, ApiKey::ApiVersions);
        assert_eq!(header.client_id, None);
        assert!(r.is_empty());
        let unknown = [0, 99, 0, 0, 0, 0, 0, 1];
        let err = RequestHeader::decode_auto(&mut Reader::new(&unknown)).unwrap_err();
        assert_eq!(err, DecodeError::UnknownApiKey { api_key: 99 });
    }

    #[test]
    fn response_header_v1_has_a_tag_section() {
        let mut out = Vec::new();
        ResponseHeader::new(5).encode(&mut out, 1).unwrap();
        assert_eq!(out, [0, 0, 0, 5, 0]);
        out.clear();
        ResponseHeader::new(5).encode(&mut out, 0).unwrap();
        assert_eq!(out, [0, 0, 0, 5]);
    }
}
