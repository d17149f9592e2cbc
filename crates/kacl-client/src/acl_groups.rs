//! A DescribeAcls answer kept as the wire groups it: one resource pattern, then its entries.
//! A full describe of millions of ACLs as `Vec<AclBinding>` costs three owned strings per
//! binding (6M allocations at 2M ACLs, most of the client's time); here each resource name is
//! allocated once and every principal and host once per answer (shared `Arc<str>`), so the
//! answer costs about one allocation per resource. [`Admin::describe_acls`] keeps returning
//! plain bindings, simplest for small answers.
//!
//! [`Admin::describe_acls`]: crate::Admin::describe_acls

use std::collections::HashMap;
use std::sync::Arc;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsResource, DescribeAclsResponse,
};

/// One entry of a [`AclGroup`]: who may (or may not) do what from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedEntry {
    /// `Type:name`, shared with every other entry of the answer that names it.
    pub principal: Arc<str>,
    /// The host, shared likewise.
    pub host: Arc<str>,
    /// The operation.
    pub operation: AclOperation,
    /// ALLOW or DENY.
    pub permission_type: AclPermissionType,
}

impl SharedEntry {
    /// The entry as an owned [`AccessControlEntry`].
    pub fn to_entry(&self) -> AccessControlEntry {
        AccessControlEntry::new(
            self.principal.as_ref(),
            self.host.as_ref(),
            self.operation,
            self.permission_type,
        )
    }
}

/// One resource pattern and its entries, in the order the broker sent them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AclGroup {
    /// The pattern.
    pub pattern: ResourcePattern,
    /// Its entries.
    pub entries: Vec<SharedEntry>,
}

/// The bindings of a DescribeAcls answer, grouped by resource pattern
/// ([`Admin::describe_acls_grouped`](crate::Admin::describe_acls_grouped)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclGroups {
    /// The groups, in the order the broker sent them.
    pub groups: Vec<AclGroup>,
}

impl AclGroups {
    /// The groups of a decoded response. At v0 the pattern type is absent and decodes as
    /// LITERAL.
    pub fn from_response(response: &DescribeAclsResponse<'_>) -> AclGroups {
        let mut strings = Strings::default();
        let groups = response
            .resources
            .iter()
            .map(|resource| AclGroup {
                pattern: ResourcePattern::new(
                    ResourceType::from_code(resource.resource_type),
                    resource.resource_name.as_ref(),
                    PatternType::from_code(resource.pattern_type),
                ),
                entries: resource
                    .acls
                    .iter()
                    .map(|acl| SharedEntry {
                        principal: strings.get(&acl.principal),
                        host: strings.get(&acl.host),
                        operation: AclOperation::from_code(acl.operation),
                        permission_type: AclPermissionType::from_code(acl.permission_type),
                    })
                    .collect(),
            })
            .collect();
        AclGroups { groups }
    }

    /// How many bindings the answer holds.
    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.entries.len()).sum()
    }

    /// True when nothing matched.
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.entries.is_empty())
    }

    /// Every binding as (pattern, entry), borrowed, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&ResourcePattern, &SharedEntry)> {
        self.groups
            .iter()
            .flat_map(|g| g.entries.iter().map(move |e| (&g.pattern, e)))
    }

    /// The answer as owned bindings, what [`Admin::describe_acls`](crate::Admin::describe_acls)
    /// returns.
    pub fn into_bindings(self) -> Vec<AclBinding> {
        self.iter()
            .map(|(pattern, entry)| AclBinding::new(pattern.clone(), entry.to_entry()))
            .collect()
    }
}

/// Builds [`AclGroups`] one visited resource at a time, sharing strings across the answer.
#[derive(Default)]
pub(crate) struct AclGroupsBuilder {
    strings: Strings,
    groups: Vec<AclGroup>,
}

impl AclGroupsBuilder {
    pub(crate) fn push(&mut self, group: AclGroupRef<'_>) {
        let strings = &mut self.strings;
        self.groups.push(AclGroup {
            pattern: group.to_pattern(),
            entries: group
                .entries()
                .map(|e| SharedEntry {
                    principal: strings.get(e.principal),
                    host: strings.get(e.host),
                    operation: e.operation,
                    permission_type: e.permission_type,
                })
                .collect(),
        });
    }

    pub(crate) fn finish(self) -> AclGroups {
        AclGroups {
            groups: self.groups,
        }
    }
}

/// One resource of a DescribeAcls answer as decoded, borrowed from the response
/// ([`Admin::describe_acls_visit`](crate::Admin::describe_acls_visit)): nothing is allocated
/// to look at it, so a caller can count or skip ACLs of millions for free.
#[derive(Debug, Clone, Copy)]
pub struct AclGroupRef<'a> {
    /// The resource type.
    pub resource_type: ResourceType,
    /// The resource name.
    pub name: &'a str,
    /// The pattern type (LITERAL at v0).
    pub pattern_type: PatternType,
    acls: &'a [AclDescription<'a>],
}

