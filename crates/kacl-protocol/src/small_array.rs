//! [`SmallArray`]: a vector that holds one element without allocating.
//!
//! Kafka responses nest arrays that usually hold a single element: the ACLs of one resource
//! pattern in DescribeAcls, the ACLs one DeleteAcls filter matched. With a `Vec` each of those
//! costs an allocation and a free per outer element, which dominated decoding a response of
//! thousands of resources. A `SmallArray` keeps the first element inline and moves to a `Vec`
//! only for a second one.
//!
//! It is written in safe code (an enum of one inline element or a `Vec`), which also keeps it
//! covariant in `T`: a message borrowing for `'long` can be used where `'short` is expected,
//! as with `Vec`. (The `smallvec` crate's type is invariant, which breaks that.)

use core::fmt;
use core::ops::{Deref, DerefMut};

/// A vector storing up to one element inline; dereferences to a slice like `Vec`.
///
/// Build one with `SmallArray::from(vec)`, `collect()`, [`SmallArray::one`] or
/// [`SmallArray::new`] and [`SmallArray::push`].
#[derive(Clone)]
pub struct SmallArray<T>(Repr<T>);

#[derive(Clone)]
enum Repr<T> {
    /// Exactly one element, inline.
    One(T),
    /// Zero or several elements (an empty `Vec` does not allocate).
    Many(Vec<T>),
}

impl<T> SmallArray<T> {
    /// An empty array; does not allocate.
    #[inline]
    pub const fn new() -> Self {
        Self(Repr::Many(Vec::new()))
    }

    /// An array of one element; does not allocate.
    #[inline]
    pub const fn one(item: T) -> Self {
        Self(Repr::One(item))
    }

    /// An empty array with room for `capacity` elements (no allocation for one or none).
    #[inline]
    pub fn with_capacity(capacity: usize) -> Self {
        if capacity <= 1 {
            Self::new()
        } else {
            Self(Repr::Many(Vec::with_capacity(capacity)))
        }
    }

    /// Appends an element; the first one into an empty, unallocated array stays inline.
    #[inline]
    pub fn push(&mut self, item: T) {
        match &mut self.0 {
            // A vector that holds elements or was allocated (by `with_capacity`, or kept by
            // `clear`) keeps being used; only a fresh empty array stores inline.
            Repr::Many(items) if items.capacity() > 0 => items.push(item),
            Repr::Many(_) => self.0 = Repr::One(item),
            Repr::One(_) => {
                let Repr::One(first) = core::mem::replace(&mut self.0, Repr::Many(Vec::new()))
                else {
                    return;
                };
                self.0 = Repr::Many(vec![first, item]);
            }
        }
    }

    /// Removes every element, keeping a spilled array's allocation for reuse.
    #[inline]
    pub fn clear(&mut self) {
        match &mut self.0 {
            Repr::One(_) => self.0 = Repr::Many(Vec::new()),
            Repr::Many(items) => items.clear(),
        }
    }

    /// The elements as a `Vec` (allocates for an inline element).
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::One(item) => vec![item],
            Repr::Many(items) => items,
        }
    }
}

impl<T> Default for SmallArray<T> {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Deref for SmallArray<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::One(item) => core::slice::from_ref(item),
            Repr::Many(items) => items,
        }
    }
}

impl<T> DerefMut for SmallArray<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::One(item) => core::slice::from_mut(item),
            Repr::Many(items) => items,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for SmallArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for SmallArray<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for SmallArray<T> {}

impl<T> From<Vec<T>> for SmallArray<T> {
    /// Keeps a one-element vector's element inline; otherwise reuses the vector.
    fn from(mut items: Vec<T>) -> Self {
        if items.len() == 1 {
            if let Some(item) = items.pop() {
                return Self::one(item);
            }
        }
        Self(Repr::Many(items))
    }
}

