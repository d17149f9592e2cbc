//! Turning etcd key-value pairs back into kacl's records, and etcd errors into store errors.

use kacl_store::encoding;
use kacl_store::{Change, NodeInfo, RecordDecodeError, StoreError};

use crate::client::{EtcdError, Kv};
use crate::layout::{KeyKind, Layout};
use serde_json::Value;

pub(crate) fn corrupt(key: &[u8], reason: RecordDecodeError) -> StoreError {
    StoreError::Corrupt {
        table: "etcd",
        key: String::from_utf8_lossy(key).chars().take(200).collect(),
        reason,
    }
}

/// A key under `P acl/` without its right shard: damaged, or written by layout 1.
fn misplaced_acl(key: &[u8]) -> StoreError {
    corrupt(key, RecordDecodeError::BadValue("ACL key shard"))
}

/// A topic's creation order: the revision that created it, then its position in its request
/// (stored in the record; only the low 16 bits count).
pub(crate) fn creation_seq(create_revision: i64, stored: u64) -> u64 {
    ((create_revision.max(0) as u64) << 16) | (stored & 0xffff)
}

/// The change a put of `kv` means, if it is a record.
pub(crate) fn put_change(layout: &Layout, kv: &Kv) -> Result<Option<Change>, StoreError> {
    Ok(match layout.kind(&kv.key) {
        KeyKind::Acl(rest) => {
            layout
                .unseal(&kv.key, &kv.value)
                .map_err(|e| corrupt(&kv.key, e))?;
            Some(Change::AclAdded(
                encoding::decode_acl_key(rest).map_err(|e| corrupt(&kv.key, e))?,
            ))
        }
        KeyKind::MisplacedAcl => return Err(misplaced_acl(&kv.key)),
        KeyKind::Topic(_) => {
            let payload = layout
                .unseal(&kv.key, &kv.value)
                .map_err(|e| corrupt(&kv.key, e))?;
            let mut record = encoding::decode_topic(payload).map_err(|e| corrupt(&kv.key, e))?;
            record.created_seq = creation_seq(kv.create_revision, record.created_seq);
            Some(Change::TopicPut(record))
        }
        KeyKind::Scram(rest) => {
            let payload = layout
                .unseal(&kv.key, &kv.value)
                .map_err(|e| corrupt(&kv.key, e))?;
            let (user, mechanism) =
                encoding::decode_scram_key(rest).map_err(|e| corrupt(&kv.key, e))?;
            let credential =
                encoding::decode_scram_value(payload).map_err(|e| corrupt(&kv.key, e))?;
            Some(Change::ScramPut(user, mechanism, credential))
        }
        KeyKind::Quota(rest) => {
            let payload = layout
                .unseal(&kv.key, &kv.value)
                .map_err(|e| corrupt(&kv.key, e))?;
            let (entity, key) =
                kacl_store::quotas::decode_quota_key(rest).map_err(|e| corrupt(&kv.key, e))?;
            let value =
                kacl_store::quotas::decode_quota_value(payload).map_err(|e| corrupt(&kv.key, e))?;
            Some(Change::Quota(
                entity,
                key,
                Some(kacl_store::QuotaValue(value)),
            ))
        }
        _ => None,
    })
}

/// The change a delete of `key` means, if it is a record.
pub(crate) fn delete_change(layout: &Layout, key: &[u8]) -> Result<Option<Change>, StoreError> {
    Ok(match layout.kind(key) {
        KeyKind::Acl(rest) => Some(Change::AclRemoved(
            encoding::decode_acl_key(rest).map_err(|e| corrupt(key, e))?,
        )),
        KeyKind::MisplacedAcl => return Err(misplaced_acl(key)),
        KeyKind::Topic(rest) => Some(Change::TopicDeleted(
            String::from_utf8(rest.to_vec())
                .map_err(|_| corrupt(key, RecordDecodeError::InvalidUtf8))?,
        )),
        KeyKind::Scram(rest) => {
            let (user, mechanism) =
                encoding::decode_scram_key(rest).map_err(|e| corrupt(key, e))?;
            Some(Change::ScramDeleted(user, mechanism))
        }
        KeyKind::Quota(rest) => {
            let (entity, key) =
                kacl_store::quotas::decode_quota_key(rest).map_err(|e| corrupt(key, e))?;
            Some(Change::Quota(entity, key, None))
        }
        _ => None,
    })
}

pub(crate) fn etcd_error(err: EtcdError) -> StoreError {
    match err {
        EtcdError::Unavailable { .. } => StoreError::Unavailable {
            detail: err.to_string(),
        },
        other => StoreError::Engine {
            path: "etcd".into(),
            detail: other.to_string(),
        },
    }
}

/// Parses a node's registration; `None` for anything malformed.
pub(crate) fn parse_node(value: &[u8]) -> Option<NodeInfo> {
    let value: Value = serde_json::from_slice(value).ok()?;
    let node_id = i32::try_from(value.get("node_id")?.as_i64()?).ok()?;
    let rack = value.get("rack").and_then(Value::as_str).map(str::to_owned);
    let listeners = value
        .get("listeners")?
        .as_array()?
        .iter()
        .filter_map(|l| {
            Some((
                l.get("name")?.as_str()?.to_owned(),
                l.get("host")?.as_str()?.to_owned(),
                u16::try_from(l.get("port")?.as_u64()?).ok()?,
            ))
        })
        .collect();
    Some(NodeInfo {
        node_id,
        rack,
        listeners,
    })
}
