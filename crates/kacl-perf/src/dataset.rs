//! The ACL data set `kacl perf` loads and queries: the shape of Kafka's `AuthorizerBenchmark`
//! (jmh-benchmarks, `prepareAclCache`, aclCount 10), laid out as one endless stream so that
//! the first N ACLs are "the N-ACL data set" and a larger set extends a smaller one (a 2M load
//! can continue where a 1M load stopped).
//!
//! Per resource `i` (named `foo-bar35_resource-<i>`; every 10th a GROUP, the rest TOPIC; every
//! 5th PREFIXED, the rest LITERAL): ALLOW READ on host `*` for `User:test-user`,
//! `User:test-user1` … `User:test-user9`, each followed by a DENY READ with probability
//! `deny_percent`. Kafka's two extra resources are spread through the stream instead of
//! appended: the PREFIXED TOPIC `foo-bar35_resource-` for `User:test-user` on hosts
//! `127.0.0.0`–`127.0.0.9` comes after resource 0, and one host of the LITERAL TOPIC `*`
//! (`127.0.0<j>`, resourceCount/10 hosts in Kafka) after every 10th resource.
//!
//! Not in Kafka's bench: per block of 1,000 resources, 10 ALLOW DESCRIBE ACLs for one
//! principal `User:auditor-<k>` on literal topics of that block (resources `…001`, `…101`, …
//! `…901`), placed right after the last of them so that even a 10,000-ACL set holds one. Kafka's ten principals each
//! own a tenth of all ACLs (200,000 at 2M), so a principal with a handful of ACLs is needed to
//! measure describe-by-principal as a cheap, indexed request.

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};

/// Resource names: `foo-bar35_resource-<i>`, as in Kafka's bench.
pub const RESOURCE_PREFIX: &str = "foo-bar35_resource-";
/// The bench's principal; the others are this with a digit appended.
pub const PRINCIPAL: &str = "User:test-user";
/// ACLs per resource (Kafka's `aclCount`), DENYs not counted.
pub const ACLS_PER_RESOURCE: u64 = 10;
/// Resources per auditor principal.
pub const RESOURCES_PER_AUDITOR: u64 = 1000;
/// ACLs of each auditor principal.
pub const ACLS_PER_AUDITOR: u64 = 10;

/// One ACL of the stream, before its strings are built (counting a prefix of the stream is
/// then cheap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spec {
    /// READ on resource `resource` for principal number `principal` (0–9).
    Resource {
        /// The resource's number.
        resource: u64,
        /// The principal's number.
        principal: u8,
        /// ALLOW, or DENY for a DENY twin.
        permission: AclPermissionType,
    },
    /// READ on PREFIXED TOPIC `foo-bar35_resource-` from host `127.0.0.<host>`.
    PrefixHost {
        /// The host's last octet.
        host: u8,
        /// ALLOW or DENY.
        permission: AclPermissionType,
    },
    /// READ on LITERAL TOPIC `*` from host `127.0.0<host>` (Kafka's spelling, no dot).
    WildcardHost {
        /// The host's number.
        host: u64,
        /// ALLOW or DENY.
        permission: AclPermissionType,
    },
    /// ALLOW DESCRIBE on LITERAL TOPIC `foo-bar35_resource-<resource>` for
    /// `User:auditor-<auditor>`.
    Auditor {
        /// The auditor's number.
        auditor: u64,
        /// The resource's number.
        resource: u64,
    },
}

/// Resource type of resource `i`: every 10th a GROUP.
pub fn resource_type(resource: u64) -> ResourceType {
    if resource % 10 == 0 {
        ResourceType::Group
    } else {
        ResourceType::Topic
    }
}

/// Pattern type of resource `i`: every 5th PREFIXED.
pub fn pattern_type(resource: u64) -> PatternType {
    if resource % 5 == 0 {
        PatternType::Prefixed
    } else {
        PatternType::Literal
    }
}

/// Name of resource `i`.
pub fn resource_name(resource: u64) -> String {
    format!("{RESOURCE_PREFIX}{resource}")
}

/// Principal number `n` of the bench: `User:test-user`, `User:test-user1`, ...
pub fn principal(n: u8) -> String {
    if n == 0 {
        PRINCIPAL.to_owned()
    } else {
        format!("{PRINCIPAL}{n}")
    }
}

/// Auditor principal `k`.
pub fn auditor(k: u64) -> String {
    format!("User:auditor-{k}")
}

/// Within a block, the last resource an auditor holds an ACL on; its ACLs follow it.
const LAST_AUDITED: u64 = (ACLS_PER_AUDITOR - 1) * (RESOURCES_PER_AUDITOR / ACLS_PER_AUDITOR) + 1;

