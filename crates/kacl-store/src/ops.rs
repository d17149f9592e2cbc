//! The store's logic, written once over the key-value traits of `kv`: what each
//! operation reads, checks and writes. Every operation checks everything it can before
//! its first write, and runs inside one transaction of its backend.

use std::collections::HashSet;

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};

use crate::checksum;
use crate::encoding::{
    decode_acl_id, decode_acl_key, decode_scram_key, decode_scram_value, decode_topic, decode_u64,
    encode_acl_key, encode_scram_key, encode_scram_value, encode_topic, encode_u64,
};
use crate::error::StoreError;
use crate::ids;
use crate::kv::{KvGet, KvScan, KvWrite, Table};
use crate::records::{
    AclChunkSink, AclCommit, PartitionRecord, StoredScramCredential, TopicRecord,
};
use crate::rules;

/// The layout version this build reads and writes, kept in the meta table. Version 2 added a
/// checksum to every record (see `checksum`); a version 1 store is rewritten to version 2, in
/// one transaction, the first time this build opens it.
pub const FORMAT_VERSION: u32 = 2;

/// The last layout without checksums, which is migrated.
const UNSEALED_FORMAT_VERSION: u64 = 1;

const META_FORMAT_VERSION: &[u8] = b"format_version";
const META_CLUSTER_ID: &[u8] = b"cluster_id";
const META_NEXT_TOPIC_SEQ: &[u8] = b"next_topic_seq";
/// 16 random bytes, replaced by every ACL commit that changes something: an ACL snapshot
/// (see `snapshot`) written for one value is stale once the store holds another.
const META_ACL_VERSION: &[u8] = b"acl_version";
/// Present (value 1) once the store's SCRAM bootstrap happened.
const META_SCRAM_BOOTSTRAPPED: &[u8] = b"scram_bootstrapped";
/// 32 random bytes the SCRAM stand-in credentials of unknown users are derived from
/// (`kacl_sasl::scram::stand_in`). Kept in the store, not drawn per process: a stand-in salt
/// that changed at every restart would tell an unknown user from a real one.
const META_STAND_IN_SECRET: &[u8] = b"scram_stand_in_secret";

/// Checks the format version and returns the cluster id, writing both on first use, and
/// migrates a version 1 store. With `initialized`, the directory's identity says a store was
/// created here, so a store without them was lost or replaced: refused, never re-created.
pub(crate) fn init_meta(t: &mut impl KvWrite, initialized: bool) -> Result<String, StoreError> {
    init_meta_with(t, initialized, None)
}

/// [`init_meta`], a new store taking `new_cluster_id` instead of a random one (`kacl store
/// copy` from etcd keeps the cluster's id).
pub(crate) fn init_meta_with(
    t: &mut impl KvWrite,
    initialized: bool,
    new_cluster_id: Option<&str>,
) -> Result<String, StoreError> {
    // The format version is the one record kept without a checksum, since it says whether
    // records have one. Any flipped bit in it still reads as an unknown version or a bad
    // varint, and is refused.
    match t.get(Table::Meta, META_FORMAT_VERSION)? {
        Some(value) => match format_version(&value)? {
            UNSEALED_FORMAT_VERSION => migrate_to_sealed(t)?,
            found if found == u64::from(FORMAT_VERSION) => {}
            found => {
                return Err(StoreError::UnsupportedFormat {
                    found: u32::try_from(found).unwrap_or(u32::MAX),
                    supported: FORMAT_VERSION,
                })
            }
        },
        None if initialized => return Err(missing_meta()),
        None => t.insert(
            Table::Meta,
            META_FORMAT_VERSION,
            &encode_u64(u64::from(FORMAT_VERSION)),
        )?,
    }
    let cluster_id = match get(t, Table::Meta, META_CLUSTER_ID)? {
        Some(value) => parse_cluster_id(&value)?,
        None if initialized => return Err(missing_meta()),
        None => {
            let cluster_id = new_cluster_id.map_or_else(
                || ids::kafka_uuid_string(&ids::random_kafka_uuid()),
                str::to_owned,
            );
            insert(t, Table::Meta, META_CLUSTER_ID, cluster_id.as_bytes())?;
            cluster_id
        }
    };
    // A store from before the ACL version existed gets one (no snapshot names it yet).
    if t.get(Table::Meta, META_ACL_VERSION)?.is_none() {
        insert(t, Table::Meta, META_ACL_VERSION, &ids::random_kafka_uuid())?;
    }
    // Likewise the stand-in secret, for a store from before it was kept.
    if t.get(Table::Meta, META_STAND_IN_SECRET)?.is_none() {
        insert(t, Table::Meta, META_STAND_IN_SECRET, &ids::random_secret())?;
    }
    Ok(cluster_id)
}

