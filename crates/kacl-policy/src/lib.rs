//! ACLs as code for Kafka clusters (kacl or Kafka): a desired-state file (YAML or JSON,
//! one schema) that owns a scope of principals and resource patterns; the plan that turns
//! a cluster's ACLs into the file's within that scope, never touching anything outside;
//! and answers to "why": the decision for a request with the rule that decided (computed
//! by kacl-acl's `Authorizer`, the code the server runs), who can do something, and what a
//! principal can do.
//!
//! Everything but [`cluster`] is pure: it reads files and computes typed results from ACLs
//! given to it, so other tools can embed it. [`cluster`] is where those ACLs are read from a
//! cluster (with `kacl-client`) and where a plan is applied, with its guards (drift, batch
//! limit, the check afterwards), once for every front end: the `kacl acls plan/apply/import/
//! explain/who-can/effective` commands and the web console call it.
#![forbid(unsafe_code)]

mod candidates;
pub mod cluster;
mod explain;
pub use candidates::{Candidates, Listing};
mod file;
mod limits;
pub use limits::{max_acls, BYTES_PER_ACL, DEFAULT_MAX_FILE_BYTES, MAX_ACLS, MAX_DEPTH};
mod located;
pub use located::{Check, Checked};
mod plan;
mod query;
mod scope;
mod values;

pub use explain::{
    decision_reason, effective, explain, explain_candidates, grant_args, who_can, Candidate,
    Effective, Grantee, NearMiss, Query, Report, WhoCan,
};
pub use file::{
    supported_operations, Consumer, Document, FileError, Format, Operation, Pattern, Principal,
    PrincipalBlock, Producer, Rule, VERSION,
};
pub use plan::{fingerprint, thousands, Plan, PLAN_VERSION};
pub use scope::{Scope, ScopeResource};
