//! Fuzzes the OffsetForLeaderEpoch request decoder (forwarded by a gateway node): byte 0 picks
//! the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::offset_for_leader_epoch::OffsetForLeaderEpochRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(OffsetForLeaderEpochRequest, data);
});
