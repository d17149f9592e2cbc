//! [`VersionRange`]: the inclusive version ranges of Kafka's schemas (`"1-3"`, `"2+"`), used by
//! API keys and message declarations alike, so it depends on neither.

/// An inclusive range of versions; empty when `min > max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionRange {
    /// Lowest version, inclusive.
    pub min: i16,
    /// Highest version, inclusive.
    pub max: i16,
}

impl VersionRange {
    /// No version at all (a message with no flexible versions, a field that is never nullable).
    pub const NONE: VersionRange = VersionRange { min: 1, max: 0 };

    /// `min..=max`, Kafka's `"min-max"`.
    #[inline]
    pub const fn between(min: i16, max: i16) -> Self {
        Self { min, max }
    }

    /// `min..`, Kafka's `"min+"`.
    #[inline]
    pub const fn starting_at(min: i16) -> Self {
        Self { min, max: i16::MAX }
    }

    /// Whether `version` lies in the range.
    #[inline]
    pub const fn contains(self, version: i16) -> bool {
        self.min <= version && version <= self.max
    }

    /// Whether the range holds no version.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.min > self.max
    }
}
