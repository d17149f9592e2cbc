//! The records the store keeps besides ACLs: topics with their partitions, and salted
//! SCRAM credentials; and the outcome of an ACL commit.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use kacl_acl::AclBinding;

/// What an ACL commit actually changed: bindings that were already present (for adds)
/// or absent (for removes) are left out, so the caller can report exactly what it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclCommit {
    /// Bindings that were not stored before and now are, in request order.
    pub added: Vec<AclBinding>,
    /// Bindings that were stored before and now are not, in request order, each once.
    pub removed: Vec<AclBinding>,
}

/// One partition of a topic and the brokers that hold it, leader first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRecord {
    /// 0-based; a topic's partitions are numbered 0..n without gaps.
    pub partition_index: i32,
    /// Broker ids; the first is the preferred leader.
    pub replicas: Vec<i32>,
}

/// A topic as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicRecord {
    /// The topic's name, its key in the store.
    pub name: String,
    /// Kafka's topic id, a random UUID (see [`crate::random_kafka_uuid`]).
    pub topic_id: [u8; 16],
    /// Every partition, in index order.
    pub partitions: Vec<PartitionRecord>,
    /// Configs set explicitly at creation (or altered since); defaults are not stored.
    pub configs: BTreeMap<String, String>,
    /// Creation order, assigned by the store: topics load back in this order, as Kafka
    /// lists them. Whatever a caller puts here when creating a topic is replaced.
    pub created_seq: u64,
}

/// A SASL/SCRAM hash function (`org.apache.kafka.clients.admin.ScramMechanism`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScramMechanism {
    /// SCRAM-SHA-256, Kafka's type code 1.
    Sha256,
    /// SCRAM-SHA-512, Kafka's type code 2.
    Sha512,
}

impl ScramMechanism {
    /// Both mechanisms, in code order.
    pub const ALL: [ScramMechanism; 2] = [ScramMechanism::Sha256, ScramMechanism::Sha512];

    /// Kafka's wire type code (DescribeUserScramCredentials, AlterUserScramCredentials).
    pub fn code(self) -> i8 {
        match self {
            ScramMechanism::Sha256 => 1,
            ScramMechanism::Sha512 => 2,
        }
    }

    /// The mechanism for a wire code; `None` for Kafka's UNKNOWN (0) and anything else.
    pub fn from_code(code: i8) -> Option<Self> {
        match code {
            1 => Some(ScramMechanism::Sha256),
            2 => Some(ScramMechanism::Sha512),
            _ => None,
        }
    }

    /// The SASL mechanism name, `SCRAM-SHA-256` or `SCRAM-SHA-512`.
    pub fn mechanism_name(self) -> &'static str {
        match self {
            ScramMechanism::Sha256 => "SCRAM-SHA-256",
            ScramMechanism::Sha512 => "SCRAM-SHA-512",
        }
    }
}

impl fmt::Display for ScramMechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mechanism_name())
    }
}

/// A name that is neither `SCRAM-SHA-256` nor `SCRAM-SHA-512`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown SCRAM mechanism `{0}` (expected SCRAM-SHA-256 or SCRAM-SHA-512)")]
pub struct ParseScramMechanismError(pub String);

/// Parses the SASL mechanism name, ignoring ASCII case.
impl FromStr for ScramMechanism {
    type Err = ParseScramMechanismError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ScramMechanism::ALL
            .into_iter()
            .find(|m| m.mechanism_name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseScramMechanismError(s.to_string()))
    }
}

/// A salted SCRAM credential (RFC 5802 §3): what a server needs to verify a client's
/// proof and prove itself, and never the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ScramCredential {
    /// Which hash the keys were derived with.
    pub mechanism: ScramMechanism,
    /// The random salt given to the client.
    pub salt: Vec<u8>,
    /// PBKDF2 iterations (Kafka requires at least 4096; the store does not judge).
    pub iterations: u32,
    /// `H(ClientKey)`.
    pub stored_key: Vec<u8>,
    /// `HMAC(SaltedPassword, "Server Key")`.
    pub server_key: Vec<u8>,
}

/// Shows the shape of the credential but not its keys, so logs never carry them.
impl fmt::Debug for ScramCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramCredential")
            .field("mechanism", &self.mechanism)
            .field("salt_len", &self.salt.len())
            .field("iterations", &self.iterations)
            .field("stored_key", &"<redacted>")
            .field("server_key", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mechanism_codes_and_names_round_trip() {
        for m in ScramMechanism::ALL {
            assert_eq!(ScramMechanism::from_code(m.code()), Some(m));
            assert_eq!(m.mechanism_name().parse::<ScramMechanism>(), Ok(m));
        }
        assert_eq!(ScramMechanism::from_code(0), None);
        assert_eq!(
            "scram-sha-512".parse::<ScramMechanism>(),
            Ok(ScramMechanism::Sha512)
        );
        assert!("PLAIN".parse::<ScramMechanism>().is_err());
    }

    #[test]
    fn debug_output_hides_the_keys() {
        let cred = ScramCredential {
            mechanism: ScramMechanism::Sha256,
            salt: vec![1, 2, 3],
            iterations: 4096,
            stored_key: b"SECRET-STORED".to_vec(),
            server_key: b"SECRET-SERVER".to_vec(),
        };
        let shown = format!("{cred:?}");
        assert!(!shown.contains("83, 69, 67"), "{shown}");
        assert!(shown.contains("redacted"));
        assert!(shown.contains("4096"));
    }
}
