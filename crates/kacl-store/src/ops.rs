//! The store's logic, written once over the key-value traits of `kv`: what each
//! operation reads, checks and writes. Every operation checks everything it can before
//! its first write, and runs inside one transaction of its backend.

use std::collections::HashSet;

use kacl_acl::AclBinding;

use crate::encoding::{
    decode_acl_id, decode_acl_key, decode_scram_key, decode_scram_value, decode_topic, decode_u64,
    encode_acl_key, encode_scram_key, encode_scram_value, encode_topic, encode_u64,
    non_concrete_field,
};
use crate::error::StoreError;
use crate::ids;
use crate::kv::{KvGet, KvScan, KvWrite, Table};
use crate::records::{AclCommit, PartitionRecord, ScramCredential, ScramMechanism, TopicRecord};
use crate::store::AclChunkSink;

/// The layout version this build reads and writes, kept in the meta table.
pub const FORMAT_VERSION: u32 = 1;

const META_FORMAT_VERSION: &[u8] = b"format_version";
const META_CLUSTER_ID: &[u8] = b"cluster_id";
const META_NEXT_TOPIC_SEQ: &[u8] = b"next_topic_seq";

/// Checks the format version and returns the cluster id, writing both on first use.
pub(crate) fn init_meta(t: &mut impl KvWrite) -> Result<String, StoreError> {
    match t.get(Table::Meta, META_FORMAT_VERSION)? {
        Some(value) => {
            let found = decode_u64(&value)
                .map_err(|e| StoreError::corrupt(Table::Meta.name(), META_FORMAT_VERSION, e))?;
            if found != u64::from(FORMAT_VERSION) {
                return Err(StoreError::UnsupportedFormat {
                    found: u32::try_from(found).unwrap_or(u32::MAX),
                    supported: FORMAT_VERSION,
                });
            }
        }
        None => t.insert(
            Table::Meta,
            META_FORMAT_VERSION,
            &encode_u64(u64::from(FORMAT_VERSION)),
        )?,
    }
    match t.get(Table::Meta, META_CLUSTER_ID)? {
        Some(value) => {
            let text = String::from_utf8(value)
                .ok()
                .filter(|text| ids::parse_kafka_uuid(text).is_some());
            text.ok_or_else(|| {
                StoreError::corrupt(
                    Table::Meta.name(),
                    META_CLUSTER_ID,
                    crate::DecodeError::BadValue("cluster id"),
                )
            })
        }
        None => {
            let cluster_id = ids::kafka_uuid_string(&ids::random_kafka_uuid());
            t.insert(Table::Meta, META_CLUSTER_ID, cluster_id.as_bytes())?;
            Ok(cluster_id)
        }
    }
}

/// Every stored binding, in key order.
pub(crate) fn load_acls(t: &impl KvScan) -> Result<Vec<AclBinding>, StoreError> {
    let len = usize::try_from(t.len(Table::Acls)?).unwrap_or(0);
    let mut out = Vec::with_capacity(len);
    scan_acls(t, &mut |binding| {
        out.push(binding);
        Ok(())
    })?;
    Ok(out)
}

/// Every stored binding, in key order, handed to `sink` in chunks of at most `chunk_len`.
pub(crate) fn load_acls_chunked(
    t: &impl KvScan,
    chunk_len: usize,
    sink: &mut AclChunkSink<'_>,
) -> Result<(), StoreError> {
    let chunk_len = chunk_len.max(1);
    let mut chunk = Vec::with_capacity(chunk_len);
    scan_acls(t, &mut |binding| {
        chunk.push(binding);
        if chunk.len() == chunk_len {
            sink(std::mem::replace(&mut chunk, Vec::with_capacity(chunk_len)))?;
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        sink(chunk)?;
    }
    Ok(())
}

fn scan_acls(
    t: &impl KvScan,
    visit: &mut dyn FnMut(AclBinding) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    t.scan(Table::Acls, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Acls.name(), key, e);
        decode_acl_id(value).map_err(corrupt)?;
        visit(decode_acl_key(key).map_err(corrupt)?)
    })
}