/// The store's SCRAM stand-in secret (see `META_STAND_IN_SECRET`); `None` only in a store no
/// build that keeps one has written to.
pub(crate) fn stand_in_secret(t: &impl KvGet) -> Result<Option<[u8; 32]>, StoreError> {
    let Some(value) = get(t, Table::Meta, META_STAND_IN_SECRET)? else {
        return Ok(None);
    };
    let secret = <[u8; 32]>::try_from(value.as_slice()).map_err(|_| {
        StoreError::corrupt(
            Table::Meta.name(),
            META_STAND_IN_SECRET,
            crate::RecordDecodeError::BadValue("SCRAM stand-in secret (not 32 bytes)"),
        )
    })?;
    Ok(Some(secret))
}

/// The store's ACL version (see `META_ACL_VERSION`); `None` only in a store never opened by
/// a build that keeps one.
pub(crate) fn acl_version(t: &impl KvGet) -> Result<Option<[u8; 16]>, StoreError> {
    let Some(value) = get(t, Table::Meta, META_ACL_VERSION)? else {
        return Ok(None);
    };
    let version = <[u8; 16]>::try_from(value.as_slice()).map_err(|_| {
        StoreError::corrupt(
            Table::Meta.name(),
            META_ACL_VERSION,
            crate::RecordDecodeError::BadValue("ACL version (not 16 bytes)"),
        )
    })?;
    Ok(Some(version))
}

/// A database without its meta records, where the identity says there was one.
fn missing_meta() -> StoreError {
    StoreError::StoreMissing {
        path: std::path::PathBuf::new(),
        cluster_id: String::new(),
        detail: "the database holds no cluster id (it is new or was replaced)",
    }
}

fn format_version(value: &[u8]) -> Result<u64, StoreError> {
    decode_u64(value).map_err(|e| StoreError::corrupt(Table::Meta.name(), META_FORMAT_VERSION, e))
}

fn parse_cluster_id(value: &[u8]) -> Result<String, StoreError> {
    std::str::from_utf8(value)
        .ok()
        .filter(|text| ids::parse_kafka_uuid(text).is_some())
        .map(str::to_owned)
        .ok_or_else(|| {
            StoreError::corrupt(
                Table::Meta.name(),
                META_CLUSTER_ID,
                crate::RecordDecodeError::BadValue("cluster id"),
            )
        })
}

/// The format version and cluster id, read only (for `verify`).
pub(crate) fn read_meta(t: &impl KvGet) -> Result<(u32, Option<String>), StoreError> {
    let Some(value) = t.get(Table::Meta, META_FORMAT_VERSION)? else {
        return Err(missing_meta());
    };
    let version = format_version(&value)?;
    let cluster_id = match version {
        UNSEALED_FORMAT_VERSION => t.get(Table::Meta, META_CLUSTER_ID)?,
        v if v == u64::from(FORMAT_VERSION) => get(t, Table::Meta, META_CLUSTER_ID)?,
        found => {
            return Err(StoreError::UnsupportedFormat {
                found: u32::try_from(found).unwrap_or(u32::MAX),
                supported: FORMAT_VERSION,
            })
        }
    };
    let cluster_id = cluster_id.map(|v| parse_cluster_id(&v)).transpose()?;
    Ok((u32::try_from(version).unwrap_or(u32::MAX), cluster_id))
}

