//! The audit log: one line per authorization decision on an admin API and one per ACL added or
//! removed, on the `tracing` target [`TARGET`] (`kacl::authorizer`), as Kafka writes them to its
//! `kafka.authorizer.logger`.
//!
//! Levels follow Kafka's `StandardAuthorizer`: a DENIED decision at info, an ALLOWED one at
//! debug, so a production log (`RUST_LOG=info`) shows every refusal and every ACL change and
//! nothing per successful request. Route the target elsewhere with the usual filter, e.g.
//! `RUST_LOG=info,kacl::authorizer=debug` to see allowed decisions too.
//!
//! The decision line is Kafka's text, so tools that parse Kafka's authorizer log read it:
//! `Principal = User:bob is Denied operation = ALTER from host = 10.0.0.7 on resource =
//! Cluster:LITERAL:kafka-cluster for request = CreateAcls with resourceRefCount = 1`.
//! As in Kafka, the line ends with the rule that decided (`based on rule DefaultDeny`,
//! `SuperUser`, `DefaultAllow` or `MatchingAcl(acl=StandardAcl(...))`, from
//! `kacl_acl::Authorizer`'s explanation of the same decision).
//!
//! Nothing secret is ever logged here: principals, hosts and resource names only.

use kacl_acl::{
    AclBinding, AclOperation, AuthorizationResult, DecidingRule, PatternType, ResourceType,
};
use kacl_logsafe::{safe, safe_bounded, MAX_CHARS};
use kacl_protocol::ApiKey;

/// The `tracing` target of every audit line.
pub const TARGET: &str = "kacl::authorizer";

/// Who asked, from where, through which API: the part of an audit line that is the same for
/// every decision of one request.
#[derive(Debug, Clone, Copy)]
pub struct Requester<'a> {
    /// `Type:name`.
    pub principal: &'a str,
    /// The client's address as the authorizer sees it.
    pub host: &'a str,
    /// The API of the request.
    pub api: ApiKey,
}

/// Which decisions to log, as Kafka's `Action.logIfAllowed` / `logIfDenied`: a filtering
/// check (which topics may this client see?) logs neither refusals nor, usually, grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditPolicy {
    /// Log an ALLOWED decision (at debug).
    pub log_if_allowed: bool,
    /// Log a DENIED decision (at info).
    pub log_if_denied: bool,
}

impl AuditPolicy {
    /// A check that decides whether the request is served: log both outcomes.
    pub const ENFORCED: AuditPolicy = AuditPolicy {
        log_if_allowed: true,
        log_if_denied: true,
    };
    /// A check that only filters what is shown, or that a second check may still grant
    /// (Kafka's `logIfDenied = false`: the all-topics Metadata list, CreateTopics' and
    /// DeleteTopics' cluster-wide checks): log grants only.
    pub const FILTERING: AuditPolicy = AuditPolicy {
        log_if_allowed: true,
        log_if_denied: false,
    };
    /// A check whose grant changes nothing worth a line (Kafka's `logIfAllowed = false`:
    /// CreateTopics' DESCRIBE_CONFIGS for showing configs): log denials only.
    pub const DENIALS_ONLY: AuditPolicy = AuditPolicy {
        log_if_allowed: false,
        log_if_denied: true,
    };
}

/// Logs one authorization decision on a LITERAL resource.
///
/// `rule` names what decided (Kafka's `based on rule ...`); it is asked only when the line is
/// actually written (the level enabled and the policy logging this result), so a decision
/// nobody logs costs nothing more than the decision.
pub fn decision(
    requester: Requester<'_>,
    operation: AclOperation,
    resource_type: ResourceType,
    resource_name: &str,
    result: AuthorizationResult,
    policy: AuditPolicy,
    rule: impl FnOnce() -> DecidingRule,
) {
    let line = |rule: DecidingRule| {
        decision_line(
            requester,
            operation,
            resource_type,
            resource_name,
            result,
            &rule,
        )
    };
    match result {
        AuthorizationResult::Allowed if policy.log_if_allowed => {
            tracing::debug!(target: TARGET, "{}", line(rule()));
        }
        AuthorizationResult::Denied if policy.log_if_denied => {
            tracing::info!(target: TARGET, "{}", line(rule()));
        }
        _ => {}
    }
}

