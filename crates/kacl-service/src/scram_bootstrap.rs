//! Applies `kacl.scram.bootstrap.credentials` (parsed by
//! [`kacl_server_config::scram_bootstrap`], which documents the syntax) at start: the first SCRAM
//! credentials of a new cluster, so that a cluster whose listeners accept SCRAM only can be
//! started and administered at all.
//!
//! The entries are applied once per store, like Kafka's `--add-scram`, which applies only when
//! the storage is formatted: the store records that its bootstrap happened, and from then on
//! credentials are managed with AlterUserScramCredentials (`kacl users`); a credential deleted
//! there does not come back at the next restart, even if it was the last one. (A store from
//! before that record existed counts as bootstrapped if it holds any SCRAM credential.)
//! Remove the key (and the password file) once the cluster is bootstrapped.

pub use kacl_server_config::scram_bootstrap::{BootstrapCredential, BootstrapError, BOOTSTRAP_KEY};

use kacl_sasl::{ScramCredential, ScramMechanism};

use crate::credentials::ScramCredentials;

/// Creates the configured credentials on the store's first bootstrap, and records it so that
/// it never happens again; returns how many were created (0 when the store was bootstrapped
/// before or already held credentials). Blocking: reads files, runs PBKDF2, fsyncs.
pub fn apply(
    credentials: &ScramCredentials,
    entries: &[BootstrapCredential],
) -> Result<usize, BootstrapError> {
    if entries.is_empty() {
        return Ok(0);
    }
    let store_error = |e: kacl_store::StoreError| BootstrapError::Store {
        user: entries[0].user.clone(),
        reason: e.to_string(),
    };
    if credentials.bootstrapped().map_err(store_error)? {
        tracing::info!(
            key = BOOTSTRAP_KEY,
            "this store's SCRAM bootstrap happened before; the bootstrap credentials are not \
             applied again (remove the key)"
        );
        return Ok(0);
    }
    // A store from before the bootstrap was recorded: credentials mean it was bootstrapped
    // (or administered) already, so only the record is written, and no password file read.
    let mut created = Vec::with_capacity(entries.len());
    if credentials.user_count() == 0 {
        for entry in entries {
            let password = entry.read_password()?;
            let credential =
                ScramCredential::generate(entry.mechanism, &password, entry.iterations).map_err(
                    |e| BootstrapError::Store {
                        user: entry.user.clone(),
                        reason: e.to_string(),
                    },
                )?;
            created.push((entry.user.clone(), entry.mechanism, credential));
        }
    }
    let names: Vec<(String, ScramMechanism)> =
        created.iter().map(|(u, m, _)| (u.clone(), *m)).collect();
    if !credentials.bootstrap(created).map_err(store_error)? {
        tracing::info!(
            key = BOOTSTRAP_KEY,
            "SCRAM credentials already exist; the bootstrap credentials are not applied"
        );
        return Ok(0);
    }
    for (user, mechanism) in &names {
        tracing::info!(user = %kacl_logsafe::safe(user), mechanism = %mechanism,
            "created bootstrap SCRAM credential");
    }
    Ok(names.len())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use kacl_server_config::scram_bootstrap::parse;
    use kacl_store::MemoryStore;

    use super::*;

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
        let creds = crate::feed_sink::fed_credentials(&store);
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
    fn a_deleted_last_credential_is_not_bootstrapped_again() {
        let entries = parse("SCRAM-SHA-512=[name=admin,password=pw]").unwrap();
        let store: Arc<dyn kacl_store::MetadataStore> = Arc::new(MemoryStore::new());
        let creds = crate::feed_sink::fed_credentials(&store);
        assert_eq!(apply(&creds, &entries).unwrap(), 1);
        let (outcomes, ()) = creds.write(|_| {
            (
                vec![crate::credentials::CredentialChange::Delete {
                    user: "admin".into(),
                    mechanism: ScramMechanism::Sha512,
                }],
                (),
            )
        });
        assert!(outcomes.iter().all(|(_, r)| r.is_ok()));
        let again = ScramCredentials::load(store).unwrap();
        assert_eq!(again.user_count(), 0);
        assert_eq!(apply(&again, &entries).unwrap(), 0);
        assert_eq!(again.user_count(), 0);
        // Not even the password file is read again: it may be gone.
        let gone = parse("SCRAM-SHA-512=[name=admin,password-file=/nonexistent/pw]").unwrap();
        assert_eq!(apply(&again, &gone).unwrap(), 0);
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
