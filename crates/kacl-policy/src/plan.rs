//! The diff between a file and a cluster, within the file's scope: what to add, what to
//! remove, how many ACLs already agree and how many lie outside the scope. A saved plan
//! carries a fingerprint of the in-scope ACLs it was computed from, so applying it later
//! is refused if they changed in between.

use std::collections::HashSet;

use kacl_acl::{AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType};
use kacl_acl::{ResourcePattern, ResourceType};
use serde::{Deserialize, Serialize};

use crate::file::Document;
use crate::scope::Scope;

/// Format version of a saved plan.
pub const PLAN_VERSION: u32 = 1;

/// What applying a file would change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// [`PLAN_VERSION`].
    pub version: u32,
    /// The scope the plan was computed in.
    pub scope: Scope,
    /// ACLs in the file and not in the cluster, sorted.
    #[serde(with = "acl_list")]
    pub additions: Vec<AclBinding>,
    /// ACLs in scope in the cluster and not in the file, sorted.
    #[serde(with = "acl_list")]
    pub removals: Vec<AclBinding>,
    /// In-scope ACLs present on both sides.
    pub unchanged: usize,
    /// Cluster ACLs outside the scope (never touched).
    pub outside_scope: usize,
    /// [`fingerprint`] of the in-scope cluster ACLs the plan was computed from.
    pub fingerprint: String,
}

impl Plan {
    /// Computes the plan of `file` against the cluster's `current` ACLs.
    pub fn compute(file: &Document, current: &[AclBinding]) -> Plan {
        let (in_scope, outside): (Vec<&AclBinding>, Vec<&AclBinding>) =
            current.iter().partition(|b| file.scope.contains(b));
        Plan::from_in_scope(file, in_scope, outside.len())
    }

    /// Computes the plan of `file` from the cluster's ACLs that its scope owns (`in_scope`)
    /// and the number it does not: for a caller that sorts a large answer as it reads it and
    /// never holds the ACLs outside the scope ([`Scope::owns_pattern`] per resource,
    /// [`Scope::owns_principal`] per entry).
    pub fn from_in_scope<B: std::borrow::Borrow<AclBinding>>(
        file: &Document,
        in_scope: Vec<B>,
        outside_scope: usize,
    ) -> Plan {
        let desired_owned = file.bindings();
        let present: HashSet<&AclBinding> = in_scope.iter().map(|b| b.borrow()).collect();
        let wanted: HashSet<&AclBinding> = desired_owned.iter().collect();
        let mut additions: Vec<AclBinding> = desired_owned
            .iter()
            .filter(|b| !present.contains(b))
            .cloned()
            .collect();
        let mut removals: Vec<AclBinding> = in_scope
            .iter()
            .map(|b| b.borrow())
            .filter(|b| !wanted.contains(*b))
            .cloned()
            .collect();
        additions.sort();
        removals.sort();
        let unchanged = present.len() - removals.len();
        Plan {
            version: PLAN_VERSION,
            scope: file.scope.clone(),
            additions,
            removals,
            unchanged,
            outside_scope,
            fingerprint: fingerprint(in_scope.iter().map(|b| b.borrow())),
        }
    }

    /// The additions (`+`) and removals (`-`) grouped by resource, in resource order: how
    /// the CLI and the console show a plan, in kafka-acls.sh's vocabulary.
    pub fn changes_by_resource(
        &self,
    ) -> std::collections::BTreeMap<&ResourcePattern, Vec<(char, &AccessControlEntry)>> {
        let mut by_resource: std::collections::BTreeMap<_, Vec<_>> = Default::default();
        let signed = [('+', &self.additions), ('-', &self.removals)];
        for (sign, bindings) in signed {
            for b in bindings {
                by_resource
                    .entry(&b.pattern)
                    .or_default()
                    .push((sign, &b.entry));
            }
        }
        by_resource
    }

    /// True when nothing would change.
    pub fn is_empty(&self) -> bool {
        self.additions.is_empty() && self.removals.is_empty()
    }

