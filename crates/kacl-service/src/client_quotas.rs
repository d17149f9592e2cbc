//! The client quotas in memory (fed by the store's change feed, like the ACLs) and Kafka's rule
//! for which quota applies to a connection (`ClientQuotaManager`'s default callback).
//!
//! A request's (user, client id) is resolved per quota key in Kafka's precedence order, the
//! first entity holding that key winning:
//!
//! 1. `/config/users/<user>/clients/<client-id>`
//! 2. `/config/users/<user>/clients/<default>`
//! 3. `/config/users/<user>`
//! 4. `/config/users/<default>/clients/<client-id>`
//! 5. `/config/users/<default>/clients/<default>`
//! 6. `/config/users/<default>`
//! 7. `/config/clients/<client-id>`
//! 8. `/config/clients/<default>`
//!
//! The level also says who shares the measured rate (Kafka's metric tags): a quota on a
//! `(user, client-id)` level (1, 2, 4, 5) is measured per user and client id, a user level
//! (3, 6) per user over all its client ids, a client-id level (7, 8) per client id over all
//! users.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use kacl_store::{Change, QuotaEntity, QuotaEntry, QuotaName};
use parking_lot::RwLock;

/// Kafka's quota keys for users and client ids (`QuotaConfigs`), and whether each is a LONG
/// (byte rates: the value must be integral) or a DOUBLE.
pub const QUOTA_KEYS: [(&str, bool); 4] = [
    (PRODUCER_BYTE_RATE, true),
    (CONSUMER_BYTE_RATE, true),
    (REQUEST_PERCENTAGE, false),
    (CONTROLLER_MUTATION_RATE, false),
];

/// Bytes per second of Produce requests.
pub const PRODUCER_BYTE_RATE: &str = "producer_byte_rate";
/// Bytes per second of Fetch responses.
pub const CONSUMER_BYTE_RATE: &str = "consumer_byte_rate";
/// Percentage of one request thread's time per quota window.
pub const REQUEST_PERCENTAGE: &str = "request_percentage";
/// Partition mutations (created or deleted) per second.
pub const CONTROLLER_MUTATION_RATE: &str = "controller_mutation_rate";

/// Every entity's quota values, by entity then key.
pub type QuotaMap = BTreeMap<QuotaEntity, BTreeMap<String, f64>>;

/// Who shares a measured rate: Kafka's `(user, client-id)` metric tags, an empty string for a
/// component the resolved level does not measure by.
pub type QuotaTags = (String, String);

/// The quotas in memory. Readers take the current map (an `Arc`, swapped whole on each change:
/// quotas change rarely and are read on every forwarded request).
#[derive(Debug, Default)]
pub struct ClientQuotas {
    map: RwLock<Arc<QuotaMap>>,
    generation: AtomicU64,
}

impl ClientQuotas {
    /// The quotas now.
    pub fn snapshot(&self) -> Arc<QuotaMap> {
        self.map.read().clone()
    }

