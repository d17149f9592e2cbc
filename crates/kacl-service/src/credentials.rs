//! The SCRAM credentials in memory, and the one path by which they change.
//!
//! Authentication reads only memory (a SCRAM login must not wait for the disk, and a slow disk
//! must not become a way to slow logins down). Changes — AlterUserScramCredentials and the
//! start-up bootstrap — run under one writer lock: plan against the current credentials, then
//! commit each change to the store, whose feed applies to memory what it committed before the
//! commit returns (nothing is applied here), so memory never holds a credential the store lost.
//!
//! Only salted credentials (salt, iterations, StoredKey, ServerKey) are held, never passwords.

use std::collections::BTreeMap;
use std::sync::Arc;

use kacl_store::{MetadataStore, StoreError};
use parking_lot::{Mutex, RwLock};

use kacl_sasl::{ScramCredential, ScramMechanism};

/// One change to the stored credentials.
#[derive(Debug, Clone)]
pub enum CredentialChange {
    /// Remove a user's credential for one mechanism.
    Delete {
        /// The user name.
        user: String,
        /// The hash.
        mechanism: ScramMechanism,
    },
    /// Store (or replace) a user's credential for one mechanism.
    Upsert {
        /// The user name.
        user: String,
        /// The hash.
        mechanism: ScramMechanism,
        /// The salted credential.
        credential: ScramCredential,
    },
}

impl CredentialChange {
    /// The user the change is for.
    pub fn user(&self) -> &str {
        match self {
            CredentialChange::Delete { user, .. } | CredentialChange::Upsert { user, .. } => user,
        }
    }

    /// The mechanism the change is for.
    pub fn mechanism(&self) -> ScramMechanism {
        match self {
            CredentialChange::Delete { mechanism, .. }
            | CredentialChange::Upsert { mechanism, .. } => *mechanism,
        }
    }
}

/// A change and whether the store accepted it.
pub type ChangeOutcome = (CredentialChange, Result<(), StoreError>);

/// A user's credentials, one slot per mechanism (SHA-256, SHA-512).
type UserCredentials = [Option<ScramCredential>; 2];

fn slot(mechanism: ScramMechanism) -> usize {
    match mechanism {
        ScramMechanism::Sha256 => 0,
        ScramMechanism::Sha512 => 1,
    }
}

/// A read view of the credentials, given to the planner of a change while the writer lock is
/// held.
#[derive(Debug)]
pub struct CredentialView<'a> {
    by_user: &'a BTreeMap<String, UserCredentials>,
}

impl CredentialView<'_> {
    /// True if the user has a credential for this mechanism.
    pub fn contains(&self, user: &str, mechanism: ScramMechanism) -> bool {
        self.by_user
            .get(user)
            .is_some_and(|slots| slots[slot(mechanism)].is_some())
    }

    /// True if no credential at all is stored.
    pub fn is_empty(&self) -> bool {
        self.by_user.is_empty()
    }
}

/// Every SCRAM credential of the cluster, in memory, kept equal to the store.
pub struct ScramCredentials {
    store: Arc<dyn MetadataStore>,
    /// The store's stand-in secret (`MetadataStore::scram_stand_in_secret`).
    stand_in_secret: Option<[u8; 32]>,
    by_user: RwLock<BTreeMap<String, UserCredentials>>,
    writer: Mutex<()>,
}

impl std::fmt::Debug for ScramCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScramCredentials")
            .field("users", &self.by_user.read().len())
            .finish_non_exhaustive()
    }
}

impl ScramCredentials {
    /// Reads every stored credential (blocking: call at start, off the async threads).
    pub fn load(store: Arc<dyn MetadataStore>) -> Result<ScramCredentials, StoreError> {
        let mut by_user: BTreeMap<String, UserCredentials> = BTreeMap::new();
        for (user, mechanism, credential) in store.list_scram_credentials()? {
            by_user.entry(user).or_default()[slot(mechanism)] = Some(credential);
        }
        let stand_in_secret = store.scram_stand_in_secret()?;
        Ok(ScramCredentials {
            store,
            stand_in_secret,
            by_user: RwLock::new(by_user),
            writer: Mutex::new(()),
        })
    }

    /// A user's credential for one mechanism (what a SCRAM login checks against).
    pub fn get(&self, user: &str, mechanism: ScramMechanism) -> Option<ScramCredential> {
        self.by_user
            .read()
            .get(user)
            .and_then(|slots| slots[slot(mechanism)].clone())
    }

