//! The candidate ACLs of one explain, collected as they are read: every one goes into the
//! index the [`Authorizer`](kacl_acl::Authorizer) decides over, borrowed ([`AclRef`], no owned
//! binding per ACL), and only those the report can show become owned bindings. On a cluster
//! where a LITERAL `*` carries tens of thousands of ACLs of other principals, those are
//! indexed and counted, never built or described: that was most of explain's time.
//!
//! The index holds every candidate, not just the principal's: whether any ACL applies to the
//! resource decides `allow.everyone.if.no.acl.found`, and a DENY of `User:*` concerns everyone.

use kacl_acl::{AclBinding, AclIndex, AclIndexBuilder, AclRef, PatternType, WILDCARD_PRINCIPAL};

use crate::query::{same_first_dn_component, Query};

/// Which candidates become owned bindings in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// Only those of the asking principal or `User:*`, and those whose principal nearly is
    /// it (case, a DN component): what a person reads; the others are counted.
    Relevant,
    /// Every candidate (e.g. for a JSON answer that lists them all).
    All,
}

/// The candidates of one explain, as they are pushed (see the module documentation).
#[derive(Debug)]
pub struct Candidates {
    query: Query,
    listing: Listing,
    index: AclIndexBuilder,
    listed: Vec<AclBinding>,
    unlisted: usize,
}

impl Candidates {
    /// An empty set for `query`.
    pub fn new(query: &Query, listing: Listing) -> Self {
        Candidates {
            query: query.clone(),
            listing,
            index: AclIndexBuilder::new(),
            listed: Vec::new(),
            unlisted: 0,
        }
    }

    /// Adds one ACL a MATCH describe of the resource returned; one that does not apply to the
    /// resource is ignored.
    pub fn push(&mut self, acl: AclRef<'_>) {
        if !applies(&acl, &self.query) {
            return;
        }
        // A value no authorizer holds (UNKNOWN) cannot decide; it is still listed.
        let _ = self.index.push(acl);
        if self.listing == Listing::All || relevant(acl.principal, &self.query.principal) {
            self.listed.push(AclBinding::new(
                kacl_acl::ResourcePattern::new(acl.resource_type, acl.name, acl.pattern_type),
                kacl_acl::AccessControlEntry::new(
                    acl.principal,
                    acl.host,
                    acl.operation,
                    acl.permission_type,
                ),
            ));
        } else {
            self.unlisted += 1;
        }
    }

    /// The index of every candidate, the listed bindings, and how many were only counted.
    pub(crate) fn finish(self) -> (AclIndex, Vec<AclBinding>, usize) {
        (self.index.finish(), self.listed, self.unlisted)
    }
}

/// Does `acl`'s pattern apply to the resource (as a MATCH filter selects)?
fn applies(acl: &AclRef<'_>, q: &Query) -> bool {
    acl.resource_type == q.resource_type
        && match acl.pattern_type {
            PatternType::Literal => acl.name == q.name || acl.name == kacl_acl::WILDCARD_RESOURCE,
            PatternType::Prefixed => q.name.starts_with(acl.name),
            _ => false,
        }
}

/// The principal is the asker's, `User:*`, or one a near miss could name (it differs only in
/// case, or shares the type and first DN component).
fn relevant(principal: &str, asker: &str) -> bool {
    principal == asker
        || principal == WILDCARD_PRINCIPAL
        || principal.eq_ignore_ascii_case(asker)
        || (asker.contains('=') && same_first_dn_component(principal, asker))
}
