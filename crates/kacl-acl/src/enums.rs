//! The four ACL enums, with Kafka's codes (`code == ordinal`, so derived `Ord` is
//! Kafka's sort order) and Kafka's names.

use std::fmt;
use std::str::FromStr;

/// A name that is not one of an enum's spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} `{value}`")]
pub struct ParseEnumError {
    /// Which enum was being parsed, e.g. "operation".
    pub kind: &'static str,
    /// The text that did not parse.
    pub value: String,
}

macro_rules! kafka_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $kind:literal {
            $( $variant:ident = $code:literal, $kafka:literal, $cli:literal; )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(i8)]
        pub enum $name {
            $( #[doc = concat!("Kafka's `", $kafka, "` (code ", stringify!($code), ").")] $variant = $code, )+
        }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Kafka's `fromCode`: any code it does not know is `UNKNOWN`.
            #[inline]
            pub fn from_code(code: i8) -> Self {
                match code {
                    $( $code => $name::$variant, )+
                    _ => $name::Unknown,
                }
            }

            /// The wire code.
            pub fn code(self) -> i8 {
                self as i8
            }

            /// Kafka's upper-case name, as in `toString()` (`READ`, `PREFIXED`).
            pub fn kafka_name(self) -> &'static str {
                match self { $( $name::$variant => $kafka, )+ }
            }

            /// The spelling the Kafka CLI tools use (`Read`, `prefixed`).
            pub fn cli_name(self) -> &'static str {
                match self { $( $name::$variant => $cli, )+ }
            }

            /// True for `UNKNOWN`, which no filter or binding may carry.
            pub fn is_unknown(self) -> bool {
                self == $name::Unknown
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.kafka_name())
            }
        }

        /// Parses Kafka's name or the CLI spelling, ignoring case and `_`/`-`
        /// (`READ`, `Read`, `read`, `cluster_action`, `ClusterAction`, `transactional-id`).
        impl FromStr for $name {
            type Err = ParseEnumError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let wanted = normalize(s);
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| normalize(v.kafka_name()) == wanted || normalize(v.cli_name()) == wanted)
                    .ok_or_else(|| ParseEnumError { kind: $kind, value: s.to_string() })
            }
        }
    };
}

fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

kafka_enum! {
    /// The kind of resource an ACL protects (`org.apache.kafka.common.resource.ResourceType`).
    ResourceType, "resource type" {
        Unknown = 0, "UNKNOWN", "Unknown";
        Any = 1, "ANY", "Any";
        Topic = 2, "TOPIC", "Topic";
        Group = 3, "GROUP", "Group";
        Cluster = 4, "CLUSTER", "Cluster";
        TransactionalId = 5, "TRANSACTIONAL_ID", "TransactionalId";
        DelegationToken = 6, "DELEGATION_TOKEN", "DelegationToken";
        User = 7, "USER", "User";
    }
}

kafka_enum! {
    /// How a resource name is matched (`org.apache.kafka.common.resource.PatternType`).
    PatternType, "pattern type" {
        Unknown = 0, "UNKNOWN", "unknown";
        Any = 1, "ANY", "any";
        Match = 2, "MATCH", "match";
        Literal = 3, "LITERAL", "literal";
        Prefixed = 4, "PREFIXED", "prefixed";
    }
}

kafka_enum! {
    /// What an ACL allows or denies (`org.apache.kafka.common.acl.AclOperation`).
    AclOperation, "operation" {
        Unknown = 0, "UNKNOWN", "Unknown";
        Any = 1, "ANY", "Any";
        All = 2, "ALL", "All";
        Read = 3, "READ", "Read";
        Write = 4, "WRITE", "Write";
        Create = 5, "CREATE", "Create";
        Delete = 6, "DELETE", "Delete";
        Alter = 7, "ALTER", "Alter";
        Describe = 8, "DESCRIBE", "Describe";
        ClusterAction = 9, "CLUSTER_ACTION", "ClusterAction";
        DescribeConfigs = 10, "DESCRIBE_CONFIGS", "DescribeConfigs";
        AlterConfigs = 11, "ALTER_CONFIGS", "AlterConfigs";
        IdempotentWrite = 12, "IDEMPOTENT_WRITE", "IdempotentWrite";
        CreateTokens = 13, "CREATE_TOKENS", "CreateTokens";
        DescribeTokens = 14, "DESCRIBE_TOKENS", "DescribeTokens";
        TwoPhaseCommit = 15, "TWO_PHASE_COMMIT", "TwoPhaseCommit";
    }
}

kafka_enum! {
    /// Whether an ACL allows or denies (`org.apache.kafka.common.acl.AclPermissionType`).
    AclPermissionType, "permission type" {
        Unknown = 0, "UNKNOWN", "Unknown";
        Any = 1, "ANY", "Any";
        Deny = 2, "DENY", "Deny";
        Allow = 3, "ALLOW", "Allow";
    }
}

/// The answer to an authorization question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthorizationResult {
    /// The operation is permitted.
    Allowed,
    /// The operation is refused.
    Denied,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_codes_map_to_unknown() {
        for op in AclOperation::ALL {
            assert_eq!(AclOperation::from_code(op.code()), *op);
        }
        assert_eq!(AclOperation::from_code(99), AclOperation::Unknown);
        assert_eq!(ResourceType::from_code(-1), ResourceType::Unknown);
        assert_eq!(PatternType::from_code(4), PatternType::Prefixed);
    }

    #[test]
    fn parses_kafka_and_cli_spellings() {
        assert_eq!("Read".parse::<AclOperation>(), Ok(AclOperation::Read));
        assert_eq!(
            "CLUSTER_ACTION".parse::<AclOperation>(),
            Ok(AclOperation::ClusterAction)
        );
        assert_eq!(
            "IdempotentWrite".parse::<AclOperation>(),
            Ok(AclOperation::IdempotentWrite)
        );
        assert_eq!("prefixed".parse::<PatternType>(), Ok(PatternType::Prefixed));
        assert_eq!(
            "transactional-id".parse::<ResourceType>(),
            Ok(ResourceType::TransactionalId)
        );
        assert_eq!(
            "TwoPhaseCommit".parse::<AclOperation>(),
            Ok(AclOperation::TwoPhaseCommit)
        );
        assert_eq!(AclOperation::TwoPhaseCommit.code(), 15);
        assert_eq!(AclOperation::from_code(16), AclOperation::Unknown);
        assert!("Reed".parse::<AclOperation>().is_err());
        assert_eq!(
            AclOperation::DescribeConfigs.to_string(),
            "DESCRIBE_CONFIGS"
        );
    }
}