/// Applies `removes`, then `adds`; each binding counts once however often it is named.
pub(crate) fn commit_acl_changes(
    t: &mut impl KvWrite,
    adds: &[AclBinding],
    removes: &[AclBinding],
    new_id: &mut dyn FnMut() -> [u8; 16],
) -> Result<AclCommit, StoreError> {
    if let Some((binding, reason)) = adds
        .iter()
        .find_map(|b| non_concrete_field(b).map(|reason| (b, reason)))
    {
        return Err(StoreError::InvalidAcl {
            binding: binding.to_string(),
            reason,
        });
    }
    let mut commit = AclCommit::default();
    for binding in removes {
        if t.remove(Table::Acls, &encode_acl_key(binding))? {
            commit.removed.push(binding.clone());
        }
    }
    for binding in adds {
        let key = encode_acl_key(binding);
        if t.get(Table::Acls, &key)?.is_none() {
            t.insert(Table::Acls, &key, &new_id())?;
            commit.added.push(binding.clone());
        }
    }
    Ok(commit)
}

/// Every topic, in creation order.
pub(crate) fn load_topics(t: &impl KvScan) -> Result<Vec<TopicRecord>, StoreError> {
    let mut out = Vec::new();
    t.scan(Table::Topics, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Topics.name(), key, e);
        let topic = decode_topic(value).map_err(corrupt)?;
        if topic.name.as_bytes() != key {
            return Err(corrupt(crate::DecodeError::BadValue(
                "topic name (differs from its key)",
            )));
        }
        out.push(topic);
        Ok(())
    })?;
    out.sort_by_key(|topic| topic.created_seq);
    Ok(out)
}

/// Creates all `topics` or none, numbering them in order after every earlier topic.
pub(crate) fn create_topics(
    t: &mut impl KvWrite,
    topics: &[TopicRecord],
) -> Result<Vec<TopicRecord>, StoreError> {
    let mut seen = HashSet::new();
    for topic in topics {
        if !seen.insert(topic.name.as_str())
            || t.get(Table::Topics, topic.name.as_bytes())?.is_some()
        {
            return Err(StoreError::TopicAlreadyExists {
                name: topic.name.clone(),
            });
        }
        check_numbering(&topic.name, 0, &topic.partitions)?;
    }
    let mut next_seq = next_topic_seq(t)?;
    let mut created = Vec::with_capacity(topics.len());
    for topic in topics {
        let stored = TopicRecord {
            created_seq: next_seq,
            ..topic.clone()
        };
        next_seq += 1;
        t.insert(
            Table::Topics,
            stored.name.as_bytes(),
            &encode_topic(&stored),
        )?;
        created.push(stored);
    }
    t.insert(Table::Meta, META_NEXT_TOPIC_SEQ, &encode_u64(next_seq))?;
    Ok(created)
}

/// Deletes the named topics that exist; returns their names, each once.
pub(crate) fn delete_topics(
    t: &mut impl KvWrite,
    names: &[String],
) -> Result<Vec<String>, StoreError> {
    let mut deleted = Vec::new();
    for name in names {
        if t.remove(Table::Topics, name.as_bytes())? {
            deleted.push(name.clone());
        }
    }
    Ok(deleted)
}

/// Appends partitions to a topic, numbered from its current count; returns the topic.
pub(crate) fn add_partitions(
    t: &mut impl KvWrite,
    name: &str,
    new_partitions: &[PartitionRecord],
) -> Result<TopicRecord, StoreError> {
    let value = t
        .get(Table::Topics, name.as_bytes())?
        .ok_or_else(|| StoreError::UnknownTopic {
            name: name.to_string(),
        })?;
    let mut topic = decode_topic(&value)
        .map_err(|e| StoreError::corrupt(Table::Topics.name(), name.as_bytes(), e))?;
    check_numbering(name, topic.partitions.len(), new_partitions)?;
    if !new_partitions.is_empty() {
        topic.partitions.extend_from_slice(new_partitions);
        t.insert(Table::Topics, name.as_bytes(), &encode_topic(&topic))?;
    }
    Ok(topic)
}

