//! "Why": the decision for one request and the rule behind it, computed by kacl-acl's
//! [`Authorizer`] (the code the server runs) over the ACLs that apply to the resource;
//! then every candidate ACL with why it did or did not apply, near misses, and the
//! command that would grant the access.

use crate::candidates::{Candidates, Listing};
use crate::query::same_first_dn_component;
pub use crate::query::Query;
use kacl_acl::{
    allow_grants, canonical_host, deny_refuses, host_in_range, host_matches, AclBinding, AclIndex,
    AclOperation, AclPermissionType, AclRef, AuthorizationResult, Authorizer, AuthorizerConfig,
    DecidingRule, Explanation, PatternType, ResourceType, SharedAclIndex, CLUSTER_NAME,
    WILDCARD_HOST, WILDCARD_PRINCIPAL, WILDCARD_RESOURCE,
};
use serde::Serialize;

/// One ACL that applies to the resource, and whether it concerns the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The ACL.
    pub acl: AclBinding,
    /// Why it does not concern the request (principal, host, operation), empty if it does.
    pub mismatches: Vec<String>,
    /// It concerns the request through an implied operation.
    pub implied: bool,
}

/// An ACL that nearly concerns the request, and how it misses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMiss {
    /// The ACL.
    pub acl: AclBinding,
    /// How it misses.
    pub reason: String,
}

/// The answer to "why".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The request.
    pub query: Query,
    /// The decision and its rule, from [`Authorizer::explain`].
    pub explanation: Explanation,
    /// The ACLs that apply to the resource (LITERAL name, LITERAL `*`, PREFIXED prefixes).
    /// Those listed: every one ([`explain`], [`Listing::All`]), or only the asking
    /// principal's, `User:*`'s and near namesakes' ([`Listing::Relevant`]).
    pub candidates: Vec<Candidate>,
    /// Candidates of other principals counted, not listed ([`Listing::Relevant`]).
    pub unlisted: usize,
    /// ACLs that almost concern the request.
    pub near_misses: Vec<NearMiss>,
    /// The `kacl acls --add ...` arguments that would grant the access (when denied and
    /// no DENY decided: an ALLOW cannot lift a DENY).
    pub grant: Option<String>,
}

/// Explains `query` from `candidates` (the ACLs a MATCH describe of the resource returns)
/// and `related` (other ACLs of the principal, for near misses; may be empty). Every
/// candidate is listed; [`explain_candidates`] is the same answer from ACLs read borrowed,
/// listing only those a person reads.
pub fn explain(
    config: &AuthorizerConfig,
    candidates: &[AclBinding],
    related: &[AclBinding],
    query: &Query,
) -> Report {
    let mut set = Candidates::new(query, Listing::All);
    for b in candidates {
        set.push(AclRef {
            resource_type: b.pattern.resource_type,
            pattern_type: b.pattern.pattern_type,
            name: &b.pattern.name,
            principal: &b.entry.principal,
            host: &b.entry.host,
            operation: b.entry.operation,
            permission_type: b.entry.permission_type,
        });
    }
    explain_candidates(config, set, related, query)
}

/// Explains `query` from the candidates collected (see [`Candidates`]) and `related` (other
/// ACLs of the principal, for near misses; may be empty). The decision is the
/// [`Authorizer`]'s over every candidate, listed or only counted.
pub fn explain_candidates(
    config: &AuthorizerConfig,
    candidates: Candidates,
    related: &[AclBinding],
    query: &Query,
) -> Report {
    // ACL hosts are compared with the client address in Java's canonical text, as
    // Kafka and kacl's server compare them (`fd00::1` is `fd00:0:0:0:0:0:0:1`).
    let canonical = Query {
        host: canonical_host(&query.host),
        ..query.clone()
    };
    let query = &canonical;
    let (index, listed, unlisted) = candidates.finish();
    let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
    let explanation = authorizer.explain(
        &query.principal,
        &query.host,
        query.operation,
        query.resource_type,
        &query.name,
    );
    let mut listed: Vec<Candidate> = listed
        .into_iter()
        .map(|acl| candidate(acl, query))
        .collect();
    listed.sort_by(|a, b| a.acl.cmp(&b.acl));
    listed.dedup_by(|a, b| a.acl == b.acl);
    let mut near_misses: Vec<NearMiss> = listed
        .iter()
        .filter_map(|c| near_miss_candidate(c, query))
        .collect();
    for acl in related {
        if applies_to_resource(acl, query) || acl.pattern.resource_type != query.resource_type {
            continue;
        }
        if let Some(reason) = near_name(&acl.pattern.name, acl.pattern.pattern_type, &query.name) {
            near_misses.push(NearMiss {
                acl: acl.clone(),
                reason,
            });
        }
    }
    let grant = match (&explanation.result, &explanation.rule) {
        (AuthorizationResult::Denied, DecidingRule::MatchingAcl { .. }) => None,
        (AuthorizationResult::Denied, _) => Some(grant_args(query)),
        _ => None,
    };
    Report {
        query: query.clone(),
        explanation,
        candidates: listed,
        unlisted,
        near_misses,
        grant,
    }
}

