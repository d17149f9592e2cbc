//! [`EtcdStore`]: the [`MetadataStore`] of a cluster of kacl nodes sharing etcd.
//!
//! Every write is one etcd transaction whose compares make it correct against other nodes
//! (see each method); it also touches `meta/last-write`, so every change has an event and a
//! consistent read has a revision to wait for. A write returns only once this node's watch
//! has applied its revision (read-your-writes); the caller never applies anything itself.
//! The store's rules (partition numbering, what a commit really changed) are kacl-store's
//! [`rules`]; what is here is the key layout, the transactions and the feed.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};
use kacl_store::{encoding, rules};
use kacl_store::{
    AclChunkSink, AclCommit, ChangeSink, ClusterMembership, MetadataStore, PartitionRecord,
    StoreContents, StoreError, StoredScramCredential, TopicRecord,
};
use parking_lot::Mutex;

use crate::client::{
    cmp_absent, cmp_mod, op_delete, op_get, op_put, ClientOptions, Cmp, EtcdClient, Kv, Op,
};
use crate::decode::etcd_error;
use crate::feed::Feed;
use crate::layout::{self, Layout};
use crate::listing::{list_acls, list_all, list_all_but_acls, Listing};
use crate::membership::Membership;
use crate::metrics::EtcdMetrics;
use crate::ops::first_kv;
use crate::progress::Progress;
use crate::startup::{check_layout, cluster_id, probe_limits, stand_in_secret};

/// The least deadline of each etcd call while a node starts.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Attempts of a read-modify-write (partitions, configs, topic deletion) that another node's
/// write keeps invalidating, before it fails as unavailable.
const CAS_ATTEMPTS: usize = 16;

/// How to open an [`EtcdStore`].
#[derive(Debug, Clone)]
pub struct EtcdOptions {
    /// The client's endpoints, deadline and credentials.
    pub client: ClientOptions,
    /// `kacl.etcd.prefix`.
    pub prefix: String,
    /// `kacl.etcd.lease.ttl.ms`.
    pub lease_ttl: Duration,
    /// The most ACL changes one request may make (`kacl.acl.max.batch`): etcd must take a
    /// transaction of this many operations.
    pub max_batch: usize,
}

/// kacl's metadata in etcd.
pub struct EtcdStore {
    client: Arc<EtcdClient>,
    /// The same endpoints with the start-up deadline, for listings of millions of ACLs.
    startup: EtcdClient,
    layout: Layout,
    cluster_id: String,
    /// What the `load_*` methods hand out at start: the listing the feed continues from
    /// (without its ACLs, which `load_acls_chunked` streams at its revision).
    initial: Mutex<Option<Listing>>,
    /// The start-up listing's revision (fixed), for the ACLs of `load_acls_chunked`.
    listed_at: i64,
    /// Set by the first write: from then on the `load_*` methods list etcd afresh.
    written: std::sync::atomic::AtomicBool,
    progress: Arc<Progress>,
    feed: Mutex<Option<Feed>>,
    membership: Arc<Membership>,
    metrics: Arc<EtcdMetrics>,
    timeout: Duration,
    /// `kacl.acl.max.batch`: the most ACL changes one txn carries.
    max_batch: usize,
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("client", &self.client)
            .field("cluster_id", &self.cluster_id)
            .finish_non_exhaustive()
    }
}

impl EtcdStore {
    /// Connects, checks that etcd takes kacl's largest transaction, reads or creates the
    /// cluster id, and lists everything (the state the node starts from).
    pub fn open(options: EtcdOptions) -> Result<EtcdStore, StoreError> {
        let timeout = options.client.timeout;
        // Start-up (the limits probe, a listing of millions of ACLs) is not a client's
        // request: it gets at least STARTUP_TIMEOUT per call, whatever the request timeout.
        let startup = EtcdClient::new(ClientOptions {
            timeout: timeout.max(STARTUP_TIMEOUT),
            ..options.client.clone()
        });
        let client = Arc::new(EtcdClient::new(options.client));
        let layout = Layout::new(&options.prefix);
        probe_limits(&startup, &layout, options.max_batch)?;
        let cluster_id = cluster_id(&startup, &layout)?;
        check_layout(&startup, &layout)?;
        let started = Instant::now();
        // The ACLs are not listed here: the server streams them, at this listing's revision,
        // into its index (`load_acls_chunked`), so the set is never held twice.
        let listing = list_all_but_acls(&startup, &layout).map_err(etcd_error)?;
        tracing::info!(
            topics = listing.contents.topics.len(),
            revision = listing.revision,
            ms = started.elapsed().as_millis() as u64,
            "listed the metadata but the ACLs from etcd"
        );
        let progress = Arc::new(Progress::default());
        progress.advance(listing.revision);
        let membership = Arc::new(Membership::new(
            client.clone(),
            layout.clone(),
            options.lease_ttl,
        ));
        membership.seed(&listing.nodes, listing.controller);
        Ok(EtcdStore {
            client,
            startup,
            layout,
            cluster_id,
            listed_at: listing.revision,
            initial: Mutex::new(Some(listing)),
            written: std::sync::atomic::AtomicBool::new(false),
            progress,
            feed: Mutex::new(None),
            membership,
            metrics: Arc::new(EtcdMetrics::default()),
            timeout,
            max_batch: options.max_batch.max(1),
        })
    }

