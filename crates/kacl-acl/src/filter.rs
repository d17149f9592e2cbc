//! Filters over patterns, entries and bindings, with Kafka's exact matching rules
//! (`ResourcePatternFilter`, `AccessControlEntryFilter`, `AclBindingFilter`).
//!
//! A filter field of `None` (Kafka's `null`) or `ANY` matches everything; a concrete
//! value matches only an equal one. The one special case is `PatternType::Match`,
//! which asks "which ACLs would apply to a resource with this name".

use std::fmt;

use crate::enums::{AclOperation, AclPermissionType, PatternType, ResourceType};
use crate::types::{AccessControlEntry, AclBinding, ResourcePattern, WILDCARD_RESOURCE};

/// Selects resource patterns (Kafka's `ResourcePatternFilter`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourcePatternFilter {
    /// `Any`, or the one type to match.
    pub resource_type: ResourceType,
    /// `None` matches every name; `Some("*")` matches only the wildcard name (except
    /// under `Match`, where it selects the ACLs that apply to a resource named `*`).
    pub name: Option<String>,
    /// `Any`, `Match`, or the one pattern type to match.
    pub pattern_type: PatternType,
}

impl ResourcePatternFilter {
    /// Matches every pattern.
    pub const ANY: ResourcePatternFilter = ResourcePatternFilter {
        resource_type: ResourceType::Any,
        name: None,
        pattern_type: PatternType::Any,
    };

    /// A filter from its three parts.
    pub fn new(
        resource_type: ResourceType,
        name: Option<impl Into<String>>,
        pattern_type: PatternType,
    ) -> Self {
        ResourcePatternFilter {
            resource_type,
            name: name.map(Into::into),
            pattern_type,
        }
    }

    /// True if the type or the pattern type is `UNKNOWN` (such a filter matches nothing).
    pub fn is_unknown(&self) -> bool {
        self.resource_type.is_unknown() || self.pattern_type.is_unknown()
    }

    /// Kafka's `ResourcePatternFilter.matches`, step by step.
    pub fn matches(&self, pattern: &ResourcePattern) -> bool {
        self.matches_parts(pattern.resource_type, &pattern.name, pattern.pattern_type)
    }

    /// [`matches`](Self::matches) on borrowed parts, so the index can test its stored
    /// patterns without building a [`ResourcePattern`].
    pub fn matches_parts(
        &self,
        resource_type: ResourceType,
        name: &str,
        pattern_type: PatternType,
    ) -> bool {
        if self.resource_type != ResourceType::Any && self.resource_type != resource_type {
            return false;
        }
        if self.pattern_type != PatternType::Any
            && self.pattern_type != PatternType::Match
            && self.pattern_type != pattern_type
        {
            return false;
        }
        let Some(wanted) = self.name.as_deref() else {
            return true;
        };
        if self.pattern_type == PatternType::Any || self.pattern_type == pattern_type {
            return wanted == name;
        }
        // The filter is MATCH: would this pattern apply to a resource named `wanted`?
        match pattern_type {
            PatternType::Literal => wanted == name || name == WILDCARD_RESOURCE,
            PatternType::Prefixed => wanted.starts_with(name),
            // Kafka throws "Unsupported PatternType" here; such a pattern cannot be
            // stored, so it simply matches nothing.
            _ => false,
        }
    }

    /// True when the filter can match at most one pattern (no indefinite field).
    pub fn matches_at_most_one(&self) -> bool {
        self.find_indefinite_field().is_none()
    }

    /// Kafka's text for the first field that could match more than one pattern.
    /// Note that, as in Kafka, a pattern type of `ANY` is not reported.
    pub fn find_indefinite_field(&self) -> Option<&'static str> {
        match (self.resource_type, &self.name, self.pattern_type) {
            (ResourceType::Any, _, _) => Some("Resource type is ANY."),
            (ResourceType::Unknown, _, _) => Some("Resource type is UNKNOWN."),
            (_, None, _) => Some("Resource name is NULL."),
            (_, _, PatternType::Match) => Some("Resource pattern type is MATCH."),
            (_, _, PatternType::Unknown) => Some("Resource pattern type is UNKNOWN."),
            _ => None,
        }
    }
}

/// Kafka's `toString()`: `ResourcePattern(resourceType=TOPIC, name=<any>, patternType=ANY)`.
impl fmt::Display for ResourcePatternFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ResourcePattern(resourceType={}, name={}, patternType={})",
            self.resource_type,
            self.name.as_deref().unwrap_or("<any>"),
            self.pattern_type
        )
    }
}

