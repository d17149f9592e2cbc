//! `meta.properties`, the data directory's identity, beside the database file: which cluster
//! and node the store belongs to and which store format it holds. Kafka keeps the same file in
//! every log directory (`MetaProperties`, version 1: `version`, `cluster.id`, `node.id`,
//! optional `directory.id`) and refuses to start when it disagrees with the configuration or
//! the data. kacl writes Kafka's keys plus `kacl.store.format.version`, so that a store file
//! that vanished, was emptied or was swapped for another cluster's is refused at start instead
//! of silently starting a new, empty cluster.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::ids;

/// The file's name inside the data directory (Kafka's).
pub const IDENTITY_FILE_NAME: &str = "meta.properties";

/// The `meta.properties` version kacl writes (Kafka's V1).
const PROPERTIES_VERSION: &str = "1";

/// What `meta.properties` says about the store beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The cluster id, as in the store's meta table.
    pub cluster_id: String,
    /// The node that owns the directory, when one was configured.
    pub node_id: Option<i32>,
    /// The store format the directory held when the file was written.
    pub format_version: u32,
}

impl Identity {
    /// The file's text.
    fn to_properties(&self) -> String {
        let mut text = String::from(
            "#\n# Written by kacl when the store was created: which cluster and node this data\n\
             # directory belongs to. kacl refuses to start if it does not match. Do not edit.\n",
        );
        text.push_str(&format!("version={PROPERTIES_VERSION}\n"));
        text.push_str(&format!("cluster.id={}\n", self.cluster_id));
        if let Some(node_id) = self.node_id {
            text.push_str(&format!("node.id={node_id}\n"));
        }
        text.push_str(&format!(
            "kacl.store.format.version={}\n",
            self.format_version
        ));
        text
    }

    /// Parses the file's text (Java properties, `key=value` lines; `#`/`!` comments).
    pub fn parse(text: &str) -> Result<Identity, String> {
        let (mut version, mut cluster_id, mut node_id, mut format) = (None, None, None, None);
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            let (key, value) = line
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("line `{}` is not key=value", line.escape_debug()))?;
            match key {
                "version" => version = Some(value),
                "cluster.id" => cluster_id = Some(value),
                "node.id" => node_id = Some(value),
                "kacl.store.format.version" => format = Some(value),
                _ => {} // directory.id and keys of later versions
            }
        }
        if version != Some(PROPERTIES_VERSION) {
            return Err(format!(
                "version must be {PROPERTIES_VERSION}, found {}",
                version.unwrap_or("none")
            ));
        }
        let cluster_id = cluster_id
            .filter(|id| ids::parse_kafka_uuid(id).is_some())
            .ok_or("cluster.id is missing or not a Kafka UUID")?
            .to_owned();
        let node_id = node_id
            .map(|n| {
                n.parse::<i32>()
                    .map_err(|_| format!("node.id `{n}` is not a number"))
            })
            .transpose()?;
        let format_version = format
            .ok_or("kacl.store.format.version is missing")?
            .parse::<u32>()
            .map_err(|_| "kacl.store.format.version is not a number".to_owned())?;
        Ok(Identity {
            cluster_id,
            node_id,
            format_version,
        })
    }
}

/// `<dir>/meta.properties`.
pub(crate) fn identity_path(dir: &Path) -> PathBuf {
    dir.join(IDENTITY_FILE_NAME)
}

/// The identity of `dir`, or `None` if it has no `meta.properties` (a new directory, or one
/// written before kacl kept the file).
pub(crate) fn read(dir: &Path) -> Result<Option<Identity>, StoreError> {
    let path = identity_path(dir);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::from_io(&path, e)),
    };
    Identity::parse(&text)
        .map(Some)
        .map_err(|detail| StoreError::Identity { path, detail })
}

