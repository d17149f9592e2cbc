//! What the policy answers read from a cluster (kacl or Kafka) through `kacl-client`, and
//! the apply of a plan: written once here so that the CLI (`kacl acls plan/apply/import/
//! explain/who-can/effective`) and the web console fetch, check and send exactly alike.
//!
//! The rest of this crate stays pure (files, scopes, plans, explanations over ACLs given to
//! it); this module is the one place it talks to a cluster.

mod apply;

pub use apply::{apply, drifted, Applied, ApplyError, Progress, Quiet, MAX_BATCH};

use kacl_acl::{
    AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation, AclPermissionType,
    AuthorizerConfig, PatternType, ResourcePatternFilter, ResourceType,
};
use kacl_client::{
    Admin, AdminError, ConfigResource, DescribeAclsOptions, DescribeClusterOptions,
    DescribeConfigsOptions,
};

use crate::{Candidates, Document, Listing, Plan, Query, Scope};

/// The cluster's ACLs that `scope` owns, and how many others it holds, from one describe of
/// every ACL. The answer stays grouped by resource as decoded (shared strings) and only the
/// in-scope ACLs become owned bindings, so a plan of a small scope on a cluster of millions
/// never holds millions of bindings: the scope's resources are asked once per resource, its
/// principals once per entry.
pub async fn acls_in_scope(
    admin: &Admin,
    scope: &Scope,
) -> Result<(Vec<AclBinding>, usize), AdminError> {
    let groups = admin
        .describe_acls_grouped(AclBindingFilter::ANY, DescribeAclsOptions::default())
        .await?;
    let mut in_scope = Vec::new();
    let mut outside = 0;
    for group in &groups.groups {
        if !scope.owns_pattern(&group.pattern) {
            outside += group.entries.len();
            continue;
        }
        for entry in &group.entries {
            if scope.owns_principal(&entry.principal) {
                in_scope.push(AclBinding::new(group.pattern.clone(), entry.to_entry()));
            } else {
                outside += 1;
            }
        }
    }
    Ok((in_scope, outside))
}

/// The plan of `doc` against the cluster as it is now.
pub async fn plan(admin: &Admin, doc: &Document) -> Result<Plan, AdminError> {
    let (in_scope, outside) = acls_in_scope(admin, &doc.scope).await?;
    Ok(Plan::from_in_scope(doc, in_scope, outside))
}

/// Every ACL matching `filter`.
pub async fn acls(admin: &Admin, filter: AclBindingFilter) -> Result<Vec<AclBinding>, AdminError> {
    admin
        .describe_acls(filter, DescribeAclsOptions::default())
        .await
}

/// The ACLs that apply to a resource: Kafka's MATCH filter.
pub fn match_filter(resource_type: ResourceType, name: &str) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::new(resource_type, Some(name), PatternType::Match),
        AccessControlEntryFilter::ANY,
    )
}

/// The ACLs of one principal (of one resource type, or `Any`) with one pattern type (or
/// `Any`).
pub fn principal_filter(
    principal: &str,
    resource_type: ResourceType,
    pattern_type: PatternType,
) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::new(resource_type, None::<&str>, pattern_type),
        AccessControlEntryFilter::new(
            Some(principal),
            None::<&str>,
            AclOperation::Any,
            AclPermissionType::Any,
        ),
    )
}

const SUPER_USERS: &str = "super.users";
const ALLOW_EVERYONE: &str = "allow.everyone.if.no.acl.found";