    /// The feed's and the client's counters.
    pub fn metrics(&self) -> Arc<EtcdMetrics> {
        self.metrics.clone()
    }

    /// The revision this node's state has reached.
    pub fn applied_revision(&self) -> i64 {
        self.progress.applied()
    }

    fn listing(&self) -> Result<Listing, StoreError> {
        list_all(&self.client, &self.layout)
    }

    /// Streams every ACL to `sink` in chunks of at most `chunk_len`: at the start-up
    /// listing's revision until the first write (a node that started listing at R shows the
    /// ACLs of R, and its feed continues from R+1), then at the current revision. If etcd
    /// compacted R meanwhile (start-up takes seconds; compaction keeps an hour in
    /// docs/operations.md), the read fails and the node does not start: a restart lists anew.
    fn stream_acls(&self, chunk_len: usize, sink: &mut AclChunkSink<'_>) -> Result<(), StoreError> {
        let written = self.written.load(std::sync::atomic::Ordering::SeqCst);
        let revision = if written || self.initial.lock().is_none() {
            0
        } else {
            self.listed_at
        };
        let started = Instant::now();
        let mut count = 0usize;
        let chunk_len = chunk_len.max(1);
        // Shards arrive one page each, of any size: gathered into chunks of chunk_len.
        let mut pending = Vec::new();
        let revision = list_acls(&self.startup, &self.layout, revision, &mut |page| {
            count += page.len();
            if pending.is_empty() && page.len() == chunk_len {
                return sink(page);
            }
            pending.extend(page);
            while pending.len() >= chunk_len {
                let rest = pending.split_off(chunk_len);
                sink(std::mem::replace(&mut pending, rest))?;
            }
            Ok(())
        })?;
        if !pending.is_empty() {
            sink(pending)?;
        }
        tracing::info!(
            acls = count,
            revision,
            ms = started.elapsed().as_millis() as u64,
            "streamed the ACLs from etcd"
        );
        Ok(())
    }

    /// The start-up listing until the first write, then a fresh one. (The feed starts from
    /// the start-up listing's revision either way: replaying the later history over a later
    /// listing ends in the same state, key by key.)
    fn with_contents<R>(&self, read: impl FnOnce(&StoreContents) -> R) -> Result<R, StoreError> {
        if !self.written.load(std::sync::atomic::Ordering::SeqCst) {
            if let Some(listing) = self.initial.lock().as_ref() {
                return Ok(read(&listing.contents));
            }
        }
        Ok(read(&self.listing()?.contents))
    }

    /// A transaction, timed and counted.
    fn txn(
        &self,
        compare: Vec<Cmp>,
        mut success: Vec<Op>,
        failure: Vec<Op>,
    ) -> Result<crate::client::TxnResult, StoreError> {
        success.push(op_put(&self.layout.key(layout::LAST_WRITE), b"", 0, false));
        self.written
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let started = Instant::now();
        let result = self.client.txn(compare, success, failure);
        self.metrics.request(started.elapsed(), result.is_err());
        result.map_err(|err| match err {
            crate::client::EtcdError::Status { code: 3, message }
                if message.contains("too many operations") || message.contains("too large") =>
            {
                StoreError::Refused {
                    detail: format!(
                        "etcd refused the transaction: {message}; raise etcd's \
                         --max-txn-ops / --max-request-bytes (docs/operations.md)"
                    ),
                }
            }
            other => etcd_error(other),
        })
    }

