//! The relay on Linux.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::Duration;

use rustix::io::Errno;
use rustix::pipe::{
    fcntl_getpipe_size, fcntl_setpipe_size, pipe_with, splice, PipeFlags, SpliceFlags,
};
use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use crate::{BodyEnd, MAX_PIPE, MIN_PIPE};

/// A body of known length still in its source socket, and the pipe it is relayed through.
/// Dropping it tells the source's reader how it ended ([`BodyEnded`]).
#[derive(Debug)]
pub struct SplicedBody {
    source: Arc<TcpStream>,
    pipe_read: OwnedFd,
    pipe_write: OwnedFd,
    /// Bytes of the body still in the source socket.
    source_left: usize,
    /// Bytes taken from the source and not yet given to the destination.
    in_pipe: usize,
    source_failed: bool,
    /// Bytes at the body's end that are never spliced, only read ([`SplicedBody::hold_back`]).
    held_back: usize,
    /// The longest the source may send nothing while the relay waits for it.
    source_stall: Duration,
    ended: Option<oneshot::Sender<BodyEnd>>,
}

/// Where the source's reader learns how its [`SplicedBody`] ended.
#[derive(Debug)]
pub struct BodyEnded(oneshot::Receiver<BodyEnd>);

impl BodyEnded {
    /// Waits until the body is done with (relayed, dropped half-way, or failed).
    pub async fn wait(mut self) -> BodyEnd {
        self.ended().await
    }

    /// [`BodyEnded::wait`] by reference: cancel-safe, for a reader that waits in a `select!`.
    pub async fn ended(&mut self) -> BodyEnd {
        (&mut self.0).await.unwrap_or(BodyEnd::SourceFailed)
    }
}

/// A body of `len` bytes to relay from `source`, with a pipe sized for it (between
/// [`MIN_PIPE`] and [`MAX_PIPE`]); `None` when no pipe of at least [`MIN_PIPE`] can be had.
/// A source that sends nothing for `source_stall` while the relay waits for it fails the
/// body (`TimedOut`). Nothing may read `source` until [`BodyEnded::wait`] returns.
pub fn relay(
    source: Arc<TcpStream>,
    len: usize,
    source_stall: Duration,
) -> Option<(SplicedBody, BodyEnded)> {
    let (pipe_read, pipe_write) = pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC).ok()?;
    let wanted = len.clamp(MIN_PIPE, MAX_PIPE).next_power_of_two();
    // Refused past the user's pipe pages (`pipe-user-pages-soft`): the pipe keeps its size.
    let size = match fcntl_setpipe_size(&pipe_write, wanted) {
        Ok(size) => size,
        Err(_) => fcntl_getpipe_size(&pipe_write).ok()?,
    };
    if size < MIN_PIPE {
        return None;
    }
    let (sender, receiver) = oneshot::channel();
    let body = SplicedBody {
        source,
        pipe_read,
        pipe_write,
        source_left: len,
        in_pipe: 0,
        source_failed: false,
        held_back: 0,
        source_stall,
        ended: Some(sender),
    };
    Some((body, BodyEnded(receiver)))
}

fn ended_early() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the source ended before the relayed body's length",
    )
}

impl SplicedBody {
    /// Bytes still to go out.
    pub fn remaining(&self) -> usize {
        self.source_left + self.in_pipe
    }

    /// Keeps the body's last `len` bytes out of the pipe: [`SplicedBody::splice_some_into`]
    /// stops short of them and [`SplicedBody::read_some`] reads them, for a relay that must
    /// check a frame's last bytes before they complete it.
    pub fn hold_back(mut self, len: usize) -> SplicedBody {
        self.held_back = len.min(self.source_left);
        self
    }

    /// Ends the body as failed (its last bytes were not what its relay expected): the source's
    /// reader learns [`BodyEnd::SourceFailed`] and reads no further.
    pub fn fail(mut self) {
        self.source_failed = true;
    }

