//! Fuzzes the DeleteGroups request decoder (answered by a standalone node, forwarded by a
//! gateway node): byte 0 picks the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::delete_groups::DeleteGroupsRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(DeleteGroupsRequest, data);
});