/// Checks one stored record as a load would: its checksum (when `sealed`) and its decoding.
pub(crate) fn check_record(
    table: Table,
    key: &[u8],
    value: &[u8],
    sealed: bool,
) -> Result<(), StoreError> {
    let corrupt = |e| StoreError::corrupt(table.name(), key, e);
    if table == Table::Meta && key == META_FORMAT_VERSION {
        return format_version(value).map(drop);
    }
    let payload = if sealed {
        checksum::unseal(key, value).map_err(corrupt)?
    } else {
        value
    };
    check_payload(table, key, payload).map_err(corrupt)
}

fn check_payload(table: Table, key: &[u8], payload: &[u8]) -> Result<(), crate::RecordDecodeError> {
    match table {
        Table::Acls => {
            decode_acl_id(payload)?;
            decode_acl_key(key).map(drop)
        }
        Table::Topics => {
            let topic = decode_topic(payload)?;
            if topic.name.as_bytes() == key {
                Ok(())
            } else {
                Err(crate::RecordDecodeError::BadValue(
                    "topic name (differs from its key)",
                ))
            }
        }
        Table::Scram => {
            decode_scram_key(key)?;
            decode_scram_value(payload).map(drop)
        }
        Table::Quotas => {
            crate::quotas::decode_quota_key(key)?;
            crate::quotas::decode_quota_value(payload).map(drop)
        }
        Table::Meta => Ok(()),
    }
}

/// Rewrites every record of a version 1 store with its checksum, after checking that each
/// decodes (a damaged record is refused, not sealed as if it were good).
fn migrate_to_sealed(t: &mut impl KvWrite) -> Result<(), StoreError> {
    for table in Table::ALL {
        for (key, value) in t.entries(table)? {
            if table == Table::Meta && key == META_FORMAT_VERSION {
                continue;
            }
            check_payload(table, &key, &value)
                .map_err(|e| StoreError::corrupt(table.name(), &key, e))?;
            insert(t, table, &key, &value)?;
        }
    }
    t.insert(
        Table::Meta,
        META_FORMAT_VERSION,
        &encode_u64(u64::from(FORMAT_VERSION)),
    )
}

/// A record's payload, its checksum checked.
fn get(t: &impl KvGet, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
    let Some(mut value) = t.get(table, key)? else {
        return Ok(None);
    };
    let len = checksum::unseal(key, &value)
        .map_err(|e| StoreError::corrupt(table.name(), key, e))?
        .len();
    value.truncate(len);
    Ok(Some(value))
}

/// Writes a record with its checksum.
fn insert(
    t: &mut impl KvWrite,
    table: Table,
    key: &[u8],
    payload: &[u8],
) -> Result<(), StoreError> {
    t.insert(table, key, &checksum::seal(key, payload))
}

/// Every record's key and payload in key order, each checksum checked (without allocating),
/// and the count checked against the table's own: a damaged B-tree that loses or repeats
/// records is refused, not loaded short.
pub(crate) fn scan(
    t: &impl KvScan,
    table: Table,
    visit: &mut crate::kv::Visitor<'_>,
) -> Result<(), StoreError> {
    let mut seen = 0u64;
    t.scan(table, &mut |key, value| {
        seen += 1;
        let payload =
            checksum::unseal(key, value).map_err(|e| StoreError::corrupt(table.name(), key, e))?;
        visit(key, payload)
    })?;
    let len = t.len(table)?;
    if seen != len {
        return Err(StoreError::CountMismatch {
            table: table.name(),
            expected: len,
            found: seen,
        });
    }
    Ok(())
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
    scan(t, Table::Acls, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Acls.name(), key, e);
        decode_acl_id(value).map_err(corrupt)?;
        visit(decode_acl_key(key).map_err(corrupt)?)
    })
}

/// Applies `removes`, then `adds`, by the rule of [`rules::commit_acls`]; a commit that
/// changes something also replaces the ACL version.
pub(crate) fn commit_acl_changes(
    t: &mut impl KvWrite,
    adds: &[AclBinding],
    removes: &[AclBinding],
    new_id: &mut dyn FnMut() -> [u8; 16],
) -> Result<AclCommit, StoreError> {
    rules::check_storable(adds)?;
    let commit = rules::commit_acls(adds, removes, &mut KvPresence { t, new_id })?;
    if !commit.added.is_empty() || !commit.removed.is_empty() {
        insert(t, Table::Meta, META_ACL_VERSION, &new_id())?;
    }
    Ok(commit)
}

