//! One client connection: read a size-prefixed frame (bounded by `socket.request.max.bytes`),
//! answer it, write the answer, repeat. Requests on a connection are answered one at a time, in
//! order, as Kafka does (it mutes a channel while a request is in flight); connections run as
//! separate tasks, so a slow or broken client holds up nobody else.
//!
//! A pipelining client (Kafka's allow `max.in.flight.requests.per.connection`, 5 by default)
//! often has several requests in one read: those already in the read buffer are answered
//! before anything is written, and their answers leave in one write (at most
//! [`MAX_BATCH`] bytes of them), in request order. One read and one write per batch instead
//! of per request is what the kernel's share of a small request costs.
//!
//! With `queued.max.request.bytes` set, a frame's bytes are leased from the server-wide
//! [`RequestMemoryPool`](kacl_service::request_memory::RequestMemoryPool) once its size is
//! read and before its body is, and returned once it has been handled; while the pool is
//! depleted the connection just stops reading.
//!
//! A client that never reads its answers is bounded the way Kafka bounds it: the next request
//! is not read from the socket until the previous answers have been handed to the kernel (Kafka
//! mutes a channel with a response in flight), the kernel buffers are `socket.send.buffer.bytes` /
//! `socket.receive.buffer.bytes` (so one connection holds one response plus ~100 KB), and a
//! write that makes no progress for `connections.max.idle.ms` closes the connection (Kafka's
//! selector closes connections idle in either direction). At shutdown a stuck write gets
//! [`CLOSE_LINGER`] more, not the whole grace period.
//!
//! Generic over the byte stream ([`ClientStream`]), so TLS can wrap the TCP stream without
//! touching this module; a plain TCP stream also takes spliced bodies (a gateway's Fetch
//! answers) straight from their pipe.
//!
//! [`framing`] reads and writes the frames (a large one into a reused buffer of
//! [`frame_buffers`]); [`session`] is the loop over them.

mod frame_buffers;
mod framing;
mod head_first;
mod session;

pub use framing::{ClientStream, Connection, ConnectionError, Frame, CLOSE_LINGER};
pub use session::{
    apply_buffer_sizes, serve, serve_session, DRAIN_FORWARDED, MAX_BATCH, MAX_IN_FLIGHT,
};
