//! The checksum every stored record carries (format version 2): a CRC32C over the key and the
//! value, appended to the value as 4 little-endian bytes, so that a flipped bit anywhere in a
//! record is found when it is read instead of turning into a different ACL, topic or
//! credential. CRC32C is what Kafka puts on its record batches; the `crc32c` crate uses the
//! CPU's instruction where there is one, and checking needs no allocation.

use crate::codec::RecordDecodeError;

/// Bytes the checksum adds to every value.
pub const CHECKSUM_LEN: usize = 4;

/// `payload` followed by its checksum over `key` and `payload`: what is written.
pub fn seal(key: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + CHECKSUM_LEN);
    out.extend_from_slice(payload);
    out.extend_from_slice(&checksum(key, payload).to_le_bytes());
    out
}

/// The payload of a stored value, once its checksum matches `key` and the payload.
pub fn unseal<'v>(key: &[u8], stored: &'v [u8]) -> Result<&'v [u8], RecordDecodeError> {
    let split = stored
        .len()
        .checked_sub(CHECKSUM_LEN)
        .ok_or(RecordDecodeError::Truncated)?;
    let (payload, sum) = stored.split_at(split);
    let mut found = [0u8; CHECKSUM_LEN];
    found.copy_from_slice(sum);
    let expected = checksum(key, payload);
    if u32::from_le_bytes(found) == expected {
        Ok(payload)
    } else {
        Err(RecordDecodeError::ChecksumMismatch)
    }
}

fn checksum(key: &[u8], payload: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(key), payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_and_every_flipped_bit_is_found() {
        let key = b"\x02\x03\x06orders";
        let sealed = seal(key, b"payload");
        assert_eq!(sealed.len(), 7 + CHECKSUM_LEN);
        assert_eq!(unseal(key, &sealed), Ok(&b"payload"[..]));
        for bit in 0..sealed.len() * 8 {
            let mut damaged = sealed.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                unseal(key, &damaged),
                Err(RecordDecodeError::ChecksumMismatch)
            );
        }
        for bit in 0..key.len() * 8 {
            let mut other = key.to_vec();
            other[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                unseal(&other, &sealed),
                Err(RecordDecodeError::ChecksumMismatch)
            );
        }
        assert_eq!(unseal(key, b"abc"), Err(RecordDecodeError::Truncated));
        // CRC32C's check value ("123456789"), so other tools can check a record too.
        assert_eq!(checksum(b"1234", b"56789"), 0xE306_9283);
    }
}
