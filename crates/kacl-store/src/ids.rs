//! Kafka's UUIDs: random version-4 ids for clusters, topics and ACLs, and their text
//! form, unpadded URL-safe base64 (`org.apache.kafka.common.Uuid`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// A random id as Kafka's `Uuid.randomUuid()` makes them: never the reserved all-zero
/// or `1` ids, and never one whose text starts with `-` (which command lines would take
/// for a flag).
pub fn random_kafka_uuid() -> [u8; 16] {
    loop {
        let bytes = *uuid::Uuid::new_v4().as_bytes();
        if is_reserved(&bytes) || kafka_uuid_string(&bytes).starts_with('-') {
            continue;
        }
        return bytes;
    }
}

/// 32 random bytes for a secret (two version-4 UUIDs' worth: 244 random bits).
pub fn random_secret() -> [u8; 32] {
    let mut secret = [0u8; 32];
    secret[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    secret[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    secret
}

/// The 22-character text of an id, as Kafka's `Uuid.toString()` prints it.
pub fn kafka_uuid_string(id: &[u8; 16]) -> String {
    URL_SAFE_NO_PAD.encode(id)
}

/// Parses the text form back; `None` unless it is exactly 16 bytes of URL-safe base64.
pub fn parse_kafka_uuid(text: &str) -> Option<[u8; 16]> {
    let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
    bytes.try_into().ok()
}

/// Kafka's `Uuid.ZERO_UUID` and `Uuid.ONE_UUID` (the metadata topic's id).
fn is_reserved(id: &[u8; 16]) -> bool {
    let (last, head) = match id.split_last() {
        Some(split) => split,
        None => return true,
    };
    head.iter().all(|b| *b == 0) && *last <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_is_22_url_safe_characters_and_parses_back() {
        for _ in 0..200 {
            let id = random_kafka_uuid();
            let text = kafka_uuid_string(&id);
            assert_eq!(text.len(), 22);
            assert!(!text.starts_with('-'));
            assert!(text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
            assert_eq!(parse_kafka_uuid(&text), Some(id));
        }
    }

    #[test]
    fn matches_kafkas_text_for_known_ids() {
        assert_eq!(kafka_uuid_string(&[0; 16]), "AAAAAAAAAAAAAAAAAAAAAA");
        let mut one = [0u8; 16];
        one[15] = 1;
        assert_eq!(kafka_uuid_string(&one), "AAAAAAAAAAAAAAAAAAAAAQ");
        assert!(is_reserved(&one));
        assert!(is_reserved(&[0; 16]));
        one[15] = 2;
        assert!(!is_reserved(&one));
        assert_eq!(parse_kafka_uuid("AAAA"), None);
    }
}
