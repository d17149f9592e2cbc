//! How arrays are laid out: `Vec<T>`, nullable `Option<Vec<T>>` and [`SmallArray<T>`] fields.
//!
//! A count comes first (`int32`, or a compact uvarint holding count + 1; null is -1 or 0), then
//! the elements. Counts are checked against the bytes left before anything is allocated.

use super::{
    null_allowed_on_decode, null_allowed_on_encode, null_not_allowed, Cx, Field, IntoStatic,
    SmallArray,
};
use crate::codec::{
    length_prefix_len, prealloc_capacity, put_length, DecodeError, EncodeError, Reader, Sink,
};

impl<T: IntoStatic> IntoStatic for Vec<T> {
    type Static = Vec<T::Static>;
    fn into_static(self) -> Self::Static {
        self.into_iter().map(IntoStatic::into_static).collect()
    }
}

/// Reads `count` elements; elements are never null themselves.
///
/// Elements are decoded in place: a run of default elements is appended (written straight into
/// the vector), then each is filled from the wire. Pushing one decoded value at a time instead
/// moved every struct through the stack, and copying freshly written narrow fields stalled
/// store-to-load forwarding. Runs are at most [`prealloc_capacity`] long, so a hostile count
/// costs no more than that before the input runs out.
#[inline]
fn decode_elements<'a, T: Field<'a>>(
    r: &mut Reader<'a>,
    count: usize,
    cx: Cx,
    what: &'static str,
) -> Result<Vec<T>, DecodeError> {
    let mut items: Vec<T> = Vec::with_capacity(prealloc_capacity::<T>(count));
    let cx = cx.with_nullable(false);
    let mut left = count;
    while left > 0 {
        let start = items.len();
        let run = prealloc_capacity::<T>(left).max(1);
        r.charge(what, run.saturating_mul(core::mem::size_of::<T>()))?;
        items.resize_with(start + run, T::default);
        for slot in items.iter_mut().skip(start) {
            T::decode_into(slot, r, cx, what)?;
        }
        left -= run;
    }
    Ok(items)
}

/// Appends a non-null array: its count, then its elements (never null themselves).
#[inline]
fn encode_array<'a, T: Field<'a>>(
    items: &[T],
    out: &mut impl Sink,
    cx: Cx,
    what: &'static str,
) -> Result<(), EncodeError> {
    put_length(out, what, Some(items.len()), cx.flexible, true)?;
    let cx = cx.with_nullable(false);
    items
        .iter()
        .try_for_each(|item| item.encode_field(out, cx, what))
}

/// Exactly how many bytes [`encode_array`] appends.
#[inline]
fn array_len<'a, T: Field<'a>>(items: &[T], cx: Cx) -> usize {
    let elements_cx = cx.with_nullable(false);
    array_field_len(
        items.len(),
        items.iter().map(|item| item.field_len(elements_cx)).sum(),
        cx,
    )
}

/// Exactly how many bytes a (non-null) array field of `count` elements takes at `cx`, its
/// elements taking `elements_len` bytes at `cx.with_nullable(false)`: for sizing an array
/// without building it (a DescribeAcls answer of millions of ACLs is sized before it is sent).
#[inline]
pub fn array_field_len(count: usize, elements_len: usize, cx: Cx) -> usize {
    length_prefix_len(Some(count), cx.flexible, true) + elements_len
}

impl<'a, T: Field<'a>> Field<'a> for Vec<T> {
    #[inline]
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        match r.read_array_len(what, cx.flexible)? {
            Some(count) => decode_elements(r, count, cx, what),
            None => Err(null_not_allowed(cx, what)),
        }
    }
    #[inline]
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        encode_array(self, out, cx, what)
    }
    #[inline]
    fn field_len(&self, cx: Cx) -> usize {
        array_len(self, cx)
    }
}

impl<'a, T: Field<'a>> Field<'a> for SmallArray<T> {
    #[inline]
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        let mut items = SmallArray::new();
        Self::decode_into(&mut items, r, cx, what)?;
        Ok(items)
    }
    #[inline]
    fn decode_into(
        slot: &mut Self,
        r: &mut Reader<'a>,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), DecodeError> {
        let Some(count) = r.read_array_len(what, cx.flexible)? else {
            return Err(null_not_allowed(cx, what));
        };
        if count == 1 {
            // The common case, decoded in place without touching the allocator.
            *slot = SmallArray::one(T::default());
            if let Some(item) = slot.first_mut() {
                T::decode_into(item, r, cx.with_nullable(false), what)?;
            }
        } else {
            *slot = SmallArray::from(decode_elements(r, count, cx, what)?);
        }
        Ok(())
    }
    #[inline]
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        encode_array(self, out, cx, what)
    }
    #[inline]
    fn field_len(&self, cx: Cx) -> usize {
        array_len(self, cx)
    }
}

impl<T: IntoStatic> IntoStatic for SmallArray<T> {
    type Static = SmallArray<T::Static>;
    fn into_static(self) -> Self::Static {
        self.into_iter().map(IntoStatic::into_static).collect()
    }
}

impl<'a, T: Field<'a>> Field<'a> for Option<Vec<T>> {
    fn decode_field(r: &mut Reader<'a>, cx: Cx, what: &'static str) -> Result<Self, DecodeError> {
        match r.read_array_len(what, cx.flexible)? {
            Some(count) => decode_elements(r, count, cx, what).map(Some),
            None => null_allowed_on_decode(cx, what).map(|()| None),
        }
    }
    fn encode_field(
        &self,
        out: &mut impl Sink,
        cx: Cx,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        match self {
            Some(items) => encode_array(items, out, cx, what),
            None => {
                null_allowed_on_encode(cx, what)?;
                put_length(out, what, None, cx.flexible, true)
            }
        }
    }
    fn field_len(&self, cx: Cx) -> usize {
        match self {
            Some(items) => array_len(items, cx),
            None => length_prefix_len(None, cx.flexible, true),
        }
    }
}
