//! Where each record lives in etcd, under `kacl.etcd.prefix` (P):
//!
//! | key | value |
//! |---|---|
//! | `P acl/<shard>/<binding>` | the ACL's 16-byte id, sealed (one key per ACL: the binding's canonical encoding, as in redb; `<shard>` is two hex digits, see [`acl_shard`]) |
//! | `P topic/<name>` | the topic record, sealed; its etcd create revision is its creation order |
//! | `P topicname/<name with . as _>` | the name: one key per collision group, so that the `.`/`_` rule and TOPIC_ALREADY_EXISTS are one compare across nodes |
//! | `P scram/<user, mechanism>` | the salted credential, sealed |
//! | `P quota/<entity, key>` | one client quota value, sealed (kacl-store's `quotas` encoding: one key per entity and quota key, so an alteration is plain puts and deletes) |
//! | `P meta/cluster-id` | the cluster id, written once by the first node |
//! | `P meta/scram-bootstrapped` | present once the SCRAM bootstrap happened |
//! | `P meta/layout` | this layout's version (`2`), written with the cluster id |
//! | `P meta/last-write` | touched by every write: its mod revision is the last change of the metadata, what a consistent read waits for |
//! | `P node/<node.id>` | a live node (JSON: listeners, rack), under the node's lease |
//! | `P controller` | the elected controller's node id, under its lease |
//!
//! Why ACL keys are sharded: etcd 3.4 walks its index over the whole rest of a range for every
//! ranged request, whatever its limit, so paging through one range of 2M keys costs one such
//! walk per page (1.3 s each at 2M). With 256 shards listed one after the other, each request
//! walks only its own shard (~8k keys at 2M) and a node's join stays linear in the set.
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
pub(crate) const QUOTA: &[u8] = b"quota/";
pub(crate) const NODE: &[u8] = b"node/";
pub(crate) const CONTROLLER: &[u8] = b"controller";
pub(crate) const CLUSTER_ID: &[u8] = b"meta/cluster-id";
pub(crate) const SCRAM_BOOTSTRAPPED: &[u8] = b"meta/scram-bootstrapped";
/// The SCRAM stand-in secret (`MetadataStore::scram_stand_in_secret`), one for the cluster.
pub(crate) const STAND_IN_SECRET: &[u8] = b"meta/scram-stand-in-secret";
pub(crate) const LAST_WRITE: &[u8] = b"meta/last-write";
/// The key holding the layout's version, written once with the cluster id.
pub(crate) const LAYOUT_VERSION: &[u8] = b"meta/layout";
/// This layout's version. Version 1 (no shard in ACL keys) is refused at start, by name.
pub(crate) const LAYOUT: &[u8] = b"2";
/// How many shards the ACL keys are spread over (two hex digits).
pub(crate) const ACL_SHARDS: u16 = 256;
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
    /// An ACL key (the binding's encoding, the shard checked and stripped).
    Acl(&'k [u8]),
    /// A key under `P acl/` whose shard is missing, malformed or not the binding's: never
    /// written by this layout, so damaged or foreign (a layout-1 key).
    MisplacedAcl,
    Topic(&'k [u8]),
    Scram(&'k [u8]),
    Quota(&'k [u8]),
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
        let encoded = encoding::encode_acl_key(binding);
        let mut key = Vec::with_capacity(self.prefix.len() + ACL.len() + 3 + encoded.len());
        key.extend_from_slice(&self.prefix);
        key.extend_from_slice(ACL);
        key.extend_from_slice(&shard_component(acl_shard(&encoded)));
        key.extend_from_slice(&encoded);
        key
    }

    /// `P acl/<shard>/`: the range of one ACL shard.
    pub(crate) fn acl_shard_prefix(&self, shard: u8) -> Vec<u8> {
        self.join(ACL, &shard_component(shard))
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

    pub(crate) fn quota(&self, entity: &kacl_store::QuotaEntity, key: &str) -> Vec<u8> {
        self.join(QUOTA, &kacl_store::quotas::encode_quota_key(entity, key))
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
            match split_shard(rest) {
                Some(encoded) => KeyKind::Acl(encoded),
                None => KeyKind::MisplacedAcl,
            }
        } else if let Some(rest) = relative.strip_prefix(TOPIC) {
            KeyKind::Topic(rest)
        } else if let Some(rest) = relative.strip_prefix(SCRAM) {
            KeyKind::Scram(rest)
        } else if let Some(rest) = relative.strip_prefix(QUOTA) {
            KeyKind::Quota(rest)
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

/// The shard of an ACL whose canonical encoding is `encoded`: the low byte of its CRC32C.
/// Part of the stored format: it must never change.
pub(crate) fn acl_shard(encoded: &[u8]) -> u8 {
    (crc32c::crc32c(encoded) & 0xff) as u8
}

/// `<two lowercase hex digits>/`.
fn shard_component(shard: u8) -> [u8; 3] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    [
        HEX[usize::from(shard >> 4)],
        HEX[usize::from(shard & 0xf)],
        b'/',
    ]
}

/// The binding's encoding after `<shard>/`, if the shard is well formed and is the binding's.
fn split_shard(rest: &[u8]) -> Option<&[u8]> {
    let (component, encoded) = rest.split_at_checked(3)?;
    let hex = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let shard = hex(component[0])? << 4 | hex(component[1])?;
    (component[2] == b'/' && acl_shard(encoded) == shard).then_some(encoded)
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

    fn binding(name: &str) -> AclBinding {
        use kacl_acl::*;
        AclBinding::new(
            ResourcePattern::new(ResourceType::Topic, name, PatternType::Literal),
            AccessControlEntry::new(
                "User:alice",
                "*",
                AclOperation::Read,
                AclPermissionType::Allow,
            ),
        )
    }

    #[test]
    fn acl_keys_carry_their_shard_and_classify_back() {
        let layout = Layout::new("/kacl/");
        let b = binding("orders");
        let key = layout.acl(&b);
        let encoded = encoding::encode_acl_key(&b);
        assert_eq!(layout.kind(&key), KeyKind::Acl(&encoded));
        let shard = acl_shard(&encoded);
        assert!(key.starts_with(&layout.acl_shard_prefix(shard)));
        assert_eq!(&key[10..13], format!("{shard:02x}/").as_bytes());
    }

    #[test]
    fn acl_keys_in_the_wrong_shard_or_without_one_are_misplaced() {
        let layout = Layout::new("/kacl/");
        let encoded = encoding::encode_acl_key(&binding("orders"));
        let shard = acl_shard(&encoded);
        // Layout 1: no shard.
        assert_eq!(
            layout.kind(&layout.join(ACL, &encoded)),
            KeyKind::MisplacedAcl
        );
        // Another shard.
        let mut wrong = shard_component(shard.wrapping_add(1)).to_vec();
        wrong.extend_from_slice(&encoded);
        assert_eq!(
            layout.kind(&layout.join(ACL, &wrong)),
            KeyKind::MisplacedAcl
        );
        // Upper-case hex, a missing slash, a short key.
        let upper = format!("{shard:02X}/");
        if upper != format!("{shard:02x}/") {
            let mut key = upper.into_bytes();
            key.extend_from_slice(&encoded);
            assert_eq!(layout.kind(&layout.join(ACL, &key)), KeyKind::MisplacedAcl);
        }
        assert_eq!(layout.kind(&layout.join(ACL, b"0a")), KeyKind::MisplacedAcl);
        assert_eq!(
            layout.kind(&layout.join(ACL, b"0a-xyz")),
            KeyKind::MisplacedAcl
        );
    }

    #[test]
    fn shards_spread_evenly() {
        let mut counts = [0u32; ACL_SHARDS as usize];
        for i in 0..25_600 {
            let encoded = encoding::encode_acl_key(&binding(&format!("topic-{i}")));
            counts[usize::from(acl_shard(&encoded))] += 1;
        }
        // 100 per shard on average; CRC32C's low byte is close to uniform.
        assert!(
            counts.iter().all(|&c| (50..=160).contains(&c)),
            "{counts:?}"
        );
    }
}
