//! The entries of one resource pattern, packed: one 12-byte [`Entry`] per distinct
//! (principal, host), whose `mask` holds one bit per (operation, permission) present.
//! Entries are kept sorted by (principal id, host id), so the authorizer finds the four
//! (principal or `User:*`) × (host or `*`) keys by binary search, and a principal's
//! entries form one contiguous run.

use std::ops::Range;

use crate::enums::{AclOperation, AclPermissionType};

/// Bits 0..16 are ALLOW per operation code, bits 16..32 DENY per operation code.
const DENY_SHIFT: u32 = 16;
/// The operation codes an ACL may carry: ALL (2) through TWO_PHASE_COMMIT (15).
const CONCRETE_OPS: u32 = 0xfffc;
/// Every bit a stored entry's mask may hold: ALLOW and DENY of the concrete operations.
pub(crate) const STORABLE_BITS: u32 = CONCRETE_OPS | (CONCRETE_OPS << DENY_SHIFT);

/// One (principal, host) on a pattern, with the operations and permissions it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) principal: u32,
    pub(crate) host: u32,
    pub(crate) mask: u32,
}

/// The mask bit of one stored (operation, permission), or `None` for filter-only values.
pub(crate) fn acl_bit(operation: AclOperation, permission: AclPermissionType) -> Option<u32> {
    let op_bit = 1u32 << operation.code();
    if op_bit & CONCRETE_OPS == 0 {
        return None;
    }
    match permission {
        AclPermissionType::Allow => Some(op_bit),
        AclPermissionType::Deny => Some(op_bit << DENY_SHIFT),
        _ => None,
    }
}

/// The bits an entry filter's (operation, permission) selects (`ANY` selects all).
pub(crate) fn filter_bits(operation: AclOperation, permission: AclPermissionType) -> u32 {
    let ops = match operation {
        AclOperation::Any => CONCRETE_OPS,
        op => (1u32 << op.code()) & CONCRETE_OPS,
    };
    match permission {
        AclPermissionType::Any => ops | (ops << DENY_SHIFT),
        AclPermissionType::Allow => ops,
        AclPermissionType::Deny => ops << DENY_SHIFT,
        AclPermissionType::Unknown => 0,
    }
}

/// The operation and permission of a mask bit.
#[inline]
pub(crate) fn decode_bit(bit: u32) -> (AclOperation, AclPermissionType) {
    let permission = if bit >= DENY_SHIFT {
        AclPermissionType::Deny
    } else {
        AclPermissionType::Allow
    };
    (
        AclOperation::from_code((bit % DENY_SHIFT) as i8),
        permission,
    )
}

/// The ALLOW bits that grant `operation` in `StandardAuthorizer`: the operation, ALL,
/// and the operations that imply it (READ/WRITE/DELETE/ALTER imply DESCRIBE;
/// ALTER_CONFIGS implies DESCRIBE_CONFIGS).
pub(crate) fn granting_allow_bits(operation: AclOperation) -> u32 {
    let bit = |op: AclOperation| 1u32 << op.code();
    let mut bits = (bit(operation) | bit(AclOperation::All)) & CONCRETE_OPS;
    match operation {
        AclOperation::Describe => {
            bits |= bit(AclOperation::Read)
                | bit(AclOperation::Write)
                | bit(AclOperation::Delete)
                | bit(AclOperation::Alter);
        }
        AclOperation::DescribeConfigs => bits |= bit(AclOperation::AlterConfigs),
        _ => {}
    }
    bits
}

/// The ALLOW bits of exactly `operation` or ALL (no implication), as the default
/// `authorizeByResourceType` compares.
pub(crate) fn exact_allow_bits(operation: AclOperation) -> u32 {
    ((1u32 << operation.code()) | (1u32 << AclOperation::All.code())) & CONCRETE_OPS
}

/// The DENY bits that refuse `operation`: the operation itself or ALL, never implied.
pub(crate) fn refusing_deny_bits(operation: AclOperation) -> u32 {
    exact_allow_bits(operation) << DENY_SHIFT
}

/// What adding one bit did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Added {
    /// The bit was already there: the ACL exists.
    Duplicate,
    /// An existing (principal, host) entry gained the bit.
    Bit,
    /// A new (principal, host) entry was inserted.
    Entry,
}

/// The position of (principal, host), or where it would go.
pub(crate) fn find(entries: &[Entry], principal: u32, host: u32) -> Result<usize, usize> {
    entries.binary_search_by(|e| (e.principal, e.host).cmp(&(principal, host)))
}

