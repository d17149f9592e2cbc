//! The cluster id of a store that `kacl store copy` fills, which must be the source's.

use crate::client::{cmp_absent, op_get, op_put, EtcdClient, EtcdError};
use crate::layout::{Layout, CLUSTER_ID, LAYOUT, LAYOUT_VERSION};

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