    /// Bumped by every change, so that a reader can keep what it resolved until it moves.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Replaces every quota (at start, and after the feed re-listed the store).
    pub fn replace(&self, entries: Vec<QuotaEntry>) {
        let mut map = QuotaMap::new();
        for (entity, key, value) in entries {
            map.entry(entity).or_default().insert(key, value);
        }
        *self.map.write() = Arc::new(map);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Applies the quota changes of a feed batch (other changes are ignored).
    pub fn apply_feed(&self, changes: &[Change]) {
        if !changes.iter().any(|c| matches!(c, Change::Quota(..))) {
            return;
        }
        let mut guard = self.map.write();
        let mut map = QuotaMap::clone(&guard);
        for change in changes {
            if let Change::Quota(entity, key, value) = change {
                match value {
                    Some(value) => {
                        map.entry(entity.clone())
                            .or_default()
                            .insert(key.clone(), value.0);
                    }
                    None => {
                        if let Some(values) = map.get_mut(entity) {
                            values.remove(key);
                            if values.is_empty() {
                                map.remove(entity);
                            }
                        }
                    }
                }
            }
        }
        *guard = Arc::new(map);
        drop(guard);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

/// The user name Kafka's quotas know a principal by: the principal's name without its type
/// (`User:alice` → `alice`).
pub fn quota_user(principal: &str) -> &str {
    principal
        .split_once(':')
        .map_or(principal, |(_, name)| name)
}

/// The quota limit of `key` for `user` connecting as `client_id`, and who shares its measured
/// rate; `None` when no level sets the key (unlimited).
pub fn resolve(map: &QuotaMap, key: &str, user: &str, client_id: &str) -> Option<(f64, QuotaTags)> {
    let named = |n: &str| Some(QuotaName::Named(n.to_owned()));
    let levels: [(Option<QuotaName>, Option<QuotaName>, bool, bool); 8] = [
        (named(user), named(client_id), true, true),
        (named(user), Some(QuotaName::Default), true, true),
        (named(user), None, true, false),
        (Some(QuotaName::Default), named(client_id), true, true),
        (
            Some(QuotaName::Default),
            Some(QuotaName::Default),
            true,
            true,
        ),
        (Some(QuotaName::Default), None, true, false),
        (None, named(client_id), false, true),
        (None, Some(QuotaName::Default), false, true),
    ];
    levels.into_iter().find_map(|(u, c, by_user, by_client)| {
        let entity = QuotaEntity {
            user: u,
            client_id: c,
        };
        let limit = *map.get(&entity)?.get(key)?;
        let tags = (
            if by_user {
                user.to_owned()
            } else {
                String::new()
            },
            if by_client {
                client_id.to_owned()
            } else {
                String::new()
            },
        );
        Some((limit, tags))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(user: Option<QuotaName>, client_id: Option<QuotaName>) -> QuotaEntity {
        QuotaEntity { user, client_id }
    }

    fn n(name: &str) -> Option<QuotaName> {
        Some(QuotaName::Named(name.to_owned()))
    }

    const D: Option<QuotaName> = Some(QuotaName::Default);

    #[test]
    fn each_level_wins_over_the_ones_below_it_and_sets_who_shares_the_rate() {
        // Levels 8 → 1, each added one at a time: the newest (most specific) must win.
        let levels = [
            (entity(None, D), ("", "app")),
            (entity(None, n("app")), ("", "app")),
            (entity(D, None), ("alice", "")),
            (entity(D, D), ("alice", "app")),
            (entity(D, n("app")), ("alice", "app")),
            (entity(n("alice"), None), ("alice", "")),
            (entity(n("alice"), D), ("alice", "app")),
            (entity(n("alice"), n("app")), ("alice", "app")),
        ];
        let mut map = QuotaMap::new();
        for (i, (level, tags)) in levels.into_iter().enumerate() {
            let limit = (i + 1) as f64 * 1000.0;
            map.entry(level)
                .or_default()
                .insert(PRODUCER_BYTE_RATE.into(), limit);
            let (found, shared) = resolve(&map, PRODUCER_BYTE_RATE, "alice", "app").unwrap();
            assert_eq!(found, limit, "level {} of 8 does not win", 8 - i);
            assert_eq!((shared.0.as_str(), shared.1.as_str()), tags);
        }
        // Another user and client id fall to the defaults, never to alice's or app's quotas.
        let (limit, tags) = resolve(&map, PRODUCER_BYTE_RATE, "bob", "other").unwrap();
        assert_eq!(limit, 4000.0, "users/<default>/clients/<default>");
        assert_eq!(tags, ("bob".to_owned(), "other".to_owned()));
    }

    #[test]
    fn each_key_resolves_on_its_own_and_unset_is_unlimited() {
        let mut map = QuotaMap::new();
        map.entry(entity(n("alice"), None))
            .or_default()
            .insert(CONSUMER_BYTE_RATE.into(), 10.0);
        map.entry(entity(None, D))
            .or_default()
            .insert(PRODUCER_BYTE_RATE.into(), 20.0);
        assert_eq!(
            resolve(&map, CONSUMER_BYTE_RATE, "alice", "x").unwrap().0,
            10.0
        );
        assert_eq!(
            resolve(&map, PRODUCER_BYTE_RATE, "alice", "x").unwrap().0,
            20.0
        );
        assert!(resolve(&map, REQUEST_PERCENTAGE, "alice", "x").is_none());
        assert!(resolve(&map, CONSUMER_BYTE_RATE, "bob", "x").is_none());
    }

    #[test]
    fn the_feed_sets_and_removes_keys_and_drops_empty_entities() {
        let quotas = ClientQuotas::default();
        let alice = entity(n("alice"), None);
        let before = quotas.generation();
        quotas.apply_feed(&[Change::Quota(
            alice.clone(),
            PRODUCER_BYTE_RATE.into(),
            Some(kacl_store::QuotaValue(5.0)),
        )]);
        assert!(quotas.generation() > before);
        assert_eq!(quotas.snapshot()[&alice][PRODUCER_BYTE_RATE], 5.0);
        quotas.apply_feed(&[Change::Quota(alice, PRODUCER_BYTE_RATE.into(), None)]);
        assert!(quotas.snapshot().is_empty());
        assert_eq!(quota_user("User:alice"), "alice");
        assert_eq!(quota_user("alice"), "alice");
    }
}
