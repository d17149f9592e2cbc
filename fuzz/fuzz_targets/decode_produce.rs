//! Fuzzes the Produce request decoder (forwarded by a gateway node): byte 0 picks the
//! version, the rest is the body. The head a gateway decides a cut-through Produce on is read
//! from the same bytes, and must agree with the whole request wherever both decode.
#![no_main]

use kacl_protocol::messages::produce::ProduceRequest;
use kacl_protocol::Message as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(ProduceRequest, data);
    if let Some((&selector, body)) = data.split_first() {
        let versions = ProduceRequest::VERSIONS;
        let version = kacl_protocol_fuzz::pick_version(selector, versions.min, versions.max);
        kacl_protocol::messages::produce::check_head_agrees(body, version);
    }
});