/// Why `rule` decided, in one sentence (no final period), for `principal` asking `asked`: what
/// the CLI and the console print after "Why:".
pub fn decision_reason(rule: &DecidingRule, principal: &str, asked: AclOperation) -> String {
    match rule {
        DecidingRule::SuperUser => format!("{principal} is listed in super.users"),
        DecidingRule::MatchingAcl { acl, implied } => match acl.entry.permission_type {
            AclPermissionType::Deny => format!(
                "a matching DENY of {} decides (a DENY wins over every ALLOW)",
                acl.entry.operation
            ),
            _ if *implied => format!(
                "a matching ALLOW of {} grants {asked} by implication",
                acl.entry.operation
            ),
            _ => format!("a matching ALLOW of {} grants it", acl.entry.operation),
        },
        DecidingRule::DefaultAllow => {
            "no ACL applies to the resource and allow.everyone.if.no.acl.found is true".into()
        }
        DecidingRule::DefaultDeny {
            resource_has_acls: true,
        } => {
            "ACLs apply to the resource, but none matches this principal, host and operation".into()
        }
        DecidingRule::DefaultDeny { .. } => {
            "no ACL applies to the resource and allow.everyone.if.no.acl.found is false".into()
        }
    }
}

/// Does `acl`'s pattern apply to the resource (as a MATCH filter selects)?
fn applies_to_resource(acl: &AclBinding, q: &Query) -> bool {
    let p = &acl.pattern;
    p.resource_type == q.resource_type
        && match p.pattern_type {
            PatternType::Literal => p.name == q.name || p.name == WILDCARD_RESOURCE,
            PatternType::Prefixed => q.name.starts_with(&p.name),
            _ => false,
        }
}

/// Why an ACL's host does not concern the client at `client`.
fn host_mismatch(acl_host: &str, client: &str) -> String {
    if acl_host.contains('/') {
        format!("host range {acl_host} does not hold {client}")
    } else {
        format!("host {acl_host} is not {client}")
    }
}

fn candidate(acl: AclBinding, q: &Query) -> Candidate {
    let e = &acl.entry;
    let mut mismatches = Vec::new();
    if e.principal != q.principal && e.principal != WILDCARD_PRINCIPAL {
        mismatches.push(format!("principal {} is not {}", e.principal, q.principal));
    }
    if !host_matches(&e.host, &q.host) {
        mismatches.push(host_mismatch(&e.host, &q.host));
    }
    let mut implied = false;
    match e.permission_type {
        AclPermissionType::Deny if !deny_refuses(e.operation, q.operation) => {
            mismatches.push(format!(
                "a DENY of {} does not refuse {} (a DENY is never implied)",
                e.operation, q.operation
            ));
        }
        AclPermissionType::Allow => match allow_grants(e.operation, q.operation) {
            Some(i) => implied = i,
            None => mismatches.push(format!(
                "an ALLOW of {} does not grant {}",
                e.operation, q.operation
            )),
        },
        _ => {}
    }
    Candidate {
        acl,
        mismatches,
        implied,
    }
}

fn near_miss_candidate(c: &Candidate, q: &Query) -> Option<NearMiss> {
    let e = &c.acl.entry;
    // Only an ALLOW could have granted the access: a DENY that misses is no near miss.
    if c.mismatches.is_empty() || e.permission_type != AclPermissionType::Allow {
        return None;
    }
    let same_principal = e.principal == q.principal || e.principal == WILDCARD_PRINCIPAL;
    let reason = if same_principal && c.mismatches.len() == 1 {
        if !host_matches(&e.host, &q.host) {
            format!("the same principal, but from host {} only", e.host)
        } else {
            format!("the same principal and host, but operation {}", e.operation)
        }
    } else if !same_principal && e.principal.eq_ignore_ascii_case(&q.principal) {
        format!(
            "principal {} differs from {} only in case",
            e.principal, q.principal
        )
    } else if !same_principal && same_first_dn_component(&e.principal, &q.principal) {
        format!(
            "principal {} differs from {} by a DN component",
            e.principal, q.principal
        )
    } else {
        return None;
    };
    Some(NearMiss {
        acl: c.acl.clone(),
        reason,
    })
}

