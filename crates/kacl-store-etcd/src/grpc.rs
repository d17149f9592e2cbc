//! gRPC's framing over HTTP/2, as etcd speaks it: each message is a 5-byte prefix (a
//! compressed flag, a big-endian u32 length) and the protobuf bytes; the outcome is the
//! `grpc-status` (and percent-encoded `grpc-message`) of the trailers, or of the headers of a
//! trailers-only answer. Pure functions over bytes and header maps, so every hostile input is
//! unit-tested without a peer.

use bytes::{Buf, Bytes, BytesMut};
use http::HeaderMap;

/// The largest message accepted from etcd: a page of a range is bounded by its limit, a watch
/// message by etcd's own limits; this only stops a hostile peer from making kacl allocate
/// without bound.
pub(crate) const MAX_MESSAGE: usize = 512 << 20;

/// A framing or status failure, before it becomes an [`crate::EtcdError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GrpcError {
    /// The peer broke the framing or answered something that is not gRPC.
    #[error("{0}")]
    Protocol(String),
    /// A gRPC status other than OK.
    #[error("{message} (gRPC code {code})")]
    Status { code: i64, message: String },
}

/// One message, framed.
#[cfg(test)]
pub(crate) fn frame(message: &[u8]) -> Bytes {
    let mut framed = BytesMut::with_capacity(5 + message.len());
    framed.extend_from_slice(&[0]);
    framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
    framed.extend_from_slice(message);
    framed.freeze()
}

/// One protobuf message, encoded straight into its frame (no second copy).
pub(crate) fn frame_message(message: &impl prost::Message) -> Bytes {
    let len = message.encoded_len();
    let mut framed = BytesMut::with_capacity(5 + len);
    framed.extend_from_slice(&[0]);
    framed.extend_from_slice(&(len as u32).to_be_bytes());
    // Encoding into a buffer with room for the whole message cannot fail.
    let _ = message.encode(&mut framed);
    framed.freeze()
}

/// Splits a stream of DATA frames into messages.
#[derive(Debug)]
pub(crate) struct Deframer {
    buffer: BytesMut,
    max: usize,
}

impl Deframer {
    pub(crate) fn new(max: usize) -> Deframer {
        Deframer {
            buffer: BytesMut::new(),
            max,
        }
    }

    /// Adds received bytes.
    pub(crate) fn push(&mut self, data: &[u8]) {
        self.buffer.extend_from_slice(data);
    }

    /// The next whole message, if there is one. A length over the bound is refused as soon
    /// as the prefix is in, before anything is buffered for it.
    pub(crate) fn next_message(&mut self) -> Result<Option<Bytes>, GrpcError> {
        if self.buffer.len() < 5 {
            return Ok(None);
        }
        let compressed = self.buffer[0];
        if compressed != 0 {
            return Err(GrpcError::Protocol(format!(
                "etcd sent a message with compressed flag {compressed}, but kacl asked for \
                 no compression"
            )));
        }
        let len = u32::from_be_bytes([
            self.buffer[1],
            self.buffer[2],
            self.buffer[3],
            self.buffer[4],
        ]) as usize;
        if len > self.max {
            return Err(GrpcError::Protocol(format!(
                "etcd sent a message of {len} bytes, over kacl's bound of {} bytes",
                self.max
            )));
        }
        if self.buffer.len() < 5 + len {
            self.buffer.reserve(5 + len - self.buffer.len());
            return Ok(None);
        }
        self.buffer.advance(5);
        Ok(Some(self.buffer.split_to(len).freeze()))
    }

    /// At the end of the stream: bytes left over are a truncated message.
    pub(crate) fn finish(&self) -> Result<(), GrpcError> {
        if self.buffer.is_empty() {
            Ok(())
        } else {
            Err(GrpcError::Protocol(format!(
                "etcd's answer ended inside a message ({} bytes of it)",
                self.buffer.len()
            )))
        }
    }
}

/// The gRPC status in `headers`, if any: `(code, message)`.
pub(crate) fn status(headers: &HeaderMap) -> Result<Option<(i64, String)>, GrpcError> {
    let Some(code) = headers.get("grpc-status") else {
        return Ok(None);
    };
    let code = code
        .to_str()
        .ok()
        .and_then(|c| c.trim().parse::<i64>().ok())
        .ok_or_else(|| GrpcError::Protocol("etcd sent an unreadable grpc-status".to_owned()))?;
    let message = headers
        .get("grpc-message")
        .map(|m| percent_decode(m.as_bytes()))
        .unwrap_or_default();
    Ok(Some((code, message)))
}

