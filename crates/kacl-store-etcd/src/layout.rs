//! Where each record lives in etcd, under `kacl.etcd.prefix` (P):
//!
//! | key | value |
//! |---|---|
//! | `P acl/<binding>` | the ACL's 16-byte id, sealed (one key per ACL: the binding's canonical encoding, as in redb) |
//! | `P topic/<name>` | the topic record, sealed; its etcd create revision is its creation order |
//! | `P topicname/<name with . as _>` | the name: one key per collision group, so that the `.`/`_` rule and TOPIC_ALREADY_EXISTS are one compare across nodes |
//! | `P scram/<user, mechanism>` | the salted credential, sealed |
//! | `P meta/cluster-id` | the cluster id, written once by the first node |
//! | `P meta/scram-bootstrapped` | present once the SCRAM bootstrap happened |
//! | `P meta/last-write` | touched by every write: its mod revision is the last change of the metadata, what a consistent read waits for |
//! | `P node/<node.id>` | a live node (JSON: listeners, rack), under the node's lease |
//! | `P controller` | the elected controller's node id, under its lease |
//!
//! "Sealed" values carry kacl-store's CRC32C over the key (without P) and the payload, so a
//! damaged or foreign value is refused, never turned into a different ACL.

use kacl_acl::AclBinding;
use kacl_sasl::scram::ScramMechanism;
use kacl_store::checksum::{seal, unseal};
use kacl_store::encoding;
use kacl_store::RecordDecodeError;
use kacl_topics::unify_collision_chars;

pub(crate) const ACL: &[u8] = b"acl/";
pub(crate) const TOPIC: &[u8] = b"topic/";
pub(crate) const TOPIC_NAME: &[u8] = b"topicname/";
pub(crate) const SCRAM: &[u8] = b"scram/";
pub(crate) const NODE: &[u8] = b"node/";
pub(crate) const CONTROLLER: &[u8] = b"controller";
pub(crate) const CLUSTER_ID: &[u8] = b"meta/cluster-id";
pub(crate) const SCRAM_BOOTSTRAPPED: &[u8] = b"meta/scram-bootstrapped";
pub(crate) const LAST_WRITE: &[u8] = b"meta/last-write";
/// The key the start-up probe of etcd's limits reads (never written).
pub(crate) const PROBE: &[u8] = b"meta/probe";

/// The keys of one kacl cluster.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    prefix: Vec<u8>,
}

/// What a key under the prefix is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum KeyKind<'k> {
    Acl(&'k [u8]),
    Topic(&'k [u8]),
    Scram(&'k [u8]),
    Node(&'k [u8]),
    Controller,
    Other,
}

impl Layout {
    pub(crate) fn new(prefix: &str) -> Layout {
        Layout {
            prefix: prefix.as_bytes().to_vec(),
        }
    }

    pub(crate) fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// `P` + `relative`.
    pub(crate) fn key(&self, relative: &[u8]) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.prefix.len() + relative.len());
        key.extend_from_slice(&self.prefix);
        key.extend_from_slice(relative);
        key
    }

    fn join(&self, kind: &[u8], rest: &[u8]) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.prefix.len() + kind.len() + rest.len());
        key.extend_from_slice(&self.prefix);
        key.extend_from_slice(kind);
        key.extend_from_slice(rest);
        key
    }

    pub(crate) fn acl(&self, binding: &AclBinding) -> Vec<u8> {
        self.join(ACL, &encoding::encode_acl_key(binding))
    }

    pub(crate) fn topic(&self, name: &str) -> Vec<u8> {
        self.join(TOPIC, name.as_bytes())
    }

    pub(crate) fn topic_name(&self, name: &str) -> Vec<u8> {
        self.join(TOPIC_NAME, unify_collision_chars(name).as_bytes())
    }

    pub(crate) fn scram(&self, user: &str, mechanism: ScramMechanism) -> Vec<u8> {
        self.join(SCRAM, &encoding::encode_scram_key(user, mechanism))
    }

    pub(crate) fn node(&self, node_id: i32) -> Vec<u8> {
        self.join(NODE, format!("{node_id:010}").as_bytes())
    }

    /// Classifies a key read from etcd; `Other` for keys outside the prefix too.
    pub(crate) fn kind<'k>(&self, key: &'k [u8]) -> KeyKind<'k> {
        let Some(relative) = key.strip_prefix(self.prefix.as_slice()) else {
            return KeyKind::Other;
        };
        if let Some(rest) = relative.strip_prefix(ACL) {
            KeyKind::Acl(rest)
        } else if let Some(rest) = relative.strip_prefix(TOPIC) {
            KeyKind::Topic(rest)
        } else if let Some(rest) = relative.strip_prefix(SCRAM) {
            KeyKind::Scram(rest)
        } else if let Some(rest) = relative.strip_prefix(NODE) {
            KeyKind::Node(rest)
        } else if relative == CONTROLLER {
            KeyKind::Controller
        } else {
            KeyKind::Other
        }
    }

    /// A value sealed for `key` (checksum over the key without the prefix).
    pub(crate) fn seal(&self, key: &[u8], payload: &[u8]) -> Vec<u8> {
        seal(self.relative(key), payload)
    }

    /// The payload of a sealed value, if its checksum holds.
    pub(crate) fn unseal<'v>(
        &self,
        key: &[u8],
        value: &'v [u8],
    ) -> Result<&'v [u8], RecordDecodeError> {
        unseal(self.relative(key), value)
    }

    fn relative<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        key.strip_prefix(self.prefix.as_slice()).unwrap_or(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_classify_back() {
        let layout = Layout::new("/kacl/");
        assert_eq!(layout.kind(&layout.topic("a.b")), KeyKind::Topic(b"a.b"));
        assert_eq!(layout.topic_name("a.b"), layout.topic_name("a_b"));
        assert_eq!(layout.kind(&layout.key(CONTROLLER)), KeyKind::Controller);
        assert_eq!(layout.kind(&layout.key(LAST_WRITE)), KeyKind::Other);
        assert_eq!(layout.kind(b"/other/topic/x"), KeyKind::Other);
        let key = layout.node(7);
        assert_eq!(layout.kind(&key), KeyKind::Node(b"0000000007"));
        let sealed = layout.seal(&key, b"payload");
        assert_eq!(layout.unseal(&key, &sealed).unwrap(), b"payload");
        assert!(layout.unseal(&layout.node(8), &sealed).is_err());
    }
}
