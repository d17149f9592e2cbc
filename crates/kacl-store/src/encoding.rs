//! The on-disk formats of every record, shared by the redb backend and the in-memory
//! store (so fuzzing the in-memory store exercises the real encodings).
//!
//! * ACL key, the binding's 7-tuple, canonical (one binding, one byte string):
//!   `resource_type:u8 pattern_type:u8 name:str principal:str host:str operation:u8
//!   permission_type:u8`, where `str` is a varint length and UTF-8 bytes and each `u8`
//!   is Kafka's code. ACL value: the ACL's 16-byte UUID.
//! * Topic key: the name's UTF-8 bytes. Value: `version=1 topic_id:[16] created_seq:varint
//!   name:str partitions:count (index:zigzag replicas:count replica:zigzag...)...
//!   configs:count (key:str value:str)...`.
//! * SCRAM key: `user:str mechanism:u8` (Kafka's code). Value: `version=1
//!   iterations:varint salt:bytes stored_key:bytes server_key:bytes`.
//!
//! On disk each value is followed by its checksum (see [`crate::checksum`]); these functions
//! encode and decode the payload before it.
//!
//! The version of the whole layout is kept in the meta table (see `FORMAT_VERSION`);
//! the per-record version bytes let one record kind evolve without rewriting the rest.
//! These functions are public for fuzz targets and tools; decoders never panic.

use std::collections::BTreeMap;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};

use crate::codec::{Reader, RecordDecodeError, Writer};
use kacl_sasl::scram::{ScramCredential, ScramMechanism};

use crate::error::{printable_key, StoreError};
use crate::records::{PartitionRecord, TopicRecord};

const TOPIC_RECORD_VERSION: u8 = 1;
const SCRAM_RECORD_VERSION: u8 = 1;

/// Why a binding cannot be stored, or `None` when every field is concrete: a stored
/// ACL names one resource type, LITERAL or PREFIXED, one operation, ALLOW or DENY.
pub fn non_concrete_field(binding: &AclBinding) -> Option<&'static str> {
    let pattern = &binding.pattern;
    let entry = &binding.entry;
    if matches!(
        pattern.resource_type,
        ResourceType::Unknown | ResourceType::Any
    ) {
        return Some("resource type must be a concrete type, not ANY or UNKNOWN");
    }
    if !matches!(
        pattern.pattern_type,
        PatternType::Literal | PatternType::Prefixed
    ) {
        return Some("pattern type must be LITERAL or PREFIXED");
    }
    if matches!(entry.operation, AclOperation::Unknown | AclOperation::Any) {
        return Some("operation must be a concrete operation, not ANY or UNKNOWN");
    }
    if !matches!(
        entry.permission_type,
        AclPermissionType::Allow | AclPermissionType::Deny
    ) {
        return Some("permission type must be ALLOW or DENY");
    }
    None
}

/// The canonical key of a binding.
pub fn encode_acl_key(binding: &AclBinding) -> Vec<u8> {
    let pattern = &binding.pattern;
    let entry = &binding.entry;
    let mut w =
        Writer::with_capacity(9 + pattern.name.len() + entry.principal.len() + entry.host.len());
    w.u8(code_byte(pattern.resource_type.code()));
    w.u8(code_byte(pattern.pattern_type.code()));
    w.str(&pattern.name);
    w.str(&entry.principal);
    w.str(&entry.host);
    w.u8(code_byte(entry.operation.code()));
    w.u8(code_byte(entry.permission_type.code()));
    w.into_bytes()
}