/// The mask of (principal, host), 0 if absent.
pub(crate) fn mask_of(entries: &[Entry], principal: u32, host: u32) -> u32 {
    match find(entries, principal, host) {
        Ok(at) => entries.get(at).map_or(0, |e| e.mask),
        Err(_) => 0,
    }
}

/// The run of entries whose principal is `principal`.
pub(crate) fn principal_range(entries: &[Entry], principal: u32) -> Range<usize> {
    let start = entries.partition_point(|e| e.principal < principal);
    let end = entries.partition_point(|e| e.principal <= principal);
    start..end
}

/// Sets `bit` on (principal, host), inserting the entry if needed.
pub(crate) fn add(entries: &mut Vec<Entry>, principal: u32, host: u32, bit: u32) -> Added {
    match find(entries, principal, host) {
        Ok(at) => match entries.get_mut(at) {
            Some(e) if e.mask & bit != 0 => Added::Duplicate,
            Some(e) => {
                e.mask |= bit;
                Added::Bit
            }
            None => Added::Duplicate,
        },
        Err(at) => {
            entries.insert(
                at,
                Entry {
                    principal,
                    host,
                    mask: bit,
                },
            );
            Added::Entry
        }
    }
}

/// What removing one bit did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Removed {
    /// No such ACL.
    Missing,
    /// The entry lost the bit but still has others.
    Bit,
    /// The entry lost its last bit and was removed.
    Entry,
}

/// Clears `bit` on (principal, host), removing the entry when its mask empties.
pub(crate) fn remove(entries: &mut Vec<Entry>, principal: u32, host: u32, bit: u32) -> Removed {
    let Ok(at) = find(entries, principal, host) else {
        return Removed::Missing;
    };
    let Some(e) = entries.get_mut(at) else {
        return Removed::Missing;
    };
    if e.mask & bit == 0 {
        return Removed::Missing;
    }
    e.mask &= !bit;
    if e.mask != 0 {
        return Removed::Bit;
    }
    entries.remove(at);
    Removed::Entry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_for_every_storable_pair() {
        for op in AclOperation::ALL {
            for perm in AclPermissionType::ALL {
                match acl_bit(*op, *perm) {
                    Some(bit) => {
                        assert_eq!(decode_bit(bit.trailing_zeros()), (*op, *perm));
                        assert_ne!(filter_bits(*op, *perm) & bit, 0);
                        assert_ne!(
                            filter_bits(AclOperation::Any, AclPermissionType::Any) & bit,
                            0
                        );
                    }
                    None => assert!(
                        op.code() < 2
                            || matches!(perm, AclPermissionType::Any | AclPermissionType::Unknown)
                    ),
                }
            }
        }
        assert_eq!(
            filter_bits(AclOperation::Unknown, AclPermissionType::Any),
            0
        );
    }

    #[test]
    fn implied_operations_only_for_allow() {
        let allow = granting_allow_bits(AclOperation::Describe);
        assert_ne!(allow & (1 << AclOperation::Alter.code()), 0);
        assert_eq!(allow & (1 << AclOperation::AlterConfigs.code()), 0);
        let deny = refusing_deny_bits(AclOperation::Describe);
        assert_eq!(deny.count_ones(), 2, "DESCRIBE and ALL only");
    }

    #[test]
    fn add_and_remove_keep_entries_sorted_and_coalesced() {
        let mut entries = Vec::new();
        assert_eq!(add(&mut entries, 2, 1, 1 << 3), Added::Entry);
        assert_eq!(add(&mut entries, 1, 1, 1 << 3), Added::Entry);
        assert_eq!(add(&mut entries, 1, 1, 1 << 4), Added::Bit);
        assert_eq!(add(&mut entries, 1, 1, 1 << 4), Added::Duplicate);
        assert_eq!(entries.len(), 2);
        assert_eq!(principal_range(&entries, 1), 0..1);
        assert_eq!(mask_of(&entries, 1, 1), (1 << 3) | (1 << 4));
        assert_eq!(remove(&mut entries, 1, 1, 1 << 5), Removed::Missing);
        assert_eq!(remove(&mut entries, 1, 1, 1 << 3), Removed::Bit);
        assert_eq!(remove(&mut entries, 1, 1, 1 << 4), Removed::Entry);
        assert_eq!(principal_range(&entries, 1), 0..0);
    }
}
