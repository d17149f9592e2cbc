//! Kafka's AdminClient sends each distinct binding or filter once and gives every position
//! that named it the same outcome. [`Deduped`] remembers which input position maps to which
//! distinct item.

use std::collections::HashMap;
use std::hash::Hash;

/// Distinct items in first-seen order, and for each input position its item's index.
#[derive(Debug)]
pub(super) struct Deduped<T> {
    /// The distinct items, in the order they first appeared.
    pub unique: Vec<T>,
    /// `positions[i]` is the index in `unique` of input item `i`.
    pub positions: Vec<usize>,
}

impl<T: Eq + Hash + Clone> Deduped<T> {
    /// Deduplicates `items`.
    pub(super) fn new(items: Vec<T>) -> Self {
        let mut index: HashMap<T, usize> = HashMap::with_capacity(items.len());
        let mut unique = Vec::new();
        let mut positions = Vec::with_capacity(items.len());
        for item in items {
            let next = unique.len();
            let at = *index.entry(item.clone()).or_insert(next);
            if at == next {
                unique.push(item);
            }
            positions.push(at);
        }
        Deduped { unique, positions }
    }

    /// Spreads one outcome per distinct item back over the input positions.
    pub(super) fn spread<R: Clone>(&self, outcomes: &[R]) -> Vec<R> {
        self.positions
            .iter()
            .filter_map(|&i| outcomes.get(i).cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_map_back_to_first_occurrences() {
        let d = Deduped::new(vec!["a", "b", "a", "c", "b"]);
        assert_eq!(d.unique, ["a", "b", "c"]);
        assert_eq!(d.positions, [0, 1, 0, 2, 1]);
        assert_eq!(d.spread(&[1, 2, 3]), [1, 2, 1, 3, 2]);
    }
}
