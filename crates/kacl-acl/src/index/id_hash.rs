//! A fast hasher for maps keyed by interned ids (`u32` handed out by the index itself, plus
//! small enums). SipHash, the standard maps' default, was 14% of a 2M-ACL snapshot start and
//! shows on every describe and authorize by principal; its keyed randomness defends against
//! keys an attacker picks, which interned ids are not: the index assigns them in order. Maps
//! keyed by client-chosen strings keep the default hasher.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by interned ids.
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Multiply-rotate mixing (the FxHash family): one multiplication per word written.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

const SEED: u64 = 0xf135_7aea_2e62_a9c5;

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }

    /// The product's high bits are its best mixed; hashbrown takes its 7-bit tags from the
    /// top and its bucket index from the bottom, so rotate the good bits into both.
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, BuildHasherDefault};

    use super::*;
    use crate::enums::ResourceType;

    #[test]
    fn neighbouring_ids_spread_over_buckets_and_tags() {
        let build = BuildHasherDefault::<IdHasher>::default();
        let hashes: Vec<u64> = (0u32..4096)
            .map(|id| build.hash_one((id, ResourceType::Topic)))
            .collect();
        let low: std::collections::HashSet<u64> = hashes.iter().map(|h| h & 0xfff).collect();
        let top: std::collections::HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert!(low.len() > 2500, "{} distinct low 12 bits", low.len());
        assert_eq!(top.len(), 128, "every 7-bit tag used");
    }
}