/// The resources auditor `k` holds ACLs on: literal topics (`i % 10 == 1`) of its block.
fn auditor_resources(k: u64) -> impl Iterator<Item = u64> {
    let base = k * RESOURCES_PER_AUDITOR;
    (0..ACLS_PER_AUDITOR).map(move |j| base + j * (RESOURCES_PER_AUDITOR / ACLS_PER_AUDITOR) + 1)
}

impl Spec {
    /// The ACL this spec stands for.
    pub fn binding(&self) -> AclBinding {
        use AclOperation::{Describe, Read};
        let (pattern, principal_name, host, operation, permission) = match *self {
            Spec::Resource {
                resource,
                principal: n,
                permission,
            } => (
                ResourcePattern::new(
                    resource_type(resource),
                    resource_name(resource),
                    pattern_type(resource),
                ),
                principal(n),
                "*".to_owned(),
                Read,
                permission,
            ),
            Spec::PrefixHost { host, permission } => (
                ResourcePattern::new(ResourceType::Topic, RESOURCE_PREFIX, PatternType::Prefixed),
                PRINCIPAL.to_owned(),
                format!("127.0.0.{host}"),
                Read,
                permission,
            ),
            Spec::WildcardHost { host, permission } => (
                ResourcePattern::new(ResourceType::Topic, "*", PatternType::Literal),
                PRINCIPAL.to_owned(),
                format!("127.0.0{host}"),
                Read,
                permission,
            ),
            Spec::Auditor {
                auditor: k,
                resource,
            } => (
                ResourcePattern::new(
                    ResourceType::Topic,
                    resource_name(resource),
                    PatternType::Literal,
                ),
                auditor(k),
                "*".to_owned(),
                Describe,
                AclPermissionType::Allow,
            ),
        };
        AclBinding::new(
            pattern,
            AccessControlEntry::new(principal_name, host, operation, permission),
        )
    }
}

/// A small deterministic generator (xorshift64*), so that every run draws the same DENYs.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn chance(&mut self, percent: f64) -> bool {
        if percent <= 0.0 {
            return false;
        }
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        ((x >> 11) as f64 / (1u64 << 53) as f64) * 100.0 < percent
    }
}

/// The endless stream of [`Spec`]s; `take(n)` is the n-ACL data set.
#[derive(Debug, Clone)]
pub struct Stream {
    deny_percent: f64,
    rng: Rng,
    next_resource: u64,
    /// Specs of the current resource not yet handed out, in reverse order.
    pending: Vec<Spec>,
}

impl Stream {
    /// A stream with DENYs at `deny_percent` (0–100).
    pub fn new(deny_percent: f64) -> Self {
        Stream {
            deny_percent,
            rng: Rng(0x9e37_79b9_7f4a_7c15),
            next_resource: 0,
            pending: Vec::with_capacity(64),
        }
    }

    /// Pushes `allow` and, with the deny share's probability, its DENY twin.
    fn with_deny(&mut self, batch: &mut Vec<Spec>, make: impl Fn(AclPermissionType) -> Spec) {
        batch.push(make(AclPermissionType::Allow));
        if self.rng.chance(self.deny_percent) {
            batch.push(make(AclPermissionType::Deny));
        }
    }

    /// Fills `pending` with everything that follows resource `next_resource`.
    fn refill(&mut self) {
        let resource = self.next_resource;
        self.next_resource += 1;
        let mut batch = Vec::with_capacity(32);
        for n in 0..ACLS_PER_RESOURCE as u8 {
            self.with_deny(&mut batch, |permission| Spec::Resource {
                resource,
                principal: n,
                permission,
            });
        }
        if resource == 0 {
            for host in 0..10u8 {
                self.with_deny(&mut batch, |permission| Spec::PrefixHost {
                    host,
                    permission,
                });
            }
        }
        if resource % 10 == 9 {
            let host = resource / 10;
            self.with_deny(&mut batch, |permission| Spec::WildcardHost {
                host,
                permission,
            });
        }
        if resource % RESOURCES_PER_AUDITOR == LAST_AUDITED {
            let k = resource / RESOURCES_PER_AUDITOR;
            batch.extend(auditor_resources(k).map(|resource| Spec::Auditor {
                auditor: k,
                resource,
            }));
        }
        batch.reverse();
        self.pending = batch;
    }
}

impl Iterator for Stream {
    type Item = Spec;

    fn next(&mut self) -> Option<Spec> {
        loop {
            if let Some(spec) = self.pending.pop() {
                return Some(spec);
            }
            self.refill();
        }
    }
}

/// What the first N ACLs of the stream hold, so workloads query only what is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// ACLs counted.
    pub acls: u64,
    /// Resources `0..resources` have all their ACLs loaded.
    pub resources: u64,
    /// Auditors `0..auditors` have all their ACLs loaded.
    pub auditors: u64,
}

