//! The names of the patterns one principal has entries on (for one resource type), in
//! name order. Most principals have a few ACLs, so a small sorted `Vec` is used until it
//! grows past [`SMALL_LIMIT`], then a `BTreeMap`: a lone name costs ~30 bytes, not a
//! B-tree node. Name order is what lets `authorize_by_resource_type` skip every name
//! under a dominating DENY prefix in one step.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use crate::enums::PatternType;

/// Above this many names, a principal's names move into a `BTreeMap`.
const SMALL_LIMIT: usize = 32;

/// "No pattern" in a [`PatternPair`].
pub(crate) const NO_PATTERN: u32 = u32::MAX;

/// The ids of the LITERAL and the PREFIXED pattern of one name, either may be absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PatternPair {
    pub(crate) literal: u32,
    pub(crate) prefixed: u32,
}

impl PatternPair {
    const EMPTY: PatternPair = PatternPair {
        literal: NO_PATTERN,
        prefixed: NO_PATTERN,
    };

    fn slot(&mut self, pattern_type: PatternType) -> &mut u32 {
        if pattern_type == PatternType::Prefixed {
            &mut self.prefixed
        } else {
            &mut self.literal
        }
    }

    fn is_empty(&self) -> bool {
        self.literal == NO_PATTERN && self.prefixed == NO_PATTERN
    }

    /// The present ids, LITERAL first.
    pub(crate) fn ids(self) -> impl Iterator<Item = u32> {
        [self.literal, self.prefixed]
            .into_iter()
            .filter(|id| *id != NO_PATTERN)
    }
}

/// Name-ordered map from pattern name to [`PatternPair`].
#[derive(Debug)]
pub(crate) enum NameSet {
    Small(Vec<(Arc<str>, PatternPair)>),
    Large(BTreeMap<Arc<str>, PatternPair>),
}

impl Default for NameSet {
    fn default() -> Self {
        NameSet::Small(Vec::new())
    }
}

impl NameSet {
    /// Records that `name` has a pattern of `pattern_type` with id `id`.
    pub(crate) fn insert(&mut self, name: &Arc<str>, pattern_type: PatternType, id: u32) {
        match self {
            NameSet::Small(items) => {
                match items.binary_search_by(|(n, _)| n.as_ref().cmp(name.as_ref())) {
                    Ok(at) => {
                        if let Some((_, pair)) = items.get_mut(at) {
                            *pair.slot(pattern_type) = id;
                        }
                    }
                    Err(at) => {
                        let mut pair = PatternPair::EMPTY;
                        *pair.slot(pattern_type) = id;
                        items.insert(at, (name.clone(), pair));
                    }
                }
                if items.len() > SMALL_LIMIT {
                    let map = std::mem::take(items).into_iter().collect();
                    *self = NameSet::Large(map);
                }
            }
            NameSet::Large(map) => {
                let pair = map.entry(name.clone()).or_insert(PatternPair::EMPTY);
                *pair.slot(pattern_type) = id;
            }
        }
    }

    /// Forgets the pattern of `pattern_type` under `name`.
    pub(crate) fn remove(&mut self, name: &str, pattern_type: PatternType) {
        match self {
            NameSet::Small(items) => {
                if let Ok(at) = items.binary_search_by(|(n, _)| n.as_ref().cmp(name)) {
                    let emptied = items.get_mut(at).is_some_and(|(_, pair)| {
                        *pair.slot(pattern_type) = NO_PATTERN;
                        pair.is_empty()
                    });
                    if emptied {
                        items.remove(at);
                    }
                }
            }
            NameSet::Large(map) => {
                let emptied = map.get_mut(name).is_some_and(|pair| {
                    *pair.slot(pattern_type) = NO_PATTERN;
                    pair.is_empty()
                });
                if emptied {
                    map.remove(name);
                }
            }
        }
    }

    /// True when no name is left.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            NameSet::Small(items) => items.is_empty(),
            NameSet::Large(map) => map.is_empty(),
        }
    }

    /// The names from `start` (inclusive) on, in order.
    pub(crate) fn iter_from<'a>(
        &'a self,
        start: &str,
    ) -> Box<dyn Iterator<Item = (&'a str, PatternPair)> + 'a> {
        match self {
            NameSet::Small(items) => {
                let at = items.partition_point(|(n, _)| n.as_ref() < start);
                Box::new(
                    items
                        .get(at..)
                        .unwrap_or_default()
                        .iter()
                        .map(|(n, p)| (n.as_ref(), *p)),
                )
            }
            NameSet::Large(map) => Box::new(
                map.range::<str, _>((Bound::Included(start), Bound::Unbounded))
                    .map(|(n, p)| (n.as_ref(), *p)),
            ),
        }
    }
}

/// The least string greater than every string that starts with `prefix`, or `None`
/// when no such string exists. UTF-8 byte order is code point order, so the strings
/// starting with `prefix` are exactly those in `prefix..successor`.
pub(crate) fn prefix_successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (last as u32 + 1..=char::MAX as u32).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(set: &NameSet, from: &str) -> Vec<String> {
        set.iter_from(from).map(|(n, _)| n.to_string()).collect()
    }

    #[test]
    fn stays_ordered_across_the_small_to_large_switch() {
        let mut set = NameSet::default();
        for i in (0..100).rev() {
            let name: Arc<str> = Arc::from(format!("t{i:03}"));
            set.insert(&name, PatternType::Literal, i);
            set.insert(&name, PatternType::Prefixed, 1000 + i);
        }
        assert!(matches!(set, NameSet::Large(_)));
        let all = names(&set, "");
        assert_eq!(all.len(), 100);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            names(&set, "t050").first().map(String::as_str),
            Some("t050")
        );
        set.remove("t050", PatternType::Literal);
        assert_eq!(
            names(&set, "t050").first().map(String::as_str),
            Some("t050")
        );
        set.remove("t050", PatternType::Prefixed);
        assert_eq!(
            names(&set, "t050").first().map(String::as_str),
            Some("t051")
        );
    }

    #[test]
    fn successor_bounds_the_strings_with_a_prefix() {
        assert_eq!(prefix_successor("ab").as_deref(), Some("ac"));
        assert_eq!(prefix_successor("a\u{d7ff}").as_deref(), Some("a\u{e000}"));
        assert_eq!(prefix_successor("a\u{10ffff}").as_deref(), Some("b"));
        assert_eq!(prefix_successor("\u{10ffff}"), None);
        let succ = prefix_successor("foo").unwrap_or_default();
        assert!("foo\u{10ffff}zz" < succ.as_str());
        assert!("fop" >= succ.as_str());
    }
}