    /// Waits until the feed has applied `revision` (read-your-writes).
    fn wait_applied(&self, revision: i64) -> Result<(), StoreError> {
        let deadline = Instant::now() + self.timeout;
        let mut state = self.progress.state.lock();
        while state.feeding && state.applied < revision {
            if self
                .progress
                .advanced
                .wait_until(&mut state, deadline)
                .timed_out()
            {
                return Err(StoreError::Unavailable {
                    detail: format!(
                        "etcd committed the change at revision {revision}, but this node's \
                         watch has not delivered it within {} ms (it has revision {}); it \
                         will appear once the watch catches up",
                        self.timeout.as_millis(),
                        state.applied
                    ),
                });
            }
        }
        Ok(())
    }

    fn get(&self, key: &[u8]) -> Result<Option<Kv>, StoreError> {
        let started = Instant::now();
        let result = self.client.range(key, None, 0, 1);
        self.metrics.request(started.elapsed(), result.is_err());
        Ok(result.map_err(etcd_error)?.kvs.into_iter().next())
    }

    /// Read a topic, change it, write it back if nobody changed it meanwhile.
    fn update_topic(
        &self,
        name: &str,
        change: impl Fn(TopicRecord) -> Result<TopicRecord, StoreError>,
    ) -> Result<TopicRecord, StoreError> {
        let key = self.layout.topic(name);
        for _ in 0..CAS_ATTEMPTS {
            let Some(kv) = self.get(&key)? else {
                return Err(StoreError::UnknownTopic {
                    name: name.to_owned(),
                });
            };
            let payload = self
                .layout
                .unseal(&kv.key, &kv.value)
                .map_err(|e| crate::decode::corrupt(&kv.key, e))?;
            let mut current =
                encoding::decode_topic(payload).map_err(|e| crate::decode::corrupt(&kv.key, e))?;
            current.created_seq =
                crate::decode::creation_seq(kv.create_revision, current.created_seq);
            let updated = change(current)?;
            let value = self.layout.seal(&key, &encoding::encode_topic(&updated));
            let txn = self.txn(
                vec![cmp_mod(&key, kv.mod_revision)],
                vec![op_put(&key, &value, 0, false)],
                Vec::new(),
            )?;
            if txn.succeeded {
                self.wait_applied(txn.revision)?;
                return Ok(updated);
            }
        }
        Err(StoreError::Unavailable {
            detail: format!("topic '{name}' kept changing on other nodes; try again"),
        })
    }
}

/// For each response of a txn: did the put replace a value (`prev_kv` present) / did the
/// delete remove a key.
fn put_replaced(response: &crate::client::ResponseOp) -> bool {
    response.put_replaced()
}

fn delete_removed(response: &crate::client::ResponseOp) -> bool {
    response.deleted() > 0
}

/// The ACL keys of a txn as they were before it (from its answer), changed as the rule of
/// [`rules::commit_acls`] walks the request.
struct AnsweredPresence<'a> {
    layout: &'a Layout,
    stored: HashMap<Vec<u8>, bool>,
}

impl rules::AclPresence for AnsweredPresence<'_> {
    fn remove(&mut self, binding: &AclBinding) -> Result<bool, StoreError> {
        Ok(self
            .stored
            .get_mut(&self.layout.acl(binding))
            .is_some_and(|stored| std::mem::replace(stored, false)))
    }

    fn add(&mut self, binding: &AclBinding) -> Result<bool, StoreError> {
        Ok(self
            .stored
            .get_mut(&self.layout.acl(binding))
            .is_some_and(|stored| !std::mem::replace(stored, true)))
    }
}

impl Drop for EtcdStore {
    fn drop(&mut self) {
        if let Some(feed) = self.feed.lock().take() {
            feed.stop();
        }
        self.membership.leave();
    }
}

impl MetadataStore for EtcdStore {
    fn cluster_id(&self) -> String {
        self.cluster_id.clone()
    }

    fn load_acls(&self) -> Result<Vec<AclBinding>, StoreError> {
        let mut acls = Vec::new();
        self.stream_acls(usize::MAX, &mut |chunk| {
            acls.extend(chunk);
            Ok(())
        })?;
        Ok(acls)
    }

    fn load_acls_chunked(
        &self,
        chunk_len: usize,
        sink: &mut AclChunkSink<'_>,
    ) -> Result<(), StoreError> {
        self.stream_acls(chunk_len, sink)
    }

