//! Checks that run inside the deserializer, so that an error carries the line and column
//! of the value it is about: a scalar's own position for a bad operation or principal, a
//! mapping's first key for a rule that is wrong as a whole (two resources, a CLUSTER
//! named otherwise than `kafka-cluster`, a duplicate).
//!
//! Both serde_json and serde_norway attach a position to an error raised while one of
//! their `deserialize_*` calls is running, so the checks live in visitors (and mappings
//! are handed to the derived impl through `MapAccessDeserializer`), never after the value
//! was built.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

/// A mapping checked as a whole by [`Check`] right after it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked<T>(pub T);

/// What a mapping must satisfy beyond its shape.
pub trait Check {
    /// `Err(message)` if the value is wrong.
    fn check(&self) -> Result<(), String>;
}

impl<'de, T: Deserialize<'de> + Check> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Check> Visitor<'de> for MapVisitor<T> {
            type Value = Checked<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Checked<T>, A::Error> {
                let value = T::deserialize(de::value::MapAccessDeserializer::new(map))?;
                value.check().map_err(de::Error::custom)?;
                Ok(Checked(value))
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

/// A string parsed by `parse` inside the deserializer.
pub(crate) fn parse_str<'de, D, T>(
    deserializer: D,
    expecting: &'static str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    struct StrVisitor<T> {
        expecting: &'static str,
        parse: fn(&str) -> Result<T, String>,
    }
    impl<T> Visitor<'_> for StrVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
            (self.parse)(value).map_err(E::custom)
        }
    }
    deserializer.deserialize_str(StrVisitor { expecting, parse })
}
