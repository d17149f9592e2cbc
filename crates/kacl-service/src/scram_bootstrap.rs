//! Applies `kacl.scram.bootstrap.credentials` (parsed by
//! [`kacl_server_config::scram_bootstrap`], which documents the syntax) at start: the first SCRAM
//! credentials of a new cluster, so that a cluster whose listeners accept SCRAM only can be
//! started and administered at all.
//!
//! The entries are applied only while the store holds no SCRAM credential at all, like Kafka's
//! `--add-scram`, which applies only when the storage is formatted.

pub use kacl_server_config::scram_bootstrap::{BootstrapCredential, BootstrapError, BOOTSTRAP_KEY};

use crate::credentials::{CredentialChange, ScramCredentials};
use kacl_sasl::ScramCredential;

/// Creates the configured credentials if the store holds none; returns how many were created
/// (0 when credentials already exist). Blocking: reads files, runs PBKDF2, fsyncs.
pub fn apply(
    credentials: &ScramCredentials,
    entries: &[BootstrapCredential],
) -> Result<usize, BootstrapError> {
    if entries.is_empty() {
        return Ok(0);
    }
    if credentials.user_count() > 0 {
        tracing::info!(
            key = BOOTSTRAP_KEY,
            "SCRAM credentials already exist; the bootstrap credentials are not applied"
        );
        return Ok(0);
    }
    let mut changes = Vec::with_capacity(entries.len());
    for entry in entries {
        let password = entry.read_password()?;
        let credential = ScramCredential::generate(entry.mechanism, &password, entry.iterations)
            .map_err(|e| BootstrapError::Store {
                user: entry.user.clone(),
                reason: e.to_string(),
            })?;
        changes.push(CredentialChange::Upsert {
            user: entry.user.clone(),
            mechanism: entry.mechanism,
            credential,
        });
    }
    // Checked again under the writer lock: only an empty store is bootstrapped.
    let (outcomes, ()) = credentials.write(|view| {
        if view.is_empty() {
            (changes, ())
        } else {
            (Vec::new(), ())
        }
    });
    let mut created = 0;
    for (change, stored) in outcomes {
        stored.map_err(|e| BootstrapError::Store {
            user: change.user().to_owned(),
            reason: e.to_string(),
        })?;
        tracing::info!(user = change.user(), mechanism = %change.mechanism(),
            "created bootstrap SCRAM credential");
        created += 1;
    }
    Ok(created)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use kacl_server_config::scram_bootstrap::parse;
    use kacl_store::MemoryStore;

    use super::*;
    use kacl_sasl::ScramMechanism;

    #[test]
    fn applies_only_to_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "from-file\n").unwrap();
        let entries = parse(&format!(
            "SCRAM-SHA-256=[name=admin,password-file={}];SCRAM-SHA-512=[name=admin,password=inline]",
            file.display()
        ))
        .unwrap();
        let store: Arc<dyn kacl_store::MetadataStore> = Arc::new(MemoryStore::new());
        let creds = ScramCredentials::load(store.clone()).unwrap();
        assert_eq!(apply(&creds, &entries).unwrap(), 2);
        let stored = creds.get("admin", ScramMechanism::Sha256).unwrap();
        let expected =
            ScramCredential::from_password(ScramMechanism::Sha256, "from-file", &stored.salt, 4096)
                .unwrap();
        assert_eq!(
            stored, expected,
            "the trailing line break is not part of the password"
        );
        // A second start finds credentials and leaves them alone.
        let again = ScramCredentials::load(store).unwrap();
        assert_eq!(apply(&again, &entries).unwrap(), 0);
        assert_eq!(again.get("admin", ScramMechanism::Sha256), Some(stored));
    }

    #[test]
    fn a_missing_password_file_is_an_error_naming_it() {
        let entries = parse("SCRAM-SHA-256=[name=admin,password-file=/nonexistent/pw]").unwrap();
        let creds = ScramCredentials::load(Arc::new(MemoryStore::new())).unwrap();
        let err = apply(&creds, &entries).unwrap_err().to_string();
        assert!(
            err.contains("/nonexistent/pw") && err.contains("admin"),
            "{err}"
        );
    }
}
