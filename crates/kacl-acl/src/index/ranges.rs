//! The CIDR hosts among the interned strings, grouped so that the ranges holding one
//! client address are found with one hash probe per prefix length present, never by
//! scanning every ACL host.
//!
//! Several texts may name one range (`10.0.0.0/8`, `10.1.2.3/8`, `010.0.0.0/08`): each
//! is its own interned id, and all of them are listed under the range.

use std::collections::BTreeMap;

use crate::host::{mask_v4, mask_v6, CidrRange, ClientAddress};

use super::id_hash::IdMap;

/// Interned ids of CIDR host texts by (family, prefix length) → network. Networks are
/// hashed with the index's fast hasher: the keys are masked addresses of ACLs an
/// administrator created, and a client can only probe them, never add one.
#[derive(Debug, Default, Clone)]
pub(crate) struct RangeTable {
    v4: BTreeMap<u8, IdMap<u32, Vec<u32>>>,
    v6: BTreeMap<u8, IdMap<u128, Vec<u32>>>,
}

impl RangeTable {
    /// Records `text` (interned as `id`) if it is a CIDR range Kafka can parse; texts
    /// that fail to parse match nothing, as in Kafka, and are not recorded.
    pub(crate) fn insert(&mut self, text: &str, id: u32) {
        if !text.contains('/') {
            return;
        }
        match CidrRange::parse(text) {
            Ok(CidrRange::V4 { network, prefix }) => self
                .v4
                .entry(prefix)
                .or_default()
                .entry(network)
                .or_default()
                .push(id),
            Ok(CidrRange::V6 { network, prefix }) => self
                .v6
                .entry(prefix)
                .or_default()
                .entry(network)
                .or_default()
                .push(id),
            Err(_) => {}
        }
    }

    /// Forgets `text` (interned as `id`), e.g. when its last ACL is removed.
    pub(crate) fn remove(&mut self, text: &str, id: u32) {
        if !text.contains('/') {
            return;
        }
        match CidrRange::parse(text) {
            Ok(CidrRange::V4 { network, prefix }) => remove_from(&mut self.v4, prefix, network, id),
            Ok(CidrRange::V6 { network, prefix }) => remove_from(&mut self.v6, prefix, network, id),
            Err(_) => {}
        }
    }

    /// True when no CIDR host is interned (then no client needs a range lookup).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    /// The ids of every CIDR host text whose range holds `client`.
    pub(crate) fn holding(&self, client: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        if self.is_empty() {
            return ids;
        }
        match ClientAddress::parse(client) {
            Some(ClientAddress::V4(address)) if address != 0 => {
                for (prefix, networks) in &self.v4 {
                    if let Some(found) = networks.get(&(address & mask_v4(*prefix))) {
                        ids.extend_from_slice(found);
                    }
                }
            }
            Some(ClientAddress::V6(address)) => {
                for (prefix, networks) in &self.v6 {
                    if let Some(found) = networks.get(&(address & mask_v6(*prefix))) {
                        ids.extend_from_slice(found);
                    }
                }
            }
            _ => {}
        }
        ids
    }
}

fn remove_from<K: std::hash::Hash + Eq>(
    table: &mut BTreeMap<u8, IdMap<K, Vec<u32>>>,
    prefix: u8,
    network: K,
    id: u32,
) {
    let Some(networks) = table.get_mut(&prefix) else {
        return;
    };
    if let Some(ids) = networks.get_mut(&network) {
        ids.retain(|x| *x != id);
        if ids.is_empty() {
            networks.remove(&network);
        }
    }
    if networks.is_empty() {
        table.remove(&prefix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_text_of_every_range_holding_the_client() {
        let mut table = RangeTable::default();
        table.insert("10.0.0.0/8", 1);
        table.insert("10.1.2.3/8", 2);
        table.insert("10.0.0.0/33", 3);
        table.insert("10.0.0.1/32", 4);
        table.insert("fd00::/8", 5);
        table.insert("10.0.0.1", 6);
        let mut held = table.holding("10.0.0.1");
        held.sort_unstable();
        assert_eq!(held, vec![1, 2, 4]);
        assert_eq!(table.holding("fd00:0:0:0:0:0:0:1"), vec![5]);
        assert!(table.holding("0.0.0.0").is_empty());
        table.remove("10.1.2.3/8", 2);
        table.remove("10.0.0.1/32", 4);
        assert_eq!(table.holding("10.0.0.1"), vec![1]);
        table.remove("10.0.0.0/8", 1);
        table.remove("fd00::/8", 5);
        assert!(table.is_empty());
    }
}
