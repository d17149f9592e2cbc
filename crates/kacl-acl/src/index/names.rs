//! The names of the patterns one principal has entries on (for one resource type), in
//! name order. Name order is what lets `authorize_by_resource_type` skip every name
//! under a dominating DENY prefix in one step; describe-by-principal streams it.
//!
//! Stored as a list of sorted chunks of at most [`CHUNK_MAX`] names: iteration reads
//! contiguous memory, an insert or removal moves at most one chunk, and a principal
//! with a single ACL costs one small chunk.
//!
//! When the principal has exactly one (host, mask) entry on a pattern — the usual
//! case — a copy of it is kept here ([`Solo`]), so describing by principal streams
//! this list without touching the patterns' own entry lists.

use std::sync::Arc;

use crate::enums::PatternType;

/// A chunk is split in two when it grows past this many names.
const CHUNK_MAX: usize = 128;

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

/// A copy of a principal's only entry on a pattern (`mask == 0`: none, or several).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Solo {
    pub(crate) host: u32,
    pub(crate) mask: u32,
}

/// One name of a [`NameSet`]: its LITERAL and PREFIXED pattern ids, and for each the
/// principal's solo entry if it has exactly one.
#[derive(Debug)]
pub(crate) struct NameEntry {
    pub(crate) name: Arc<str>,
    pub(crate) pair: PatternPair,
    /// `[LITERAL, PREFIXED]`.
    pub(crate) solo: [Solo; 2],
}

impl NameEntry {
    fn solo_mut(&mut self, pattern_type: PatternType) -> &mut Solo {
        let [literal, prefixed] = &mut self.solo;
        if pattern_type == PatternType::Prefixed {
            prefixed
        } else {
            literal
        }
    }
}

/// Name-ordered map from pattern name to [`NameEntry`].
#[derive(Debug, Default)]
pub(crate) struct NameSet {
    chunks: Vec<Vec<NameEntry>>,
}

impl NameSet {
    /// The chunk that holds `name` or would: the first whose last name is not below
    /// it, else the last chunk.
    fn chunk_for(&self, name: &str) -> usize {
        let at = self
            .chunks
            .partition_point(|chunk| chunk.last().is_some_and(|e| e.name.as_ref() < name));
        at.min(self.chunks.len().saturating_sub(1))
    }

    /// Records that `name` has a pattern of `pattern_type` with id `id`, on which the
    /// principal's entries are summed up by `solo`.
    pub(crate) fn insert(
        &mut self,
        name: &Arc<str>,
        pattern_type: PatternType,
        id: u32,
        solo: Solo,
    ) {
        if self.chunks.is_empty() {
            self.chunks.push(Vec::new());
        }
        // A name after every other (a load in name order, a rebuild from bytes) is appended
        // without searching; the last name again (its LITERAL then its PREFIXED pattern, in
        // the same rebuild) is updated in place. Pointer equality first: both patterns of a
        // name share its string.
        if let Some(last) = self.chunks.last_mut() {
            if let Some(entry) = last
                .last_mut()
                .filter(|e| Arc::ptr_eq(&e.name, name) || e.name == *name)
            {
                *entry.pair.slot(pattern_type) = id;
                *entry.solo_mut(pattern_type) = solo;
                return;
            }
            if last.last().is_none_or(|e| e.name.as_ref() < name.as_ref()) {
                if last.len() >= CHUNK_MAX {
                    self.chunks.push(Vec::with_capacity(1));
                }
                let mut entry = NameEntry {
                    name: name.clone(),
                    pair: PatternPair::EMPTY,
                    solo: [Solo::default(); 2],
                };
                *entry.pair.slot(pattern_type) = id;
                *entry.solo_mut(pattern_type) = solo;
                if let Some(last) = self.chunks.last_mut() {
                    last.push(entry);
                }
                return;
            }
        }
        let at = self.chunk_for(name);
        let Some(chunk) = self.chunks.get_mut(at) else {
            return;
        };
        match chunk.binary_search_by(|e| e.name.as_ref().cmp(name.as_ref())) {
            Ok(i) => {
                if let Some(entry) = chunk.get_mut(i) {
                    *entry.pair.slot(pattern_type) = id;
                    *entry.solo_mut(pattern_type) = solo;
                }
            }
            Err(i) => {
                let mut entry = NameEntry {
                    name: name.clone(),
                    pair: PatternPair::EMPTY,
                    solo: [Solo::default(); 2],
                };
                *entry.pair.slot(pattern_type) = id;
                *entry.solo_mut(pattern_type) = solo;
                chunk.insert(i, entry);
                if chunk.len() > CHUNK_MAX {
                    // Appending (a name-ordered load) leaves the full chunk full and
                    // starts a new one; an insert in the middle splits in halves.
                    let split_at = if i + 1 == chunk.len() {
                        chunk.len() - 1
                    } else {
                        chunk.len() / 2
                    };
                    let upper: Vec<NameEntry> = chunk.drain(split_at..).collect();
                    chunk.shrink_to_fit();
                    self.chunks.insert(at + 1, upper);
                }
            }
        }
    }