/// The broker's own `super.users` and `allow.everyone.if.no.acl.found`, from DescribeConfigs
/// on the BROKER resource of the first broker DescribeCluster names. `None` (the caller then
/// falls back, and says so) when the broker does not serve DescribeConfigs, refuses it, or
/// does not report `super.users` (Kafka lists only the keys it knows; an unset
/// `allow.everyone.if.no.acl.found` is Kafka's default, false), or masks it: Kafka 4.4 and
/// kacl send both keys as sensitive, value null, so that describing broker configs does not
/// tell who the super users are.
pub async fn broker_authorizer_config(admin: &Admin) -> Option<AuthorizerConfig> {
    let cluster = admin
        .describe_cluster(DescribeClusterOptions::default())
        .await
        .ok()?;
    let broker = cluster.nodes.first()?.id;
    let options = DescribeConfigsOptions {
        configuration_keys: Some(vec![SUPER_USERS.into(), ALLOW_EVERYONE.into()]),
        ..DescribeConfigsOptions::default()
    };
    let entries = admin
        .describe_configs(vec![ConfigResource::broker(broker.to_string())], options)
        .await
        .into_iter()
        .next()?
        .ok()?;
    // A masked key comes back with no value: not a value of "", but none reported.
    let value = |key: &str| {
        entries
            .iter()
            .find(|e| e.name == key)
            .and_then(|e| e.value.clone())
    };
    let super_users = AuthorizerConfig::parse_super_users(&value(SUPER_USERS)?).ok()?;
    let allow_everyone_if_no_acl_found =
        value(ALLOW_EVERYONE).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    Some(AuthorizerConfig {
        super_users,
        allow_everyone_if_no_acl_found,
    })
}

/// What an explanation is computed from, as read from the cluster.
pub struct ExplainInputs {
    /// The broker's authorizer settings ([`broker_authorizer_config`]); `None`: the caller's
    /// fallback applies.
    pub broker_config: Option<AuthorizerConfig>,
    /// The ACLs that apply to the resource, read borrowed into the authorizer's index.
    pub candidates: Candidates,
    /// The principal's PREFIXED ACLs of the resource type: where near misses are found.
    pub related: Vec<AclBinding>,
}

/// Reads what [`crate::explain_candidates`] needs for `query`. The three reads are
/// independent: sent together, pipelined on the one connection, so the answer waits for the
/// slowest rather than for their sum. Near misses among the principal's other ACLs are
/// prefixes that almost match: only its PREFIXED ACLs of this type are read (a principal may
/// hold very many LITERALs). The candidates are read borrowed from the answer as decoded;
/// only those `listing` keeps become owned bindings.
pub async fn explain_inputs(
    admin: &Admin,
    query: &Query,
    listing: Listing,
) -> Result<ExplainInputs, AdminError> {
    let mut candidates = Candidates::new(query, listing);
    let (broker_config, read, related) = tokio::join!(
        broker_authorizer_config(admin),
        admin.describe_acls_visit(
            match_filter(query.resource_type, &query.name),
            DescribeAclsOptions::default(),
            |group| group.acl_refs().for_each(|acl| candidates.push(acl)),
        ),
        acls(
            admin,
            principal_filter(&query.principal, query.resource_type, PatternType::Prefixed),
        ),
    );
    read?;
    Ok(ExplainInputs {
        broker_config,
        candidates,
        related: related?,
    })
}

/// Reads what [`crate::who_can`] needs: the broker's authorizer settings (`None`: the
/// caller's fallback) and the ACLs that apply to the resource, sent together.
pub async fn who_can_inputs(
    admin: &Admin,
    resource_type: ResourceType,
    name: &str,
) -> Result<(Option<AuthorizerConfig>, Vec<AclBinding>), AdminError> {
    let (config, candidates) = tokio::join!(
        broker_authorizer_config(admin),
        acls(admin, match_filter(resource_type, name)),
    );
    Ok((config, candidates?))
}

/// Reads what [`crate::effective`] needs for `principal`: its ACLs and `User:*`'s (of one
/// resource type, or all), sent together.
pub async fn effective_inputs(
    admin: &Admin,
    principal: &str,
    resource_type: Option<ResourceType>,
) -> Result<Vec<AclBinding>, AdminError> {
    let t = resource_type.unwrap_or(ResourceType::Any);
    let own = acls(admin, principal_filter(principal, t, PatternType::Any));
    if principal == kacl_acl::WILDCARD_PRINCIPAL {
        return own.await;
    }
    let everyone = principal_filter(kacl_acl::WILDCARD_PRINCIPAL, t, PatternType::Any);
    let (own, everyone) = tokio::join!(own, acls(admin, everyone));
    let mut all = own?;
    all.extend(everyone?);
    Ok(all)
}
