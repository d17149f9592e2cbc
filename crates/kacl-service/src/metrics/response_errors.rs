//! Which error codes a response carries, read from the typed response before it is encoded:
//! the top-level code where the API has one, else the per-entry codes. Walking the structs
//! costs a loop over the entries and allocates nothing.

use kacl_protocol::messages::{
    alter_configs::AlterConfigsResponse, describe_configs::DescribeConfigsResponse,
    incremental_alter_configs::IncrementalAlterConfigsResponse,
};
use kacl_protocol::messages::{
    alter_partition_reassignments::AlterPartitionReassignmentsResponse,
    consumer_group_describe::ConsumerGroupDescribeResponse,
    describe_groups::DescribeGroupsResponse, describe_log_dirs::DescribeLogDirsResponse,
    describe_topic_partitions::DescribeTopicPartitionsResponse,
    describe_transactions::DescribeTransactionsResponse, find_coordinator::FindCoordinatorResponse,
    list_groups::ListGroupsResponse,
    list_partition_reassignments::ListPartitionReassignmentsResponse,
    list_transactions::ListTransactionsResponse,
};
use kacl_protocol::messages::{
    alter_user_scram_credentials::AlterUserScramCredentialsResponse,
    create_acls::CreateAclsResponse, create_partitions::CreatePartitionsResponse,
    create_topics::CreateTopicsResponse, delete_acls::DeleteAclsResponse,
    delete_groups::DeleteGroupsResponse, delete_topics::DeleteTopicsResponse,
    describe_acls::DescribeAclsResponse, describe_cluster::DescribeClusterResponse,
    describe_user_scram_credentials::DescribeUserScramCredentialsResponse,
    metadata::MetadataResponse,
};

/// A response whose error codes the metrics count. Every response a handler sends through
/// [`RequestContext::respond`](crate::context::RequestContext::respond) implements it.
pub trait ResponseErrors {
    /// Calls `code` with each error code of the response (zeros included; the caller skips
    /// them).
    fn for_each_error(&self, code: &mut dyn FnMut(i16));
}

impl ResponseErrors for DescribeAclsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
    }
}

impl ResponseErrors for CreateAclsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.results.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for DeleteAclsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.filter_results.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for MetadataResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
        self.topics.iter().for_each(|t| code(t.error_code));
    }
}

impl ResponseErrors for DescribeClusterResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
    }
}

impl ResponseErrors for CreateTopicsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.topics.iter().for_each(|t| code(t.error_code));
    }
}

impl ResponseErrors for DeleteTopicsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.responses.iter().for_each(|t| code(t.error_code));
    }
}

impl ResponseErrors for CreatePartitionsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.results.iter().for_each(|t| code(t.error_code));
    }
}

impl ResponseErrors
    for kacl_protocol::messages::describe_client_quotas::DescribeClientQuotasResponse<'_>
{
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
    }
}

impl ResponseErrors
    for kacl_protocol::messages::alter_client_quotas::AlterClientQuotasResponse<'_>
{
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.entries.iter().for_each(|e| code(e.error_code));
    }
}

impl ResponseErrors for DescribeUserScramCredentialsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
        self.results.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for AlterUserScramCredentialsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.results.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for DescribeConfigsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.results.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for AlterConfigsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.responses.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for IncrementalAlterConfigsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.responses.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for DescribeTopicPartitionsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.topics.iter().for_each(|t| code(t.error_code));
    }
}

impl ResponseErrors for ListPartitionReassignmentsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
    }
}

impl ResponseErrors for AlterPartitionReassignmentsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
        if self.error_code == 0 {
            self.responses
                .iter()
                .flat_map(|t| &t.partitions)
                .for_each(|p| code(p.error_code));
        }
    }
}

impl ResponseErrors for DescribeLogDirsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
        self.results.iter().for_each(|r| code(r.error_code));
    }
}

impl ResponseErrors for FindCoordinatorResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
        self.coordinators.iter().for_each(|c| code(c.error_code));
    }
}

impl ResponseErrors for ListGroupsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
    }
}

impl ResponseErrors for DescribeGroupsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.groups.iter().for_each(|g| code(g.error_code));
    }
}

impl ResponseErrors for DeleteGroupsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.results.iter().for_each(|g| code(g.error_code));
    }
}

impl ResponseErrors for ConsumerGroupDescribeResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.groups.iter().for_each(|g| code(g.error_code));
    }
}

impl ResponseErrors for ListTransactionsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        code(self.error_code);
    }
}

impl ResponseErrors for DescribeTransactionsResponse<'_> {
    fn for_each_error(&self, code: &mut dyn FnMut(i16)) {
        self.transaction_states
            .iter()
            .for_each(|t| code(t.error_code));
    }
}
