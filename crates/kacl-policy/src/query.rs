//! The request explain answers, and how principals nearly match: shared by the candidates'
//! collection and the explanation.

use kacl_acl::{AclOperation, ResourceType};

/// The request to explain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// `Type:name`.
    pub principal: String,
    /// The client address.
    pub host: String,
    /// The operation.
    pub operation: AclOperation,
    /// The resource type.
    pub resource_type: ResourceType,
    /// The resource name (`kafka-cluster` for the cluster).
    pub name: String,
}

/// `User:CN=alice,OU=eng` and `User:CN=alice,OU=ops`: same type and first RDN.
pub(crate) fn same_first_dn_component(a: &str, b: &str) -> bool {
    let split = |p: &str| -> Option<(String, String)> {
        let (kind, name) = p.split_once(':')?;
        if !name.contains('=') {
            return None;
        }
        let first = name.split(',').next()?.trim().to_ascii_lowercase();
        Some((kind.to_owned(), first))
    };
    matches!((split(a), split(b)), (Some(x), Some(y)) if x == y)
}