    /// The mechanisms and iteration counts a user has credentials for, SHA-256 first; empty
    /// for an unknown user. Never the salts or keys.
    pub fn describe(&self, user: &str) -> Vec<(ScramMechanism, u32)> {
        self.by_user
            .read()
            .get(user)
            .map(|slots| {
                ScramMechanism::ALL
                    .into_iter()
                    .filter_map(|m| slots[slot(m)].as_ref().map(|c| (m, c.iterations)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every user with at least one credential, by name.
    pub fn users(&self) -> Vec<String> {
        self.by_user.read().keys().cloned().collect()
    }

    /// The iteration count most stored credentials of `mechanism` have (Kafka's 4096 when
    /// there are none): what an unknown user's stand-in shows, so it looks like the others.
    pub fn typical_iterations(&self, mechanism: ScramMechanism) -> u32 {
        let by_user = self.by_user.read();
        kacl_sasl::scram::typical_iterations(
            by_user
                .values()
                .filter_map(|slots| slots[slot(mechanism)].as_ref().map(|c| c.iterations)),
        )
    }

    /// The secret unknown users' stand-in credentials are derived from: the store's, so they
    /// stay the same across restarts and nodes (`None`: the store keeps none).
    pub fn stand_in_secret(&self) -> Option<[u8; 32]> {
        self.stand_in_secret
    }

    /// Number of users with at least one credential.
    pub fn user_count(&self) -> usize {
        self.by_user.read().len()
    }

    /// Plans and commits a change with the writer lock held: `plan` sees the current
    /// credentials and returns the changes to make (plus anything the caller wants back); each
    /// change is then committed to the store (whose feed applies it to memory). The result of
    /// each change is returned in the order planned. Blocking (the store fsyncs).
    ///
    /// Deliberate difference from Kafka: each change is its own store transaction, so a store
    /// failure part-way leaves the earlier changes of the request in place (each user's result
    /// says which); Kafka commits a whole AlterUserScramCredentials request atomically.
    pub fn write<T>(
        &self,
        plan: impl FnOnce(&CredentialView<'_>) -> (Vec<CredentialChange>, T),
    ) -> (Vec<ChangeOutcome>, T) {
        let _serialized = self.writer.lock();
        let (changes, extra) = {
            let by_user = self.by_user.read();
            plan(&CredentialView { by_user: &by_user })
        };
        let mut outcomes = Vec::with_capacity(changes.len());
        for change in changes {
            let result = self.commit(&change);
            outcomes.push((change, result));
        }
        (outcomes, extra)
    }

    /// The store's one SCRAM bootstrap (see [`MetadataStore::bootstrap_scram_credentials`]),
    /// under the writer lock: the credentials reach memory (through the store's feed) only if
    /// the store stored them. True if they were stored. Blocking (the store fsyncs).
    pub fn bootstrap(
        &self,
        entries: Vec<(String, ScramMechanism, ScramCredential)>,
    ) -> Result<bool, StoreError> {
        let _serialized = self.writer.lock();
        self.store.bootstrap_scram_credentials(&entries)
    }

    /// True once the store's SCRAM bootstrap happened.
    pub fn bootstrapped(&self) -> Result<bool, StoreError> {
        self.store.scram_bootstrapped()
    }

    /// Applies credential changes delivered by the store's feed, in one step.
    pub fn apply_feed(&self, changes: &[kacl_store::Change]) {
        let mut by_user = self.by_user.write();
        for change in changes {
            match change {
                kacl_store::Change::ScramPut(user, mechanism, credential) => {
                    by_user.entry(user.clone()).or_default()[slot(*mechanism)] =
                        Some(credential.clone());
                }
                kacl_store::Change::ScramDeleted(user, mechanism) => {
                    if let Some(slots) = by_user.get_mut(user) {
                        slots[slot(*mechanism)] = None;
                        if slots.iter().all(Option::is_none) {
                            by_user.remove(user);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Replaces every credential (the feed re-listed the store).
    pub fn replace(&self, entries: Vec<(String, ScramMechanism, ScramCredential)>) {
        let mut fresh: BTreeMap<String, UserCredentials> = BTreeMap::new();
        for (user, mechanism, credential) in entries {
            fresh.entry(user).or_default()[slot(mechanism)] = Some(credential);
        }
        *self.by_user.write() = fresh;
    }

    /// Commits one change to the store (whose feed has applied it when it returns).
    fn commit(&self, change: &CredentialChange) -> Result<(), StoreError> {
        match change {
            CredentialChange::Delete { user, mechanism } => self
                .store
                .delete_scram_credential(user, *mechanism)
                .map(drop),
            CredentialChange::Upsert {
                user,
                mechanism,
                credential,
            } => self
                .store
                .upsert_scram_credential(user, *mechanism, credential),
        }
    }
}

#[cfg(test)]
mod tests {
    use kacl_store::MemoryStore;

    use super::*;

    fn credential(password: &str) -> ScramCredential {
        ScramCredential::from_password(ScramMechanism::Sha256, password, b"salt", 4096).unwrap()
    }

    #[test]
    fn changes_reach_memory_and_store() {
        let store: Arc<dyn MetadataStore> = Arc::new(MemoryStore::new());
        let creds = crate::feed_sink::fed_credentials(&store);
        let (outcomes, ()) = creds.write(|view| {
            assert!(view.is_empty());
            (
                vec![CredentialChange::Upsert {
                    user: "alice".into(),
                    mechanism: ScramMechanism::Sha256,
                    credential: credential("pw"),
                }],
                (),
            )
        });
        assert!(outcomes.iter().all(|(_, r)| r.is_ok()));
        assert_eq!(
            creds.get("alice", ScramMechanism::Sha256),
            Some(credential("pw"))
        );
        assert_eq!(creds.get("alice", ScramMechanism::Sha512), None);
        assert_eq!(
            creds.describe("alice"),
            vec![(ScramMechanism::Sha256, 4096)]
        );

        // A fresh load from the same store sees the same.
        let reloaded = ScramCredentials::load(store).unwrap();
        assert_eq!(reloaded.users(), vec!["alice".to_owned()]);

        creds.write(|view| {
            assert!(view.contains("alice", ScramMechanism::Sha256));
            (
                vec![CredentialChange::Delete {
                    user: "alice".into(),
                    mechanism: ScramMechanism::Sha256,
                }],
                (),
            )
        });
        assert_eq!(creds.user_count(), 0);
        assert!(creds.describe("alice").is_empty());
    }
}
