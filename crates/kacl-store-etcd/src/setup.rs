//! From `kacl.etcd.*` (kacl-server-config's [`EtcdConfig`]) to the store's options, for the
//! server and for `kacl store copy` alike; and the cluster id of a store that `kacl store copy`
//! fills, which must be the source's.

use kacl_server_config::EtcdConfig;

use kacl_store::StoreError;

use crate::client::{cmp_absent, op_get, op_put, ClientOptions, EtcdClient, EtcdError};
use crate::decode::etcd_error;
use crate::layout::{Layout, CLUSTER_ID, LAYOUT, LAYOUT_VERSION};
use crate::store::EtcdOptions;
use crate::tls::{EtcdTls, TlsFileError, TlsFiles};

impl EtcdOptions {
    /// The options for `config`; the TLS files are read now (the config refuses `https://`
    /// without a CA and mixed schemes, so TLS is all or nothing).
    pub fn from_config(config: &EtcdConfig, max_batch: usize) -> Result<EtcdOptions, TlsFileError> {
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
}

/// The cluster id stored under `prefix`, if any.
pub fn stored_cluster_id(client: &EtcdClient, prefix: &str) -> Result<Option<String>, EtcdError> {
    let key = Layout::new(prefix).key(CLUSTER_ID);
    let range = client.range(&key, None, 0, 1)?;
    Ok(range
        .kvs
        .into_iter()
        .next()
        .map(|kv| String::from_utf8_lossy(&kv.value).into_owned()))
}

/// Stores `cluster_id` under `prefix` unless a cluster id is there already; the id etcd then
/// holds (another one means the prefix belongs to another cluster).
pub fn seed_cluster_id(
    client: &EtcdClient,
    prefix: &str,
    cluster_id: &str,
) -> Result<String, EtcdError> {
    let layout = Layout::new(prefix);
    let key = layout.key(CLUSTER_ID);
    let txn = client.txn(
        vec![cmp_absent(&key)],
        vec![
            op_put(&key, cluster_id.as_bytes(), 0, false),
            op_put(&layout.key(LAYOUT_VERSION), LAYOUT, 0, false),
        ],
        vec![op_get(&key)],
    )?;
    if txn.succeeded {
        return Ok(cluster_id.to_owned());
    }
    stored_cluster_id(client, prefix)?
        .ok_or_else(|| EtcdError::Protocol("the cluster id vanished while it was read".to_owned()))
}

/// Refuses a cluster whose keys follow another layout than this build's: its ACLs would be
/// invisible (layout 1 had no shard in ACL keys) or misread. The version is written in the
/// same transaction as the cluster id, so a cluster id without it is a layout-1 cluster.
pub(crate) fn check_layout(client: &EtcdClient, layout: &Layout) -> Result<(), StoreError> {
    let range = client
        .range(&layout.key(LAYOUT_VERSION), None, 0, 1)
        .map_err(etcd_error)?;
    let prefix = String::from_utf8_lossy(layout.prefix()).into_owned();
    match range.kvs.first().map(|kv| kv.value.as_slice()) {
        Some(version) if version == LAYOUT => Ok(()),
        None => Err(StoreError::Refused {
            detail: format!(
                "etcd holds a kacl cluster under {prefix:?} written by an older kacl (key \
                 layout 1, ACL keys without shards); copy it out with that kacl (`kacl store \
                 copy --from etcd --to DIR`), then into a fresh prefix with this one (`kacl \
                 store copy --from DIR --to etcd`)"
            ),
        }),
        Some(other) => Err(StoreError::Refused {
            detail: format!(
                "etcd holds a kacl cluster under {prefix:?} with key layout {:?}, which this \
                 kacl does not read (it reads layout {})",
                String::from_utf8_lossy(other)
                    .chars()
                    .take(20)
                    .collect::<String>(),
                String::from_utf8_lossy(LAYOUT)
            ),
        }),
    }
}
