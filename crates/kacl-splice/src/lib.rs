//! Bulk bytes relayed from one TCP socket to another through a kernel pipe, never copied
//! through user space (Linux `splice(2)`).
//!
//! A gateway that reads a megabyte Fetch answer into memory and writes it out again copies
//! every byte twice more than a direct connection (`recv` into the buffer, `send` out of it):
//! on a loopback broker that is most of what relaying costs. Spliced, the bytes move as page
//! references: socket → pipe → socket. The same relay carries a cut-through Produce request's
//! record data the other way, from the client's socket into the upstream's.
//!
//! One task does the whole relay: [`SplicedBody::splice_some_into`] moves the body from the
//! source socket into the pipe and from the pipe into the destination socket in the same turn,
//! as each becomes possible, so an arriving chunk wakes one task once (two tasks, one filling
//! and one draining, woke twice per chunk and left the gateway's profile dominated by task
//! switches). The task that owns the source socket's reads hands the body over and waits for
//! its [`BodyEnd`] before it reads the next frame.
//!
//! Everything is non-blocking and waits on tokio's readiness of the two sockets only; the
//! pipe is never registered with the reactor, because the relay knows exactly how many bytes
//! it holds. A non-blocking `splice` from the socket that fails with `EAGAIN` does not say
//! whether the socket was empty or the pipe full; only with an empty pipe is the socket's
//! readiness cleared.
//!
//! [`relay`] gives `None` where splicing is unavailable (not Linux, out of file descriptors, or
//! a pipe the kernel keeps smaller than [`MIN_PIPE`] because the user's pipe pages are spent):
//! the caller then copies as before.

/// The smallest pipe worth splicing through: with less, the system calls per byte outnumber
/// the copies saved.
pub const MIN_PIPE: usize = 64 * 1024;

/// The largest pipe asked for (Linux's default `pipe-max-size`): one megabyte Fetch answer
/// passes in a few system calls.
pub const MAX_PIPE: usize = 1 << 20;

/// How a [`SplicedBody`] ended, for the task that reads the source socket next.
#[derive(Debug)]
pub enum BodyEnd {
    /// Every byte went out: the source socket is at the next frame.
    Relayed,
    /// Dropped before the end (its destination went away): `left_in_source` bytes of the body
    /// are still to be read past in the source socket.
    Abandoned {
        /// Bytes of the body not yet taken from the source socket.
        left_in_source: usize,
    },
    /// The source socket failed or ended mid-body: it cannot be read on.
    SourceFailed,
}

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::{relay, BodyEnded, SplicedBody};

#[cfg(not(target_os = "linux"))]
mod unsupported;
#[cfg(not(target_os = "linux"))]
pub use unsupported::{relay, BodyEnded, SplicedBody};

/// A response frame whose first bytes are in memory and whose body follows through a pipe.
#[derive(Debug)]
pub struct SplicedFrame {
    /// The frame's first bytes: size prefix, header, and the start of the body.
    pub head: Vec<u8>,
    /// The rest of the frame.
    pub body: SplicedBody,
}

impl SplicedFrame {
    /// The whole frame's length, size prefix included.
    pub fn len(&self) -> usize {
        self.head.len() + self.body.remaining()
    }

    /// Whether the frame is empty (never, for a real frame).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
