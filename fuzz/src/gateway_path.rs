//! The oracle of the `gateway_path` target: arbitrary bytes as one client connection through a
//! gateway node (framing, the SASL gate, routing, every forwarded API's decoding and
//! authorization rule, the reduced re-encoding of partly refused requests), in front of an
//! offline upstream (`kacl_gateway::Gateway::offline`), so every forward ends the connection
//! and every answer is the gateway's own.
//!
//! Input: byte 0 picks the setup as in `request_path` (the same 32 configurations and seeded
//! ACLs); the rest is the byte stream the client sends before half-closing.
//!
//! The server may answer or close as it likes. It must not panic or hang, and what it writes
//! must be whole size-prefixed frames.

use std::sync::Arc;

use kacl_gateway::Gateway;
use kacl_server::fuzzing;
use kacl_store::MemoryStore;

use crate::request_path::{assert_whole_frames, config_for, runtime, seed_store};

/// Runs one input; panics when the oracle is violated.
pub fn check_gateway_path(data: &[u8]) {
    let Some((&setup, stream)) = data.split_first() else {
        return;
    };
    let listener = if setup & 1 == 1 {
        "SASL_PLAINTEXT"
    } else {
        "PLAINTEXT"
    };
    let store = Arc::new(MemoryStore::new());
    seed_store(store.as_ref());
    let state = fuzzing::gateway_state_for(
        config_for(setup),
        store,
        Arc::new(Gateway::offline(&[1, 2, 3])),
    )
    .expect("a gateway state on a memory store");
    let out = runtime()
        .block_on(fuzzing::serve_bytes(&state, listener, stream))
        .expect("the listener exists");
    assert_whole_frames(&out);
}
