//! The topics in memory: what Metadata and the topic handlers read, so no request reads the
//! disk, and the one path by which topic changes reach the store.
//!
//! A write is: take the writer lock → plan against the current [`TopicTable`] (the handler
//! applies Kafka's rules) → [`TopicRegistry::commit`]: commit to the store, which updates the
//! table through its feed before it returns (nothing is applied here). Holding one lock from
//! planning to the commit means two requests never both plan against the same state (two
//! creations of one name cannot both pass). The commit runs on a blocking thread and finishes
//! even if the request that started it goes away, so memory never falls behind the disk.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use kacl_store::{MetadataStore, PartitionRecord, StoreError, TopicRecord};
use parking_lot::{RwLock, RwLockReadGuard};

use kacl_topics::{has_collision_chars, unify_collision_chars};

/// Every topic, by name and by id, with the `.`/`_` collision groups Kafka checks new names
/// against.
#[derive(Debug, Default)]
pub struct TopicTable {
    by_name: BTreeMap<String, TopicRecord>,
    by_id: HashMap<[u8; 16], String>,
    /// Unified name (`.` → `_`) → the existing names with collision characters that share it
    /// (Kafka's `topicsWithCollisionChars`).
    collision_groups: HashMap<String, BTreeSet<String>>,
}

impl TopicTable {
    /// A table of `records` (for tests and plans built without a registry).
    pub fn from_records(records: Vec<TopicRecord>) -> TopicTable {
        let mut table = TopicTable::default();
        for record in records {
            table.insert(record);
        }
        table
    }

    /// The topic of that name.
    pub fn get(&self, name: &str) -> Option<&TopicRecord> {
        self.by_name.get(name)
    }

    /// True if a topic of that name exists.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The topic with that id.
    pub fn by_id(&self, id: &[u8; 16]) -> Option<&TopicRecord> {
        self.by_id.get(id).and_then(|name| self.by_name.get(name))
    }

    /// Every topic, in name order.
    pub fn iter(&self) -> impl Iterator<Item = &TopicRecord> {
        self.by_name.values()
    }

    /// How many topics exist.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// True if there is no topic.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The existing topic a new `name` collides with (they differ only by `.` against `_`),
    /// found through the collision groups rather than a scan. With several, the least name.
    pub fn collision(&self, name: &str) -> Option<&str> {
        if !has_collision_chars(name) {
            return None;
        }
        self.collision_groups
            .get(&unify_collision_chars(name))?
            .iter()
            .find(|existing| *existing != name)
            .map(String::as_str)
    }

    fn insert(&mut self, record: TopicRecord) {
        if let Some(old) = self.by_name.remove(&record.name) {
            self.forget(&old);
        }
        if has_collision_chars(&record.name) {
            self.collision_groups
                .entry(unify_collision_chars(&record.name))
                .or_default()
                .insert(record.name.clone());
        }
        self.by_id.insert(record.topic_id, record.name.clone());
        self.by_name.insert(record.name.clone(), record);
    }

    fn remove(&mut self, name: &str) {
        if let Some(old) = self.by_name.remove(name) {
            self.forget(&old);
        }
    }

    fn forget(&mut self, old: &TopicRecord) {
        self.by_id.remove(&old.topic_id);
        let unified = unify_collision_chars(&old.name);
        if let Some(group) = self.collision_groups.get_mut(&unified) {
            group.remove(&old.name);
            if group.is_empty() {
                self.collision_groups.remove(&unified);
            }
        }
    }
}

/// New replicas for partitions of one topic: `(topic, [(partition index, replicas)])`.
pub type Reassignment = (String, Vec<(i32, Vec<i32>)>);

/// A planned change, committed by [`TopicRegistry::commit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicChange {
    /// Create these topics, all or none.
    Create(Vec<TopicRecord>),
    /// Delete the topics of these names, all or none.
    Delete(Vec<String>),
    /// Append these partitions to each topic, one topic after the other.
    AddPartitions(Vec<(String, Vec<PartitionRecord>)>),
    /// Replace the named topic's configs.
    SetConfigs(String, std::collections::BTreeMap<String, String>),
    /// Give partitions of each topic new replicas (a completed reassignment), one topic after
    /// the other.
    Reassign(Vec<Reassignment>),
}