/// Replaces a topic's configs; returns the topic.
pub(crate) fn set_topic_configs(
    t: &mut impl KvWrite,
    name: &str,
    configs: &std::collections::BTreeMap<String, String>,
) -> Result<TopicRecord, StoreError> {
    let value = t
        .get(Table::Topics, name.as_bytes())?
        .ok_or_else(|| StoreError::UnknownTopic {
            name: name.to_string(),
        })?;
    let mut topic = decode_topic(&value)
        .map_err(|e| StoreError::corrupt(Table::Topics.name(), name.as_bytes(), e))?;
    topic.configs = configs.clone();
    t.insert(Table::Topics, name.as_bytes(), &encode_topic(&topic))?;
    Ok(topic)
}

/// Partitions must be numbered `first, first + 1, ...` in order.
fn check_numbering(
    topic: &str,
    first: usize,
    partitions: &[PartitionRecord],
) -> Result<(), StoreError> {
    for (offset, partition) in partitions.iter().enumerate() {
        let expected = first
            .checked_add(offset)
            .and_then(|n| i32::try_from(n).ok());
        if expected != Some(partition.partition_index) {
            return Err(StoreError::InvalidPartitions {
                topic: topic.to_string(),
                reason: format!(
                    "partition {} is out of order: partitions must be numbered {} onwards \
                     without gaps",
                    partition.partition_index, first
                ),
            });
        }
    }
    Ok(())
}

fn next_topic_seq(t: &impl KvGet) -> Result<u64, StoreError> {
    match t.get(Table::Meta, META_NEXT_TOPIC_SEQ)? {
        Some(value) => decode_u64(&value)
            .map_err(|e| StoreError::corrupt(Table::Meta.name(), META_NEXT_TOPIC_SEQ, e)),
        None => Ok(0),
    }
}

/// Stores a credential, replacing the user's earlier one for the same mechanism.
pub(crate) fn upsert_scram(
    t: &mut impl KvWrite,
    user: &str,
    credential: &ScramCredential,
) -> Result<(), StoreError> {
    t.insert(
        Table::Scram,
        &encode_scram_key(user, credential.mechanism),
        &encode_scram_value(credential),
    )
}

/// Deletes a user's credential for one mechanism; true if there was one.
pub(crate) fn delete_scram(
    t: &mut impl KvWrite,
    user: &str,
    mechanism: ScramMechanism,
) -> Result<bool, StoreError> {
    t.remove(Table::Scram, &encode_scram_key(user, mechanism))
}

/// A user's credential for one mechanism.
pub(crate) fn get_scram(
    t: &impl KvGet,
    user: &str,
    mechanism: ScramMechanism,
) -> Result<Option<ScramCredential>, StoreError> {
    let key = encode_scram_key(user, mechanism);
    t.get(Table::Scram, &key)?
        .map(|value| {
            decode_scram_value(mechanism, &value)
                .map_err(|e| StoreError::corrupt(Table::Scram.name(), &key, e))
        })
        .transpose()
}

/// Every credential with its user, ordered by user then mechanism.
pub(crate) fn list_scram(t: &impl KvScan) -> Result<Vec<(String, ScramCredential)>, StoreError> {
    let mut out = Vec::new();
    t.scan(Table::Scram, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Scram.name(), key, e);
        let (user, mechanism) = decode_scram_key(key).map_err(corrupt)?;
        out.push((user, decode_scram_value(mechanism, value).map_err(corrupt)?));
        Ok(())
    })?;
    out.sort_by(|(ua, ca), (ub, cb)| (ua, ca.mechanism).cmp(&(ub, cb.mechanism)));
    Ok(out)
}