/// A binding from its key. Codes this build does not know, or that no stored ACL may
/// hold, are corruption.
pub fn decode_acl_key(key: &[u8]) -> Result<AclBinding, RecordDecodeError> {
    let mut r = Reader::new(key);
    let resource_type = known_code(r.u8()?, ResourceType::from_code, ResourceType::code)
        .ok_or(RecordDecodeError::BadValue("resource type"))?;
    let pattern_type = known_code(r.u8()?, PatternType::from_code, PatternType::code)
        .ok_or(RecordDecodeError::BadValue("pattern type"))?;
    let name = r.str()?.to_owned();
    let principal = r.str()?.to_owned();
    let host = r.str()?.to_owned();
    let operation = known_code(r.u8()?, AclOperation::from_code, AclOperation::code)
        .ok_or(RecordDecodeError::BadValue("operation"))?;
    let permission_type = known_code(
        r.u8()?,
        AclPermissionType::from_code,
        AclPermissionType::code,
    )
    .ok_or(RecordDecodeError::BadValue("permission type"))?;
    r.finish()?;
    let binding = AclBinding::new(
        ResourcePattern {
            resource_type,
            name,
            pattern_type,
        },
        AccessControlEntry {
            principal,
            host,
            operation,
            permission_type,
        },
    );
    match non_concrete_field(&binding) {
        Some(_) => Err(RecordDecodeError::BadValue("ACL field (not concrete)")),
        None => Ok(binding),
    }
}

/// [`decode_acl_key`] without allocating: the fields borrowed from `key` (the restart path).
/// The same checks: known codes, concrete values, nothing left over.
pub fn decode_acl_key_ref(key: &[u8]) -> Result<kacl_acl::AclRef<'_>, RecordDecodeError> {
    let mut r = Reader::new(key);
    let resource_type = known_code(r.u8()?, ResourceType::from_code, ResourceType::code)
        .ok_or(RecordDecodeError::BadValue("resource type"))?;
    let pattern_type = known_code(r.u8()?, PatternType::from_code, PatternType::code)
        .ok_or(RecordDecodeError::BadValue("pattern type"))?;
    let name = r.str()?;
    let principal = r.str()?;
    let host = r.str()?;
    let operation = known_code(r.u8()?, AclOperation::from_code, AclOperation::code)
        .ok_or(RecordDecodeError::BadValue("operation"))?;
    let permission_type = known_code(
        r.u8()?,
        AclPermissionType::from_code,
        AclPermissionType::code,
    )
    .ok_or(RecordDecodeError::BadValue("permission type"))?;
    r.finish()?;
    let concrete = !matches!(resource_type, ResourceType::Unknown | ResourceType::Any)
        && matches!(pattern_type, PatternType::Literal | PatternType::Prefixed)
        && !matches!(operation, AclOperation::Unknown | AclOperation::Any)
        && matches!(
            permission_type,
            AclPermissionType::Allow | AclPermissionType::Deny
        );
    if !concrete {
        return Err(RecordDecodeError::BadValue("ACL field (not concrete)"));
    }
    Ok(kacl_acl::AclRef {
        resource_type,
        pattern_type,
        name,
        principal,
        host,
        operation,
        permission_type,
    })
}

/// An ACL's id from its stored value.
pub fn decode_acl_id(value: &[u8]) -> Result<[u8; 16], RecordDecodeError> {
    let mut r = Reader::new(value);
    let id = r.array16()?;
    r.finish()?;
    Ok(id)
}

/// Kafka's enum codes are small non-negative `i8`s; they are stored as one byte.
fn code_byte(code: i8) -> u8 {
    code.to_ne_bytes()[0]
}

/// The enum value for a stored byte, only if the byte is exactly that value's code
/// (Kafka's `from_code` maps strangers to UNKNOWN, which must not hide corruption).
fn known_code<T: Copy>(byte: u8, from_code: fn(i8) -> T, code: fn(T) -> i8) -> Option<T> {
    let raw = i8::from_ne_bytes([byte]);
    let value = from_code(raw);
    (code(value) == raw).then_some(value)
}

/// A topic's stored value.
pub fn encode_topic(topic: &TopicRecord) -> Vec<u8> {
    let mut w = Writer::with_capacity(64 + topic.name.len() + topic.partitions.len() * 8);
    w.u8(TOPIC_RECORD_VERSION);
    w.raw(&topic.topic_id);
    w.varint(topic.created_seq);
    w.str(&topic.name);
    w.varint(topic.partitions.len() as u64);
    for partition in &topic.partitions {
        w.i32(partition.partition_index);
        w.varint(partition.replicas.len() as u64);
        for replica in &partition.replicas {
            w.i32(*replica);
        }
    }
    w.varint(topic.configs.len() as u64);
    for (key, value) in &topic.configs {
        w.str(key);
        w.str(value);
    }
    w.into_bytes()
}

