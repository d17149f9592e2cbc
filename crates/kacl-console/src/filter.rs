//! The ACL search form: its fields into a KIP-140 filter (checked as `kafka-acls.sh` checks
//! its flags), the orders a result is shown in, and the links that page and sort it.

use std::time::Duration;

use kacl_acl::{
    AccessControlEntryFilter, AclBindingFilter, AclOperation, AclPermissionType, PatternType,
    ResourcePatternFilter, ResourceType,
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
