//! The in-process store engines (redb, and the in-memory one of tests and fuzzing) differ only
//! in how they open a consistent read and commit a write; everything a [`MetadataStore`] does
//! on top of that (which `ops` function, which part of the change feed, which changes) is
//! written once here, so the two engines cannot drift apart and a new record kind is added in
//! one place.

use std::sync::Arc;

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};

use crate::error::StoreError;
use crate::feed::{bootstrap_changes, Change, ChangeSink, LocalFeed, Part, StoreContents};
use crate::ids;
use crate::kv::{KvGet, KvScan, KvWrite};
use crate::ops;
use crate::quotas::{QuotaEntry, QuotaOp};
use crate::records::{
    AclChunkSink, AclCommit, PartitionRecord, StoredScramCredential, TopicRecord,
};
use crate::store::{AclSnapshots, MetadataStore};

/// What an in-process engine supplies: a consistent read, an atomic write, and the feed that
/// hands each commit to the server's memory.
pub(crate) trait LocalEngine: Send + Sync {
    /// A consistent read view (one read transaction).
    type Read<'t>: KvGet + KvScan
    where
        Self: 't;
    /// One write transaction: committed whole when the operation succeeds, else nothing.
    type Write<'t>: KvWrite
    where
        Self: 't;

    /// The cluster id the store was created with.
    fn engine_cluster_id(&self) -> String;