/// A pattern name that nearly matches `name`: a prefix that diverges late, or a literal
/// that differs only in case.
fn near_name(pattern: &str, pattern_type: PatternType, name: &str) -> Option<String> {
    match pattern_type {
        PatternType::Literal if pattern.eq_ignore_ascii_case(name) => Some(format!(
            "LITERAL `{pattern}` differs from `{name}` only in case"
        )),
        PatternType::Prefixed => {
            let common = pattern
                .chars()
                .zip(name.chars())
                .take_while(|(a, b)| a == b)
                .count();
            let plen = pattern.chars().count();
            (common >= 3 && common * 2 >= plen).then(|| {
                format!(
                    "PREFIXED `{pattern}` is not a prefix of `{name}` (they share `{}`)",
                    { pattern.chars().take(common).collect::<String>() }
                )
            })
        }
        _ => None,
    }
}

/// The `kacl acls` arguments that would add the missing ALLOW.
pub fn grant_args(q: &Query) -> String {
    let resource = match q.resource_type {
        ResourceType::Topic => format!("--topic {}", shell(&q.name)),
        ResourceType::Group => format!("--group {}", shell(&q.name)),
        ResourceType::Cluster => "--cluster".to_owned(),
        ResourceType::TransactionalId => format!("--transactional-id {}", shell(&q.name)),
        ResourceType::DelegationToken => format!("--delegation-token {}", shell(&q.name)),
        _ => format!("--user-principal {}", shell(&q.name)),
    };
    let host = if q.host == WILDCARD_HOST {
        String::new()
    } else {
        format!(" --allow-host {}", shell(&q.host))
    };
    format!(
        "--add --allow-principal {}{host} --operation {} {resource}",
        shell(&q.principal),
        q.operation.cli_name()
    )
}

/// Quotes `s` for a POSIX shell when it needs it.
fn shell(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/=@,+".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Who may perform an operation on a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WhoCan {
    /// Principals and hosts allowed, with the ALLOW ACLs that grant it.
    pub allowed: Vec<Grantee>,
    /// Principals and hosts whose ALLOW a DENY overrides, with the DENYs.
    pub denied: Vec<Grantee>,
    /// DENY ACLs that carve exceptions (every DENY refusing the operation).
    #[serde(skip)]
    pub denies: Vec<AclBinding>,
    /// `super.users` (allowed everything).
    pub super_users: Vec<String>,
    /// When no ACL applies and `allow.everyone.if.no.acl.found` is set: everyone.
    pub everyone_by_default: bool,
}

/// A principal from a host and the ACLs behind its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grantee {
    /// `Type:name` (`User:*`: everyone).
    pub principal: String,
    /// A host, or `*`.
    pub host: String,
    /// The ACLs (ALLOWs for the allowed, DENYs for the denied), Kafka's text.
    pub acls: Vec<String>,
}

