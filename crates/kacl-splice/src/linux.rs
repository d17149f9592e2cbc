//! The pipe and its two ends on Linux.

use std::io;
use std::os::fd::AsFd;

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::{ioctl_fionread, Errno};
use rustix::pipe::{fcntl_getpipe_size, fcntl_setpipe_size, splice, SpliceFlags};
use tokio::io::Interest;
use tokio::net::unix::pipe::{self as tokio_pipe, Receiver, Sender};
use tokio::net::TcpStream;

use crate::{FillError, MAX_PIPE, MIN_PIPE};

/// The pipe's write end, held by the side that reads the source socket.
#[derive(Debug)]
pub struct PipeFiller {
    pipe: Sender,
}

/// The pipe's read end and the bytes still to come through it, held by the side that writes
/// the destination socket. Dropping it closes the pipe: a filler still moving bytes into it
/// stops with [`FillError::Abandoned`].
#[derive(Debug)]
pub struct SplicedBody {
    pipe: Receiver,
    left: usize,
}

/// A pipe for a body of `len` bytes, sized for it (between [`MIN_PIPE`] and [`MAX_PIPE`]);
/// `None` when no pipe of at least [`MIN_PIPE`] can be had. Must be called inside a tokio
/// runtime.
pub fn pipe(len: usize) -> Option<(PipeFiller, SplicedBody)> {
    let (write, read) = tokio_pipe::pipe().ok()?;
    let wanted = len.clamp(MIN_PIPE, MAX_PIPE).next_power_of_two();
    // Refused past the user's pipe pages (`pipe-user-pages-soft`): the pipe keeps its size.
    let _ = fcntl_setpipe_size(&write, wanted);
    if fcntl_getpipe_size(&write).ok()? < MIN_PIPE {
        return None;
    }
    Some((
        PipeFiller { pipe: write },
        SplicedBody {
            pipe: read,
            left: len,
        },
    ))
}

/// What one attempt to splice made of it.
enum Step {
    Moved(usize),
    /// The pipe end was not ready (full for the filler, empty for the body).
    PipeNotReady,
    /// The receiving end of the pipe is gone.
    Abandoned,
    /// Both ends looked ready after an `EAGAIN`: one changed in between; try again.
    Again,
}

/// Whether `fd` is ready for `events` right now (level-triggered, no waiting).
fn ready_now(fd: impl AsFd, events: PollFlags) -> io::Result<bool> {
    let mut fds = [PollFd::new(&fd, events)];
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&zero))?;
    Ok(fds[0].revents().intersects(events))
}

/// Runs `attempt` inside both ends' `try_io`, so that each end's readiness is cleared only
/// when that end stopped the splice (`PipeNotReady`: the pipe's; `WouldBlock` from `attempt`:
/// the socket's), and only if no new event for it came since before the attempt.
fn attempt_both(
    pipe_try_io: impl FnOnce(
        &mut dyn FnMut() -> io::Result<io::Result<Step>>,
    ) -> io::Result<io::Result<Step>>,
    socket: &TcpStream,
    interest: Interest,
    attempt: impl FnOnce() -> io::Result<Step>,
) -> io::Result<Step> {
    let mut attempt = Some(attempt);
    let outer = pipe_try_io(&mut || {
        let Some(attempt) = attempt.take() else {
            return Ok(Ok(Step::Again));
        };
        match socket.try_io(interest, attempt) {
            Ok(Step::PipeNotReady) => Err(io::ErrorKind::WouldBlock.into()),
            other => Ok(other),
        }
    });
    match outer {
        Ok(inner) => inner,
        // The pipe end was not ready, or has just been found so and its readiness cleared.
        Err(err) if err.kind() == io::ErrorKind::WouldBlock => Ok(Step::PipeNotReady),
        Err(err) => Err(err),
    }
}

