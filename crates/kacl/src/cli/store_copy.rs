//! `kacl store copy --from <DIR|etcd> --to <DIR|etcd>`: moves a single node's store into etcd
//! (cluster mode) and back (a rollback), offline. It copies the ACLs, the topics with their
//! configs and ids, the SCRAM credentials and the SCRAM bootstrap record, and the target keeps
//! the source's cluster id, so clients see the same cluster.
//!
//! Operator-safe rules: a target of another cluster id is always refused; a target that
//! holds what the source does not (or holds it differently) is refused unless `--force`,
//! which then makes the target equal to the source; a target that already equals the source
//! is left alone ("nothing to copy"), so a second run changes nothing and an interrupted run
//! is simply run again. A data directory a server holds is refused (the store's lock); stop
//! the servers first, as the copy reads one consistent state.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};
use kacl_acl::AclBinding;
use kacl_sasl::scram::{ScramCredential, ScramMechanism};
use kacl_server::store_open::{self, StoreLocation};
use kacl_server_config::{MetadataStoreConfig, ServerConfig};
use kacl_store::{MetadataStore, StoreOptions, TopicRecord, DB_FILE_NAME};
use kacl_store_etcd::{EtcdClient, EtcdOptions};

/// Flags of `kacl store copy`.
#[derive(Debug, clap::Args)]
pub(crate) struct CopyArgs {
    /// Where to read: a data directory (`metadata.log.dir`), or `etcd`.
    #[arg(long, value_name = "DIR|etcd")]
    from: String,
    /// Where to write: a data directory, or `etcd`.
    #[arg(long, value_name = "DIR|etcd")]
    to: String,
    /// A server.properties whose `kacl.etcd.*` keys say how to reach etcd.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// `kacl.etcd.*` settings (e.g. `kacl.etcd.endpoints=http://10.0.0.1:2379`), applied on top
    /// of `--config`.
    #[arg(long = "override", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Make the target equal to the source even when it holds other ACLs, topics or
    /// credentials (they are deleted). Never overrides a different cluster id.
    #[arg(long)]
    force: bool,
}

/// ACLs per write into a data directory; into etcd, `kacl.acl.max.batch` (the transaction
/// size etcd was checked to take).
const ACL_CHUNK: usize = 10_000;
/// Topics per write.
const TOPIC_CHUNK: usize = 100;

enum Side {
    Dir(PathBuf),
    Etcd,
}

fn side(text: &str) -> Side {
    if text == "etcd" {
        Side::Etcd
    } else {
        Side::Dir(PathBuf::from(text))
    }
}

/// Everything the copy moves, read from one store.
struct Contents {
    acls: HashSet<AclBinding>,
    topics: BTreeMap<String, TopicRecord>,
    scram: BTreeMap<(String, ScramMechanism), ScramCredential>,
    /// Client quota values by (entity, key), as bits (compared exactly).
    quotas: BTreeMap<(kacl_store::QuotaEntity, String), u64>,
    bootstrapped: bool,
}

fn read(store: &dyn MetadataStore) -> anyhow::Result<Contents> {
    Ok(Contents {
        acls: store.load_acls()?.into_iter().collect(),
        topics: store
            .load_topics()?
            .into_iter()
            .map(|t| (t.name.clone(), t))
            .collect(),
        scram: store
            .list_scram_credentials()?
            .into_iter()
            .map(|(user, mechanism, credential)| ((user, mechanism), credential))
            .collect(),
        quotas: store
            .load_client_quotas()?
            .into_iter()
            .map(|(entity, key, value)| ((entity, key), value.to_bits()))
            .collect(),
        bootstrapped: store.scram_bootstrapped()?,
    })
}

/// Same topic, whatever creation number each store assigned.
fn same_topic(a: &TopicRecord, b: &TopicRecord) -> bool {
    a.topic_id == b.topic_id && a.partitions == b.partitions && a.configs == b.configs
}

