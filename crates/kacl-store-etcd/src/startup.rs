//! What a node checks in etcd before it lists anything: that etcd takes kacl's largest
//! transaction, the cluster id (created by the first node), and the key layout's version.

use kacl_store::StoreError;

use crate::client::{cmp_absent, op_get, op_put, EtcdClient};
use crate::decode::etcd_error;
use crate::layout::{self, Layout, LAYOUT, LAYOUT_VERSION};
use crate::ops::first_kv;

/// The `--max-request-bytes` kacl needs etcd to accept: 10 MiB (a batch of 10,000 ACLs with
/// long names is a few MB of protobuf).
pub const REQUIRED_REQUEST_BYTES: usize = 10 << 20;
/// Operations one transaction may carry beyond a batch's ACLs (the last-write marker, ...).
pub const EXTRA_TXN_OPS: usize = 64;
/// Refuses an etcd that cannot take kacl's largest transaction: a txn of `max_batch` + extra
/// read operations of one key (`--max-txn-ops`), and one compare carrying
/// [`REQUIRED_REQUEST_BYTES`] minus a margin (`--max-request-bytes`). Neither writes.
pub(crate) fn probe_limits(
    client: &EtcdClient,
    layout: &Layout,
    max_batch: usize,
) -> Result<(), StoreError> {
    let key = layout.key(layout::PROBE);
    let ops = max_batch + EXTRA_TXN_OPS;
    let reads = vec![op_get(&key); ops];
    match client.txn(Vec::new(), reads, Vec::new()) {
        Ok(_) => {}
        Err(crate::client::EtcdError::Status { message, .. })
            if message.contains("too many operations") =>
        {
            return Err(StoreError::Refused {
                detail: format!(
                    "etcd at {} refuses a transaction of {ops} operations (kacl.acl.max.batch \
                     {max_batch} + {EXTRA_TXN_OPS}): start etcd with --max-txn-ops={ops} or \
                     more, or lower kacl.acl.max.batch",
                    client.endpoints_text()
                ),
            })
        }
        Err(err) => return Err(etcd_error(err)),
    }
    let value = vec![b'x'; REQUIRED_REQUEST_BYTES - (64 << 10)];
    let compare = crate::client::cmp_value(&key, &value);
    match client.txn(vec![compare], Vec::new(), Vec::new()) {
        Ok(_) => Ok(()),
        Err(crate::client::EtcdError::Status { message, .. })
            if message.contains("too large") || message.contains("larger than max") =>
        {
            Err(StoreError::Refused {
                detail: format!(
                    "etcd at {} refuses requests of {} bytes: start etcd with \
                     --max-request-bytes={REQUIRED_REQUEST_BYTES} or more ({message})",
                    client.endpoints_text(),
                    value.len()
                ),
            })
        }
        Err(err) => Err(etcd_error(err)),
    }
}

/// The cluster id: created by the first node (a compare that it does not exist yet), read by
/// every later one.
pub(crate) fn cluster_id(client: &EtcdClient, layout: &Layout) -> Result<String, StoreError> {
    let key = layout.key(layout::CLUSTER_ID);
    let fresh = kacl_store::kafka_uuid_string(&kacl_store::random_kafka_uuid());
    let txn = client
        .txn(
            vec![cmp_absent(&key)],
            vec![
                op_put(&key, fresh.as_bytes(), 0, false),
                op_put(
                    &layout.key(layout::LAYOUT_VERSION),
                    layout::LAYOUT,
                    0,
                    false,
                ),
            ],
            vec![op_get(&key)],
        )
        .map_err(etcd_error)?;
    if txn.succeeded {
        tracing::info!(cluster_id = %fresh, "created the cluster id in etcd");
        return Ok(fresh);
    }
    let stored = first_kv(&txn.responses)
        .and_then(|kv| String::from_utf8(kv.value).ok())
        .filter(|id| kacl_store::parse_kafka_uuid(id).is_some());
    stored.ok_or_else(|| StoreError::Refused {
        detail: "etcd holds an unreadable kacl cluster id".to_owned(),
    })
}

/// The cluster's SCRAM stand-in secret: created by the first node that asks (a compare that it
/// does not exist yet), read by every later one, so every node answers an unknown user alike.
pub(crate) fn stand_in_secret(
    client: &EtcdClient,
    layout: &Layout,
) -> Result<[u8; 32], StoreError> {
    let key = layout.key(layout::STAND_IN_SECRET);
    let fresh = kacl_store::random_secret();
    let txn = client
        .txn(
            vec![cmp_absent(&key)],
            vec![op_put(&key, &fresh, 0, false)],
            vec![op_get(&key)],
        )
        .map_err(etcd_error)?;
    if txn.succeeded {
        tracing::info!("created the SCRAM stand-in secret in etcd");
        return Ok(fresh);
    }
    first_kv(&txn.responses)
        .and_then(|kv| <[u8; 32]>::try_from(kv.value.as_slice()).ok())
        .ok_or_else(|| StoreError::Refused {
            detail: "etcd holds an unreadable SCRAM stand-in secret (not 32 bytes)".to_owned(),
        })
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