    /// Takes what the source socket has into the pipe, without waiting: false when nothing
    /// could be taken (the socket's readiness is cleared only when the pipe was empty, i.e.
    /// the socket certainly was).
    fn fill(&mut self) -> io::Result<bool> {
        let left = self.source_left - self.held_back;
        if left == 0 {
            return Ok(false);
        }
        let (source, pipe, empty) = (&*self.source, &self.pipe_write, self.in_pipe == 0);
        let moved = source.try_io(Interest::READABLE, || {
            match splice(
                source,
                None,
                pipe,
                None,
                left,
                SpliceFlags::NONBLOCK | SpliceFlags::MOVE,
            ) {
                Ok(0) => Err(ended_early()),
                Ok(moved) => Ok(moved),
                Err(Errno::AGAIN) if empty => Err(io::ErrorKind::WouldBlock.into()),
                // The pipe may be full: the socket keeps its readiness.
                Err(Errno::AGAIN) => Ok(0),
                Err(err) => Err(err.into()),
            }
        });
        match moved {
            Ok(moved) => {
                self.source_left -= moved;
                self.in_pipe += moved;
                Ok(moved > 0)
            }
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(err) => {
                self.source_failed = true;
                Err(err)
            }
        }
    }

    /// Gives what the pipe holds to `destination`, without waiting: how many bytes.
    fn drain(&mut self, destination: &TcpStream) -> io::Result<usize> {
        if self.in_pipe == 0 {
            return Ok(0);
        }
        let (pipe, held) = (&self.pipe_read, self.in_pipe);
        let moved = destination.try_io(Interest::WRITABLE, || {
            match splice(
                pipe,
                None,
                destination,
                None,
                held,
                SpliceFlags::NONBLOCK | SpliceFlags::MOVE,
            ) {
                // The pipe holds `held` bytes, so EAGAIN is the destination's buffer full.
                Err(Errno::AGAIN) => Err(io::ErrorKind::WouldBlock.into()),
                other => other.map_err(io::Error::from),
            }
        });
        match moved {
            Ok(moved) => {
                self.in_pipe -= moved;
                Ok(moved)
            }
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => Ok(0),
            Err(err) => Err(err),
        }
    }

    /// Moves some of the body from the source socket through the pipe into `destination`
    /// (waiting until it can), and returns how many bytes went out; `Ok(0)` once the whole
    /// body has gone (but for what is held back). A source that ends early is `UnexpectedEof`.
    pub async fn splice_some_into(&mut self, destination: &TcpStream) -> io::Result<usize> {
        while self.remaining() > self.held_back {
            self.fill()?;
            let moved = self.drain(destination)?;
            if moved > 0 {
                return Ok(moved);
            }
            if self.in_pipe > 0 {
                // The destination is full; the pipe's bytes wait for it.
                destination.writable().await?;
            } else {
                self.source_readable().await?;
            }
        }
        Ok(0)
    }

    /// Reads some of the body into `buf` for a destination that cannot be spliced into
    /// (TLS): straight from the source socket (what the pipe holds first); `Ok(0)` once the
    /// whole body has been read.
    pub async fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(buf) = buf
            .get_mut(..buf.len().min(self.remaining()))
            .filter(|b| !b.is_empty())
        else {
            return Ok(0);
        };
        if self.in_pipe > 0 {
            let want = buf.len().min(self.in_pipe);
            let read = rustix::io::read(&self.pipe_read, &mut buf[..want])?;
            self.in_pipe -= read;
            return Ok(read);
        }
        loop {
            self.source_readable().await?;
            match self.source.try_read(buf) {
                Ok(0) => {
                    self.source_failed = true;
                    return Err(ended_early());
                }
                Ok(read) => {
                    self.source_left -= read;
                    self.held_back = self.held_back.min(self.source_left);
                    return Ok(read);
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => continue,
                Err(err) => {
                    self.source_failed = true;
                    return Err(err);
                }
            }
        }
    }
}

impl SplicedBody {
    /// Waits until the source has bytes, for at most `source_stall`.
    async fn source_readable(&mut self) -> io::Result<()> {
        match tokio::time::timeout(self.source_stall, self.source.readable()).await {
            Ok(ready) => ready,
            Err(_) => {
                self.source_failed = true;
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the source sent nothing of the relayed body for its stall bound",
                ))
            }
        }
    }
}

impl Drop for SplicedBody {
    fn drop(&mut self) {
        let end = if self.source_failed {
            BodyEnd::SourceFailed
        } else if self.remaining() == 0 {
            BodyEnd::Relayed
        } else {
            BodyEnd::Abandoned {
                left_in_source: self.source_left,
            }
        };
        if let Some(ended) = self.ended.take() {
            let _ = ended.send(end);
        }
    }
}

#[cfg(test)]
mod tests;