/// Runs `kacl store copy`.
pub(crate) fn run(args: CopyArgs) -> anyhow::Result<ExitCode> {
    let (from, to) = (side(&args.from), side(&args.to));
    if matches!((&from, &to), (Side::Etcd, Side::Etcd)) {
        bail!("--from and --to are both etcd: one side must be a data directory");
    }
    let etcd = if matches!(from, Side::Etcd) || matches!(to, Side::Etcd) {
        Some(etcd_options(&args)?)
    } else {
        None
    };
    let describe = |s: &Side| match s {
        Side::Dir(dir) => dir.display().to_string(),
        Side::Etcd => {
            let options = etcd.as_ref().expect("etcd options");
            format!(
                "etcd {} prefix {}",
                EtcdClient::new(options.client.clone()).endpoints_text(),
                options.prefix
            )
        }
    };
    let (from_text, to_text) = (describe(&from), describe(&to));

    let source =
        open_source(&from, etcd.as_ref()).with_context(|| format!("source {from_text}"))?;
    let cluster_id = source.cluster_id();
    let wanted = read(source.as_ref()).with_context(|| format!("cannot read {from_text}"))?;
    drop(source);
    let target = open_target(&to, etcd.as_ref(), &cluster_id)
        .with_context(|| format!("target {to_text}"))?;
    let found = read(target.as_ref()).with_context(|| format!("cannot read {to_text}"))?;

    let plan = Plan::new(&wanted, &found);
    let mut out = std::io::stdout().lock();
    if plan.is_empty() {
        writeln!(
            out,
            "nothing to copy: {to_text} already holds the same {} ACLs, {} topics, {} SCRAM \
             credentials and {} client quotas of cluster {cluster_id}",
            wanted.acls.len(),
            wanted.topics.len(),
            wanted.scram.len(),
            wanted.quotas.len()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if plan.conflicts() > 0 && !args.force {
        bail!(
            "{to_text} holds data {from_text} does not: {} ACLs, {} topics, {} SCRAM \
             credentials and {} client quotas that are not in the source or differ from it. Nothing was copied. Copy \
             into an empty target, or run again with --force to make the target equal to the \
             source (deleting those)",
            plan.acl_removes.len(),
            plan.topic_removes.len(),
            plan.scram_removes.len() + plan.scram_changed,
            plan.quota_removes.len() + plan.quota_changed
        );
    }
    let chunk = match (&to, &etcd) {
        (Side::Etcd, Some(options)) => options.max_batch.max(1),
        _ => ACL_CHUNK,
    };
    plan.apply(target.as_ref(), &wanted, chunk, &mut out)?;
    writeln!(
        out,
        "copied cluster {cluster_id} from {from_text} to {to_text}: {} ACLs added, {} removed; \
         {} topics created, {} deleted; {} SCRAM credentials written, {} deleted; {} client \
         quotas set, {} removed",
        plan.acl_adds.len(),
        plan.acl_removes.len(),
        plan.topic_adds.len(),
        plan.topic_removes.len(),
        plan.scram_puts.len(),
        plan.scram_removes.len(),
        plan.quota_puts.len(),
        plan.quota_removes.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `kacl.etcd.*` from `--config` and `--override`, checked as the server checks them.
fn etcd_options(args: &CopyArgs) -> anyhow::Result<EtcdOptions> {
    let mut overrides = args.overrides.clone();
    overrides.push("kacl.metadata.store=etcd".to_owned());
    let config = ServerConfig::load(args.config.as_deref(), &overrides)?;
    let MetadataStoreConfig::Etcd(etcd) = &config.metadata_store else {
        bail!("kacl.metadata.store must be etcd");
    };
    Ok(store_open::etcd_options(etcd, config.acl_max_batch)?)
}

/// Where a side of the copy is, opened by the server's own factory (a directory with the
/// store's default options: the copy runs offline, without a node's `node.id`).
fn location(side: &Side, etcd: Option<&EtcdOptions>) -> StoreLocation {
    match side {
        Side::Dir(dir) => StoreLocation::Dir {
            dir: dir.clone(),
            options: StoreOptions::default(),
        },
        Side::Etcd => StoreLocation::Etcd(etcd.expect("etcd options").clone()),
    }
}

fn open_source(side: &Side, etcd: Option<&EtcdOptions>) -> anyhow::Result<Arc<dyn MetadataStore>> {
    match side {
        Side::Dir(dir) if !dir.join(DB_FILE_NAME).is_file() => {
            bail!("{} holds no kacl store (no kacl.redb)", dir.display());
        }
        Side::Etcd => {
            let options = etcd.expect("etcd options");
            let client = EtcdClient::new(options.client.clone());
            if kacl_store_etcd::stored_cluster_id(&client, &options.prefix)?.is_none() {
                bail!("etcd holds no kacl cluster under prefix {}", options.prefix);
            }
        }
        Side::Dir(_) => {}
    }
    Ok(location(side, etcd).open()?)
}

/// Opens the target; an empty one gets `cluster_id`, one of another cluster is refused.
fn open_target(
    side: &Side,
    etcd: Option<&EtcdOptions>,
    cluster_id: &str,
) -> anyhow::Result<Arc<dyn MetadataStore>> {
    let store = location(side, etcd).open_for_cluster(cluster_id)?;
    if store.cluster_id() != cluster_id {
        bail!(
            "it belongs to cluster {}, the source to cluster {cluster_id}; kacl store copy never \
             merges two clusters (use an empty target, or another kacl.etcd.prefix)",
            store.cluster_id()
        );
    }
    Ok(store)
}

/// What to change in the target.
struct Plan {
    acl_adds: Vec<AclBinding>,
    acl_removes: Vec<AclBinding>,
    topic_adds: Vec<TopicRecord>,
    topic_removes: Vec<String>,
    scram_puts: Vec<(String, ScramMechanism)>,
    scram_removes: Vec<(String, ScramMechanism)>,
    /// Credentials the target holds differently (overwritten only with `--force`).
    scram_changed: usize,
    /// Client quotas to set (absent or different in the target) and to remove.
    quota_puts: Vec<kacl_store::QuotaOp>,
    quota_removes: Vec<kacl_store::QuotaOp>,
    /// Quotas the target holds with another value (overwritten only with `--force`).
    quota_changed: usize,
    bootstrap: bool,
}

impl Plan {
    fn new(wanted: &Contents, found: &Contents) -> Plan {
        let acl_adds = wanted.acls.difference(&found.acls).cloned().collect();
        let acl_removes = found.acls.difference(&wanted.acls).cloned().collect();
        let changed = |name: &String| {
            found
                .topics
                .get(name)
                .is_some_and(|t| !same_topic(t, &wanted.topics[name]))
        };
        // Topics in creation order, so the target lists them as the source does.
        let mut topic_adds: Vec<TopicRecord> = wanted
            .topics
            .iter()
            .filter(|(name, _)| !found.topics.contains_key(*name) || changed(name))
            .map(|(_, t)| t.clone())
            .collect();
        topic_adds.sort_by_key(|t| t.created_seq);
        let topic_removes = found
            .topics
            .keys()
            .filter(|name| !wanted.topics.contains_key(*name) || changed(name))
            .cloned()
            .collect();
        let scram_puts: Vec<(String, ScramMechanism)> = wanted
            .scram
            .iter()
            .filter(|(key, credential)| found.scram.get(*key) != Some(credential))
            .map(|(key, _)| key.clone())
            .collect();
        let scram_changed = scram_puts
            .iter()
            .filter(|key| found.scram.contains_key(*key))
            .count();
        let scram_removes = found
            .scram
            .keys()
            .filter(|key| !wanted.scram.contains_key(*key))
            .cloned()
            .collect();
        let quota_puts: Vec<kacl_store::QuotaOp> = wanted
            .quotas
            .iter()
            .filter(|(key, bits)| found.quotas.get(*key) != Some(*bits))
            .map(|((entity, key), bits)| (entity.clone(), key.clone(), Some(f64::from_bits(*bits))))
            .collect();
        let quota_changed = quota_puts
            .iter()
            .filter(|(entity, key, _)| found.quotas.contains_key(&(entity.clone(), key.clone())))
            .count();
        let quota_removes = found
            .quotas
            .keys()
            .filter(|key| !wanted.quotas.contains_key(*key))
            .map(|(entity, key)| (entity.clone(), key.clone(), None))
            .collect();
        Plan {
            quota_puts,
            quota_removes,
            quota_changed,
            acl_adds,
            acl_removes,
            topic_adds,
            topic_removes,
            scram_puts,
            scram_removes,
            scram_changed,
            bootstrap: wanted.bootstrapped && !found.bootstrapped,
        }
    }

    /// Changes that would lose something the target holds.
    fn conflicts(&self) -> usize {
        self.acl_removes.len()
            + self.topic_removes.len()
            + self.scram_removes.len()
            + self.scram_changed
            + self.quota_removes.len()
            + self.quota_changed
    }

    fn is_empty(&self) -> bool {
        self.conflicts() == 0
            && self.acl_adds.is_empty()
            && self.topic_adds.is_empty()
            && self.scram_puts.is_empty()
            && self.quota_puts.is_empty()
            && !self.bootstrap
    }

    fn apply(
        &self,
        target: &dyn MetadataStore,
        wanted: &Contents,
        acl_chunk: usize,
        out: &mut impl Write,
    ) -> anyhow::Result<()> {
        for chunk in self.acl_removes.chunks(acl_chunk) {
            target.commit_acl_changes(&[], chunk)?;
        }
        let total = self.acl_adds.len();
        let mut done = 0;
        for chunk in self.acl_adds.chunks(acl_chunk) {
            target.commit_acl_changes(chunk, &[])?;
            done += chunk.len();
            if total > acl_chunk {
                writeln!(out, "copied {done}/{total} ACLs")?;
            }
        }
        if !self.topic_removes.is_empty() {
            target.delete_topics(&self.topic_removes)?;
        }
        for chunk in self.topic_adds.chunks(TOPIC_CHUNK) {
            target.create_topics(chunk)?;
        }
        for (user, mechanism) in &self.scram_removes {
            target.delete_scram_credential(user, *mechanism)?;
        }
        for key in &self.scram_puts {
            target.upsert_scram_credential(&key.0, key.1, &wanted.scram[key])?;
        }
        for chunk in self.quota_removes.chunks(acl_chunk) {
            target.alter_client_quotas(chunk)?;
        }
        for chunk in self.quota_puts.chunks(acl_chunk) {
            target.alter_client_quotas(chunk)?;
        }
        if self.bootstrap {
            // With credentials stored this only records that the bootstrap happened, so a
            // server started on the target does not bootstrap again.
            target.bootstrap_scram_credentials(&[])?;
        }
        Ok(())
    }
}