impl PipeFiller {
    /// Moves exactly `len` bytes from `socket` into the pipe, waiting for the socket's bytes
    /// and for room in the pipe as needed.
    pub async fn fill_from(&self, socket: &TcpStream, len: usize) -> Result<(), FillError> {
        let mut left = len;
        while left > 0 {
            let source = |source| FillError::Source { left, source };
            self.pipe.writable().await.map_err(source)?;
            socket.readable().await.map_err(source)?;
            let step = attempt_both(
                |f| self.pipe.try_io(f),
                socket,
                Interest::READABLE,
                || match splice(
                    socket,
                    None,
                    &self.pipe,
                    None,
                    left,
                    SpliceFlags::NONBLOCK | SpliceFlags::MOVE,
                ) {
                    Ok(0) => Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(moved) => Ok(Step::Moved(moved)),
                    Err(Errno::PIPE) => Ok(Step::Abandoned),
                    Err(Errno::AGAIN) => {
                        if !ready_now(&self.pipe, PollFlags::OUT)? {
                            Ok(Step::PipeNotReady)
                        } else if ioctl_fionread(socket)? == 0 {
                            // The socket holds nothing: `try_io` clears its readiness.
                            Err(io::ErrorKind::WouldBlock.into())
                        } else {
                            Ok(Step::Again)
                        }
                    }
                    Err(err) => Err(err.into()),
                },
            );
            match step {
                Ok(Step::Moved(moved)) => left -= moved,
                Ok(Step::PipeNotReady) => {}
                Ok(Step::Abandoned) => return Err(FillError::Abandoned { left }),
                Ok(Step::Again) => tokio::task::yield_now().await,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                Err(err) => return Err(source(err)),
            }
        }
        Ok(())
    }
}

impl SplicedBody {
    /// Bytes still to come out of the pipe.
    pub fn remaining(&self) -> usize {
        self.left
    }

    /// Moves some of the body from the pipe to `socket` (waiting until both can), and returns
    /// how many bytes; `Ok(0)` once the whole body has gone. A pipe that ends early (its
    /// filler failed) is `UnexpectedEof`.
    pub async fn splice_some_into(&mut self, socket: &TcpStream) -> io::Result<usize> {
        while self.left > 0 {
            self.pipe.readable().await?;
            socket.writable().await?;
            let (pipe, left) = (&self.pipe, self.left);
            let step = attempt_both(
                |f| pipe.try_io(f),
                socket,
                Interest::WRITABLE,
                || match splice(
                    pipe,
                    None,
                    socket,
                    None,
                    left,
                    SpliceFlags::NONBLOCK | SpliceFlags::MOVE,
                ) {
                    Ok(0) => Err(ended_early()),
                    Ok(moved) => Ok(Step::Moved(moved)),
                    Err(Errno::AGAIN) => {
                        if ioctl_fionread(pipe)? == 0 {
                            Ok(Step::PipeNotReady)
                        } else if !ready_now(socket, PollFlags::OUT)? {
                            // The socket's buffer is full: `try_io` clears its readiness.
                            Err(io::ErrorKind::WouldBlock.into())
                        } else {
                            Ok(Step::Again)
                        }
                    }
                    Err(err) => Err(err.into()),
                },
            );
            match step {
                Ok(Step::Moved(moved)) => {
                    self.left -= moved;
                    return Ok(moved);
                }
                Ok(Step::PipeNotReady) => {}
                Ok(Step::Again | Step::Abandoned) => tokio::task::yield_now().await,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                Err(err) => return Err(err),
            }
        }
        Ok(0)
    }

    /// Reads some of the body out of the pipe into `buf`, for a destination that cannot be
    /// spliced into (TLS); `Ok(0)` once the whole body has been read.
    pub async fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf.len().min(self.left);
        let Some(buf) = buf.get_mut(..want).filter(|buf| !buf.is_empty()) else {
            return Ok(0);
        };
        loop {
            self.pipe.readable().await?;
            match self.pipe.try_read(buf) {
                Ok(0) => return Err(ended_early()),
                Ok(read) => {
                    self.left -= read;
                    return Ok(read);
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => continue,
                Err(err) => return Err(err),
            }
        }
    }
}

fn ended_early() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the relayed body ended before its length",
    )
}

#[cfg(test)]
mod tests;