/// The outcome of a finished call from its trailers: `Ok` for status 0.
pub(crate) fn outcome(trailers: Option<&HeaderMap>) -> Result<(), GrpcError> {
    match trailers.map(status).transpose()?.flatten() {
        None => Err(GrpcError::Protocol(
            "etcd's answer ended without a grpc-status".to_owned(),
        )),
        Some((0, _)) => Ok(()),
        Some((code, message)) => Err(GrpcError::Status { code, message }),
    }
}

/// The gRPC code for an HTTP status that is not 200 (gRPC's "HTTP to gRPC status mapping").
pub(crate) fn http_status_code(status: u16) -> i64 {
    match status {
        400 => 13,
        401 => 16,
        403 => 7,
        404 => 12,
        429 | 502 | 503 | 504 => 14,
        _ => 2,
    }
}

/// `grpc-message` is percent-encoded UTF-8; anything unreadable is kept as it came, lossily,
/// and cut to a length fit for a log line.
fn percent_decode(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() {
            let hex = std::str::from_utf8(&raw[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(byte) = hex {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).chars().take(1000).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trailers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn frames_round_trip_across_split_reads() {
        let mut framed = frame(b"hello").to_vec();
        framed.extend_from_slice(&frame(b""));
        let mut deframer = Deframer::new(100);
        for byte in &framed[..7] {
            deframer.push(&[*byte]);
        }
        assert_eq!(deframer.next_message(), Ok(None));
        deframer.push(&framed[7..]);
        assert_eq!(
            deframer.next_message(),
            Ok(Some(Bytes::from_static(b"hello")))
        );
        assert_eq!(deframer.next_message(), Ok(Some(Bytes::new())));
        assert_eq!(deframer.next_message(), Ok(None));
        assert_eq!(deframer.finish(), Ok(()));
    }

    #[test]
    fn a_truncated_frame_is_an_error_at_the_end() {
        let framed = frame(b"hello");
        let mut deframer = Deframer::new(100);
        deframer.push(&framed[..framed.len() - 1]);
        assert_eq!(deframer.next_message(), Ok(None));
        let err = deframer.finish().unwrap_err();
        assert!(err.to_string().contains("ended inside a message"), "{err}");
        // A prefix alone, too.
        let mut deframer = Deframer::new(100);
        deframer.push(&[0, 0, 0]);
        assert!(deframer.finish().is_err());
    }

    #[test]
    fn a_length_over_the_bound_is_refused_before_buffering() {
        let mut deframer = Deframer::new(1 << 20);
        deframer.push(&[0, 0xff, 0xff, 0xff, 0xff]);
        let err = deframer.next_message().unwrap_err();
        assert!(err.to_string().contains("over kacl's bound"), "{err}");
        assert!(deframer.buffer.capacity() < 1 << 20);
    }

    #[test]
    fn a_compressed_flag_is_refused() {
        let mut framed = frame(b"x").to_vec();
        framed[0] = 1;
        let mut deframer = Deframer::new(100);
        deframer.push(&framed);
        let err = deframer.next_message().unwrap_err();
        assert!(err.to_string().contains("compressed"), "{err}");
    }

    #[test]
    fn statuses_from_trailers() {
        assert_eq!(outcome(Some(&trailers(&[("grpc-status", "0")]))), Ok(()));
        let err = outcome(Some(&trailers(&[
            ("grpc-status", "11"),
            (
                "grpc-message",
                "etcdserver: mvcc: required revision has been compacted",
            ),
        ])))
        .unwrap_err();
        assert_eq!(
            err,
            GrpcError::Status {
                code: 11,
                message: "etcdserver: mvcc: required revision has been compacted".to_owned()
            }
        );
        // Percent-encoding, and a broken escape kept as it came.
        let err = outcome(Some(&trailers(&[
            ("grpc-status", "3"),
            ("grpc-message", "bad%20key%2"),
        ])))
        .unwrap_err();
        assert_eq!(
            err,
            GrpcError::Status {
                code: 3,
                message: "bad key%2".to_owned()
            }
        );
    }

    #[test]
    fn a_missing_or_unreadable_status_is_a_protocol_error() {
        for trailers in [None, Some(trailers(&[("grpc-message", "x")]))] {
            let err = outcome(trailers.as_ref()).unwrap_err();
            assert!(matches!(err, GrpcError::Protocol(_)), "{err:?}");
        }
        let err = outcome(Some(&trailers(&[("grpc-status", "zero")]))).unwrap_err();
        assert!(matches!(err, GrpcError::Protocol(_)), "{err:?}");
    }

    #[test]
    fn http_statuses_map_to_grpc_codes() {
        assert_eq!(http_status_code(503), 14);
        assert_eq!(http_status_code(401), 16);
        assert_eq!(http_status_code(500), 2);
    }
}