/// A topic from its stored value.
pub fn decode_topic(value: &[u8]) -> Result<TopicRecord, RecordDecodeError> {
    let mut r = Reader::new(value);
    let version = r.u8()?;
    if version != TOPIC_RECORD_VERSION {
        return Err(RecordDecodeError::UnknownVersion(version));
    }
    let topic_id = r.array16()?;
    let created_seq = r.varint()?;
    let name = r.str()?.to_owned();
    let partition_count = r.count()?;
    let mut partitions = Vec::with_capacity(partition_count);
    for _ in 0..partition_count {
        let partition_index = r.i32()?;
        let replica_count = r.count()?;
        let mut replicas = Vec::with_capacity(replica_count);
        for _ in 0..replica_count {
            replicas.push(r.i32()?);
        }
        partitions.push(PartitionRecord {
            partition_index,
            replicas,
        });
    }
    let config_count = r.count()?;
    let mut configs = BTreeMap::new();
    for _ in 0..config_count {
        let key = r.str()?.to_owned();
        let value = r.str()?.to_owned();
        if configs.insert(key, value).is_some() {
            return Err(RecordDecodeError::BadValue("topic config (duplicate key)"));
        }
    }
    r.finish()?;
    Ok(TopicRecord {
        name,
        topic_id,
        partitions,
        configs,
        created_seq,
    })
}

/// The key of a user's credential for one mechanism.
pub fn encode_scram_key(user: &str, mechanism: ScramMechanism) -> Vec<u8> {
    let mut w = Writer::with_capacity(user.len() + 3);
    w.str(user);
    w.u8(code_byte(mechanism.type_code()));
    w.into_bytes()
}

/// The user and mechanism from a credential's key.
pub fn decode_scram_key(key: &[u8]) -> Result<(String, ScramMechanism), RecordDecodeError> {
    let mut r = Reader::new(key);
    let user = r.str()?.to_owned();
    let mechanism = ScramMechanism::from_type_code(i8::from_ne_bytes([r.u8()?]))
        .ok_or(RecordDecodeError::BadValue("SCRAM mechanism"))?;
    r.finish()?;
    Ok((user, mechanism))
}

/// A credential's stored value (its mechanism lives in the key).
pub fn encode_scram_value(credential: &ScramCredential) -> Vec<u8> {
    let mut w = Writer::with_capacity(
        8 + credential.salt.len() + credential.stored_key.len() + credential.server_key.len(),
    );
    w.u8(SCRAM_RECORD_VERSION);
    w.varint(u64::from(credential.iterations));
    w.bytes(&credential.salt);
    w.bytes(&credential.stored_key);
    w.bytes(&credential.server_key);
    w.into_bytes()
}

/// A credential from its stored value.
pub fn decode_scram_value(value: &[u8]) -> Result<ScramCredential, RecordDecodeError> {
    let mut r = Reader::new(value);
    let version = r.u8()?;
    if version != SCRAM_RECORD_VERSION {
        return Err(RecordDecodeError::UnknownVersion(version));
    }
    let iterations = r.u32()?;
    let salt = r.bytes()?.to_vec();
    let stored_key = r.bytes()?.to_vec();
    let server_key = r.bytes()?.to_vec();
    r.finish()?;
    Ok(ScramCredential {
        salt,
        iterations,
        stored_key,
        server_key,
    })
}

/// A `u64` meta value (the format version, the next topic sequence number).
pub(crate) fn encode_u64(value: u64) -> Vec<u8> {
    let mut w = Writer::with_capacity(10);
    w.varint(value);
    w.into_bytes()
}

