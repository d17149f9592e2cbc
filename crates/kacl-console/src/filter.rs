//! The ACL search form: its fields into a KIP-140 filter (checked as `kafka-acls.sh` checks
//! its flags), and the cached result it pages and sorts without asking the cluster again.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use kacl_acl::{
    AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation, AclPermissionType,
    PatternType, ResourcePatternFilter, ResourceType,
};
use serde::Deserialize;

/// Rows per page.
pub(crate) const PAGE_SIZE: usize = 50;

/// How long a cached result is shown before the cluster is asked again.
pub(crate) const CACHE_FOR: Duration = Duration::from_secs(30);

/// The search form, as the query string carries it (empty = any).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub(crate) struct AclQuery {
    pub(crate) principal: String,
    pub(crate) resource_type: String,
    pub(crate) name: String,
    pub(crate) pattern_type: String,
    pub(crate) operation: String,
    pub(crate) permission: String,
    pub(crate) host: String,
    pub(crate) sort: String,
    pub(crate) page: usize,
    pub(crate) refresh: String,
}

fn some(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

fn parse_or<T: std::str::FromStr>(text: &str, any: T, what: &str) -> Result<T, String> {
    match text.trim() {
        "" => Ok(any),
        t => t.parse().map_err(|_| format!("unknown {what} `{t}`")),
    }
}

impl AclQuery {
    /// The filter the form describes: an empty field matches anything (ANY), as a flag
    /// left out of `kafka-acls.sh --list` does.
    pub(crate) fn filter(&self) -> Result<AclBindingFilter, String> {
        let resource_type = parse_or(&self.resource_type, ResourceType::Any, "resource type")?;
        let name = some(&self.name);
        let pattern_type = parse_or(&self.pattern_type, PatternType::Any, "pattern type")?;
        let operation = parse_or(&self.operation, AclOperation::Any, "operation")?;
        let permission = parse_or(&self.permission, AclPermissionType::Any, "permission")?;
        if resource_type.is_unknown()
            || pattern_type.is_unknown()
            || operation.is_unknown()
            || permission.is_unknown()
        {
            return Err("UNKNOWN cannot be searched for".into());
        }
        if pattern_type == PatternType::Match && name.is_none() {
            return Err("the MATCH pattern type needs a resource name".into());
        }
        if let Some(p) = some(&self.principal) {
            if !p.contains(':') {
                return Err(format!("a principal is Type:name (User:{p}), not `{p}`"));
            }
        }
        Ok(AclBindingFilter::new(
            ResourcePatternFilter::new(resource_type, name.as_deref(), pattern_type),
            AccessControlEntryFilter::new(
                some(&self.principal).as_deref(),
                some(&self.host).as_deref(),
                operation,
                permission,
            ),
        ))
    }

    /// The sort order asked for.
    pub(crate) fn sort(&self) -> Sort {
        Sort::parse(&self.sort)
    }

    /// The query string of this search, with another page or sort.
    pub(crate) fn link(&self, page: usize, sort: Sort) -> String {
        let mut pairs: Vec<(&str, String)> = vec![
            ("principal", self.principal.clone()),
            ("resource_type", self.resource_type.clone()),
            ("name", self.name.clone()),
            ("pattern_type", self.pattern_type.clone()),
            ("operation", self.operation.clone()),
            ("permission", self.permission.clone()),
            ("host", self.host.clone()),
        ];
        pairs.retain(|(_, v)| !v.trim().is_empty());
        if sort != Sort::Resource {
            pairs.push(("sort", sort.name().to_owned()));
        }
        if page > 0 {
            pairs.push(("page", page.to_string()));
        }
        encode_query(&pairs)
    }
}

/// `a=1&b=x%20y`.
pub(crate) fn encode_query(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-encodes everything but unreserved characters.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The result's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sort {
    /// By resource, grouped as `kafka-acls.sh --list` prints (the default).
    Resource,
    /// By principal.
    Principal,
    /// By operation.
    Operation,
    /// By permission (Kafka's code order: DENY before ALLOW).
    Permission,
    /// By host.
    Host,
}

impl Sort {
    pub(crate) const ALL: [Sort; 5] = [
        Sort::Resource,
        Sort::Principal,
        Sort::Operation,
        Sort::Permission,
        Sort::Host,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Sort::Resource => "resource",
            Sort::Principal => "principal",
            Sort::Operation => "operation",
            Sort::Permission => "permission",
            Sort::Host => "host",
        }
    }

    fn parse(text: &str) -> Sort {
        Sort::ALL
            .into_iter()
            .find(|s| s.name() == text)
            .unwrap_or(Sort::Resource)
    }

    fn order(self, acls: &mut [AclBinding]) {
        match self {
            Sort::Resource => acls.sort_unstable(),
            Sort::Principal => {
                acls.sort_unstable_by(|a, b| (&a.entry.principal, a).cmp(&(&b.entry.principal, b)))
            }
            Sort::Operation => {
                acls.sort_unstable_by(|a, b| (a.entry.operation, a).cmp(&(b.entry.operation, b)))
            }
            Sort::Permission => acls.sort_unstable_by(|a, b| {
                (a.entry.permission_type, a).cmp(&(b.entry.permission_type, b))
            }),
            Sort::Host => acls.sort_unstable_by(|a, b| (&a.entry.host, a).cmp(&(&b.entry.host, b))),
        }
    }
}

/// Totals of a result, computed once when it is fetched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) acls: usize,
    pub(crate) resources: usize,
    pub(crate) principals: usize,
    pub(crate) allow: usize,
    pub(crate) deny: usize,
}