/// One entry of an [`AclGroupRef`], borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef<'a> {
    /// The principal.
    pub principal: &'a str,
    /// The host.
    pub host: &'a str,
    /// The operation.
    pub operation: AclOperation,
    /// ALLOW or DENY.
    pub permission_type: AclPermissionType,
}

impl<'a> AclGroupRef<'a> {
    /// Every resource of a decoded response, in order.
    pub fn of(response: &'a DescribeAclsResponse<'a>) -> impl Iterator<Item = AclGroupRef<'a>> {
        response.resources.iter().map(AclGroupRef::of_resource)
    }

    /// One decoded resource.
    pub fn of_resource(r: &'a DescribeAclsResource<'a>) -> AclGroupRef<'a> {
        AclGroupRef {
            resource_type: ResourceType::from_code(r.resource_type),
            name: r.resource_name.as_ref(),
            pattern_type: PatternType::from_code(r.pattern_type),
            acls: &r.acls,
        }
    }

    /// How many entries the resource has.
    pub fn len(&self) -> usize {
        self.acls.len()
    }

    /// True when it has none.
    pub fn is_empty(&self) -> bool {
        self.acls.is_empty()
    }

    /// Its entries, in order.
    pub fn entries(&self) -> impl Iterator<Item = EntryRef<'a>> + 'a {
        self.acls.iter().map(|acl| EntryRef {
            principal: acl.principal.as_ref(),
            host: acl.host.as_ref(),
            operation: AclOperation::from_code(acl.operation),
            permission_type: AclPermissionType::from_code(acl.permission_type),
        })
    }

    /// The pattern, owned.
    pub fn to_pattern(&self) -> ResourcePattern {
        ResourcePattern::new(self.resource_type, self.name, self.pattern_type)
    }
}

impl EntryRef<'_> {
    /// The entry, owned.
    pub fn to_entry(&self) -> AccessControlEntry {
        AccessControlEntry::new(
            self.principal,
            self.host,
            self.operation,
            self.permission_type,
        )
    }
}

impl<'a> AclGroupRef<'a> {
    /// Its ACLs as kacl-acl's borrowed [`AclRef`](kacl_acl::AclRef)s, e.g. to push into an
    /// [`AclIndexBuilder`](kacl_acl::AclIndexBuilder) without an owned binding each.
    pub fn acl_refs(&self) -> impl Iterator<Item = kacl_acl::AclRef<'a>> + 'a {
        let (resource_type, name, pattern_type) =
            (self.resource_type, self.name, self.pattern_type);
        self.entries().map(move |e| kacl_acl::AclRef {
            resource_type,
            pattern_type,
            name,
            principal: e.principal,
            host: e.host,
            operation: e.operation,
            permission_type: e.permission_type,
        })
    }
}

/// The distinct principals and hosts of one answer (a handful, however many ACLs).
#[derive(Default)]
struct Strings {
    seen: HashMap<Box<str>, Arc<str>>,
}

impl Strings {
    fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(shared) = self.seen.get(text) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(text);
        self.seen.insert(Box::from(text), shared.clone());
        shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// The visiting call is a `Send` future (spawnable), whatever the visitor borrows.
    #[allow(dead_code)]
    fn visiting_is_send(admin: &crate::Admin) {
        fn send<T: Send>(_: T) {}
        let mut count = 0usize;
        send(admin.describe_acls_visit(
            kacl_acl::AclBindingFilter::ANY,
            crate::DescribeAclsOptions::default(),
            |g| count += g.len(),
        ));
    }

    #[test]
    fn groups_share_strings_and_flatten_to_the_same_bindings() {
        let acl = |principal: &'static str, op: AclOperation| AclDescription {
            principal: Cow::Borrowed(principal),
            host: Cow::Borrowed("*"),
            operation: op.code(),
            permission_type: AclPermissionType::Allow.code(),
            ..Default::default()
        };
        let response = DescribeAclsResponse {
            resources: vec![
                DescribeAclsResource {
                    resource_type: ResourceType::Topic.code(),
                    resource_name: Cow::Borrowed("orders"),
                    pattern_type: PatternType::Prefixed.code(),
                    acls: vec![
                        acl("User:a", AclOperation::Read),
                        acl("User:b", AclOperation::Write),
                    ]
                    .into(),
                    ..Default::default()
                },
                DescribeAclsResource {
                    resource_type: ResourceType::Group.code(),
                    resource_name: Cow::Borrowed("g"),
                    pattern_type: PatternType::Literal.code(),
                    acls: vec![acl("User:a", AclOperation::Read)].into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let refs: Vec<(String, usize)> = AclGroupRef::of(&response)
            .map(|g| {
                (
                    g.name.to_owned(),
                    g.entries().filter(|e| e.principal == "User:a").count(),
                )
            })
            .collect();
        assert_eq!(refs, [("orders".to_owned(), 1), ("g".to_owned(), 1)]);
        let groups = AclGroups::from_response(&response);
        assert_eq!(groups.len(), 3);
        assert!(Arc::ptr_eq(
            &groups.groups[0].entries[0].principal,
            &groups.groups[1].entries[0].principal
        ));
        assert_eq!(
            groups.into_bindings(),
            crate::acl_wire::bindings_from_describe(&response)
        );
    }
}