    /// Runs `operation` on one consistent view.
    fn read_view<R>(
        &self,
        operation: impl FnOnce(&Self::Read<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError>;

    /// Runs `operation` in one write transaction, durably committed if it succeeds.
    fn write_txn<R>(
        &self,
        operation: impl FnOnce(&mut Self::Write<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError>;

    /// The feed every commit is delivered through.
    fn local_feed(&self) -> &LocalFeed;

    /// The engine's ACL snapshots, where it keeps them.
    fn engine_acl_snapshots(&self) -> Option<&dyn AclSnapshots> {
        None
    }
}

/// Commits `operation` and delivers its `changes` through the engine's feed (a feed that
/// lost its place re-reads everything from one view).
fn commit<E: LocalEngine, R>(
    engine: &E,
    part: Part,
    operation: impl FnOnce(&mut E::Write<'_>) -> Result<R, StoreError>,
    changes: impl FnOnce(&R) -> Vec<Change>,
) -> Result<R, StoreError> {
    engine.local_feed().commit(
        part,
        || engine.write_txn(operation),
        changes,
        || {
            engine.read_view(|t| {
                Ok(StoreContents {
                    acls: ops::load_acls(t)?,
                    topics: ops::load_topics(t)?,
                    scram: ops::list_scram(t)?,
                    quotas: ops::load_quotas(t)?,
                })
            })
        },
    )
}

impl<E: LocalEngine> MetadataStore for E {
    fn cluster_id(&self) -> String {
        self.engine_cluster_id()
    }

    fn load_acls(&self) -> Result<Vec<AclBinding>, StoreError> {
        self.read_view(|t| ops::load_acls(t))
    }

    fn load_acls_chunked(
        &self,
        chunk_len: usize,
        sink: &mut AclChunkSink<'_>,
    ) -> Result<(), StoreError> {
        self.read_view(|t| ops::load_acls_chunked(t, chunk_len, sink))
    }

    fn commit_acl_changes(
        &self,
        adds: &[AclBinding],
        removes: &[AclBinding],
    ) -> Result<AclCommit, StoreError> {
        commit(
            self,
            Part::Acls,
            |t| ops::commit_acl_changes(t, adds, removes, &mut ids::random_kafka_uuid),
            Change::of_acl_commit,
        )
    }

    fn load_topics(&self) -> Result<Vec<TopicRecord>, StoreError> {
        self.read_view(|t| ops::load_topics(t))
    }

    fn create_topics(&self, topics: &[TopicRecord]) -> Result<Vec<TopicRecord>, StoreError> {
        commit(
            self,
            Part::Topics,
            |t| ops::create_topics(t, topics),
            |created| created.iter().cloned().map(Change::TopicPut).collect(),
        )
    }

    fn delete_topics(&self, names: &[String]) -> Result<Vec<String>, StoreError> {
        commit(
            self,
            Part::Topics,
            |t| ops::delete_topics(t, names),
            |deleted| deleted.iter().cloned().map(Change::TopicDeleted).collect(),
        )
    }

    fn add_partitions(
        &self,
        name: &str,
        new_partitions: &[PartitionRecord],
    ) -> Result<TopicRecord, StoreError> {
        commit(
            self,
            Part::Topics,
            |t| ops::add_partitions(t, name, new_partitions),
            |topic| vec![Change::TopicPut(topic.clone())],
        )
    }

    fn reassign_partitions(
        &self,
        name: &str,
        replicas: &[(i32, Vec<i32>)],
    ) -> Result<TopicRecord, StoreError> {
        commit(
            self,
            Part::Topics,
            |t| ops::reassign_partitions(t, name, replicas),
            |topic| vec![Change::TopicPut(topic.clone())],
        )
    }

    fn set_topic_configs(
        &self,
        name: &str,
        configs: &std::collections::BTreeMap<String, String>,
    ) -> Result<TopicRecord, StoreError> {
        commit(
            self,
            Part::Topics,
            |t| ops::set_topic_configs(t, name, configs),
            |topic| vec![Change::TopicPut(topic.clone())],
        )
    }

    fn upsert_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
        credential: &ScramCredential,
    ) -> Result<(), StoreError> {
        commit(
            self,
            Part::Scram,
            |t| ops::upsert_scram(t, user, mechanism, credential),
            |()| {
                vec![Change::ScramPut(
                    user.to_owned(),
                    mechanism,
                    credential.clone(),
                )]
            },
        )
    }

    fn delete_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<bool, StoreError> {
        commit(
            self,
            Part::Scram,
            |t| ops::delete_scram(t, user, mechanism),
            |&deleted| {
                (deleted.then(|| Change::ScramDeleted(user.to_owned(), mechanism)))
                    .into_iter()
                    .collect()
            },
        )
    }

    fn scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<Option<ScramCredential>, StoreError> {
        self.read_view(|t| ops::get_scram(t, user, mechanism))
    }

    fn list_scram_credentials(&self) -> Result<Vec<StoredScramCredential>, StoreError> {
        self.read_view(|t| ops::list_scram(t))
    }

    fn load_client_quotas(&self) -> Result<Vec<QuotaEntry>, StoreError> {
        self.read_view(|t| ops::load_quotas(t))
    }

    fn alter_client_quotas(&self, changes: &[QuotaOp]) -> Result<(), StoreError> {
        commit(
            self,
            Part::Quotas,
            |t| ops::alter_quotas(t, changes),
            |()| Change::of_quota_ops(changes),
        )
    }

    fn scram_bootstrapped(&self) -> Result<bool, StoreError> {
        self.read_view(|t| ops::scram_bootstrapped(t))
    }

    fn scram_stand_in_secret(&self) -> Result<Option<[u8; 32]>, StoreError> {
        self.read_view(|t| ops::stand_in_secret(t))
    }

    fn bootstrap_scram_credentials(
        &self,
        credentials: &[StoredScramCredential],
    ) -> Result<bool, StoreError> {
        commit(
            self,
            Part::Scram,
            |t| ops::bootstrap_scram(t, credentials),
            |&stored| bootstrap_changes(stored, credentials),
        )
    }

    /// Delivers every later commit to `sink`, synchronously, inside the commit.
    fn start_feed(&self, sink: Arc<dyn ChangeSink>) -> Result<(), StoreError> {
        self.local_feed().attach(sink);
        Ok(())
    }

    fn acl_snapshots(&self) -> Option<&dyn AclSnapshots> {
        self.engine_acl_snapshots()
    }
}
