//! The full listing of one kacl cluster's keys at one revision: start-up, and the re-list
//! after a compaction. ACLs are listed shard by shard (see `layout`), every other record in
//! the two ranges around them, all at the revision the first request read.

use kacl_acl::AclBinding;
use kacl_store::{Change, NodeInfo, StoreContents, StoreError};

use crate::client::{EtcdClient, EtcdError, Kv};
use crate::decode::{etcd_error, parse_node, put_change};
use crate::layout::{KeyKind, Layout, ACL_SHARDS};

/// Pairs read per range request while listing. etcd 3.4 walks its index over the whole rest
/// of the range for every request, whatever the limit (measured at 2M ACLs in one range:
/// 1.3 s for a page of 100, 2.4 s for 10,000; BENCHMARKS.md, "Cluster mode on etcd"). A shard
/// holds 1/256 of the ACLs, so at 2M one page reads a whole shard and walks nothing more.
const PAGE: i64 = 50_000;

/// Everything under the prefix at one revision.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub(crate) revision: i64,
    pub(crate) contents: StoreContents,
    pub(crate) nodes: Vec<NodeInfo>,
    pub(crate) controller: Option<i32>,
}

/// Lists every key under the prefix at one revision: everything but the ACLs, then the ACLs
/// at that revision, shard by shard ([`list_acls`]).
pub(crate) fn list_all(client: &EtcdClient, layout: &Layout) -> Result<Listing, StoreError> {
    let mut listing = list_all_but_acls(client, layout).map_err(etcd_error)?;
    let acls = &mut listing.contents.acls;
    list_acls(client, layout, listing.revision, &mut |page| {
        acls.extend(page);
        Ok(())
    })?;
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

/// Shards read at once while streaming the ACLs: etcd serves one while this node decodes
/// another (checksum, binding), beside the caller's indexing.
const LISTING_THREADS: usize = 3;

/// Streams the ACLs at `revision` (0: the current one, then fixed) to `sink` in shard order,
/// one decoded page at a time; the revision read. The first shard is read alone when the
/// revision is not fixed yet; then [`LISTING_THREADS`] shards at a time, each on its own
/// thread, handed over in order once all of them are in (so at most that many shards are
/// held at once).
pub(crate) fn list_acls(
    client: &EtcdClient,
    layout: &Layout,
    mut revision: i64,
    sink: &mut dyn FnMut(Vec<AclBinding>) -> Result<(), StoreError>,
) -> Result<i64, StoreError> {
    let mut read = 0usize;
    let mut next_log = 500_000;
    let mut deliver = |pages: Vec<Vec<AclBinding>>| -> Result<(), StoreError> {
        for page in pages.into_iter().filter(|p| !p.is_empty()) {
            read += page.len();
            sink(page)?;
        }
        if read >= next_log {
            tracing::info!(acls = read, "loading ACLs from etcd");
            next_log = read + 500_000;
        }
        Ok(())
    };
    let read_shard = |shard: usize, revision: i64| {
        let mut pages = Vec::new();
        list_shard(client, layout, shard as u8, revision, &mut |page| {
            pages.push(page);
            Ok(())
        })
        .map(|revision| (revision, pages))
    };
    let mut next = 0;
    if revision == 0 {
        let (read_at, pages) = read_shard(0, 0).map_err(etcd_error)?;
        revision = read_at;
        deliver(pages)?;
        next = 1;
    }
    while next < usize::from(ACL_SHARDS) {
        let window = next..(next + LISTING_THREADS).min(usize::from(ACL_SHARDS));
        next = window.end;
        let shards: Vec<_> = std::thread::scope(|scope| {
            let running: Vec<_> = window
                .map(|shard| scope.spawn(move || read_shard(shard, revision)))
                .collect();
            running
                .into_iter()
                .map(|thread| {
                    thread.join().unwrap_or_else(|_| {
                        Err(EtcdError::Protocol(
                            "an ACL listing thread panicked".to_owned(),
                        ))
                    })
                })
                .collect()
        });
        for shard in shards {
            let (_, pages) = shard.map_err(etcd_error)?;
            deliver(pages)?;
        }
    }
    Ok(revision)
}

/// One shard's ACLs at `revision` (0: the current one), decoded page by page; the revision
/// read. A value that does not unseal or decode is skipped, loudly.
fn list_shard(
    client: &EtcdClient,
    layout: &Layout,
    shard: u8,
    revision: i64,
    on_page: &mut dyn FnMut(Vec<AclBinding>) -> Result<(), EtcdError>,
) -> Result<i64, EtcdError> {
    let start = layout.acl_shard_prefix(shard);
    let end = crate::client::prefix_end(&start);
    list_range(client, &start, &end, revision, &mut |kvs| {
        let mut page = Vec::with_capacity(kvs.len());
        for kv in kvs {
            match put_change(layout, kv) {
                Ok(Some(Change::AclAdded(binding))) => page.push(binding),
                Ok(_) => {}
                Err(err) => tracing::error!(%err, "skipping an unreadable record in etcd"),
            }
        }
        on_page(page)
    })
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
            Ok(Some(Change::AclAdded(b))) => listing.contents.acls.push(b),
            Ok(Some(Change::TopicPut(t))) => listing.contents.topics.push(t),
            Ok(Some(Change::ScramPut(u, m, c))) => listing.contents.scram.push((u, m, c)),
            Ok(Some(Change::Quota(entity, key, Some(value)))) => {
                listing.contents.quotas.push((entity, key, value.0));
            }
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
        .contents
        .topics
        .sort_by(|a, b| (a.created_seq, &a.name).cmp(&(b.created_seq, &b.name)));
}
