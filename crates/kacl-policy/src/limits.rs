//! Bounds on what reading one desired-state file may cost, checked before the file is turned
//! into a [`crate::Document`]: its size, its nesting, and how far YAML aliases may expand it
//! (a few KB of nested `*alias`es otherwise become gigabytes, the "billion laughs").
//!
//! The walk visits every value once without keeping any; its errors are raised inside the
//! parser, so they carry the line and column of the value at which a bound was crossed.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// The largest file read (8 MiB: about 100,000 ACLs written out one per rule).
pub const MAX_FILE_BYTES: usize = 8 << 20;

/// The deepest nesting of lists and mappings. The schema needs 6 (document, `acls`, block,
/// `allow`, rule, `hosts`); the rest is slack for flow style.
pub const MAX_DEPTH: usize = 16;

/// The most ACLs a file may expand to (rules are hosts × operations each).
pub const MAX_ACLS: usize = 1_000_000;

/// Values allowed beyond one per byte of the file: a file without aliases never holds more
/// values than it has bytes, so anything past that is alias expansion.
const SLACK_VALUES: usize = 1_024;

/// Walks `deserializer`'s document, refusing it once it nests deeper than [`MAX_DEPTH`] or,
/// with aliases expanded, holds more values than `text_len` bytes could write out plainly.
pub(crate) fn walk<'de, D: Deserializer<'de>>(
    deserializer: D,
    text_len: usize,
) -> Result<(), D::Error> {
    let left = Cell::new(text_len.saturating_add(SLACK_VALUES));
    Walk {
        left: &left,
        depth: 0,
    }
    .deserialize(deserializer)
}

#[derive(Clone, Copy)]
struct Walk<'a> {
    left: &'a Cell<usize>,
    depth: usize,
}

impl Walk<'_> {
    fn count<E: de::Error>(self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(E::custom(
                "aliases expand the file beyond its own size (more values than it has bytes); \
                 write the repeated parts out instead",
            )),
        }
    }

    fn nested<E: de::Error>(self) -> Result<Self, E> {
        self.count()?;
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format!(
                "nested deeper than {MAX_DEPTH} levels (an ACL file needs 6)"
            )));
        }
        Ok(Walk {
            depth: self.depth + 1,
            ..self
        })
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.count()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.count()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.count()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.count()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.count()
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<(), E> {
        self.count()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.count()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.count()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.nested()?.deserialize(deserializer)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.nested()?.deserialize(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.nested()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.nested()?;
        while map.next_key_seed(inner)?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A YAML tag (`!Tag value`): the value under it.
        let inner = self.nested()?;
        let ((), variant) = data.variant_seed(inner)?;
        de::VariantAccess::newtype_variant_seed(variant, inner)
    }
}

/// The error for a file over [`MAX_FILE_BYTES`].
pub(crate) fn too_large(bytes: u64) -> String {
    format!(
        "the file is {} bytes, more than the {} an ACL file may have; split it by scope",
        crate::thousands(usize::try_from(bytes).unwrap_or(usize::MAX)),
        crate::thousands(MAX_FILE_BYTES)
    )
}