impl Summary {
    /// Counts the first `acls` specs of a stream with `deny_percent`.
    pub fn of_first(acls: u64, deny_percent: f64) -> Summary {
        let mut summary = Summary {
            acls,
            ..Summary::default()
        };
        let mut stream = Stream::new(deny_percent);
        let mut seen = 0;
        while seen < acls {
            stream.refill();
            let len = stream.pending.len() as u64;
            if seen + len > acls {
                break;
            }
            seen += len;
            // The resource just generated is complete, and so is an auditor placed after it.
            let resource = stream.next_resource - 1;
            summary.resources = stream.next_resource;
            if resource % RESOURCES_PER_AUDITOR == LAST_AUDITED {
                summary.auditors = resource / RESOURCES_PER_AUDITOR + 1;
            }
        }
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn first_resource_block_has_kafkas_shape() {
        let acls: Vec<AclBinding> = Stream::new(0.0).take(20).map(|s| s.binding()).collect();
        let first = &acls[0];
        assert_eq!(first.pattern.resource_type, ResourceType::Group);
        assert_eq!(first.pattern.pattern_type, PatternType::Prefixed);
        assert_eq!(first.pattern.name, "foo-bar35_resource-0");
        assert_eq!(first.entry.principal, "User:test-user");
        assert_eq!(first.entry.host, "*");
        assert_eq!(first.entry.operation, AclOperation::Read);
        assert_eq!(acls[9].entry.principal, "User:test-user9");
        assert_eq!(acls[10].pattern.name, RESOURCE_PREFIX);
        assert_eq!(acls[10].pattern.pattern_type, PatternType::Prefixed);
        assert_eq!(acls[10].entry.host, "127.0.0.0");
        assert_eq!(acls[19].entry.host, "127.0.0.9");
    }

    #[test]
    fn ten_thousand_resources_carry_every_extra() {
        let specs: Vec<Spec> = Stream::new(0.0).take(101_110).collect();
        let wildcard = specs
            .iter()
            .filter(|s| matches!(s, Spec::WildcardHost { .. }))
            .count();
        let auditors = specs
            .iter()
            .filter(|s| matches!(s, Spec::Auditor { .. }))
            .count();
        assert_eq!(wildcard, 1000, "resourceCount/10 wildcard hosts");
        assert_eq!(auditors, 100);
        let unique: HashSet<AclBinding> = specs.iter().map(|s| s.binding()).collect();
        assert_eq!(unique.len(), specs.len(), "no duplicate ACLs");
        let summary = Summary::of_first(specs.len() as u64, 0.0);
        assert_eq!(summary.resources, 10_000);
        assert_eq!(summary.auditors, 10);
    }

    #[test]
    fn ten_thousand_acls_hold_one_auditor() {
        let summary = Summary::of_first(10_000, 0.0);
        assert_eq!(summary.auditors, 1, "{summary:?}");
        let auditor_acls = Stream::new(0.0)
            .take(10_000)
            .filter(|s| matches!(s, Spec::Auditor { auditor: 0, .. }))
            .count();
        assert_eq!(auditor_acls, 10);
        assert_eq!(Summary::of_first(9_000, 0.0).auditors, 0);
    }

    #[test]
    fn auditors_name_literal_topics() {
        for resource in auditor_resources(3) {
            assert_eq!(resource_type(resource), ResourceType::Topic);
            assert_eq!(pattern_type(resource), PatternType::Literal);
            assert!((3000..4000).contains(&resource));
        }
    }

    #[test]
    fn deny_share_adds_denies_deterministically() {
        let count = |deny| {
            Stream::new(deny)
                .take(100_000)
                .filter(|s| {
                    matches!(
                        s,
                        Spec::Resource {
                            permission: AclPermissionType::Deny,
                            ..
                        }
                    )
                })
                .count()
        };
        assert_eq!(count(0.0), 0);
        let twenty = count(20.0);
        // About a sixth of the ACLs are DENYs at 20% (1 deny per 5 allows).
        assert!((14_000..19_000).contains(&twenty), "{twenty}");
        assert_eq!(twenty, count(20.0));
    }

    #[test]
    fn summary_counts_only_complete_resources() {
        assert_eq!(Summary::of_first(0, 0.0).resources, 0);
        // Resource 0 is 10 ACLs + 10 prefix hosts.
        assert_eq!(Summary::of_first(19, 0.0).resources, 0);
        assert_eq!(Summary::of_first(20, 0.0).resources, 1);
        let big = Summary::of_first(2_000_000, 0.0);
        assert!((197_000..199_000).contains(&big.resources), "{big:?}");
        assert_eq!(big.auditors, big.resources / RESOURCES_PER_AUDITOR);
    }
}