/// What a commit did.
#[derive(Debug)]
pub enum TopicCommit {
    /// The topics as stored (with their creation sequence numbers).
    Created(Vec<TopicRecord>),
    /// The names deleted.
    Deleted(Vec<String>),
    /// For each topic of a [`TopicChange::AddPartitions`], in order, what happened to it.
    PartitionsAdded(Vec<PartitionsOutcome>),
    /// The topic as stored with its new configs.
    ConfigsSet(TopicRecord),
    /// For each topic of a [`TopicChange::Reassign`], in order, the topic as stored or why the
    /// store refused it (a failure does not stop the topics after it).
    Reassigned(Vec<Result<TopicRecord, StoreError>>),
}

/// The outcome of one topic's partition increase.
#[derive(Debug)]
pub enum PartitionsOutcome {
    /// Stored.
    Added(TopicRecord),
    /// The store refused or failed.
    Failed(StoreError),
    /// Not attempted, because an earlier topic of the request failed in the store.
    NotAttempted,
}

/// Exclusive right to plan and commit a topic change; dropping it lets the next writer in.
pub struct TopicWriteGuard(#[allow(dead_code)] tokio::sync::OwnedMutexGuard<()>);

impl std::fmt::Debug for TopicWriteGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TopicWriteGuard")
    }
}

/// The topics in memory and the serialized write path to the store.
#[derive(Debug)]
pub struct TopicRegistry {
    table: RwLock<TopicTable>,
    writer: Arc<tokio::sync::Mutex<()>>,
}