impl<T> FromIterator<T> for SmallArray<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return Self::new();
        };
        let Some(second) = iter.next() else {
            return Self::one(first);
        };
        let mut items = Vec::with_capacity(iter.size_hint().0.saturating_add(2));
        items.push(first);
        items.push(second);
        items.extend(iter);
        Self(Repr::Many(items))
    }
}

impl<T> Extend<T> for SmallArray<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

/// Owning iterator over a [`SmallArray`].
pub struct IntoIter<T>(IntoIterRepr<T>);

enum IntoIterRepr<T> {
    One(Option<T>),
    Many(std::vec::IntoIter<T>),
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        match &mut self.0 {
            IntoIterRepr::One(item) => item.take(),
            IntoIterRepr::Many(items) => items.next(),
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IntoIterRepr::One(item) => {
                let n = usize::from(item.is_some());
                (n, Some(n))
            }
            IntoIterRepr::Many(items) => items.size_hint(),
        }
    }
}

impl<T> ExactSizeIterator for IntoIter<T> {}

impl<T> IntoIterator for SmallArray<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter(match self.0 {
            Repr::One(item) => IntoIterRepr::One(Some(item)),
            Repr::Many(items) => IntoIterRepr::Many(items.into_iter()),
        })
    }
}

impl<'s, T> IntoIterator for &'s SmallArray<T> {
    type Item = &'s T;
    type IntoIter = core::slice::Iter<'s, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'s, T> IntoIterator for &'s mut SmallArray<T> {
    type Item = &'s mut T;
    type IntoIter = core::slice::IterMut<'s, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::SmallArray;

    #[test]
    fn one_element_stays_inline_and_a_second_spills() {
        let mut items = SmallArray::new();
        assert!(items.is_empty());
        items.push("a");
        assert_eq!(&*items, &["a"]);
        assert!(matches!(items.0, super::Repr::One(_)));
        items.push("b");
        items.push("c");
        assert_eq!(&*items, &["a", "b", "c"]);
        assert_eq!(items.clone().into_vec(), vec!["a", "b", "c"]);
        assert_eq!(items.into_iter().rev_collect(), vec!["c", "b", "a"]);
    }

    #[test]
    fn clearing_keeps_a_spilled_allocation() {
        let mut items: SmallArray<u32> = (0..10).collect();
        let capacity = match &items.0 {
            super::Repr::Many(v) => v.capacity(),
            super::Repr::One(_) => 0,
        };
        items.clear();
        assert!(items.is_empty());
        assert!(matches!(&items.0, super::Repr::Many(v) if v.capacity() == capacity));
        items.push(7);
        assert_eq!(&*items, &[7]);
        let mut one = SmallArray::one(1);
        one.clear();
        assert!(one.is_empty());
    }

    #[test]
    fn preallocated_arrays_fill_their_vec() {
        let mut items = SmallArray::with_capacity(3);
        items.push(1);
        items.push(2);
        assert_eq!(&*items, &[1, 2]);
        let one: SmallArray<i32> = SmallArray::with_capacity(1);
        assert!(one.is_empty());
    }

    #[test]
    fn conversions_agree_with_vec() {
        for n in 0..4 {
            let vec: Vec<u32> = (0..n).collect();
            let from_vec = SmallArray::from(vec.clone());
            let collected: SmallArray<u32> = vec.iter().copied().collect();
            assert_eq!(from_vec, collected);
            assert_eq!(&*from_vec, vec.as_slice());
            assert_eq!(from_vec.into_iter().collect::<Vec<_>>(), vec);
            assert_eq!(format!("{collected:?}"), format!("{vec:?}"));
        }
    }

    trait RevCollect<T> {
        fn rev_collect(self) -> Vec<T>;
    }

    impl<T, I: Iterator<Item = T>> RevCollect<T> for I {
        fn rev_collect(self) -> Vec<T> {
            let mut items: Vec<T> = self.collect();
            items.reverse();
            items
        }
    }
}
