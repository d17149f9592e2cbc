//! [`TaggedFields`]: the unknown tagged fields of one struct, in a form that costs a single
//! pointer when there are none.
//!
//! Every declared struct carries its unknown tagged fields, yet nearly every struct on the wire
//! has none. A plain `Vec` would add 24 bytes to each element of every array (a third of a
//! DescribeAcls ACL entry), and array decoding is dominated by allocating and touching those
//! elements. Boxing the list makes the empty case 8 bytes and allocation-free.

use crate::wire::{IntoStatic, RawTaggedField};

/// Unknown tagged fields in wire order; empty (and unallocated) in the common case.
///
/// Invariant: the box is present only when the list is non-empty, so the derived equality
/// compares contents.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
// The box is deliberate: a thin pointer to the `Vec` keeps the empty case at 8 bytes.
#[allow(clippy::box_collection)]
pub struct TaggedFields<'a>(Option<Box<Vec<RawTaggedField<'a>>>>);

impl<'a> TaggedFields<'a> {
    /// No tagged fields.
    #[inline]
    pub const fn new() -> Self {
        Self(None)
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many there are.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |fields| fields.len())
    }

    /// The fields as a slice, in wire order.
    #[inline]
    pub fn as_slice(&self) -> &[RawTaggedField<'a>] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Iterates over the fields in wire order.
    #[inline]
    pub fn iter(&self) -> core::slice::Iter<'_, RawTaggedField<'a>> {
        self.as_slice().iter()
    }

    /// Appends a field (the caller keeps wire order).
    pub fn push(&mut self, field: RawTaggedField<'a>) {
        self.0.get_or_insert_with(Box::default).push(field);
    }

    /// The fields as a vector.
    pub fn into_vec(self) -> Vec<RawTaggedField<'a>> {
        self.0.map_or_else(Vec::new, |fields| *fields)
    }
}

impl<'a> core::ops::Deref for TaggedFields<'a> {
    type Target = [RawTaggedField<'a>];
    #[inline]
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}

impl<'a> From<Vec<RawTaggedField<'a>>> for TaggedFields<'a> {
    fn from(fields: Vec<RawTaggedField<'a>>) -> Self {
        if fields.is_empty() {
            Self(None)
        } else {
            Self(Some(Box::new(fields)))
        }
    }
}

impl<'a> FromIterator<RawTaggedField<'a>> for TaggedFields<'a> {
    fn from_iter<I: IntoIterator<Item = RawTaggedField<'a>>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'s, 'a> IntoIterator for &'s TaggedFields<'a> {
    type Item = &'s RawTaggedField<'a>;
    type IntoIter = core::slice::Iter<'s, RawTaggedField<'a>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoStatic for TaggedFields<'_> {
    type Static = TaggedFields<'static>;
    fn into_static(self) -> TaggedFields<'static> {
        TaggedFields(self.0.map(|fields| Box::new(fields.into_static())))
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn raw(tag: u32) -> RawTaggedField<'static> {
        RawTaggedField {
            tag,
            data: Cow::Borrowed(&[1, 2]),
        }
    }

    #[test]
    fn empty_costs_one_pointer_and_equals_an_empty_conversion() {
        assert_eq!(core::mem::size_of::<TaggedFields<'_>>(), 8);
        assert_eq!(TaggedFields::from(Vec::new()), TaggedFields::new());
        assert!(TaggedFields::new().is_empty());
    }

    #[test]
    fn push_keeps_order_and_round_trips_through_a_vec() {
        let mut fields = TaggedFields::new();
        fields.push(raw(3));
        fields.push(raw(7));
        assert_eq!(fields.len(), 2);
        assert_eq!(fields.iter().map(|f| f.tag).collect::<Vec<_>>(), [3, 7]);
        assert_eq!(fields.clone().into_vec(), vec![raw(3), raw(7)]);
        assert_eq!(fields, vec![raw(3), raw(7)].into());
        assert_ne!(fields, TaggedFields::new());
    }
}
