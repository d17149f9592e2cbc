//! Fuzzes the AlterPartitionReassignments request decoder (nullable replica lists): byte 0 picks the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::alter_partition_reassignments::AlterPartitionReassignmentsRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(AlterPartitionReassignmentsRequest, data);
});