    /// Replaces the solo entry of the pattern of `pattern_type` under `name`.
    pub(crate) fn set_solo(&mut self, name: &str, pattern_type: PatternType, solo: Solo) {
        let at = self.chunk_for(name);
        if let Some(chunk) = self.chunks.get_mut(at) {
            if let Ok(i) = chunk.binary_search_by(|e| e.name.as_ref().cmp(name)) {
                if let Some(entry) = chunk.get_mut(i) {
                    *entry.solo_mut(pattern_type) = solo;
                }
            }
        }
    }

    /// Forgets the pattern of `pattern_type` under `name`.
    pub(crate) fn remove(&mut self, name: &str, pattern_type: PatternType) {
        let at = self.chunk_for(name);
        let Some(chunk) = self.chunks.get_mut(at) else {
            return;
        };
        let Ok(i) = chunk.binary_search_by(|e| e.name.as_ref().cmp(name)) else {
            return;
        };
        let emptied = chunk.get_mut(i).is_some_and(|entry| {
            *entry.pair.slot(pattern_type) = NO_PATTERN;
            *entry.solo_mut(pattern_type) = Solo::default();
            entry.pair.is_empty()
        });
        if emptied {
            chunk.remove(i);
            if chunk.is_empty() {
                self.chunks.remove(at);
            }
        }
    }

    /// True when no name is left.
    pub(crate) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The names from `start` (inclusive) on, in order.
    pub(crate) fn iter_from<'a>(&'a self, start: &str) -> impl Iterator<Item = &'a NameEntry> + 'a {
        // From the start (every describe by principal): no search. Each comparison of the
        // search reads a name through its pointer, a cache miss apiece at 2M ACLs.
        let at = if start.is_empty() {
            0
        } else {
            self.chunk_for(start)
        };
        let first: &[NameEntry] = match self.chunks.get(at) {
            Some(chunk) if start.is_empty() => chunk.as_slice(),
            Some(chunk) => {
                let from = chunk.partition_point(|e| e.name.as_ref() < start);
                chunk.get(from..).unwrap_or_default()
            }
            None => &[],
        };
        let rest = self.chunks.get(at + 1..).unwrap_or_default();
        first.iter().chain(rest.iter().flatten())
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
        set.iter_from(from).map(|e| e.name.to_string()).collect()
    }

    #[test]
    fn stays_ordered_across_chunk_splits_and_removals() {
        let mut set = NameSet::default();
        for i in (0..100).rev() {
            let name: Arc<str> = Arc::from(format!("t{i:03}"));
            set.insert(&name, PatternType::Literal, i, Solo::default());
            set.insert(&name, PatternType::Prefixed, 1000 + i, Solo::default());
        }
        assert!(
            set.chunks.len() == 1,
            "200 inserts of 100 names fit one chunk"
        );
        for i in 100..400 {
            let name: Arc<str> = Arc::from(format!("t{i:03}"));
            set.insert(&name, PatternType::Literal, i, Solo::default());
        }
        assert!(set.chunks.len() > 2);
        for i in 100..400 {
            set.remove(&format!("t{i:03}"), PatternType::Literal);
        }
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
    fn the_last_name_again_fills_its_other_pattern_in_place() {
        let mut set = NameSet::default();
        for i in 0..300u32 {
            let name: Arc<str> = Arc::from(format!("t{i:03}"));
            set.insert(&name, PatternType::Literal, i, Solo::default());
            // An equal name in another allocation takes the same path as the shared one.
            let copy: Arc<str> = Arc::from(format!("t{i:03}"));
            let solo = Solo { host: 7, mask: 1 };
            set.insert(&copy, PatternType::Prefixed, 1000 + i, solo);
        }
        let all: Vec<&NameEntry> = set.iter_from("").collect();
        assert_eq!(all.len(), 300);
        assert!(all.windows(2).all(|w| w[0].name < w[1].name));
        assert!(all
            .iter()
            .enumerate()
            .all(|(i, e)| e.pair.literal == i as u32
                && e.pair.prefixed == 1000 + i as u32
                && e.solo == [Solo::default(), Solo { host: 7, mask: 1 }]));
        assert_eq!(names(&set, "t299"), ["t299"]);
        assert_eq!(names(&set, "").len(), 300);
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
