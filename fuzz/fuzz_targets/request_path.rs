//! Fuzzes the whole request path: arbitrary bytes as one client connection through framing,
//! the SASL gate, routing and every handler, on an in-memory store (see
//! `kacl_protocol_fuzz::request_path`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::request_path::check_request_path(data);
});
