//! A reference-counted string table: principals and hosts are stored once and ACL
//! entries refer to them by a `u32` id, which keeps an entry at 12 bytes and makes
//! comparing principals an integer compare.

use std::collections::HashMap;
use std::sync::Arc;

use super::ranges::RangeTable;

/// Interned strings with use counts; ids of released strings are reused. The live
/// strings that are CIDR ranges are also kept in a [`RangeTable`] (principals share the
/// table, but an entry's host field only ever holds host ids, so a principal that
/// happens to parse as a range is never looked up as one).
#[derive(Debug, Default)]
pub(crate) struct Interner {
    ids: HashMap<Arc<str>, u32>,
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    ranges: RangeTable,
}

#[derive(Debug)]
struct Slot {
    text: Arc<str>,
    uses: u32,
}

impl Interner {
    /// A table of distinct strings with their use counts (all > 0), ids in order.
    pub(crate) fn from_counted(strings: impl Iterator<Item = (Arc<str>, u32)>) -> Self {
        let mut interner = Interner::default();
        for (text, uses) in strings {
            let id = interner.slots.len() as u32;
            interner.ids.insert(text.clone(), id);
            interner.ranges.insert(&text, id);
            interner.slots.push(Some(Slot { text, uses }));
        }
        interner
    }

    /// The id of `text` if some entry uses it.
    pub(crate) fn get(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// The id of `text`, adding it if new, and counts one more use.
    pub(crate) fn acquire(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            if let Some(Some(slot)) = self.slots.get_mut(id as usize) {
                slot.uses += 1;
            }
            return id;
        }
        let text: Arc<str> = Arc::from(text);
        let slot = Slot {
            text: text.clone(),
            uses: 1,
        };
        let id = match self.free.pop() {
            Some(id) => {
                if let Some(free_slot) = self.slots.get_mut(id as usize) {
                    *free_slot = Some(slot);
                }
                id
            }
            None => {
                self.slots.push(Some(slot));
                (self.slots.len() - 1) as u32
            }
        };
        self.ranges.insert(&text, id);
        self.ids.insert(text, id);
        id
    }

    /// The CIDR ranges among the live strings.
    #[inline]
    pub(crate) fn ranges(&self) -> &RangeTable {
        &self.ranges
    }

    /// Counts one use fewer, forgetting the string at zero.
    pub(crate) fn release(&mut self, id: u32) {
        let Some(entry) = self.slots.get_mut(id as usize) else {
            return;
        };
        let Some(slot) = entry else { return };
        slot.uses -= 1;
        if slot.uses == 0 {
            let text = slot.text.clone();
            *entry = None;
            self.ids.remove(&text);
            self.ranges.remove(&text, id);
            self.free.push(id);
        }
    }

    /// The text of a live id (empty for a dead one, which the index never holds).
    #[inline]
    pub(crate) fn resolve(&self, id: u32) -> &str {
        match self.slots.get(id as usize) {
            Some(Some(slot)) => &slot.text,
            _ => "",
        }
    }

    /// How many distinct strings are live.
    #[cfg(test)]
    pub(crate) fn live(&self) -> usize {
        self.ids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_uses_and_reuses_ids() {
        let mut interner = Interner::default();
        let a = interner.acquire("User:a");
        assert_eq!(interner.acquire("User:a"), a);
        let b = interner.acquire("User:b");
        assert_ne!(a, b);
        interner.release(a);
        assert_eq!(interner.get("User:a"), Some(a));
        interner.release(a);
        assert_eq!(interner.get("User:a"), None);
        assert_eq!(interner.live(), 1);
        let c = interner.acquire("User:c");
        assert_eq!(c, a, "a freed id is reused");
        assert_eq!(interner.resolve(c), "User:c");
        assert_eq!(interner.resolve(b), "User:b");
    }
}