/// Writes `identity` durably: a temporary file, fsynced, renamed over the old one, and the
/// directory fsynced, so a crash leaves the old file or the new one.
pub(crate) fn write(dir: &Path, identity: &Identity) -> Result<(), StoreError> {
    let path = identity_path(dir);
    let temporary = dir.join(format!("{IDENTITY_FILE_NAME}.tmp"));
    let at_temporary = |e| StoreError::from_io(&temporary, e);
    let mut file = fs::File::create(&temporary).map_err(at_temporary)?;
    file.write_all(identity.to_properties().as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(at_temporary)?;
    drop(file);
    fs::rename(&temporary, &path).map_err(|e| StoreError::from_io(&path, e))?;
    crate::fs_sync::sync_dir(dir)
}

/// For a node whose metadata lives elsewhere (cluster mode on etcd): records in `dir`
/// (`metadata.log.dir`) which cluster and node it joined, as Kafka's broker does in every log
/// directory, and refuses a later start against another cluster (a node pointed at another
/// kacl cluster's `kacl.etcd.prefix`, or at another etcd) or under another `node.id`, naming
/// both ids. `cluster_id` is the cluster `source` holds (`None`: none yet, so that the check
/// can run before the node would create one there); `source` names it for the message. The
/// file is written the first time a cluster id is given, so a new node records its cluster.
pub fn claim_node_dir(
    dir: &Path,
    cluster_id: Option<&str>,
    node_id: i32,
    source: &str,
) -> Result<(), StoreError> {
    let found = read(dir)?;
    match (&found, cluster_id) {
        (Some(found), cluster_id) if Some(found.cluster_id.as_str()) != cluster_id => {
            let holds = match cluster_id {
                Some(id) => format!("holds cluster {id}"),
                None => "holds no kacl cluster".to_owned(),
            };
            Err(StoreError::IdentityMismatch {
                path: identity_path(dir),
                detail: format!(
                    "this node (node.id {node_id}) joined cluster {} (recorded in its \
                     metadata.log.dir), but {source} {holds}: a node is never moved to another \
                     cluster (check kacl.etcd.prefix and kacl.etcd.endpoints, or give it a new \
                     metadata.log.dir)",
                    found.cluster_id
                ),
            })
        }
        (Some(found), _) if found.node_id.is_some_and(|owner| owner != node_id) => {
            Err(StoreError::IdentityMismatch {
                path: identity_path(dir),
                detail: format!(
                    "the directory belongs to node.id {}, but this server is node.id {node_id}",
                    found.node_id.unwrap_or_default()
                ),
            })
        }
        (Some(_), _) | (None, None) => Ok(()),
        (None, Some(cluster_id)) => {
            fs::create_dir_all(dir).map_err(|e| StoreError::from_io(dir, e))?;
            write(
                dir,
                &Identity {
                    cluster_id: cluster_id.to_owned(),
                    node_id: Some(node_id),
                    format_version: crate::ops::FORMAT_VERSION,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cid() -> String {
        ids::kafka_uuid_string(&[7; 16])
    }

    #[test]
    fn round_trips_and_reads_kafkas_file() {
        let id = Identity {
            cluster_id: cid(),
            node_id: Some(3),
            format_version: 2,
        };
        assert_eq!(Identity::parse(&id.to_properties()), Ok(id));
        // Kafka's own file (with a directory.id and a date comment) parses too.
        let kafka = format!(
            "#\n#Tue Dec 01 09:00:00 UTC 2026\nnode.id=1\ndirectory.id=abc\n\
             version=1\ncluster.id={}\nkacl.store.format.version=2\n",
            cid()
        );
        assert_eq!(Identity::parse(&kafka).unwrap().node_id, Some(1));
    }

    #[test]
    fn refuses_what_it_cannot_trust() {
        let with = |rest: &str| format!("version=1\ncluster.id={}\n{rest}", cid());
        for (text, reason) in [
            (String::new(), "version must be 1"),
            (with("version=0"), "version must be 1"),
            ("version=1\ncluster.id=nope".to_owned(), "cluster.id"),
            (with("node.id=x\nkacl.store.format.version=2"), "node.id"),
            (with(""), "format.version is missing"),
            ("garbage".to_owned(), "not key=value"),
        ] {
            let err = Identity::parse(&text).unwrap_err();
            assert!(err.contains(reason), "{text:?}: {err}");
        }
    }
}