/// Selects access control entries (Kafka's `AccessControlEntryFilter`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccessControlEntryFilter {
    /// `None` matches every principal; `Some` is compared as an exact string, so
    /// `Some("User:*")` matches only entries whose principal is literally `User:*`.
    pub principal: Option<String>,
    /// `None` matches every host; `Some` is an exact string.
    pub host: Option<String>,
    /// `Any`, or the one operation (`All` matches only entries whose operation is `All`).
    pub operation: AclOperation,
    /// `Any`, or the one permission type.
    pub permission_type: AclPermissionType,
}

impl AccessControlEntryFilter {
    /// Matches every entry.
    pub const ANY: AccessControlEntryFilter = AccessControlEntryFilter {
        principal: None,
        host: None,
        operation: AclOperation::Any,
        permission_type: AclPermissionType::Any,
    };

    /// A filter from its four parts.
    pub fn new(
        principal: Option<impl Into<String>>,
        host: Option<impl Into<String>>,
        operation: AclOperation,
        permission_type: AclPermissionType,
    ) -> Self {
        AccessControlEntryFilter {
            principal: principal.map(Into::into),
            host: host.map(Into::into),
            operation,
            permission_type,
        }
    }

    /// True if the operation or permission type is `UNKNOWN`.
    pub fn is_unknown(&self) -> bool {
        self.operation.is_unknown() || self.permission_type.is_unknown()
    }

    /// Kafka's `AccessControlEntryFilter.matches`.
    pub fn matches(&self, entry: &AccessControlEntry) -> bool {
        self.matches_parts(
            &entry.principal,
            &entry.host,
            entry.operation,
            entry.permission_type,
        )
    }

    /// [`matches`](Self::matches) on borrowed parts.
    pub fn matches_parts(
        &self,
        principal: &str,
        host: &str,
        operation: AclOperation,
        permission_type: AclPermissionType,
    ) -> bool {
        self.principal.as_deref().is_none_or(|p| p == principal)
            && self.host.as_deref().is_none_or(|h| h == host)
            && (self.operation == AclOperation::Any || self.operation == operation)
            && (self.permission_type == AclPermissionType::Any
                || self.permission_type == permission_type)
    }

    /// True when the filter can match at most one entry (no indefinite field).
    pub fn matches_at_most_one(&self) -> bool {
        self.find_indefinite_field().is_none()
    }

    /// Kafka's text for the first field that could match more than one entry.
    pub fn find_indefinite_field(&self) -> Option<&'static str> {
        if self.principal.is_none() {
            Some("Principal is NULL")
        } else if self.host.is_none() {
            Some("Host is NULL")
        } else if self.operation == AclOperation::Any {
            Some("Operation is ANY")
        } else if self.operation == AclOperation::Unknown {
            Some("Operation is UNKNOWN")
        } else if self.permission_type == AclPermissionType::Any {
            Some("Permission type is ANY")
        } else if self.permission_type == AclPermissionType::Unknown {
            Some("Permission type is UNKNOWN")
        } else {
            None
        }
    }
}

/// Kafka's `toString()`: `(principal=<any>, host=*, operation=READ, permissionType=ANY)`.
impl fmt::Display for AccessControlEntryFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(principal={}, host={}, operation={}, permissionType={})",
            self.principal.as_deref().unwrap_or("<any>"),
            self.host.as_deref().unwrap_or("<any>"),
            self.operation,
            self.permission_type
        )
    }
}

/// Selects ACL bindings: the pattern filter AND the entry filter (Kafka's `AclBindingFilter`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AclBindingFilter {
    /// Which resource patterns.
    pub pattern: ResourcePatternFilter,
    /// Which entries on them.
    pub entry: AccessControlEntryFilter,
}

impl AclBindingFilter {
    /// Matches every binding: what `kafka-acls.sh --list` sends with no resource.
    pub const ANY: AclBindingFilter = AclBindingFilter {
        pattern: ResourcePatternFilter::ANY,
        entry: AccessControlEntryFilter::ANY,
    };

    /// A filter from its two halves.
    pub fn new(pattern: ResourcePatternFilter, entry: AccessControlEntryFilter) -> Self {
        AclBindingFilter { pattern, entry }
    }

    /// True if any part is `UNKNOWN`; Kafka's DeleteAcls rejects such filters and its
    /// AdminClient refuses to send them.
    pub fn is_unknown(&self) -> bool {
        self.pattern.is_unknown() || self.entry.is_unknown()
    }

