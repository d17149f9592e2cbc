//! Applying a plan to a cluster, with the guards every caller needs: the scope is re-read
//! right before anything is sent and a plan made stale meanwhile is refused (nothing sent);
//! additions go first, then removals, in requests of at most [`MAX_BATCH`] entries; and
//! afterwards the scope is read once more, since Kafka has no compare-and-set for ACLs: a
//! change that slipped in while this one was sent shows as a scope that matches neither.

use kacl_acl::{AclBinding, AclBindingFilter};
use kacl_client::{Admin, AdminError, CreateAclsOptions, DeleteAclsOptions};

use super::acls_in_scope;
use crate::{fingerprint, Plan};

/// Kafka refuses CreateAcls/DeleteAcls requests of more entries than this.
pub const MAX_BATCH: usize = 10_000;

/// Why a plan was not applied at all.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The batch size is outside `1..=MAX_BATCH`.
    #[error("the batch size must be between 1 and {MAX_BATCH}")]
    BatchSize,
    /// The cluster's ACLs changed within the plan's scope since the plan was made: nothing
    /// was sent.
    #[error("the cluster's ACLs changed within the plan's scope since the plan was made")]
    Drifted,
    /// Reading the scope failed: nothing was sent.
    #[error(transparent)]
    Admin(#[from] AdminError),
}

/// What sending a plan did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// ACLs created.
    pub added: usize,
    /// ACLs deleted.
    pub removed: usize,
    /// One line per ACL that failed (`adding …: …`, `removing …: …`), and the read after the
    /// apply when it failed.
    pub errors: Vec<String>,
    /// Every request succeeded but the scope afterwards is not what the plan leads to:
    /// another change ran alongside this one (another apply?) and the cluster matches neither.
    pub raced: bool,
}

impl Applied {
    /// No failed ACL and no concurrent change.
    pub fn succeeded(&self) -> bool {
        self.errors.is_empty() && !self.raced
    }
}

/// Watches an apply's progress (a terminal's progress bar; nothing for a web page).
pub trait Progress {
    /// A phase begins: `label` (`Adding`, `Removing`) of `total` ACLs.
    fn start(&mut self, _label: &'static str, _total: usize) {}
    /// `n` more ACLs of the phase were answered.
    fn advance(&mut self, _n: usize) {}
    /// The phase ended.
    fn done(&mut self) {}
}

/// No progress shown.
pub struct Quiet;

impl Progress for Quiet {}

/// Whether the cluster's ACLs changed within `plan`'s scope since it was made.
pub async fn drifted(admin: &Admin, plan: &Plan) -> Result<bool, AdminError> {
    let (in_scope, _) = acls_in_scope(admin, &plan.scope).await?;
    Ok(plan.drifted_in_scope(in_scope.iter()))
}

/// Applies `plan` (see the module documentation), in requests of at most `batch` entries.
pub async fn apply(
    admin: &Admin,
    plan: &Plan,
    batch: usize,
    progress: &mut (dyn Progress + Send),
) -> Result<Applied, ApplyError> {
    if batch == 0 || batch > MAX_BATCH {
        return Err(ApplyError::BatchSize);
    }
    let (before, _) = acls_in_scope(admin, &plan.scope).await?;
    if plan.drifted_in_scope(before.iter()) {
        return Err(ApplyError::Drifted);
    }
    let expected = plan.fingerprint_after(before.iter());
    drop(before);
    let mut applied = send(admin, plan, batch, progress).await;
    match acls_in_scope(admin, &plan.scope).await {
        Ok((after, _)) => {
            applied.raced = applied.errors.is_empty() && fingerprint(after.iter()) != expected;
        }
        Err(err) => applied
            .errors
            .push(format!("reading the scope after the apply: {err}")),
    }
    Ok(applied)
}

/// Additions first, then removals, so that moving a grant (a new ALLOW replacing an old
/// one) never leaves a moment without it; each in requests of at most `batch` entries.
async fn send(
    admin: &Admin,
    plan: &Plan,
    batch: usize,
    progress: &mut (dyn Progress + Send),
) -> Applied {
    let mut applied = Applied::default();
    progress.start("Adding", plan.additions.len());
    for chunk in plan.additions.chunks(batch) {
        let results = admin
            .create_acls(chunk.to_vec(), CreateAclsOptions::default())
            .await;
        for (acl, result) in chunk.iter().zip(results) {
            match result {
                Ok(()) => applied.added += 1,
                Err(err) => applied.errors.push(format!("adding {acl}: {err}")),
            }
        }
        progress.advance(chunk.len());
    }
    progress.done();
    progress.start("Removing", plan.removals.len());
    for chunk in plan.removals.chunks(batch) {
        let filters: Vec<AclBindingFilter> = chunk.iter().map(AclBinding::to_filter).collect();
        let results = admin
            .delete_acls(filters, DeleteAclsOptions::default())
            .await;
        for (acl, result) in chunk.iter().zip(results) {
            match result {
                Ok(deleted) => {
                    for one in deleted {
                        match one {
                            Ok(_) => applied.removed += 1,
                            Err(err) => applied.errors.push(format!("removing {acl}: {err}")),
                        }
                    }
                }
                Err(err) => applied.errors.push(format!("removing {acl}: {err}")),
            }
        }
        progress.advance(chunk.len());
    }
    progress.done();
    applied
}
