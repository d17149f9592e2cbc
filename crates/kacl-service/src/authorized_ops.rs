//! Kafka's "authorized operations" bit fields (KIP-430): for a resource, one bit per operation
//! code the caller may perform, over the operations Kafka supports for that resource type
//! (`AclEntry.supportedOperations`, without ALL).

use kacl_acl::{AclOperation, AuthorizationResult, AuthorizerSession, ResourceType};

/// The operations Kafka reports for a resource type.
pub fn supported_operations(resource_type: ResourceType) -> &'static [AclOperation] {
    use AclOperation::*;
    match resource_type {
        ResourceType::Topic => &[
            Read,
            Write,
            Create,
            Describe,
            Delete,
            Alter,
            DescribeConfigs,
            AlterConfigs,
        ],
        ResourceType::Group => &[Read, Describe, Delete],
        ResourceType::Cluster => &[
            Create,
            ClusterAction,
            DescribeConfigs,
            AlterConfigs,
            IdempotentWrite,
            Alter,
            Describe,
        ],
        ResourceType::TransactionalId => &[Describe, Write, TwoPhaseCommit],
        ResourceType::DelegationToken => &[Describe],
        ResourceType::User => &[CreateTokens, DescribeTokens],
        ResourceType::Any | ResourceType::Unknown => &[],
    }
}

/// The bit field of what `session` may do on `(resource_type, name)`.
pub fn authorized_operations(
    session: &AuthorizerSession<'_>,
    resource_type: ResourceType,
    name: &str,
) -> i32 {
    supported_operations(resource_type)
        .iter()
        .filter(|op| session.authorize(**op, resource_type, name) == AuthorizationResult::Allowed)
        .fold(0i32, |bits, op| bits | (1i32 << op.code()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_operation_fits_in_32_bits() {
        for rt in ResourceType::ALL {
            for op in supported_operations(*rt) {
                assert!((0..32).contains(&op.code()));
                assert_ne!(*op, AclOperation::All);
            }
        }
    }
}