    /// One txn: a delete (with the previous value) per removed ACL, a put per added one.
    /// Several nodes adding the same ACL store one key; what the result lists comes from
    /// etcd's answer (a put that replaced nothing added, a delete that deleted removed), so
    /// it is exact even when other nodes raced.
    fn commit_acl_changes(
        &self,
        adds: &[AclBinding],
        removes: &[AclBinding],
    ) -> Result<AclCommit, StoreError> {
        rules::check_storable(adds)?;
        // etcd refuses a txn touching one key twice: net each binding out (removes, then adds).
        let mut net: BTreeMap<Vec<u8>, bool> = BTreeMap::new();
        for binding in removes {
            net.insert(self.layout.acl(binding), false);
        }
        for binding in adds {
            net.insert(self.layout.acl(binding), true);
        }
        if net.is_empty() {
            return Ok(AclCommit::default());
        }
        let mut ops = Vec::with_capacity(net.len());
        for (key, add) in &net {
            if *add {
                let value = self.layout.seal(key, &kacl_store::random_kafka_uuid());
                ops.push(op_put(key, &value, 0, true));
            } else {
                ops.push(op_delete(key, false));
            }
        }
        let txn = self.txn(Vec::new(), ops, Vec::new())?;
        // Which keys were stored before the txn, from etcd's answer (responses follow `net`'s
        // order: a put that replaced a value, a delete that deleted one); then the rule of
        // what really changed, as every backend applies it.
        let stored: HashMap<Vec<u8>, bool> = net
            .iter()
            .zip(&txn.responses)
            .map(|((key, add), response)| {
                let was = if *add {
                    put_replaced(response)
                } else {
                    delete_removed(response)
                };
                (key.clone(), was)
            })
            .collect();
        let commit = rules::commit_acls(
            adds,
            removes,
            &mut AnsweredPresence {
                layout: &self.layout,
                stored,
            },
        )?;
        self.wait_applied(txn.revision)?;
        Ok(commit)
    }

    fn load_topics(&self) -> Result<Vec<TopicRecord>, StoreError> {
        self.with_contents(|s| s.topics.clone())
    }

    /// One txn whose compares say that neither the name nor its collision group (`.` as
    /// `_`) exists: of two nodes racing to create one topic (or `a.b` and `a_b`), exactly one
    /// wins; the other learns which topic holds the group.
    fn create_topics(&self, topics: &[TopicRecord]) -> Result<Vec<TopicRecord>, StoreError> {
        let mut compares = Vec::new();
        let mut ops = Vec::new();
        let mut probes = Vec::new();
        let mut groups = std::collections::HashSet::new();
        if topics.len() > usize::from(u16::MAX) {
            return Err(StoreError::Refused {
                detail: format!("{} topics in one request; at most 65535", topics.len()),
            });
        }
        for (position, topic) in topics.iter().enumerate() {
            // The creation order: the txn's revision (etcd's create revision) and the
            // position in the request, kept in the record (see `decode::put_change`).
            let topic = &TopicRecord {
                created_seq: position as u64,
                ..topic.clone()
            };
            rules::check_partition_numbering(&topic.name, 0, &topic.partitions)?;
            let name_key = self.layout.topic_name(&topic.name);
            if !groups.insert(name_key.clone()) {
                return Err(StoreError::TopicAlreadyExists {
                    name: topic.name.clone(),
                });
            }
            let key = self.layout.topic(&topic.name);
            compares.push(cmp_absent(&key));
            compares.push(cmp_absent(&name_key));
            ops.push(op_put(
                &key,
                &self.layout.seal(&key, &encoding::encode_topic(topic)),
                0,
                false,
            ));
            ops.push(op_put(&name_key, topic.name.as_bytes(), 0, false));
            probes.push(op_get(&name_key));
            probes.push(op_get(&key));
        }
        if topics.is_empty() {
            return Ok(Vec::new());
        }
        let txn = self.txn(compares, ops, probes)?;
        if txn.succeeded {
            self.wait_applied(txn.revision)?;
            return Ok(topics
                .iter()
                .enumerate()
                .map(|(position, t)| TopicRecord {
                    created_seq: crate::decode::creation_seq(txn.revision, position as u64),
                    ..t.clone()
                })
                .collect());
        }
        // Which topic lost: the first whose group or name is taken. Wait until the winner is
        // in memory, so that a retry here sees it.
        for (topic, pair) in topics.iter().zip(txn.responses.chunks(2)) {
            let taken = first_kv(&pair[..1]).or_else(|| first_kv(&pair[1..]));
            if let Some(kv) = taken {
                self.wait_applied(kv.mod_revision)?;
                let existing = String::from_utf8_lossy(&kv.value).into_owned();
                if existing == topic.name || first_kv(&pair[1..]).is_some() {
                    return Err(StoreError::TopicAlreadyExists {
                        name: topic.name.clone(),
                    });
                }
                return Err(StoreError::TopicCollision {
                    name: topic.name.clone(),
                    existing,
                });
            }
        }
        Err(StoreError::Unavailable {
            detail: "etcd refused the topic creation without naming a conflict; try again"
                .to_owned(),
        })
    }

