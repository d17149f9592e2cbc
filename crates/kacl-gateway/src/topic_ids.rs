//! Topic id → name, learnt from every Metadata answer that passes the gateway. Fetch v13+,
//! DeleteTopics v6 and others name topics by id only, and the authorizer decides on names: an
//! id the gateway has not seen yet is answered UNKNOWN_TOPIC_ID (100), which makes clients
//! refresh their metadata (through the gateway, which then learns it) and retry.

use std::collections::HashMap;

use kacl_protocol::Uuid;
use parking_lot::RwLock;

/// The cache; bounded by the number of topics the upstream has. It also keeps each topic's
/// partition count as last shown, for the one rule that must say whether a partition exists
/// without asking the upstream (AddPartitionsToTxn v0-3, see `rules::txn`).
#[derive(Debug, Default)]
pub(crate) struct TopicIds(
    RwLock<HashMap<[u8; 16], String>>,
    RwLock<HashMap<String, usize>>,
);

impl TopicIds {
    /// Records what a Metadata answer says (the zero id means "no id" and is skipped).
    pub(crate) fn learn<'n>(&self, topics: impl IntoIterator<Item = (Uuid, &'n str)>) {
        let fresh: Vec<([u8; 16], &str)> = topics
            .into_iter()
            .filter(|(id, name)| id.0 != [0; 16] && !name.is_empty())
            .map(|(id, name)| (id.0, name))
            .collect();
        if fresh.is_empty() {
            return;
        }
        let known = self.0.read();
        if fresh
            .iter()
            .all(|(id, name)| known.get(id).is_some_and(|n| n == name))
        {
            return;
        }
        drop(known);
        let mut map = self.0.write();
        for (id, name) in fresh {
            map.insert(id, name.to_owned());
        }
    }

    /// Records the partition counts a Metadata answer shows (topics without an error).
    pub(crate) fn learn_partitions<'n>(&self, topics: impl IntoIterator<Item = (&'n str, usize)>) {
        let fresh: Vec<(&str, usize)> = topics.into_iter().collect();
        let known = self.1.read();
        if fresh
            .iter()
            .all(|(name, count)| known.get(*name) == Some(count))
        {
            return;
        }
        drop(known);
        let mut map = self.1.write();
        for (name, count) in fresh {
            map.insert(name.to_owned(), count);
        }
    }

    /// Whether a Metadata answer has shown partition `partition` of `topic`.
    pub(crate) fn has_partition(&self, topic: &str, partition: i32) -> bool {
        let Ok(partition) = usize::try_from(partition) else {
            return false;
        };
        self.1
            .read()
            .get(topic)
            .is_some_and(|count| partition < *count)
    }

    /// The name of a topic id, if a Metadata answer has shown it.
    pub(crate) fn name(&self, id: &Uuid) -> Option<String> {
        self.0.read().get(&id.0).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_and_renames() {
        let ids = TopicIds::default();
        let a = Uuid([1; 16]);
        assert_eq!(ids.name(&a), None);
        ids.learn([(a, "orders"), (Uuid([0; 16]), "no-id")]);
        assert_eq!(ids.name(&a).as_deref(), Some("orders"));
        assert_eq!(ids.name(&Uuid([0; 16])), None);
        ids.learn([(a, "orders-v2")]);
        assert_eq!(ids.name(&a).as_deref(), Some("orders-v2"));
    }

    #[test]
    fn knows_the_partitions_it_was_shown() {
        let ids = TopicIds::default();
        assert!(!ids.has_partition("orders", 0));
        ids.learn_partitions([("orders", 2)]);
        assert!(ids.has_partition("orders", 1));
        assert!(!ids.has_partition("orders", 2));
        assert!(!ids.has_partition("orders", -1));
        ids.learn_partitions([("orders", 3)]);
        assert!(ids.has_partition("orders", 2));
    }
}