    /// `Plan: 12 to add, 3 to remove, 40,112 unchanged, 7 outside scope untouched`.
    pub fn summary(&self) -> String {
        format!(
            "Plan: {} to add, {} to remove, {} unchanged, {} outside scope untouched",
            thousands(self.additions.len()),
            thousands(self.removals.len()),
            thousands(self.unchanged),
            thousands(self.outside_scope)
        )
    }

    /// Has the cluster changed, within the plan's scope, since the plan was made?
    pub fn drifted(&self, current: &[AclBinding]) -> bool {
        self.drifted_in_scope(current.iter().filter(|b| self.scope.contains(b)))
    }

    /// [`Plan::drifted`] for a caller that already holds only the in-scope ACLs.
    pub fn drifted_in_scope<'a>(&self, in_scope: impl Iterator<Item = &'a AclBinding>) -> bool {
        fingerprint(in_scope) != self.fingerprint
    }

    /// The fingerprint the scope has once this plan is applied to `before` (the scope's ACLs
    /// it was checked against): what an apply compares the cluster with afterwards, to tell
    /// that no other change ran alongside it.
    pub fn fingerprint_after<'a>(&'a self, before: impl Iterator<Item = &'a AclBinding>) -> String {
        let removed: HashSet<&AclBinding> = self.removals.iter().collect();
        fingerprint(
            before
                .filter(|b| !removed.contains(b))
                .chain(self.additions.iter()),
        )
    }
}

/// `40112` → `40,112`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A stable digest (FNV-1a, 64 bits, hex) of a set of ACLs, independent of order:
/// the count and the wrapping sum of per-ACL digests, so a large set needs no sort.
pub fn fingerprint<'a>(acls: impl Iterator<Item = &'a AclBinding>) -> String {
    let mut sum: u64 = 0;
    let mut count: u64 = 0;
    let mut seen = HashSet::new();
    for acl in acls {
        if !seen.insert(acl) {
            continue;
        }
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
            h ^= 0xff;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        eat(&[acl.pattern.resource_type.code() as u8]);
        eat(acl.pattern.name.as_bytes());
        eat(&[acl.pattern.pattern_type.code() as u8]);
        eat(acl.entry.principal.as_bytes());
        eat(acl.entry.host.as_bytes());
        eat(&[
            acl.entry.operation.code() as u8,
            acl.entry.permission_type.code() as u8,
        ]);
        sum = sum.wrapping_add(h);
        count += 1;
    }
    format!("{count}-{sum:016x}")
}

/// ACLs in a saved plan: Kafka's upper-case names, one flat object each.
mod acl_list {
    use super::*;
    use serde::{Deserializer, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Flat {
        resource_type: String,
        resource_name: String,
        pattern_type: String,
        principal: String,
        host: String,
        operation: String,
        permission_type: String,
    }

    pub(super) fn serialize<S: Serializer>(acls: &[AclBinding], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(acls.iter().map(|a| Flat {
            resource_type: a.pattern.resource_type.kafka_name().into(),
            resource_name: a.pattern.name.clone(),
            pattern_type: a.pattern.pattern_type.kafka_name().into(),
            principal: a.entry.principal.clone(),
            host: a.entry.host.clone(),
            operation: a.entry.operation.kafka_name().into(),
            permission_type: a.entry.permission_type.kafka_name().into(),
        }))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<AclBinding>, D::Error> {
        use serde::de::Error;
        let flat = Vec::<Flat>::deserialize(d)?;
        flat.into_iter()
            .map(|f| {
                let e = |x: kacl_acl::ParseEnumError| D::Error::custom(x.to_string());
                Ok(AclBinding::new(
                    ResourcePattern::new(
                        f.resource_type.parse::<ResourceType>().map_err(e)?,
                        f.resource_name,
                        f.pattern_type.parse::<PatternType>().map_err(e)?,
                    ),
                    AccessControlEntry::new(
                        f.principal,
                        f.host,
                        f.operation.parse::<AclOperation>().map_err(e)?,
                        f.permission_type.parse::<AclPermissionType>().map_err(e)?,
                    ),
                ))
            })
            .collect()
    }
}
