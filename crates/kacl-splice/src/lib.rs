//! Bulk bytes relayed from one TCP socket to another through a kernel pipe, never copied
//! through user space (Linux `splice(2)`).
//!
//! A gateway that reads a megabyte Fetch answer into memory and writes it out again copies
//! every byte twice more than a direct connection (`recv` into the buffer, `send` out of it):
//! on a loopback broker that is most of what relaying costs. Spliced, the bytes move as page
//! references: socket → pipe → socket.
//!
//! The two ends have different owners. The side that reads the upstream socket holds the
//! [`PipeFiller`] and moves the answer's body into the pipe ([`PipeFiller::fill_from`]); the
//! side that writes the client's socket holds the [`SplicedBody`] and moves it out
//! ([`SplicedBody::splice_some_into`], or [`SplicedBody::read_some`] when its socket is not
//! plain TCP). The pipe is the bounded buffer between them: a filler ahead of the client waits
//! for room, which is the upstream connection's back-pressure.
//!
//! Everything is non-blocking and waits on tokio's readiness. A non-blocking `splice` that
//! cannot proceed fails with `EAGAIN` without saying which end stopped it, so the end is asked
//! (is the pipe full or empty, does the socket hold bytes) before a readiness is cleared:
//! clearing the wrong one would wait for an event that never comes.
//!
//! [`pipe`] gives `None` where splicing is unavailable (not Linux, out of file descriptors, or
//! a pipe the kernel keeps smaller than [`MIN_PIPE`] because the user's pipe pages are spent):
//! the caller then copies as before.

use std::io;

use thiserror::Error;

/// The smallest pipe worth splicing through: with less, the system calls per byte outnumber
/// the copies saved.
pub const MIN_PIPE: usize = 64 * 1024;

/// The largest pipe asked for (Linux's default `pipe-max-size`): one megabyte Fetch answer
/// passes in a few system calls.
pub const MAX_PIPE: usize = 1 << 20;

/// Why [`PipeFiller::fill_from`] stopped before moving all its bytes.
#[derive(Debug, Error)]
pub enum FillError {
    /// The source socket failed or ended; `left` bytes were not moved.
    #[error("the socket ended or failed with {left} bytes still to move: {source}")]
    Source {
        /// Bytes not moved.
        left: usize,
        /// What the socket said.
        source: io::Error,
    },
    /// The [`SplicedBody`] was dropped (its connection closed); `left` bytes are still in the
    /// source socket, which the caller must read past to keep it usable.
    #[error("the receiving end went away with {left} bytes still to move")]
    Abandoned {
        /// Bytes not moved.
        left: usize,
    },
}

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::{pipe, PipeFiller, SplicedBody};

#[cfg(not(target_os = "linux"))]
mod unsupported;
#[cfg(not(target_os = "linux"))]
pub use unsupported::{pipe, PipeFiller, SplicedBody};

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