    /// The pattern filter matches the binding's pattern and the entry filter its entry.
    pub fn matches(&self, binding: &AclBinding) -> bool {
        self.pattern.matches(&binding.pattern) && self.entry.matches(&binding.entry)
    }

    /// True when the filter can match at most one binding.
    pub fn matches_at_most_one(&self) -> bool {
        self.pattern.matches_at_most_one() && self.entry.matches_at_most_one()
    }

    /// The pattern's indefinite field, else the entry's.
    pub fn find_indefinite_field(&self) -> Option<&'static str> {
        self.pattern
            .find_indefinite_field()
            .or_else(|| self.entry.find_indefinite_field())
    }
}

/// Kafka's `toString()`: `(patternFilter=ResourcePattern(...), entryFilter=(...))`.
impl fmt::Display for AclBindingFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(patternFilter={}, entryFilter={})",
            self.pattern, self.entry
        )
    }
}

impl ResourcePattern {
    /// The filter that matches exactly this pattern (Kafka's `toFilter`).
    pub fn to_filter(&self) -> ResourcePatternFilter {
        ResourcePatternFilter {
            resource_type: self.resource_type,
            name: Some(self.name.clone()),
            pattern_type: self.pattern_type,
        }
    }

    /// True if the type or pattern type is `UNKNOWN`.
    pub fn is_unknown(&self) -> bool {
        self.resource_type.is_unknown() || self.pattern_type.is_unknown()
    }
}

impl AccessControlEntry {
    /// The filter that matches exactly this entry (Kafka's `toFilter`).
    pub fn to_filter(&self) -> AccessControlEntryFilter {
        AccessControlEntryFilter {
            principal: Some(self.principal.clone()),
            host: Some(self.host.clone()),
            operation: self.operation,
            permission_type: self.permission_type,
        }
    }

    /// True if the operation or permission type is `UNKNOWN`.
    pub fn is_unknown(&self) -> bool {
        self.operation.is_unknown() || self.permission_type.is_unknown()
    }
}

impl AclBinding {
    /// The filter that matches exactly this binding (Kafka's `toFilter`).
    pub fn to_filter(&self) -> AclBindingFilter {
        AclBindingFilter {
            pattern: self.pattern.to_filter(),
            entry: self.entry.to_filter(),
        }
    }

    /// True if any enum field is `UNKNOWN`.
    pub fn is_unknown(&self) -> bool {
        self.pattern.is_unknown() || self.entry.is_unknown()
    }
}

#[cfg(test)]
mod tests {
    //! Cases from Kafka's ResourcePatternFilterTest and AclBindingTest.
    use super::*;
    use PatternType::{Literal, Match, Prefixed};
    use ResourceType::{Group, Topic};

    fn filter(rt: ResourceType, name: Option<&str>, pt: PatternType) -> ResourcePatternFilter {
        ResourcePatternFilter::new(rt, name, pt)
    }

    fn pattern(rt: ResourceType, name: &str, pt: PatternType) -> ResourcePattern {
        ResourcePattern::new(rt, name, pt)
    }

    #[test]
    fn unknown_type_or_pattern_type_makes_the_filter_unknown() {
        assert!(filter(ResourceType::Unknown, None, Literal).is_unknown());
        assert!(filter(Group, None, PatternType::Unknown).is_unknown());
        assert!(!ResourcePatternFilter::ANY.is_unknown());
    }

