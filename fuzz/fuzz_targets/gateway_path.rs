//! Fuzzes a gateway node's request path: arbitrary bytes as one client connection through
//! framing, the SASL gate, routing and the gateway's authorization rules, in front of an
//! offline upstream (see `kacl_protocol_fuzz::gateway_path`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::gateway_path::check_gateway_path(data);
});
