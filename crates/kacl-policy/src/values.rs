//! The checked scalar values of a desired-state file — a principal, an operation, a pattern
//! type — with the serde rules that validate them while the file is read, so that a bad value
//! is reported at its line and column. The file and its scope both use them.

use kacl_acl::{AclOperation, KafkaPrincipal, PatternType};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::located::parse_str;

/// A principal, `Type:name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Principal(pub String);

/// An operation an ACL can carry (not ANY or UNKNOWN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Operation(pub AclOperation);

/// LITERAL or PREFIXED.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pattern(pub PatternType);

/// True for LITERAL, the default a file may leave out (serde's `skip_serializing_if`).
pub(crate) fn is_literal(pattern: &Pattern) -> bool {
    pattern.0 == PatternType::Literal
}

impl<'de> Deserialize<'de> for Principal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_str(d, "a principal Type:name", |s| {
            match s.parse::<KafkaPrincipal>() {
                Ok(_) => Ok(Principal(s.to_owned())),
                Err(_) => Err(format!(
                    "principal `{s}` has no type: write it as Type:name, e.g. User:{s}"
                )),
            }
        })
    }
}

impl Serialize for Principal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// The operations a file may name, in the kafka-acls.sh spelling.
fn operation_names() -> String {
    AclOperation::ALL
        .iter()
        .filter(|op| !matches!(op, AclOperation::Any | AclOperation::Unknown))
        .map(|op| op.cli_name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_str(d, "an operation", |s| match s.parse::<AclOperation>() {
            Ok(op) if !matches!(op, AclOperation::Any | AclOperation::Unknown) => Ok(Operation(op)),
            _ => Err(format!(
                "unknown operation `{s}` (one of {})",
                operation_names()
            )),
        })
    }
}

impl Serialize for Operation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.cli_name())
    }
}

impl Default for Pattern {
    fn default() -> Self {
        Pattern(PatternType::Literal)
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_str(d, "literal or prefixed", |s| {
            match s.parse::<PatternType>() {
                Ok(p @ (PatternType::Literal | PatternType::Prefixed)) => Ok(Pattern(p)),
                _ => Err(format!("unknown pattern `{s}` (literal or prefixed)")),
            }
        })
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.cli_name())
    }
}