    #[test]
    fn pattern_filter_cases_from_kafka() {
        let cases: &[(ResourcePatternFilter, ResourcePattern, bool)] = &[
            (
                filter(Topic, Some("Name"), Literal),
                pattern(Group, "Name", Literal),
                false,
            ),
            (
                filter(Topic, Some("Different"), Prefixed),
                pattern(Topic, "Name", Prefixed),
                false,
            ),
            (
                filter(Topic, Some("NAME"), Literal),
                pattern(Topic, "Name", Literal),
                false,
            ),
            (
                filter(Topic, Some("Name"), Literal),
                pattern(Topic, "Name", Prefixed),
                false,
            ),
            (
                filter(ResourceType::Any, Some("Name"), Prefixed),
                pattern(Topic, "Name", Prefixed),
                true,
            ),
            (
                filter(Topic, None, Prefixed),
                pattern(Topic, "Name", Prefixed),
                true,
            ),
            (
                filter(Topic, None, PatternType::Any),
                pattern(Topic, "Name", Prefixed),
                true,
            ),
            (
                filter(Topic, None, Match),
                pattern(Topic, "Name", Prefixed),
                true,
            ),
            (
                filter(Topic, Some("Name"), Literal),
                pattern(Topic, "Name", Literal),
                true,
            ),
            (
                filter(Topic, Some("Name"), PatternType::Any),
                pattern(Topic, "Name", Literal),
                true,
            ),
            (
                filter(Topic, Some("Name"), Match),
                pattern(Topic, "Name", Literal),
                true,
            ),
            (
                filter(Topic, Some("Name-something"), Match),
                pattern(Topic, "Name", Literal),
                false,
            ),
            (
                filter(Topic, Some("*"), Literal),
                pattern(Topic, "*", Literal),
                true,
            ),
            (
                filter(Topic, Some("Name"), Literal),
                pattern(Topic, "*", Literal),
                false,
            ),
            (
                filter(Topic, Some("*"), Literal),
                pattern(Topic, "Name", Literal),
                false,
            ),
            (
                filter(Topic, Some("Name"), PatternType::Any),
                pattern(Topic, "*", Literal),
                false,
            ),
            (
                filter(Topic, Some("Name"), Match),
                pattern(Topic, "*", Literal),
                true,
            ),
            (
                filter(Topic, Some("Name"), Prefixed),
                pattern(Topic, "Name", Prefixed),
                true,
            ),
            (
                filter(Topic, Some("Name"), Prefixed),
                pattern(Topic, "Name-something", Prefixed),
                false,
            ),
            (
                filter(Topic, Some("Name-something"), Prefixed),
                pattern(Topic, "Name", Prefixed),
                false,
            ),
            (
                filter(Topic, Some("Name-something"), PatternType::Any),
                pattern(Topic, "Name", Prefixed),
                false,
            ),
            (
                filter(Topic, Some("Name-something"), Match),
                pattern(Topic, "Name", Prefixed),
                true,
            ),
            // ANY "foo" finds LITERAL and PREFIXED foo, never a shorter prefix.
            (
                filter(Topic, Some("foo"), PatternType::Any),
                pattern(Topic, "foo", Prefixed),
                true,
            ),
            (
                filter(Topic, Some("foo"), PatternType::Any),
                pattern(Topic, "fo", Prefixed),
                false,
            ),
        ];
        for (i, (f, p, expected)) in cases.iter().enumerate() {
            assert_eq!(f.matches(p), *expected, "case {i}: {f} vs {p}");
        }
    }

    fn acl(
        name: &str,
        principal: &str,
        host: &str,
        op: AclOperation,
        perm: AclPermissionType,
    ) -> AclBinding {
        AclBinding::new(
            pattern(Topic, name, Literal),
            AccessControlEntry::new(principal, host, op, perm),
        )
    }

    #[test]
    fn binding_filter_cases_from_kafka() {
        use AclOperation::{All, Read};
        use AclPermissionType::{Allow, Deny};
        let acl1 = acl("mytopic", "User:ANONYMOUS", "", All, Allow);
        let acl2 = acl("mytopic", "User:*", "", Read, Allow);
        let acl3 = acl("mytopic2", "User:ANONYMOUS", "127.0.0.1", Read, Deny);
        let unknown = acl(
            "mytopic2",
            "User:ANONYMOUS",
            "127.0.0.1",
            AclOperation::Unknown,
            Deny,
        );
        let any_anonymous = AclBindingFilter::new(
            ResourcePatternFilter::ANY,
            AccessControlEntryFilter::new(
                Some("User:ANONYMOUS"),
                None::<&str>,
                AclOperation::Any,
                AclPermissionType::Any,
            ),
        );
        let any_deny = AclBindingFilter::new(
            ResourcePatternFilter::ANY,
            AccessControlEntryFilter::new(None::<&str>, None::<&str>, AclOperation::Any, Deny),
        );
        let any_mytopic = AclBindingFilter::new(
            filter(Topic, Some("mytopic"), Literal),
            AccessControlEntryFilter::ANY,
        );
        for b in [&acl1, &acl2, &acl3] {
            assert!(AclBindingFilter::ANY.matches(b));
        }
        assert!(any_anonymous.matches(&acl1));
        assert!(
            !any_anonymous.matches(&acl2),
            "User:* is an exact string in filters"
        );
        assert!(any_anonymous.matches(&acl3));
        assert!(!any_deny.matches(&acl1));
        assert!(!any_deny.matches(&acl2));
        assert!(any_deny.matches(&acl3));
        assert!(any_mytopic.matches(&acl1));
        assert!(any_mytopic.matches(&acl2));
        assert!(!any_mytopic.matches(&acl3));
        assert!(any_anonymous.matches(&unknown));
        assert!(any_deny.matches(&unknown));
        assert!(!any_mytopic.matches(&unknown));

        assert!(!acl1.is_unknown() && !acl3.is_unknown());
        assert!(unknown.is_unknown());
        assert!(!any_anonymous.is_unknown() && !any_deny.is_unknown());

        for b in [&acl1, &acl2, &acl3] {
            assert_eq!(b.to_filter().find_indefinite_field(), None);
            assert!(b.to_filter().matches_at_most_one());
            assert!(b.to_filter().matches(b));
        }
        assert!(!any_anonymous.matches_at_most_one());
        assert!(!any_deny.matches_at_most_one());
        assert!(!any_mytopic.matches_at_most_one());
    }

