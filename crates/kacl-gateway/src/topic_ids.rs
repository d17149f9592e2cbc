//! Topic id → name, learnt from every Metadata answer that passes the gateway. Fetch v13+,
//! DeleteTopics v6 and others name topics by id only, and the authorizer decides on names: an
//! id the gateway has not seen yet is answered UNKNOWN_TOPIC_ID (100), which makes clients
//! refresh their metadata (through the gateway, which then learns it) and retry.

use std::collections::HashMap;

use kacl_protocol::Uuid;
use parking_lot::RwLock;

/// The cache; bounded by the number of topics the upstream has.
#[derive(Debug, Default)]
pub(crate) struct TopicIds(RwLock<HashMap<[u8; 16], String>>);

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
}