/// The `acls` table inside a write transaction, as the ACL rule reads and changes it.
struct KvPresence<'a, T> {
    t: &'a mut T,
    new_id: &'a mut dyn FnMut() -> [u8; 16],
}

impl<T: KvWrite> rules::AclPresence for KvPresence<'_, T> {
    fn remove(&mut self, binding: &AclBinding) -> Result<bool, StoreError> {
        self.t.remove(Table::Acls, &encode_acl_key(binding))
    }

    fn add(&mut self, binding: &AclBinding) -> Result<bool, StoreError> {
        let key = encode_acl_key(binding);
        if self.t.get(Table::Acls, &key)?.is_some() {
            return Ok(false);
        }
        insert(self.t, Table::Acls, &key, &(self.new_id)())?;
        Ok(true)
    }
}

/// Every topic, in creation order.
pub(crate) fn load_topics(t: &impl KvScan) -> Result<Vec<TopicRecord>, StoreError> {
    let mut out = Vec::new();
    scan(t, Table::Topics, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Topics.name(), key, e);
        let topic = decode_topic(value).map_err(corrupt)?;
        if topic.name.as_bytes() != key {
            return Err(corrupt(crate::RecordDecodeError::BadValue(
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
        rules::check_partition_numbering(&topic.name, 0, &topic.partitions)?;
    }
    let mut next_seq = next_topic_seq(t)?;
    let mut created = Vec::with_capacity(topics.len());
    for topic in topics {
        let stored = TopicRecord {
            created_seq: next_seq,
            ..topic.clone()
        };
        next_seq += 1;
        insert(
            t,
            Table::Topics,
            stored.name.as_bytes(),
            &encode_topic(&stored),
        )?;
        created.push(stored);
    }
    insert(t, Table::Meta, META_NEXT_TOPIC_SEQ, &encode_u64(next_seq))?;
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
    let value =
        get(t, Table::Topics, name.as_bytes())?.ok_or_else(|| StoreError::UnknownTopic {
            name: name.to_string(),
        })?;
    let mut topic = decode_topic(&value)
        .map_err(|e| StoreError::corrupt(Table::Topics.name(), name.as_bytes(), e))?;
    rules::check_partition_numbering(name, topic.partitions.len(), new_partitions)?;
    if !new_partitions.is_empty() {
        topic.partitions.extend_from_slice(new_partitions);
        insert(t, Table::Topics, name.as_bytes(), &encode_topic(&topic))?;
    }
    Ok(topic)
}

/// Replaces the replicas of existing partitions of a topic; returns the topic.
pub(crate) fn reassign_partitions(
    t: &mut impl KvWrite,
    name: &str,
    replicas: &[(i32, Vec<i32>)],
) -> Result<TopicRecord, StoreError> {
    let value =
        get(t, Table::Topics, name.as_bytes())?.ok_or_else(|| StoreError::UnknownTopic {
            name: name.to_string(),
        })?;
    let mut topic = decode_topic(&value)
        .map_err(|e| StoreError::corrupt(Table::Topics.name(), name.as_bytes(), e))?;
    rules::apply_reassignment(&mut topic, replicas)?;
    insert(t, Table::Topics, name.as_bytes(), &encode_topic(&topic))?;
    Ok(topic)
}

/// Replaces a topic's configs; returns the topic.
pub(crate) fn set_topic_configs(
    t: &mut impl KvWrite,
    name: &str,
    configs: &std::collections::BTreeMap<String, String>,
) -> Result<TopicRecord, StoreError> {
    let value =
        get(t, Table::Topics, name.as_bytes())?.ok_or_else(|| StoreError::UnknownTopic {
            name: name.to_string(),
        })?;
    let mut topic = decode_topic(&value)
        .map_err(|e| StoreError::corrupt(Table::Topics.name(), name.as_bytes(), e))?;
    topic.configs = configs.clone();
    insert(t, Table::Topics, name.as_bytes(), &encode_topic(&topic))?;
    Ok(topic)
}

fn next_topic_seq(t: &impl KvGet) -> Result<u64, StoreError> {
    match get(t, Table::Meta, META_NEXT_TOPIC_SEQ)? {
        Some(value) => decode_u64(&value)
            .map_err(|e| StoreError::corrupt(Table::Meta.name(), META_NEXT_TOPIC_SEQ, e)),
        None => Ok(0),
    }
}

/// Stores a credential, replacing the user's earlier one for the same mechanism.
pub(crate) fn upsert_scram(
    t: &mut impl KvWrite,
    user: &str,
    mechanism: ScramMechanism,
    credential: &ScramCredential,
) -> Result<(), StoreError> {
    insert(
        t,
        Table::Scram,
        &encode_scram_key(user, mechanism),
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
    get(t, Table::Scram, &key)?
        .map(|value| {
            decode_scram_value(&value)
                .map_err(|e| StoreError::corrupt(Table::Scram.name(), &key, e))
        })
        .transpose()
}

/// Every credential with its user and mechanism, ordered by user then mechanism.
pub(crate) fn list_scram(t: &impl KvScan) -> Result<Vec<StoredScramCredential>, StoreError> {
    let mut out = Vec::new();
    scan(t, Table::Scram, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Scram.name(), key, e);
        let (user, mechanism) = decode_scram_key(key).map_err(corrupt)?;
        out.push((user, mechanism, decode_scram_value(value).map_err(corrupt)?));
        Ok(())
    })?;
    out.sort_by(|(ua, ma, _), (ub, mb, _)| (ua, ma).cmp(&(ub, mb)));
    Ok(out)
}

/// True once the SCRAM bootstrap was recorded.
pub(crate) fn scram_bootstrapped(t: &impl KvGet) -> Result<bool, StoreError> {
    match get(t, Table::Meta, META_SCRAM_BOOTSTRAPPED)? {
        None => Ok(false),
        Some(value) => match decode_u64(&value) {
            Ok(1) => Ok(true),
            Ok(_) => Err(StoreError::corrupt(
                Table::Meta.name(),
                META_SCRAM_BOOTSTRAPPED,
                crate::RecordDecodeError::BadValue("SCRAM bootstrap flag"),
            )),
            Err(e) => Err(StoreError::corrupt(
                Table::Meta.name(),
                META_SCRAM_BOOTSTRAPPED,
                e,
            )),
        },
    }
}

/// Stores the bootstrap credentials and the record that the bootstrap happened, unless it
/// happened before or credentials exist (then only the record); true if stored.
pub(crate) fn bootstrap_scram(
    t: &mut impl KvWrite,
    credentials: &[StoredScramCredential],
) -> Result<bool, StoreError> {
    if scram_bootstrapped(t)? {
        return Ok(false);
    }
    let apply = t.is_empty(Table::Scram)?;
    if apply {
        for (user, mechanism, credential) in credentials {
            upsert_scram(t, user, *mechanism, credential)?;
        }
    }
    insert(t, Table::Meta, META_SCRAM_BOOTSTRAPPED, &encode_u64(1))?;
    Ok(apply)
}

/// Applies a quota alteration: each key set or removed, in order.
pub(crate) fn alter_quotas(
    t: &mut impl KvWrite,
    changes: &[crate::quotas::QuotaOp],
) -> Result<(), StoreError> {
    use crate::quotas::{encode_quota_key, encode_quota_value};
    for (entity, key, value) in changes {
        let record = encode_quota_key(entity, key);
        match value {
            Some(value) => insert(t, Table::Quotas, &record, &encode_quota_value(*value))?,
            None => {
                t.remove(Table::Quotas, &record)?;
            }
        }
    }
    Ok(())
}

/// Every quota value, in key order.
pub(crate) fn load_quotas(t: &impl KvScan) -> Result<Vec<crate::quotas::QuotaEntry>, StoreError> {
    use crate::quotas::{decode_quota_key, decode_quota_value};
    let mut out = Vec::new();
    scan(t, Table::Quotas, &mut |key, value| {
        let corrupt = |e| StoreError::corrupt(Table::Quotas.name(), key, e);
        let (entity, quota) = decode_quota_key(key).map_err(corrupt)?;
        out.push((entity, quota, decode_quota_value(value).map_err(corrupt)?));
        Ok(())
    })?;
    Ok(out)
}