pub(crate) fn decode_u64(value: &[u8]) -> Result<u64, RecordDecodeError> {
    let mut r = Reader::new(value);
    let out = r.varint()?;
    r.finish()?;
    Ok(out)
}

/// Declared here rather than in `error`, beside the ACL key decoding it uses, so that `error`
/// imports nothing of the record encodings (which import it).
impl StoreError {
    /// A record of `table` under `key` that did not decode.
    pub(crate) fn corrupt(
        table: &'static str,
        key: &[u8],
        reason: RecordDecodeError,
    ) -> StoreError {
        let mut shown = printable_key(key);
        // Name the ACL the damaged record would have been (as read: the key may be the
        // damaged part), so an operator knows what to check after a restore.
        if table == "acls" {
            if let Ok(binding) = decode_acl_key(key) {
                shown.push_str(&format!(" (ACL as read: {binding})"));
            }
        }
        StoreError::Corrupt {
            table,
            key: shown,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(name: &str, pattern: PatternType) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, name, pattern),
            AccessControlEntry::new(
                "User:alice",
                "*",
                AclOperation::Read,
                AclPermissionType::Allow,
            ),
        )
    }

    #[test]
    fn acl_keys_round_trip_and_differ_per_field() {
        let a = binding("orders", PatternType::Literal);
        let b = binding("orders", PatternType::Prefixed);
        let ka = encode_acl_key(&a);
        assert_eq!(decode_acl_key(&ka), Ok(a.clone()));
        assert_ne!(ka, encode_acl_key(&b));
        // Moving a byte between adjacent strings changes the key: lengths are explicit.
        let mut c = a.clone();
        c.pattern.name = "order".into();
        c.entry.principal = "sUser:alice".into();
        assert_ne!(ka, encode_acl_key(&c));
        assert_eq!(ka.len(), 2 + 7 + 11 + 2 + 2);
    }

    #[test]
    fn acl_keys_with_filter_codes_or_junk_are_corrupt() {
        let mut any = binding("x", PatternType::Literal);
        any.pattern.pattern_type = PatternType::Match;
        assert!(non_concrete_field(&any).is_some());
        assert!(decode_acl_key(&encode_acl_key(&any)).is_err());
        let mut key = encode_acl_key(&binding("x", PatternType::Literal));
        key[0] = 99;
        assert_eq!(
            decode_acl_key(&key),
            Err(RecordDecodeError::BadValue("resource type"))
        );
        assert!(decode_acl_key(&[]).is_err());
        let mut long = encode_acl_key(&binding("x", PatternType::Literal));
        long.push(0);
        assert_eq!(
            decode_acl_key(&long),
            Err(RecordDecodeError::TrailingBytes(1))
        );
    }

    #[test]
    fn topics_round_trip() {
        let topic = TopicRecord {
            name: "orders".into(),
            topic_id: [7; 16],
            partitions: vec![
                PartitionRecord {
                    partition_index: 0,
                    replicas: vec![1, 2, 3],
                },
                PartitionRecord {
                    partition_index: 1,
                    replicas: vec![2, -1],
                },
            ],
            configs: BTreeMap::from([("cleanup.policy".into(), "compact".into())]),
            created_seq: 300,
        };
        let bytes = encode_topic(&topic);
        assert_eq!(decode_topic(&bytes), Ok(topic));
        assert_eq!(
            decode_topic(&[2]),
            Err(RecordDecodeError::UnknownVersion(2))
        );
        for cut in 0..bytes.len() {
            assert!(decode_topic(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn scram_records_round_trip() {
        let cred = ScramCredential {
            salt: vec![1; 20],
            iterations: 8192,
            stored_key: vec![2; 64],
            server_key: vec![3; 64],
        };
        let key = encode_scram_key("alice", ScramMechanism::Sha512);
        assert_eq!(
            decode_scram_key(&key),
            Ok(("alice".to_string(), ScramMechanism::Sha512))
        );
        let value = encode_scram_value(&cred);
        assert_eq!(decode_scram_value(&value), Ok(cred));
        assert!(decode_scram_key(&[1, b'a', 0]).is_err());
    }
}