impl TopicRegistry {
    /// A registry holding the topics loaded from the store at start.
    pub fn new(records: Vec<TopicRecord>) -> TopicRegistry {
        TopicRegistry {
            table: RwLock::new(TopicTable::from_records(records)),
            writer: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    /// A consistent view of every topic. Hold it for one request only, never across an
    /// `.await`.
    pub fn read(&self) -> RwLockReadGuard<'_, TopicTable> {
        self.table.read()
    }

    /// Waits for the writer lock. Plan with [`read`](Self::read) while holding it, then
    /// [`commit`](Self::commit).
    pub async fn begin_write(&self) -> TopicWriteGuard {
        TopicWriteGuard(self.writer.clone().lock_owned().await)
    }

    /// Commits `change` to the store and releases the writer lock; the store's feed has
    /// applied it to the table when this returns (after a storage failure, the state it read
    /// back). Blocks (the store fsyncs): call it on a blocking-capable thread.
    pub fn commit(
        &self,
        guard: TopicWriteGuard,
        store: &dyn MetadataStore,
        change: TopicChange,
    ) -> Result<TopicCommit, StoreError> {
        let result = commit_to(store, change);
        if let Err(err) = &result {
            tracing::error!(%err, "topic commit failed");
        }
        drop(guard);
        result
    }

    /// Applies changes delivered by the store's feed (this node's and other nodes'), in one
    /// step under the table's lock.
    pub fn apply_feed(&self, changes: &[kacl_store::Change]) {
        let mut table = self.table.write();
        for change in changes {
            match change {
                kacl_store::Change::TopicPut(record) => table.insert(record.clone()),
                kacl_store::Change::TopicDeleted(name) => table.remove(name),
                _ => {}
            }
        }
    }

    /// Replaces every topic (the feed re-listed the store).
    pub fn replace(&self, records: Vec<TopicRecord>) {
        *self.table.write() = TopicTable::from_records(records);
    }
}

/// The store calls of a change; each returns once the feed has applied it to the table.
fn commit_to(store: &dyn MetadataStore, change: TopicChange) -> Result<TopicCommit, StoreError> {
    Ok(match change {
        TopicChange::Create(records) => TopicCommit::Created(store.create_topics(&records)?),
        TopicChange::Delete(names) => TopicCommit::Deleted(store.delete_topics(&names)?),
        TopicChange::SetConfigs(name, configs) => {
            TopicCommit::ConfigsSet(store.set_topic_configs(&name, &configs)?)
        }
        TopicChange::Reassign(topics) => TopicCommit::Reassigned(
            topics
                .iter()
                .map(|(name, replicas)| store.reassign_partitions(name, replicas))
                .collect(),
        ),
        TopicChange::AddPartitions(increases) => {
            let mut outcomes = Vec::with_capacity(increases.len());
            let mut failed = false;
            for (name, partitions) in increases {
                if failed {
                    outcomes.push(PartitionsOutcome::NotAttempted);
                    continue;
                }
                match store.add_partitions(&name, &partitions) {
                    Ok(record) => outcomes.push(PartitionsOutcome::Added(record)),
                    Err(err) => {
                        failed = true;
                        outcomes.push(PartitionsOutcome::Failed(err));
                    }
                }
            }
            TopicCommit::PartitionsAdded(outcomes)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_store::MemoryStore;

    fn record(name: &str, partitions: i32) -> TopicRecord {
        TopicRecord {
            name: name.to_owned(),
            topic_id: kacl_store::random_kafka_uuid(),
            partitions: (0..partitions)
                .map(|i| PartitionRecord {
                    partition_index: i,
                    replicas: vec![1],
                })
                .collect(),
            configs: BTreeMap::new(),
            created_seq: 0,
        }
    }

    #[test]
    fn collisions_are_found_by_group_and_forgotten_on_delete() {
        let mut table = TopicTable::from_records(vec![record("a.b", 1), record("plain", 1)]);
        assert_eq!(table.collision("a_b"), Some("a.b"));
        assert_eq!(
            table.collision("a.b"),
            None,
            "the name itself is not a collision"
        );
        assert_eq!(table.collision("plain"), None);
        assert_eq!(table.collision("a-b"), None);
        table.remove("a.b");
        assert_eq!(table.collision("a_b"), None);
        assert!(table.collision_groups.is_empty());
    }

    #[test]
    fn ids_follow_the_names() {
        let orders = record("orders", 2);
        let id = orders.topic_id;
        let mut table = TopicTable::from_records(vec![orders]);
        assert_eq!(table.by_id(&id).map(|t| t.name.as_str()), Some("orders"));
        table.remove("orders");
        assert!(table.by_id(&id).is_none());
        assert!(table.is_empty());
    }

    #[tokio::test]
    async fn commits_reach_the_store_and_the_table() {
        let store = MemoryStore::new();
        let registry = Arc::new(TopicRegistry::new(Vec::new()));
        store
            .start_feed(Arc::new(crate::feed_sink::PartsSink {
                topics: Some(Arc::downgrade(&registry)),
                ..Default::default()
            }))
            .unwrap();
        let guard = registry.begin_write().await;
        let created = registry
            .commit(
                guard,
                &store,
                TopicChange::Create(vec![record("a", 1), record("b", 1)]),
            )
            .unwrap();
        assert!(matches!(created, TopicCommit::Created(ref t) if t.len() == 2));
        assert_eq!(registry.read().len(), 2);

        let guard = registry.begin_write().await;
        let added = registry
            .commit(
                guard,
                &store,
                TopicChange::AddPartitions(vec![
                    (
                        "a".to_owned(),
                        vec![PartitionRecord {
                            partition_index: 1,
                            replicas: vec![1],
                        }],
                    ),
                    (
                        "missing".to_owned(),
                        vec![PartitionRecord {
                            partition_index: 1,
                            replicas: vec![1],
                        }],
                    ),
                    ("b".to_owned(), Vec::new()),
                ]),
            )
            .unwrap();
        let TopicCommit::PartitionsAdded(outcomes) = added else {
            panic!("expected partition outcomes");
        };
        assert!(matches!(outcomes[0], PartitionsOutcome::Added(ref t) if t.partitions.len() == 2));
        assert!(matches!(outcomes[1], PartitionsOutcome::Failed(_)));
        assert!(matches!(outcomes[2], PartitionsOutcome::NotAttempted));
        assert_eq!(registry.read().get("a").unwrap().partitions.len(), 2);

        let guard = registry.begin_write().await;
        registry
            .commit(guard, &store, TopicChange::Delete(vec!["a".to_owned()]))
            .unwrap();
        assert!(!registry.read().contains("a"));
        assert_eq!(store.load_topics().unwrap().len(), 1);

        // A refused commit leaves both sides as they were.
        let guard = registry.begin_write().await;
        assert!(registry
            .commit(guard, &store, TopicChange::Create(vec![record("b", 1)]))
            .is_err());
        assert_eq!(registry.read().len(), 1);
    }
}
