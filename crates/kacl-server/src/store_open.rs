//! The one way a configured store is opened, for `kacl serve` and `kacl store copy` alike: a
//! data directory (redb) or etcd, with `kacl.etcd.*` turned into the etcd store's options
//! here, so that neither the store crates nor the configuration crate know each other.

use std::path::PathBuf;
use std::sync::Arc;

use kacl_server_config::{EtcdConfig, MetadataStoreConfig, ServerConfig};
use kacl_store::{MetadataStore, RedbStore, StoreError, StoreOptions, DB_FILE_NAME};
use kacl_store_etcd::{
    ClientOptions, EtcdClient, EtcdError, EtcdOptions, EtcdStore, EtcdTls, TlsFileError, TlsFiles,
};

/// Where a store is, and how to open it.
#[derive(Debug, Clone)]
pub enum StoreLocation {
    /// The embedded store in a data directory.
    Dir {
        /// The data directory (`metadata.log.dir`).
        dir: PathBuf,
        /// Its page cache and owning node.
        options: StoreOptions,
    },
    /// The shared store in etcd.
    Etcd(EtcdOptions),
}

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The store refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// etcd could not be asked.
    #[error(transparent)]
    Etcd(#[from] EtcdError),
    /// The etcd TLS files cannot be used.
    #[error(transparent)]
    Tls(#[from] TlsFileError),
}

impl StoreLocation {
    /// The store `config` names (`kacl.metadata.store`): its data directory with
    /// `kacl.store.cache.bytes` and `node.id`, or etcd (its TLS files read now).
    pub fn configured(config: &ServerConfig) -> Result<StoreLocation, TlsFileError> {
        Ok(match &config.metadata_store {
            MetadataStoreConfig::Etcd(etcd) => {
                StoreLocation::Etcd(etcd_options(etcd, config.acl_max_batch)?)
            }
            MetadataStoreConfig::Redb => StoreLocation::Dir {
                dir: config.data_dir.clone(),
                options: StoreOptions {
                    cache_bytes: config.store_cache_bytes,
                    node_id: Some(config.node_id),
                },
            },
        })
    }

    /// How errors and logs name it: the directory, or `etcd <endpoints>`.
    pub fn describe(&self) -> String {
        match self {
            StoreLocation::Dir { dir, .. } => dir.display().to_string(),
            StoreLocation::Etcd(options) => {
                let scheme = if options.client.tls.is_some() {
                    "https"
                } else {
                    "http"
                };
                let endpoints: Vec<String> = options
                    .client
                    .endpoints
                    .iter()
                    .map(|(host, port)| match host.contains(':') {
                        true => format!("{scheme}://[{host}]:{port}"),
                        false => format!("{scheme}://{host}:{port}"),
                    })
                    .collect();
                format!("etcd {}", endpoints.join(","))
            }
        }
    }

    /// Opens the store, creating an embedded one on first use. Blocking.
    pub fn open(self) -> Result<Arc<dyn MetadataStore>, StoreError> {
        match self {
            StoreLocation::Dir { dir, options } => {
                let store = RedbStore::open_with_options(&dir, options)?;
                tracing::debug!(
                    cache_bytes = store.options().cache_bytes,
                    "opened the store"
                );
                Ok(Arc::new(store))
            }
            StoreLocation::Etcd(options) => Ok(Arc::new(EtcdStore::open(options)?)),
        }
    }

    /// Opens the store for the existing cluster `cluster_id` (`kacl store copy`'s target): a
    /// directory without a store, or etcd without a cluster id, gets this one; a store of
    /// another cluster opens as it is (the caller compares). Blocking.
    pub fn open_for_cluster(self, cluster_id: &str) -> Result<Arc<dyn MetadataStore>, OpenError> {
        match self {
            StoreLocation::Dir { dir, options } if !dir.join(DB_FILE_NAME).is_file() => Ok(
                Arc::new(RedbStore::create_for_cluster(&dir, options, cluster_id)?),
            ),
            StoreLocation::Etcd(options) => {
                let client = EtcdClient::new(options.client.clone());
                kacl_store_etcd::seed_cluster_id(&client, &options.prefix, cluster_id)?;
                Ok(StoreLocation::Etcd(options).open()?)
            }
            dir => Ok(dir.open()?),
        }
    }
}

/// `kacl.etcd.*` as the etcd store's options; the TLS files are read now (the configuration
/// refuses `https://` without a CA and mixed schemes, so TLS is all or nothing).
pub fn etcd_options(config: &EtcdConfig, max_batch: usize) -> Result<EtcdOptions, TlsFileError> {
    let tls = match (&config.tls_ca, config.endpoints.iter().any(|e| e.tls)) {
        (Some(ca), true) => Some(EtcdTls::load(&TlsFiles {
            ca: ca.clone(),
            client: config.tls_certificate.clone().zip(config.tls_key.clone()),
        })?),
        _ => None,
    };
    Ok(EtcdOptions {
        client: ClientOptions {
            endpoints: config
                .endpoints
                .iter()
                .map(|e| (e.host.clone(), e.port))
                .collect(),
            timeout: config.request_timeout,
            credentials: config.username.clone().zip(config.password.clone()),
            tls,
        },
        prefix: config.prefix.clone(),
        lease_ttl: config.lease_ttl,
        max_batch,
    })
}