/// Kafka's audit text for one decision (see the module documentation).
pub fn decision_line(
    requester: Requester<'_>,
    operation: AclOperation,
    resource_type: ResourceType,
    resource_name: &str,
    result: AuthorizationResult,
    rule: &DecidingRule,
) -> String {
    let verdict = match result {
        AuthorizationResult::Allowed => "Allowed",
        AuthorizationResult::Denied => "Denied",
    };
    format!(
        "Principal = {} is {verdict} operation = {operation} from host = {} on resource = \
         {}:{}:{} for request = {} with resourceRefCount = 1 based on rule {}",
        safe(requester.principal),
        safe(requester.host),
        resource_type.cli_name(),
        PatternType::Literal,
        safe(resource_name),
        requester.api,
        // The rule may name a stored ACL, whose names came from a client.
        safe(&rule.to_string()),
    )
}

/// Logs, at info, each ACL a request added.
pub fn acls_added<'b>(requester: Requester<'_>, added: impl IntoIterator<Item = &'b AclBinding>) {
    for binding in added {
        tracing::info!(target: TARGET, "{}", change_line(requester, "added", binding));
    }
}

/// Logs, at info, each ACL a request removed.
pub fn acls_removed<'b>(
    requester: Requester<'_>,
    removed: impl IntoIterator<Item = &'b AclBinding>,
) {
    for binding in removed {
        tracing::info!(target: TARGET, "{}", change_line(requester, "removed", binding));
    }
}

/// `Principal = User:admin from host = 127.0.0.1 added ACL (pattern=..., entry=...) for
/// request = CreateAcls`, the binding in Kafka's `AclBinding.toString()` form.
pub fn change_line(requester: Requester<'_>, verb: &str, binding: &AclBinding) -> String {
    // The binding holds a client's resource name, principal and host: escaped as a whole,
    // with room for three names at their bound.
    format!(
        "Principal = {} from host = {} {verb} ACL {} for request = {}",
        safe(requester.principal),
        safe(requester.host),
        safe_bounded(&binding.to_string(), 3 * MAX_CHARS),
        requester.api
    )
}

#[cfg(test)]
mod tests {
    use kacl_acl::{AccessControlEntry, AclPermissionType, ResourcePattern};

    use super::*;

    const BOB: Requester<'static> = Requester {
        principal: "User:bob",
        host: "10.0.0.7",
        api: ApiKey::CreateAcls,
    };

    #[test]
    fn decision_line_is_kafkas() {
        assert_eq!(
            decision_line(
                BOB,
                AclOperation::Alter,
                ResourceType::Cluster,
                "kafka-cluster",
                AuthorizationResult::Denied,
                &DecidingRule::DefaultDeny {
                    resource_has_acls: false
                }
            ),
            "Principal = User:bob is Denied operation = ALTER from host = 10.0.0.7 on resource = \
             Cluster:LITERAL:kafka-cluster for request = CreateAcls with resourceRefCount = 1 \
             based on rule DefaultDeny"
        );
        assert!(decision_line(
            BOB,
            AclOperation::Describe,
            ResourceType::TransactionalId,
            "tx",
            AuthorizationResult::Allowed,
            &DecidingRule::SuperUser
        )
        .contains("is Allowed operation = DESCRIBE from host = 10.0.0.7 on resource = TransactionalId:LITERAL:tx"));
    }

    #[test]
    fn client_strings_cannot_break_an_audit_line() {
        let hostile = Requester {
            principal: "User:x\nPrincipal = User:admin",
            host: "10.0.0.7",
            api: ApiKey::CreateAcls,
        };
        let line = decision_line(
            hostile,
            AclOperation::Alter,
            ResourceType::Topic,
            "t\u{1b}[2J",
            AuthorizationResult::Denied,
            &DecidingRule::DefaultDeny {
                resource_has_acls: false,
            },
        );
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        let binding = AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, "a\nb", PatternType::Literal),
            AccessControlEntry::new("User:a", "*", AclOperation::Read, AclPermissionType::Allow),
        );
        let line = change_line(hostile, "added", &binding);
        assert!(!line.contains('\n'), "{line}");
        assert!(line.contains(r"name=a\nb"), "{line}");
    }

    #[test]
    fn change_line_names_the_binding() {
        let binding = AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, "orders", PatternType::Prefixed),
            AccessControlEntry::new(
                "User:alice",
                "*",
                AclOperation::Read,
                AclPermissionType::Allow,
            ),
        );
        assert_eq!(
            change_line(BOB, "added", &binding),
            "Principal = User:bob from host = 10.0.0.7 added ACL (pattern=ResourcePattern(\
             resourceType=TOPIC, name=orders, patternType=PREFIXED), entry=(principal=User:alice, \
             host=*, operation=READ, permissionType=ALLOW)) for request = CreateAcls"
        );
    }
}
