//! An order-independent digest of a set of ACLs, so that two copies of the set that were
//! built differently (the index decoded from its snapshot, the store's records read in key
//! order) can be compared without holding either twice: each side sums a 128-bit hash of every
//! ACL it holds, and equal sets give equal digests whatever the order.
//!
//! It is a check against damage and mix-ups (a snapshot beside the wrong or a damaged store),
//! not against an adversary who can write the data directory (who could change the store
//! itself). Each ACL's hash is SipHash of its fields, finished by a 64-bit mixer; the sum of
//! two such lanes over the set, with the count, makes an accidental match of two different
//! sets vanishingly unlikely.

use std::hash::{Hash, Hasher};

use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};

use super::entries;
use super::AclIndex;
use super::AclRef;

/// The digest of a set of ACLs: equal sets give equal digests (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AclDigest {
    count: u64,
    lanes: [u64; 2],
}

impl AclDigest {
    /// The digest of the empty set.
    pub fn new() -> AclDigest {
        AclDigest::default()
    }

    /// How many ACLs were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Adds one ACL (adding the same ACL twice counts it twice: feed a set).
    pub fn add(&mut self, acl: AclRef<'_>) {
        let pattern = pattern_hash(acl.resource_type, acl.pattern_type, acl.name);
        let entry = entry_hash(acl.principal, acl.host);
        self.add_hashed(pattern, entry, acl.operation, acl.permission_type);
    }

    fn add_hashed(
        &mut self,
        pattern: u64,
        entry: u64,
        operation: AclOperation,
        permission: AclPermissionType,
    ) {
        let code = (operation.code() as u8 as u64) | ((permission.code() as u8 as u64) << 8);
        let first = mix(pattern ^ mix(entry ^ code.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let second = mix(pattern.rotate_left(29).wrapping_add(0xD6E8_FEB8_6659_FD93)
            ^ mix(entry.rotate_left(41) ^ code.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)));
        self.count += 1;
        self.lanes[0] = self.lanes[0].wrapping_add(first);
        self.lanes[1] = self.lanes[1].wrapping_add(second);
    }
}

impl AclIndex {
    /// The digest of every ACL the set holds (equal to [`AclDigest::add`] over each of them).
    pub fn digest(&self) -> AclDigest {
        let mut digest = AclDigest::new();
        for slot in self.patterns.iter().flatten() {
            let pattern = pattern_hash(slot.resource_type, slot.pattern_type, &slot.name);
            for entry in &slot.entries {
                let hashed = entry_hash(
                    self.strings.resolve(entry.principal),
                    self.strings.resolve(entry.host),
                );
                let mut bits = entry.mask;
                while bits != 0 {
                    let bit = bits.trailing_zeros();
                    bits &= bits - 1;
                    let (operation, permission) = entries::decode_bit(bit);
                    digest.add_hashed(pattern, hashed, operation, permission);
                }
            }
        }
        digest
    }
}

fn pattern_hash(resource_type: ResourceType, pattern_type: PatternType, name: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    (resource_type.code(), pattern_type.code(), name).hash(&mut hasher);
    hasher.finish()
}

fn entry_hash(principal: &str, host: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    (principal, host).hash(&mut hasher);
    hasher.finish()
}

/// A 64-bit finalizer (splitmix64's).
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AccessControlEntry, AclBinding, ResourcePattern};

    fn binding(name: &str, principal: &str, operation: AclOperation) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, name, PatternType::Literal),
            AccessControlEntry::new(principal, "*", operation, AclPermissionType::Allow),
        )
    }

    fn of(bindings: &[AclBinding]) -> AclDigest {
        let mut digest = AclDigest::new();
        for b in bindings {
            digest.add(AclRef {
                resource_type: b.pattern.resource_type,
                pattern_type: b.pattern.pattern_type,
                name: &b.pattern.name,
                principal: &b.entry.principal,
                host: &b.entry.host,
                operation: b.entry.operation,
                permission_type: b.entry.permission_type,
            });
        }
        digest
    }

    #[test]
    fn the_index_and_its_acls_one_by_one_give_one_digest_and_any_change_shows() {
        let mut set: Vec<AclBinding> = (0..300)
            .map(|i| {
                let op = if i % 3 == 0 {
                    AclOperation::Read
                } else {
                    AclOperation::Write
                };
                binding(&format!("t{}", i / 5), &format!("User:u{}", i % 7), op)
            })
            .collect();
        set.sort_by(|a, b| a.pattern.name.cmp(&b.pattern.name));
        set.dedup();
        let index = AclIndex::from_bindings(set.clone()).unwrap();
        let mut reversed = set.clone();
        reversed.reverse();
        assert_eq!(index.digest(), of(&set));
        assert_eq!(of(&reversed), of(&set), "order does not matter");
        assert_eq!(index.digest().count(), set.len() as u64);

        let mut changed = set.clone();
        changed[17].entry.operation = AclOperation::Delete;
        assert_ne!(of(&changed), of(&set));
        let mut renamed = set.clone();
        renamed[3].pattern.name.push('x');
        assert_ne!(of(&renamed), of(&set));
        let mut moved = set.clone();
        moved[5].entry.principal = "User:u6x".into();
        assert_ne!(of(&moved), of(&set));
        assert_ne!(of(&set[1..]), of(&set));
        assert_ne!(AclIndex::new().digest(), index.digest());
    }
}
