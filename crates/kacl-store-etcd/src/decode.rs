//! Turning etcd key-value pairs back into kacl's records, and the full listing of one kacl
//! cluster's keys at one revision (start-up, and the re-list after a compaction).

use kacl_store::encoding;
use kacl_store::{Change, NodeInfo, RecordDecodeError, Snapshot, StoreError};

use crate::client::{EtcdClient, EtcdError, Kv};
use crate::layout::{KeyKind, Layout};
use serde_json::Value;

/// Pairs read per range request while listing. etcd 3.4 walks its index over the whole rest
/// of the range for every request, whatever the limit (measured at 2M ACLs: 1.3 s for a page
/// of 100, 2.4 s for 10,000; BENCHMARKS.md, "Cluster mode on etcd"), so a listing costs about
/// one such walk per page: fewer, larger pages (a few MB of JSON each).
const PAGE: i64 = 50_000;

/// Everything under the prefix at one revision.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub(crate) revision: i64,
    pub(crate) snapshot: Snapshot,
    pub(crate) nodes: Vec<NodeInfo>,
    pub(crate) controller: Option<i32>,
}

pub(crate) fn corrupt(key: &[u8], reason: RecordDecodeError) -> StoreError {
    StoreError::Corrupt {
        table: "etcd",
        key: String::from_utf8_lossy(key).chars().take(200).collect(),
        reason,
    }
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
        _ => None,
    })
}

/// The change a delete of `key` means, if it is a record.
pub(crate) fn delete_change(layout: &Layout, key: &[u8]) -> Result<Option<Change>, StoreError> {
    Ok(match layout.kind(key) {
        KeyKind::Acl(rest) => Some(Change::AclRemoved(
            encoding::decode_acl_key(rest).map_err(|e| corrupt(key, e))?,
        )),
        KeyKind::Topic(rest) => Some(Change::TopicDeleted(
            String::from_utf8(rest.to_vec())
                .map_err(|_| corrupt(key, RecordDecodeError::InvalidUtf8))?,
        )),
        KeyKind::Scram(rest) => {
            let (user, mechanism) =
                encoding::decode_scram_key(rest).map_err(|e| corrupt(key, e))?;
            Some(Change::ScramDeleted(user, mechanism))
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

/// Lists every key under the prefix at one revision, page by page. `progress` is called with
/// the number of pairs read so far after each page (start-up logs it for large sets).
pub(crate) fn list_all(
    client: &EtcdClient,
    layout: &Layout,
    progress: &mut dyn FnMut(usize),
) -> Result<Listing, EtcdError> {
    let end = crate::client::prefix_end(layout.prefix());
    let mut listing = Listing::default();
    let mut read = 0usize;
    let prefix = layout.prefix().to_vec();
    listing.revision = list_range(client, &prefix, &end, 0, &mut |kvs| {
        read += kvs.len();
        for kv in kvs {
            add_to_listing(layout, &mut listing, kv);
        }
        progress(read);
        Ok(())
    })?;
    sort_topics(&mut listing);
    Ok(listing)
}

/// Lists every key under the prefix but the ACLs, at one revision: what a node starts from
/// before it streams the ACLs at that revision into its index ([`list_acls`]), so that the
/// whole ACL set is never held as a list beside the index.
pub(crate) fn list_all_but_acls(
    client: &EtcdClient,
    layout: &Layout,
) -> Result<Listing, EtcdError> {
    let acls = layout.key(crate::layout::ACL);
    let after_acls = crate::client::prefix_end(&acls);
    let end = crate::client::prefix_end(layout.prefix());
    let mut listing = Listing::default();
    let prefix = layout.prefix().to_vec();
    let mut add = |kvs: &[Kv]| {
        for kv in kvs {
            add_to_listing(layout, &mut listing, kv);
        }
        Ok(())
    };
    let revision = list_range(client, &prefix, &acls, 0, &mut add)?;
    list_range(client, &after_acls, &end, revision, &mut add)?;
    listing.revision = revision;
    sort_topics(&mut listing);
    Ok(listing)
}

/// Streams the ACLs at `revision` (0: the current one) to `sink`, one decoded page at a
/// time; the revision read.
pub(crate) fn list_acls(
    client: &EtcdClient,
    layout: &Layout,
    revision: i64,
    sink: &mut dyn FnMut(Vec<kacl_acl::AclBinding>) -> Result<(), StoreError>,
) -> Result<i64, StoreError> {
    let acls = layout.key(crate::layout::ACL);
    let end = crate::client::prefix_end(&acls);
    let mut failed = None;
    let mut read = 0usize;
    let result = list_range(client, &acls, &end, revision, &mut |kvs| {
        let mut chunk = Vec::with_capacity(kvs.len());
        for kv in kvs {
            match put_change(layout, kv) {
                Ok(Some(Change::AclAdded(binding))) => chunk.push(binding),
                Ok(_) => {}
                Err(err) => tracing::error!(%err, "skipping an unreadable record in etcd"),
            }
        }
        read += kvs.len();
        if read >= 100_000 && read % 500_000 < kvs.len() {
            tracing::info!(acls = read, "loading ACLs from etcd");
        }
        if let Err(err) = sink(chunk) {
            failed = Some(err);
            return Err(EtcdError::Protocol(
                "the ACL sink refused a page".to_owned(),
            ));
        }
        Ok(())
    });
    match (result, failed) {
        (_, Some(err)) => Err(err),
        (Ok(revision), None) => Ok(revision),
        (Err(err), None) => Err(etcd_error(err)),
    }
}

/// Pages through `[start, end)` at `revision` (0: the current one, then fixed for every
/// page), handing each page's pairs to `on_page`; the revision read.
fn list_range(
    client: &EtcdClient,
    start: &[u8],
    end: &[u8],
    mut revision: i64,
    on_page: &mut dyn FnMut(&[Kv]) -> Result<(), EtcdError>,
) -> Result<i64, EtcdError> {
    let mut next = start.to_vec();
    loop {
        let page = client.range(&next, Some(end), revision, PAGE)?;
        if revision == 0 {
            revision = page.revision;
        }
        on_page(&page.kvs)?;
        match page.kvs.last() {
            Some(last) if page.more => {
                next = last.key.clone();
                next.push(0);
            }
            _ => return Ok(revision),
        }
    }
}

fn add_to_listing(layout: &Layout, listing: &mut Listing, kv: &Kv) {
    match layout.kind(&kv.key) {
        KeyKind::Node(_) => {
            if let Some(node) = parse_node(&kv.value) {
                listing.nodes.push(node);
            }
        }
        KeyKind::Controller => {
            listing.controller = std::str::from_utf8(&kv.value)
                .ok()
                .and_then(|v| v.parse().ok());
        }
        _ => match put_change(layout, kv) {
            Ok(Some(Change::AclAdded(b))) => listing.snapshot.acls.push(b),
            Ok(Some(Change::TopicPut(t))) => listing.snapshot.topics.push(t),
            Ok(Some(Change::ScramPut(u, m, c))) => listing.snapshot.scram.push((u, m, c)),
            Ok(_) => {}
            Err(err) => {
                // A damaged value is skipped, loudly: refusing to start would stop every
                // node of the cluster at once.
                tracing::error!(%err, "skipping an unreadable record in etcd");
            }
        },
    }
}

fn sort_topics(listing: &mut Listing) {
    listing
        .snapshot
        .topics
        .sort_by(|a, b| (a.created_seq, &a.name).cmp(&(b.created_seq, &b.name)));
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