    /// Deletes the named topics that exist, with their collision-group keys, in one txn
    /// that holds only if none of them changed since they were read.
    fn delete_topics(&self, names: &[String]) -> Result<Vec<String>, StoreError> {
        let mut unique = std::collections::HashSet::new();
        let names: Vec<&String> = names.iter().filter(|n| unique.insert(*n)).collect();
        for _ in 0..CAS_ATTEMPTS {
            let mut compares = Vec::new();
            let mut ops = Vec::new();
            let mut deleted = Vec::new();
            for name in &names {
                let key = self.layout.topic(name);
                match self.get(&key)? {
                    Some(kv) => {
                        compares.push(cmp_mod(&key, kv.mod_revision));
                        ops.push(op_delete(&key, false));
                        ops.push(op_delete(&self.layout.topic_name(name), false));
                        deleted.push((*name).clone());
                    }
                    None => compares.push(cmp_absent(&key)),
                }
            }
            if deleted.is_empty() {
                return Ok(deleted);
            }
            let txn = self.txn(compares, ops, Vec::new())?;
            if txn.succeeded {
                self.wait_applied(txn.revision)?;
                return Ok(deleted);
            }
        }
        Err(StoreError::Unavailable {
            detail: "the topics kept changing on other nodes; try again".to_owned(),
        })
    }

    fn add_partitions(
        &self,
        name: &str,
        new_partitions: &[PartitionRecord],
    ) -> Result<TopicRecord, StoreError> {
        self.update_topic(name, |mut topic| {
            rules::check_partition_numbering(name, topic.partitions.len(), new_partitions)?;
            topic.partitions.extend_from_slice(new_partitions);
            Ok(topic)
        })
    }

    fn reassign_partitions(
        &self,
        name: &str,
        replicas: &[(i32, Vec<i32>)],
    ) -> Result<TopicRecord, StoreError> {
        self.update_topic(name, |mut topic| {
            rules::apply_reassignment(&mut topic, replicas)?;
            Ok(topic)
        })
    }

    fn set_topic_configs(
        &self,
        name: &str,
        configs: &BTreeMap<String, String>,
    ) -> Result<TopicRecord, StoreError> {
        self.update_topic(name, |mut topic| {
            topic.configs = configs.clone();
            Ok(topic)
        })
    }

