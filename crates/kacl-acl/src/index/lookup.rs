//! The index side of authorization: which ACLs apply to a resource and what they say
//! for one requester, found through the name maps and prefix probes, never by a scan.

use std::cell::Cell;

use crate::enums::{AclOperation, PatternType, ResourceType};
use crate::types::{WILDCARD_HOST, WILDCARD_PRINCIPAL, WILDCARD_RESOURCE};

use super::entries;
use super::names::prefix_successor;
use super::{AclIndex, PatternSlot, TYPE_COUNT};

/// A requesting principal and host resolved to interned ids: the principals (itself and
/// `User:*`) and hosts (its address, `*`, and every CIDR host whose range holds the
/// address) an ACL must name to concern this requester. Valid only for the read view it
/// was made from.
///
/// The CIDR ids are found once per requester (one hash probe per prefix length present,
/// see `ranges.rs`); with no CIDR ACLs they are empty and cost nothing. Principals are a
/// small fixed set today; a requester with more principals (groups, roles) only widens
/// `principals`.
#[derive(Debug, Clone)]
pub(crate) struct Requester {
    principals: [Option<u32>; 2],
    hosts: [Option<u32>; 2],
    /// Interned CIDR hosts whose range holds the requester's address.
    ranges: Vec<u32>,
    /// The LITERAL `*` pattern's mask for this requester, per resource type code,
    /// found on first use: a session asking about many topics probes it once.
    wildcards: Cell<[Wildcard; TYPE_COUNT]>,
}

/// What the LITERAL `*` pattern of one resource type says for a requester.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wildcard {
    NotLookedUp,
    Absent,
    Present { mask: u32 },
}

/// What the ACLs of one resource say for one requester and operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A matching DENY.
    Denied,
    /// A matching ALLOW and no matching DENY.
    Allowed,
    /// ACLs apply to the resource but none matches the requester: denied.
    NoMatch,
    /// No ACL of anyone applies to the resource: the configured default decides.
    NoAcls,
}

impl AclIndex {
    /// Resolves `principal` (`Type:name`) and `host` with the wildcards `User:*`, `*`.
    pub(crate) fn requester(&self, principal: &str, host: &str) -> Requester {
        let wildcard_principal = if principal == WILDCARD_PRINCIPAL {
            None
        } else {
            self.strings.get(WILDCARD_PRINCIPAL)
        };
        let wildcard_host = if host == WILDCARD_HOST {
            None
        } else {
            self.strings.get(WILDCARD_HOST)
        };
        let exact_host = self.strings.get(host);
        let mut ranges = self.strings.ranges().holding(host);
        ranges.retain(|id| Some(*id) != exact_host);
        Requester {
            principals: [self.strings.get(principal), wildcard_principal],
            hosts: [exact_host, wildcard_host],
            ranges,
            wildcards: Cell::new([Wildcard::NotLookedUp; TYPE_COUNT]),
        }
    }

