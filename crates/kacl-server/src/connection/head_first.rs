//! Cut-through reading (gateway mode, plain TCP clients): a large frame of the gateway's
//! [`CutThrough`] API is yielded as soon as its first part has arrived, and its rest, still in
//! the socket, is then relayed by whoever takes it ([`HeadFirst::relay`]: the gateway splices it
//! into the upstream's socket), read past (the request was answered without it), or read whole
//! after all (the gateway declined). Nothing more is read from the socket until the rest is
//! done with, so the connection stays at a frame boundary.

use std::sync::Arc;
use std::time::Duration;

use kacl_protocol::frame::SIZE_PREFIX_LEN;
use kacl_service::forward::CutThrough;
use kacl_splice::{BodyEnd, BodyEnded, SplicedBody};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::net::TcpStream;

/// Why the rest of a frame could not be done with.
#[derive(Debug)]
pub(super) enum RestError {
    /// The relay failed, or the rest did not end as its first part said.
    RelayFailed,
    /// The client closed the socket in the middle of a rest being read past.
    ResetMidFrame,
    /// The socket failed.
    Io(std::io::Error),
}

/// One connection's cut-through state.
#[derive(Debug)]
pub(super) struct HeadFirst {
    policy: CutThrough,
    /// The client's socket, registered a second time for the relay's own readiness (made on
    /// the first relay: an idle connection costs no second descriptor).
    source: Option<Arc<TcpStream>>,
    /// How long the client may send nothing in the middle of a relayed rest.
    stall: Duration,
    /// Bytes of the frame last yielded that are still in the socket, until settled.
    unsettled: usize,
    /// A relay taken of a rest: nothing is read until it has ended.
    relaying: Option<BodyEnded>,
    /// Bytes of a rest nobody took, to read past before the next frame.
    skip: usize,
    /// The frame being read was offered and declined: it is read whole.
    whole: bool,
}

impl HeadFirst {
    pub(super) fn new(policy: CutThrough, stall: Duration) -> HeadFirst {
        HeadFirst {
            policy,
            source: None,
            stall,
            unsettled: 0,
            relaying: None,
            skip: 0,
            whole: false,
        }
    }

    /// Whether the frame of `len` bytes at the start of `buffered` (size prefix first), of which
    /// `arrived` are here, is to be yielded now with its rest in the socket.
    pub(super) fn offers(&self, buffered: &[u8], len: usize, arrived: usize) -> bool {
        let api = buffered
            .get(SIZE_PREFIX_LEN..SIZE_PREFIX_LEN + 2)
            .map(|key| i16::from_be_bytes([key[0], key[1]]));
        !self.whole
            && len >= self.policy.min_frame
            && arrived >= self.policy.first_part
            && arrived < len
            && api == Some(self.policy.api.key())
    }

    /// A frame was yielded with `rest` bytes still in the socket.
    pub(super) fn yielded(&mut self, rest: usize) {
        self.unsettled = rest;
    }

    /// A frame was yielded (whole or not): the next one is offered again.
    pub(super) fn frame_done(&mut self) {
        self.whole = false;
    }

    /// Bytes of the frame last yielded still in the socket and not yet taken or settled.
    pub(super) fn unsettled(&self) -> usize {
        self.unsettled
    }

    /// The rest was not taken: it is read past before the next frame.
    pub(super) fn settle(&mut self) {
        self.skip += std::mem::take(&mut self.unsettled);
    }

    /// The frame is to be read whole after all: how many of its bytes are still to come.
    pub(super) fn decline(&mut self) -> usize {
        self.whole = true;
        std::mem::take(&mut self.unsettled)
    }

    /// Whether a rest is still being relayed, read past or decided on.
    pub(super) fn pending(&self) -> bool {
        self.relaying.is_some() || self.skip > 0 || self.unsettled > 0
    }

    /// The rest as a body to relay from `socket` (the client's), or `None` when there is none
    /// or no pipe (or second descriptor) to be had.
    pub(super) fn relay(&mut self, socket: &TcpStream) -> Option<SplicedBody> {
        if self.unsettled == 0 || self.relaying.is_some() {
            return None;
        }
        if self.source.is_none() {
            self.source = second_registration(socket).map(Arc::new);
        }
        let source = self.source.clone()?;
        let (body, ended) = kacl_splice::relay(source, self.unsettled, self.stall)?;
        self.unsettled = 0;
        self.relaying = Some(ended);
        Some(body)
    }

    /// Waits for a relayed rest to end and reads past a rest nobody took (cancel-safe).
    pub(super) async fn finish(
        &mut self,
        stream: &mut (impl AsyncRead + Unpin),
    ) -> Result<(), RestError> {
        if let Some(relaying) = &mut self.relaying {
            let ended = relaying.ended().await;
            self.relaying = None;
            match ended {
                BodyEnd::Relayed => {}
                BodyEnd::Abandoned { left_in_source } => self.skip += left_in_source,
                BodyEnd::SourceFailed => return Err(RestError::RelayFailed),
            }
        }
        let mut sink = [0u8; 8192];
        while self.skip > 0 {
            let want = self.skip.min(sink.len());
            match stream
                .read(&mut sink[..want])
                .await
                .map_err(RestError::Io)?
            {
                0 => return Err(RestError::ResetMidFrame),
                read => self.skip -= read,
            }
        }
        Ok(())
    }
}

/// The same socket through a duplicated descriptor, registered with the runtime on its own so
/// that a relay waits on its own readiness; `None` when out of descriptors.
fn second_registration(socket: &TcpStream) -> Option<TcpStream> {
    use std::os::fd::AsFd;
    let fd = socket.as_fd().try_clone_to_owned().ok()?;
    TcpStream::from_std(std::net::TcpStream::from(fd)).ok()
}