    fn upsert_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
        credential: &ScramCredential,
    ) -> Result<(), StoreError> {
        let key = self.layout.scram(user, mechanism);
        let value = self
            .layout
            .seal(&key, &encoding::encode_scram_value(credential));
        let txn = self.txn(Vec::new(), vec![op_put(&key, &value, 0, false)], Vec::new())?;
        self.wait_applied(txn.revision)
    }

    fn delete_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<bool, StoreError> {
        let key = self.layout.scram(user, mechanism);
        let txn = self.txn(Vec::new(), vec![op_delete(&key, false)], Vec::new())?;
        self.wait_applied(txn.revision)?;
        Ok(txn.responses.first().is_some_and(delete_removed))
    }

    fn scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<Option<ScramCredential>, StoreError> {
        let key = self.layout.scram(user, mechanism);
        let Some(kv) = self.get(&key)? else {
            return Ok(None);
        };
        match crate::decode::put_change(&self.layout, &kv)? {
            Some(kacl_store::Change::ScramPut(_, _, credential)) => Ok(Some(credential)),
            _ => Ok(None),
        }
    }

    fn list_scram_credentials(&self) -> Result<Vec<StoredScramCredential>, StoreError> {
        let mut entries = self.with_contents(|s| s.scram.clone())?;
        entries.sort_by(|a, b| (&a.0, a.1 as u8).cmp(&(&b.0, b.1 as u8)));
        Ok(entries)
    }

    fn load_client_quotas(&self) -> Result<Vec<kacl_store::QuotaEntry>, StoreError> {
        self.with_contents(|s| s.quotas.clone())
    }

    /// One txn of plain puts and deletes (one key per entity and quota key): nothing to
    /// compare, so two nodes altering one entity at once both succeed, the later write of a
    /// key winning, as the later of two Kafka controller records does.
    fn alter_client_quotas(&self, changes: &[kacl_store::QuotaOp]) -> Result<(), StoreError> {
        let ops = changes
            .iter()
            .map(|(entity, key, value)| {
                let record = self.layout.quota(entity, key);
                match value {
                    Some(value) => {
                        let sealed = self
                            .layout
                            .seal(&record, &kacl_store::quotas::encode_quota_value(*value));
                        op_put(&record, &sealed, 0, false)
                    }
                    None => op_delete(&record, false),
                }
            })
            .collect();
        let txn = self.txn(Vec::new(), ops, Vec::new())?;
        self.wait_applied(txn.revision)
    }

    fn scram_stand_in_secret(&self) -> Result<Option<[u8; 32]>, StoreError> {
        stand_in_secret(&self.startup, &self.layout).map(Some)
    }

    fn scram_bootstrapped(&self) -> Result<bool, StoreError> {
        Ok(self
            .get(&self.layout.key(layout::SCRAM_BOOTSTRAPPED))?
            .is_some())
    }

    /// Once per cluster: the credentials and the record that the bootstrap happened, only if
    /// neither the record nor any credential exists (one compare over the scram range).
    fn bootstrap_scram_credentials(
        &self,
        credentials: &[StoredScramCredential],
    ) -> Result<bool, StoreError> {
        let marker = self.layout.key(layout::SCRAM_BOOTSTRAPPED);
        let scram = self.layout.key(layout::SCRAM);
        let no_scram = crate::client::cmp_range_absent(&scram, &crate::client::prefix_end(&scram));
        let mut ops = vec![op_put(&marker, b"1", 0, false)];
        for (user, mechanism, credential) in credentials {
            let key = self.layout.scram(user, *mechanism);
            let value = self
                .layout
                .seal(&key, &encoding::encode_scram_value(credential));
            ops.push(op_put(&key, &value, 0, false));
        }
        let txn = self.txn(vec![cmp_absent(&marker), no_scram], ops, Vec::new())?;
        if txn.succeeded {
            self.wait_applied(txn.revision)?;
            return Ok(true);
        }
        // Record it, so the answer stays the same (as the embedded store does).
        self.txn(
            vec![cmp_absent(&marker)],
            vec![op_put(&marker, b"1", 0, false)],
            Vec::new(),
        )?;
        Ok(false)
    }

    /// Lists, then watches: every node's commits reach `sink` from the watch, in revision
    /// order; a second call keeps the first sink.
    fn start_feed(&self, sink: Arc<dyn ChangeSink>) -> Result<(), StoreError> {
        let mut feed = self.feed.lock();
        if feed.is_some() {
            return Ok(());
        }
        let from = self
            .initial
            .lock()
            .take()
            .map_or_else(|| self.progress.applied(), |l| l.revision);
        *feed = Some(Feed::start(
            self.client.clone(),
            self.layout.clone(),
            sink,
            self.progress.clone(),
            self.membership.clone(),
            self.metrics.clone(),
            from,
        ));
        self.progress.state.lock().feeding = true;
        drop(feed);
        // Whatever was written since the listing (the SCRAM bootstrap) is in memory before
        // the first client is served.
        self.catch_up()
    }

    /// A request's changes are one txn: at most `kacl.acl.max.batch` operations, the size
    /// the start checked etcd takes.
    fn max_acl_changes_per_commit(&self) -> usize {
        self.max_batch
    }

    /// Reads `meta/last-write` (a linearizable read: etcd answers it through its leader) and
    /// waits until the feed has applied its revision.
    fn catch_up(&self) -> Result<(), StoreError> {
        match self.get(&self.layout.key(layout::LAST_WRITE))? {
            Some(kv) => self.wait_applied(kv.mod_revision),
            None => Ok(()),
        }
    }

    fn feed_stats(&self) -> Option<kacl_store::FeedStats> {
        Some(self.metrics.stats())
    }

    fn cluster(&self) -> Option<Arc<dyn ClusterMembership>> {
        Some(Arc::new(crate::membership::MembershipHandle(
            self.membership.clone(),
        )))
    }
}
