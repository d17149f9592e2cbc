//! A [`MetadataStore`] wrapper that times every write (commit latency per operation) and counts
//! storage failures, delegating everything to the store it wraps.

use std::sync::Arc;
use std::time::Instant;

use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};
use kacl_store::{
    AclCommit, MetadataStore, PartitionRecord, StoreError, StoredScramCredential, TopicRecord,
};

use super::{Metrics, StoreOperation};

/// Times the writes of an inner store into [`Metrics`].
pub struct MeteredStore {
    inner: Arc<dyn MetadataStore>,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for MeteredStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeteredStore").finish_non_exhaustive()
    }
}

impl MeteredStore {
    /// Wraps `inner`; its writes are recorded in `metrics`.
    pub fn wrap(inner: Arc<dyn MetadataStore>, metrics: Arc<Metrics>) -> Arc<dyn MetadataStore> {
        Arc::new(MeteredStore { inner, metrics })
    }

    fn timed<R>(
        &self,
        operation: StoreOperation,
        write: impl FnOnce(&dyn MetadataStore) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let started = Instant::now();
        let result = write(self.inner.as_ref());
        let failed = matches!(&result, Err(err) if err.is_storage_failure());
        self.metrics
            .store_commit(operation, started.elapsed(), failed);
        result
    }
}

impl MetadataStore for MeteredStore {
    fn cluster_id(&self) -> String {
        self.inner.cluster_id()
    }

    fn load_acls(&self) -> Result<Vec<AclBinding>, StoreError> {
        self.inner.load_acls()
    }

    fn load_acls_chunked(
        &self,
        chunk_len: usize,
        sink: &mut kacl_store::AclChunkSink<'_>,
    ) -> Result<(), StoreError> {
        self.inner.load_acls_chunked(chunk_len, sink)
    }

    fn commit_acl_changes(
        &self,
        adds: &[AclBinding],
        removes: &[AclBinding],
    ) -> Result<AclCommit, StoreError> {
        self.timed(StoreOperation::Acls, |s| {
            s.commit_acl_changes(adds, removes)
        })
    }

    fn load_topics(&self) -> Result<Vec<TopicRecord>, StoreError> {
        self.inner.load_topics()
    }

    fn create_topics(&self, topics: &[TopicRecord]) -> Result<Vec<TopicRecord>, StoreError> {
        self.timed(StoreOperation::Topics, |s| s.create_topics(topics))
    }

    fn delete_topics(&self, names: &[String]) -> Result<Vec<String>, StoreError> {
        self.timed(StoreOperation::Topics, |s| s.delete_topics(names))
    }

    fn add_partitions(
        &self,
        name: &str,
        new_partitions: &[PartitionRecord],
    ) -> Result<TopicRecord, StoreError> {
        self.timed(StoreOperation::Topics, |s| {
            s.add_partitions(name, new_partitions)
        })
    }

    fn reassign_partitions(
        &self,
        name: &str,
        replicas: &[(i32, Vec<i32>)],
    ) -> Result<TopicRecord, StoreError> {
        self.timed(StoreOperation::Topics, |s| {
            s.reassign_partitions(name, replicas)
        })
    }

    fn set_topic_configs(
        &self,
        name: &str,
        configs: &std::collections::BTreeMap<String, String>,
    ) -> Result<TopicRecord, StoreError> {
        self.timed(StoreOperation::Topics, |s| {
            s.set_topic_configs(name, configs)
        })
    }

    fn upsert_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
        credential: &ScramCredential,
    ) -> Result<(), StoreError> {
        self.timed(StoreOperation::Scram, |s| {
            s.upsert_scram_credential(user, mechanism, credential)
        })
    }

    fn delete_scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<bool, StoreError> {
        self.timed(StoreOperation::Scram, |s| {
            s.delete_scram_credential(user, mechanism)
        })
    }

    fn scram_credential(
        &self,
        user: &str,
        mechanism: ScramMechanism,
    ) -> Result<Option<ScramCredential>, StoreError> {
        self.inner.scram_credential(user, mechanism)
    }

    fn list_scram_credentials(&self) -> Result<Vec<StoredScramCredential>, StoreError> {
        self.inner.list_scram_credentials()
    }

    fn load_client_quotas(&self) -> Result<Vec<kacl_store::QuotaEntry>, StoreError> {
        self.inner.load_client_quotas()
    }

    fn alter_client_quotas(&self, changes: &[kacl_store::QuotaOp]) -> Result<(), StoreError> {
        self.timed(StoreOperation::Quotas, |s| s.alter_client_quotas(changes))
    }

    fn start_feed(&self, sink: Arc<dyn kacl_store::ChangeSink>) -> Result<(), StoreError> {
        self.inner.start_feed(sink)
    }

    fn max_acl_changes_per_commit(&self) -> usize {
        self.inner.max_acl_changes_per_commit()
    }

    fn acl_snapshots(&self) -> Option<&dyn kacl_store::AclSnapshots> {
        self.inner.acl_snapshots()
    }

    fn catch_up(&self) -> Result<(), StoreError> {
        self.inner.catch_up()
    }

    fn feed_stats(&self) -> Option<kacl_store::FeedStats> {
        self.inner.feed_stats()
    }

    fn cluster(&self) -> Option<Arc<dyn kacl_store::ClusterMembership>> {
        self.inner.cluster()
    }

    fn scram_bootstrapped(&self) -> Result<bool, StoreError> {
        self.inner.scram_bootstrapped()
    }

    fn scram_stand_in_secret(&self) -> Result<Option<[u8; 32]>, StoreError> {
        self.inner.scram_stand_in_secret()
    }

    fn bootstrap_scram_credentials(
        &self,
        credentials: &[StoredScramCredential],
    ) -> Result<bool, StoreError> {
        self.timed(StoreOperation::Scram, |s| {
            s.bootstrap_scram_credentials(credentials)
        })
    }
}
