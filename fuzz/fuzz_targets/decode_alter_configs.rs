//! Fuzzes the AlterConfigsRequest decoder: the first byte picks the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::alter_configs::AlterConfigsRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(AlterConfigsRequest, data);
});