/// Who can perform `operation` on `(resource_type, name)`, from the ACLs that apply to it;
/// each (principal, host) of a granting ALLOW is decided by the [`Authorizer`].
pub fn who_can(
    config: &AuthorizerConfig,
    candidates: &[AclBinding],
    operation: AclOperation,
    resource_type: ResourceType,
    name: &str,
) -> WhoCan {
    let q = |principal: &str, host: &str| Query {
        principal: principal.to_owned(),
        host: host.to_owned(),
        operation,
        resource_type,
        name: name.to_owned(),
    };
    let applying: Vec<&AclBinding> = candidates
        .iter()
        .filter(|b| applies_to_resource(b, &q("", "")))
        .collect();
    let index = AclIndex::from_bindings(applying.iter().map(|b| (*b).clone()).collect())
        .unwrap_or_default();
    let authorizer = Authorizer::new(config.clone(), SharedAclIndex::from_index(index));
    let denies: Vec<AclBinding> = applying
        .iter()
        .filter(|b| {
            b.entry.permission_type == AclPermissionType::Deny
                && deny_refuses(b.entry.operation, operation)
        })
        .map(|b| (*b).clone())
        .collect();
    // Each (principal, host) of a granting ALLOW is decided once; the ACLs behind it are
    // looked up by the four keys that concern it, so this stays linear in the candidates.
    let mut by_key: std::collections::HashMap<(&str, &str), Vec<&AclBinding>> =
        std::collections::HashMap::new();
    for b in &applying {
        by_key
            .entry((b.entry.principal.as_str(), b.entry.host.as_str()))
            .or_default()
            .push(b);
    }
    let mut pairs: Vec<(&str, &str)> = applying
        .iter()
        .filter(|b| {
            b.entry.permission_type == AclPermissionType::Allow
                && allow_grants(b.entry.operation, operation).is_some()
        })
        .map(|b| (b.entry.principal.as_str(), b.entry.host.as_str()))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    // The CIDR hosts among the keys: a range holding a grantee's address concerns it too.
    let range_keys: Vec<(&str, &str)> = by_key
        .keys()
        .filter(|(_, h)| h.contains('/'))
        .copied()
        .collect();
    let session_free = authorizer.acls().read();
    let mut allowed = Vec::new();
    let mut denied = Vec::new();
    for (principal, host) in pairs {
        let result = authorizer
            .session_in(&session_free, principal, host)
            .authorize(operation, resource_type, name);
        let matching = |perm: AclPermissionType| -> Vec<String> {
            let principals = [principal, WILDCARD_PRINCIPAL];
            let mut out: Vec<String> = Vec::new();
            for p in principals {
                let ranges = range_keys
                    .iter()
                    .filter(|(rp, rh)| *rp == p && *rh != host && host_in_range(host, rh))
                    .map(|(_, rh)| *rh);
                for h in [host, WILDCARD_HOST].into_iter().chain(ranges) {
                    for b in by_key.get(&(p, h)).into_iter().flatten() {
                        let concerns = match perm {
                            AclPermissionType::Deny => deny_refuses(b.entry.operation, operation),
                            _ => allow_grants(b.entry.operation, operation).is_some(),
                        };
                        if b.entry.permission_type == perm && concerns {
                            out.push(b.to_string());
                        }
                    }
                }
            }
            out.sort();
            out.dedup();
            out
        };
        let grantee = |acls| Grantee {
            principal: principal.to_owned(),
            host: host.to_owned(),
            acls,
        };
        match result {
            AuthorizationResult::Allowed => {
                allowed.push(grantee(matching(AclPermissionType::Allow)))
            }
            AuthorizationResult::Denied => denied.push(grantee(matching(AclPermissionType::Deny))),
        }
    }
    drop(session_free);
    WhoCan {
        allowed,
        denied,
        denies,
        super_users: config.super_users.clone(),
        everyone_by_default: applying.is_empty() && config.allow_everyone_if_no_acl_found,
    }
}

/// What a principal may do on one resource pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Effective {
    /// Kafka's text of the pattern.
    pub pattern: String,
    /// Operations allowed here, each with how (`READ`, `DESCRIBE (implied by READ)`).
    pub allowed: Vec<String>,
    /// Operations refused here by a DENY.
    pub denied: Vec<String>,
}

/// What `principal` (directly or as `User:*`) may do, per resource pattern of its ACLs,
/// with implied operations; `host` narrows to ACLs that concern that host.
pub fn effective(
    acls: &[AclBinding],
    principal: &str,
    host: Option<&str>,
    resource_type: Option<ResourceType>,
) -> Vec<Effective> {
    use std::collections::BTreeMap;
    let mut by_pattern: BTreeMap<_, Vec<&AclBinding>> = BTreeMap::new();
    for b in acls {
        let mine = b.entry.principal == principal || b.entry.principal == WILDCARD_PRINCIPAL;
        let here = host.is_none_or(|h| host_matches(&b.entry.host, &canonical_host(h)));
        let kind = resource_type.is_none_or(|t| t == b.pattern.resource_type);
        if mine && here && kind {
            by_pattern.entry(b.pattern.clone()).or_default().push(b);
        }
    }
    let mut out = Vec::new();
    for (pattern, acls) in by_pattern {
        let mut ops: Vec<AclOperation> =
            crate::file::supported_operations(pattern.resource_type).to_vec();
        if pattern.resource_type == ResourceType::Cluster && pattern.name != CLUSTER_NAME {
            ops.clear();
        }
        let mut allowed = Vec::new();
        let mut denied = Vec::new();
        for op in ops {
            let deny = acls.iter().find(|b| {
                b.entry.permission_type == AclPermissionType::Deny
                    && deny_refuses(b.entry.operation, op)
            });
            if deny.is_some() {
                denied.push(op.kafka_name().to_owned());
                continue;
            }
            let grant = acls
                .iter()
                .filter(|b| b.entry.permission_type == AclPermissionType::Allow)
                .filter_map(|b| allow_grants(b.entry.operation, op).map(|i| (i, b)))
                .min_by_key(|(implied, _)| *implied);
            match grant {
                Some((false, _)) => allowed.push(op.kafka_name().to_owned()),
                Some((true, b)) => allowed.push(format!(
                    "{} (implied by {})",
                    op.kafka_name(),
                    b.entry.operation
                )),
                None => {}
            }
        }
        out.push(Effective {
            pattern: pattern.to_string(),
            allowed,
            denied,
        });
    }
    out
}
