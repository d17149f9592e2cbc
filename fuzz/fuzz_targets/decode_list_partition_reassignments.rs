//! Fuzzes the ListPartitionReassignments request decoder: byte 0 picks the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::list_partition_reassignments::ListPartitionReassignmentsRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(ListPartitionReassignmentsRequest, data);
});