    /// The interned ids of every host an ACL may name to concern `requester`.
    #[inline]
    fn requester_hosts(requester: &Requester) -> impl Iterator<Item = u32> + '_ {
        requester
            .hosts
            .iter()
            .flatten()
            .copied()
            .chain(requester.ranges.iter().copied())
    }

    /// The mask of the LITERAL `*` pattern of `resource_type` for `requester`, `None`
    /// if there is no such pattern (memoized in the requester).
    fn wildcard_mask(&self, requester: &Requester, resource_type: ResourceType) -> Option<u32> {
        let index = resource_type.code() as usize;
        let mut memo = requester.wildcards.get();
        let state = match memo.get(index).copied().unwrap_or(Wildcard::NotLookedUp) {
            Wildcard::NotLookedUp => {
                let state = match self
                    .pattern_id(resource_type, PatternType::Literal, WILDCARD_RESOURCE)
                    .and_then(|id| self.slot(id))
                {
                    Some(slot) => Wildcard::Present {
                        mask: Self::mask_for(slot, requester),
                    },
                    None => Wildcard::Absent,
                };
                if let Some(cell) = memo.get_mut(index) {
                    *cell = state;
                    requester.wildcards.set(memo);
                }
                state
            }
            known => known,
        };
        match state {
            Wildcard::Present { mask } => Some(mask),
            _ => None,
        }
    }

    /// The union of the masks of the entries on `slot` that concern `requester`.
    fn mask_for(slot: &PatternSlot, requester: &Requester) -> u32 {
        let mut mask = 0;
        for principal in requester.principals.iter().flatten() {
            for host in Self::requester_hosts(requester) {
                mask |= entries::mask_of(&slot.entries, *principal, host);
            }
        }
        mask
    }

    /// `StandardAuthorizer`'s decision from ACLs (super users are the caller's job).
    ///
    /// An ACL applies to `(resource_type, name)` if it is LITERAL with that name,
    /// LITERAL `*`, or PREFIXED with a prefix of the name.
    ///
    /// Deliberate difference: Kafka's ordered walk skips the LITERAL `*` for names
    /// longer than one character that start with `*` (a quirk of its reverse-sorted
    /// tree walk). We follow the documented rule: the LITERAL `*` applies to every name.
    pub(crate) fn verdict(
        &self,
        requester: &Requester,
        operation: AclOperation,
        resource_type: ResourceType,
        name: &str,
    ) -> Verdict {
        let deny = entries::refusing_deny_bits(operation);
        let allow = entries::granting_allow_bits(operation);
        let mut applies = false;
        let mut allowed = false;
        let mut denied = false;
        let mut take = |mask: u32| {
            applies = true;
            if mask & deny != 0 {
                denied = true;
            } else if mask & allow != 0 {
                allowed = true;
            }
        };
        if let Some(slot) = self
            .pattern_id(resource_type, PatternType::Literal, name)
            .and_then(|id| self.slot(id))
        {
            take(Self::mask_for(slot, requester));
        }
        if name != WILDCARD_RESOURCE {
            if let Some(mask) = self.wildcard_mask(requester, resource_type) {
                take(mask);
            }
        }
        self.visit_prefixes_of(resource_type, name, 0, &mut |id| {
            if let Some(slot) = self.slot(id) {
                take(Self::mask_for(slot, requester));
            }
        });
        if denied {
            Verdict::Denied
        } else if allowed {
            Verdict::Allowed
        } else if applies {
            Verdict::NoMatch
        } else {
            Verdict::NoAcls
        }
    }

    /// Steps 3–6 of Kafka's default `Authorizer.authorizeByResourceType` (after its
    /// "hardcode" probe): is some resource of this type allowed by an ALLOW that no
    /// DENY dominates? Operations match exactly or by ALL; nothing is implied.
    ///
    /// Kafka scans every ACL of the type. Here, the wildcard is one probe; then the
    /// requester's own patterns (and `User:*`'s) are walked in name order, stopping
    /// at the first undominated ALLOW, and skipping in one step every name under a
    /// dominating DENY prefix. The worst case (every ALLOW dominated by its own
    /// LITERAL DENY) walks the requester's patterns of that type once.
    pub(crate) fn any_allowed_of_type(
        &self,
        requester: &Requester,
        operation: AclOperation,
        resource_type: ResourceType,
    ) -> bool {
        let deny = entries::refusing_deny_bits(operation);
        let allow = entries::exact_allow_bits(operation);
        if let Some(mask) = self.wildcard_mask(requester, resource_type) {
            if mask & deny != 0 {
                return false;
            }
            if mask & allow != 0 {
                return true;
            }
        }
        for principal in requester.principals.iter().flatten() {
            let Some(set) = self.by_principal.get(&(*principal, resource_type)) else {
                continue;
            };
            let mut start = String::new();
            loop {
                let mut resume_at = None;
                for entry in set.iter_from(&start) {
                    let (name, pair) = (entry.name.as_ref(), entry.pair);
                    let mut dominated_by = None;
                    for slot in pair.ids().filter_map(|id| self.slot(id)) {
                        let literal = slot.pattern_type == PatternType::Literal;
                        if literal && name == WILDCARD_RESOURCE {
                            continue; // the wildcard was decided above
                        }
                        let mask = Self::mask_for(slot, requester);
                        if mask & allow == 0 || (literal && mask & deny != 0) {
                            continue;
                        }
                        match self.shortest_deny_prefix(requester, deny, resource_type, name) {
                            None => return true,
                            Some(len) => dominated_by = Some(len),
                        }
                    }
                    if let Some(len) = dominated_by {
                        // Every name under this DENY prefix is dominated: skip them all.
                        resume_at = Some(name.get(..len).and_then(prefix_successor));
                        break;
                    }
                }
                match resume_at {
                    Some(Some(next)) => start = next,
                    _ => break,
                }
            }
        }
        false
    }

    /// The length of the shortest non-empty PREFIXED name that is a prefix of `name`
    /// and carries a DENY in `deny` for the requester (Kafka grows prefixes from one
    /// character, so an empty prefix never dominates).
    fn shortest_deny_prefix(
        &self,
        requester: &Requester,
        deny: u32,
        resource_type: ResourceType,
        name: &str,
    ) -> Option<usize> {
        let mut found = None;
        self.visit_prefixes_of(resource_type, name, 1, &mut |id| {
            if found.is_none() {
                if let Some(slot) = self.slot(id) {
                    if Self::mask_for(slot, requester) & deny != 0 {
                        found = Some(slot.name.len());
                    }
                }
            }
        });
        found
    }
}
