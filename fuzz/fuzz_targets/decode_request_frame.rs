//! Fuzzes a whole request frame as a server reads it: size prefix, header, then the body
//! decoder the header's API key selects.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_frame(data);
});
