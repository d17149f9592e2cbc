//! Fuzzes the AlterClientQuotas request decoder (answered by kacl in both modes): byte 0 picks
//! the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::alter_client_quotas::AlterClientQuotasRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(AlterClientQuotasRequest, data);
});