/// One search's result, sorted, for one session.
pub(crate) struct AclCache {
    pub(crate) filter: AclBindingFilter,
    pub(crate) sort: Sort,
    pub(crate) acls: Vec<AclBinding>,
    pub(crate) counts: Counts,
    pub(crate) fetched: Instant,
    /// Its share of the sessions' cache budget.
    pub(crate) ticket: Option<crate::budget::CacheTicket>,
}

impl AclCache {
    /// A fresh result.
    pub(crate) fn new(filter: AclBindingFilter, sort: Sort, mut acls: Vec<AclBinding>) -> Self {
        sort.order(&mut acls);
        let mut resources = 0;
        let mut principals = BTreeSet::new();
        let (mut allow, mut deny) = (0, 0);
        let mut last = None;
        for b in &acls {
            // Counting distinct resources needs them adjacent: true in the resource order.
            if sort == Sort::Resource && last != Some(&b.pattern) {
                resources += 1;
                last = Some(&b.pattern);
            }
            principals.insert(b.entry.principal.as_str());
            match b.entry.permission_type {
                AclPermissionType::Allow => allow += 1,
                AclPermissionType::Deny => deny += 1,
                _ => {}
            }
        }
        if sort != Sort::Resource {
            resources = acls
                .iter()
                .map(|b| &b.pattern)
                .collect::<BTreeSet<_>>()
                .len();
        }
        let counts = Counts {
            acls: acls.len(),
            resources,
            principals: principals.len(),
            allow,
            deny,
        };
        AclCache {
            filter,
            sort,
            acls,
            counts,
            fetched: Instant::now(),
            ticket: None,
        }
    }

    /// Whether this cache answers `filter` in `sort` order without asking the cluster.
    pub(crate) fn answers(&self, filter: &AclBindingFilter) -> bool {
        &self.filter == filter && self.fetched.elapsed() < CACHE_FOR
    }

    /// Re-sorts in place when another order is asked for.
    pub(crate) fn resort(&mut self, sort: Sort) {
        if self.sort != sort {
            sort.order(&mut self.acls);
            self.sort = sort;
        }
    }

    /// The rows of page `page` (0-based; clamped to the last page).
    pub(crate) fn page(&self, page: usize) -> (usize, &[AclBinding]) {
        let pages = self.pages();
        let page = page.min(pages - 1);
        let start = page * PAGE_SIZE;
        let end = (start + PAGE_SIZE).min(self.acls.len());
        (page, &self.acls[start..end])
    }

    /// How many pages (at least one, empty).
    pub(crate) fn pages(&self) -> usize {
        self.acls.len().div_ceil(PAGE_SIZE).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_acl::{AccessControlEntry, ResourcePattern};

    fn acl(topic: &str, principal: &str, op: AclOperation) -> AclBinding {
        AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, topic, PatternType::Literal),
            AccessControlEntry::new(principal, "*", op, AclPermissionType::Allow),
        )
    }

    #[test]
    fn the_form_becomes_kafkas_filter() {
        let q = AclQuery {
            principal: " User:alice ".into(),
            resource_type: "topic".into(),
            name: "orders".into(),
            pattern_type: "match".into(),
            operation: "Read".into(),
            ..AclQuery::default()
        };
        let f = q.filter().unwrap();
        assert_eq!(f.entry.principal.as_deref(), Some("User:alice"));
        assert_eq!(f.pattern.pattern_type, PatternType::Match);
        assert_eq!(f.entry.operation, AclOperation::Read);
        assert_eq!(f.entry.permission_type, AclPermissionType::Any);
        assert_eq!(AclQuery::default().filter().unwrap(), AclBindingFilter::ANY);
        let bad = AclQuery {
            operation: "Fly".into(),
            ..AclQuery::default()
        };
        assert_eq!(bad.filter().unwrap_err(), "unknown operation `Fly`");
        let bad = AclQuery {
            pattern_type: "match".into(),
            ..AclQuery::default()
        };
        assert!(bad.filter().unwrap_err().contains("needs a resource name"));
        let bad = AclQuery {
            principal: "alice".into(),
            ..AclQuery::default()
        };
        assert!(bad.filter().unwrap_err().contains("User:alice"));
    }

    #[test]
    fn results_are_counted_sorted_and_paged() {
        let mut acls: Vec<AclBinding> = (0..120)
            .map(|i| {
                acl(
                    &format!("t{}", i % 7),
                    &format!("User:u{}", i % 3),
                    AclOperation::Read,
                )
            })
            .collect();
        acls.push(acl("t0", "User:a", AclOperation::Write));
        let cache = AclCache::new(AclBindingFilter::ANY, Sort::Resource, acls);
        assert_eq!(cache.counts.acls, 121);
        assert_eq!(cache.counts.resources, 7);
        assert_eq!(cache.counts.principals, 4);
        assert_eq!(cache.pages(), 3);
        let (page, rows) = cache.page(9);
        assert_eq!((page, rows.len()), (2, 21));
        assert!(cache.acls.windows(2).all(|w| w[0] <= w[1]));
        let mut cache = cache;
        cache.resort(Sort::Principal);
        assert_eq!(cache.acls[0].entry.principal, "User:a");
        assert_eq!(cache.counts.resources, 7);
    }

    #[test]
    fn links_keep_the_search_and_encode_it() {
        let q = AclQuery {
            principal: "User:a b&c".into(),
            ..AclQuery::default()
        };
        assert_eq!(
            q.link(2, Sort::Host),
            "principal=User%3Aa%20b%26c&sort=host&page=2"
        );
    }
}