    #[test]
    fn filter_all_matches_only_all_and_any_matches_everything() {
        let read = acl(
            "t",
            "User:a",
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        );
        let all = acl(
            "t",
            "User:a",
            "*",
            AclOperation::All,
            AclPermissionType::Allow,
        );
        let f = |op| {
            AccessControlEntryFilter::new(None::<&str>, None::<&str>, op, AclPermissionType::Any)
        };
        assert!(!f(AclOperation::All).matches(&read.entry));
        assert!(f(AclOperation::All).matches(&all.entry));
        assert!(f(AclOperation::Any).matches(&read.entry));
        assert!(!f(AclOperation::Unknown).matches(&read.entry));
    }

    #[test]
    fn indefinite_fields_in_kafka_order_and_wording() {
        let f = AclBindingFilter::ANY;
        assert_eq!(f.find_indefinite_field(), Some("Resource type is ANY."));
        let mut f = acl(
            "t",
            "User:a",
            "*",
            AclOperation::Read,
            AclPermissionType::Allow,
        )
        .to_filter();
        f.pattern.resource_type = ResourceType::Unknown;
        assert_eq!(f.find_indefinite_field(), Some("Resource type is UNKNOWN."));
        f.pattern.resource_type = Topic;
        f.pattern.pattern_type = PatternType::Any;
        assert_eq!(
            f.find_indefinite_field(),
            None,
            "Kafka does not report pattern type ANY"
        );
        f.pattern.pattern_type = Match;
        assert_eq!(
            f.find_indefinite_field(),
            Some("Resource pattern type is MATCH.")
        );
        f.pattern.pattern_type = PatternType::Unknown;
        assert_eq!(
            f.find_indefinite_field(),
            Some("Resource pattern type is UNKNOWN.")
        );
        f.pattern.pattern_type = Literal;
        f.pattern.name = None;
        assert_eq!(f.find_indefinite_field(), Some("Resource name is NULL."));
        f.pattern.name = Some("t".into());
        f.entry.principal = None;
        assert_eq!(f.find_indefinite_field(), Some("Principal is NULL"));
        f.entry.principal = Some("User:a".into());
        f.entry.host = None;
        assert_eq!(f.find_indefinite_field(), Some("Host is NULL"));
        f.entry.host = Some("*".into());
        f.entry.operation = AclOperation::Any;
        assert_eq!(f.find_indefinite_field(), Some("Operation is ANY"));
        f.entry.operation = AclOperation::Unknown;
        assert_eq!(f.find_indefinite_field(), Some("Operation is UNKNOWN"));
        f.entry.operation = AclOperation::Read;
        f.entry.permission_type = AclPermissionType::Any;
        assert_eq!(f.find_indefinite_field(), Some("Permission type is ANY"));
        f.entry.permission_type = AclPermissionType::Unknown;
        assert_eq!(
            f.find_indefinite_field(),
            Some("Permission type is UNKNOWN")
        );
        assert!(f.is_unknown());
    }

    #[test]
    fn display_in_kafka_format() {
        let f = AclBindingFilter::new(
            filter(Topic, None, PatternType::Any),
            AccessControlEntryFilter::new(
                None::<&str>,
                Some("*"),
                AclOperation::Read,
                AclPermissionType::Any,
            ),
        );
        assert_eq!(
            f.to_string(),
            "(patternFilter=ResourcePattern(resourceType=TOPIC, name=<any>, patternType=ANY), \
             entryFilter=(principal=<any>, host=*, operation=READ, permissionType=ANY))"
        );
    }
}
